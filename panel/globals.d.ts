/**
 * Constants the bundler defines (daemon/admin/panel/panel-bundle.ts), so the panel knows the
 * daemon's vocabulary without importing daemon code into the browser.
 */

/** The API key scopes, in the documented order (docs/data-dir.md). */
declare const MODGATE_SCOPES: readonly string[];

/** The event types of the event log (docs/events.md), each an SSE `event:` name. */
declare const MODGATE_EVENT_TYPES: readonly string[];

/**
 * The ban and mute caps per unit, and the step a temporary mute is rounded up to, from the op
 * catalogue (protocol/ops/players.ts, PROTOCOL §6.6): what /v1 and the game check and do.
 */
declare const MODGATE_MODERATION: {
  banCaps: Readonly<Record<'minutes' | 'hours' | 'days' | 'months', number>>;
  muteCaps: Readonly<Record<'minutes' | 'hours' | 'days', number>>;
  muteStepMinutes: number;
};
