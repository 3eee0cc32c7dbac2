/**
 * What a reader may see of an event (docs/events.md, "Scopes"). Every key with `events:read`
 * sees every event type; fields the spec treats as sensitive (a player's IP address) are only
 * shown to keys that also hold `players:read_sensitive`, the scope that guards them elsewhere.
 */
import type { Scope } from '../scopes.ts';
import type { EventType, StoredEvent } from './types.ts';

/** Turns a stored event into what one reader is shown. */
export type EventView = (event: StoredEvent) => StoredEvent;

/** Fields of `data`, per type, shown only with `players:read_sensitive`. */
export const SENSITIVE_FIELDS: Partial<Record<EventType, readonly string[]>> = {
  'player.joined': ['ip'],
};

const full: EventView = (event) => event;

const redacted: EventView = (event) => {
  const hidden = SENSITIVE_FIELDS[event.type];
  if (!hidden || !hidden.some((field) => field in event.data)) return event;
  const data = { ...event.data };
  for (const field of hidden) delete data[field];
  return { ...event, data };
};

/** The view for a key's scopes; one shared function per view, so messages can be shared too. */
export function eventView(scopes: readonly Scope[]): EventView {
  return scopes.includes('players:read_sensitive') ? full : redacted;
}
