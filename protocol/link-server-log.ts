/**
 * What the daemon's end of the link tells the operator about connections that never became the
 * mod (PROTOCOL §3, §5.2, §5.3). Every line has a snake_case `event`; `mod_connected` and
 * `mod_disconnected` are logged by the link server itself, once each.
 */
import { codeForCloseCode, type ProtocolError } from './errors.ts';
import type { Logger } from './log.ts';

/** A handshake this daemon rejected (warn), or a connection it closed to make room (debug). */
export function logRejected(log: Logger, error: ProtocolError, remote: string): void {
  const fields = {
    event: 'mod_link_rejected',
    remote,
    code: error.code,
    close_code: error.closeCode,
    message: error.message,
  };
  // Evictions are summed up by EvictionLog, not logged one by one.
  if (error.code === 'too_many_connections') log.debug('mod link connection rejected', fields);
  else log.warn('mod link connection rejected', fields);
}

/**
 * A connection the mod side closed before it authenticated: most often the mod refusing this
 * daemon (4031 `unknown_identity`: it pins another daemon key), or ws's 1009 (PROTOCOL §2.2).
 */
export function logPeerClose(log: Logger, code: number, reason: string, remote: string): void {
  const known = code === 1009 ? 'message_too_large' : codeForCloseCode(code);
  const fields = {
    event: 'mod_link_closed_in_handshake',
    remote,
    close_code: code,
    code: known ?? null,
    reason,
  };
  if (known) log.warn('mod link closed by the mod during the handshake', fields);
  else log.debug('mod link closed by the mod during the handshake', fields);
}

/** One warning per second of evictions, not one per socket: a flood must not flood the log too. */
export class EvictionLog {
  #evicted = 0;
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  count(pending: number): void {
    if (this.#evicted++ > 0) return;
    setTimeout(() => {
      this.#log.warn('mod link: unauthenticated connections closed to make room', {
        event: 'mod_link_connections_evicted',
        count: this.#evicted,
        pending,
      });
      this.#evicted = 0;
    }, 1_000).unref();
  }
}
