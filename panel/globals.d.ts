/**
 * Constants the bundler defines (daemon/admin/panel/panel-bundle.ts), so the panel knows the
 * daemon's vocabulary without importing daemon code into the browser.
 */

/** The API key scopes, in the documented order (docs/data-dir.md). */
declare const MODGATE_SCOPES: readonly string[];

/** The event types of the event log (docs/events.md), each an SSE `event:` name. */
declare const MODGATE_EVENT_TYPES: readonly string[];

/** The longest name an API key may have (docs/data-dir.md#keysjson). */
declare const MODGATE_KEY_NAME_MAX_LENGTH: number;

/** When each event type happens, in a few words, by type (daemon/events/types.ts EVENT_SUMMARIES). */
declare const MODGATE_EVENT_SUMMARIES: Readonly<Record<string, string>>;

/**
 * The ban and mute caps per unit, and the step a temporary mute is rounded up to, from the op
 * catalogue (protocol/ops/players.ts, PROTOCOL §6.6): what /v1 and the game check and do.
 */
declare const MODGATE_MODERATION: {
  banCaps: Readonly<Record<'minutes' | 'hours' | 'days' | 'months', number>>;
  muteCaps: Readonly<Record<'minutes' | 'hours' | 'days', number>>;
  muteStepMinutes: number;
};

/** Every write route (method, template, summary): what an audit line did, in the route's words. */
declare const MODGATE_WRITE_ROUTES: readonly { method: string; path: string; summary: string }[];
