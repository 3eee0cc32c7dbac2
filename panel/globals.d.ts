/**
 * Constants the bundler defines (daemon/admin/panel/panel-bundle.ts), so the panel knows the
 * daemon's vocabulary without importing daemon code into the browser.
 */

/** The API key scopes, in the documented order (docs/data-dir.md). */
declare const MODGATE_SCOPES: readonly string[];

/** The event types of the event log (docs/events.md), each an SSE `event:` name. */
declare const MODGATE_EVENT_TYPES: readonly string[];

/** Every write route (method, template, summary): what an audit line did, in the route's words. */
declare const MODGATE_WRITE_ROUTES: readonly { method: string; path: string; summary: string }[];
