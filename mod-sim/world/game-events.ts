/**
 * What happens in the game, as events for the daemon (PROTOCOL §9, docs/events.md): the world's
 * stores report each change here as it is made, whoever made it (an API op, the console, a
 * player, the presence schedule), so the API and the game produce the same events. The
 * simulator connects the sink to its bridge's event outbox; with nothing connected events are
 * dropped. Payloads are copied when emitted, since the world shares and later edits identity
 * objects in place.
 */
import { isoDateTime } from './time.ts';

export type GameEventListener = (type: string, data: Record<string, unknown>, at: string) => void;

export class GameEvents {
  #listener: GameEventListener | null = null;
  readonly #clock: () => number;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  /** Sends every later event to `listener` (one at a time; the last connected wins). */
  connect(listener: GameEventListener | null): void {
    this.#listener = listener;
  }

  emit(type: string, data: Record<string, unknown>): void {
    this.#listener?.(type, structuredClone(data), isoDateTime(this.#clock()));
  }
}
