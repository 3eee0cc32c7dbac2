#!/usr/bin/env node
// `npx modgate` from a checkout: run the TypeScript CLI through tsx's loader.
import { register } from 'tsx/esm/api';
register();
await import('../cli/main.ts');
