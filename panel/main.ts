/**
 * The panel's entry point, bundled by esbuild (daemon/admin/panel/panel-bundle.ts) into the one
 * script the panel's page loads. Browser code: it imports nothing of the daemon.
 */
import { h, render } from 'preact';
import { App } from './app.ts';

const root = document.getElementById('app');
if (root !== null) render(h(App, null), root);
