/**
 * Which connection makes room when the API listener is full (docs/configuration.md, "Silent
 * connections"). A pure choice over what the connection guard tracks, so it is tested without
 * sockets.
 *
 * First come, first served at the global cap lets one address that reconnects fast enough hold
 * every slot. Instead, a newcomer from an address holding few connections takes the place of a
 * connection of the address holding the most, as long as that address would still hold at least
 * as many as the newcomer's afterwards (so two addresses never trade places back and forth, and
 * a flooder never evicts itself). Only a connection that has handed nothing to the API is taken:
 * the oldest that has sent no byte, else the oldest idle keep-alive one; and only when no richer
 * address has either, the oldest of the richest that is still sending a request head, since
 * closing it fails no request mid-way (its sender retries it whole). Otherwise stalled heads
 * from a few addresses, or from one trusted proxy, would hold every slot for the whole header
 * timeout. A request in flight (its head complete: being handled, its body arriving, an event
 * stream) is never cut.
 */

/**
 * What a tracked connection is doing now: `silent` (no byte yet), `idle` (a keep-alive
 * connection at rest between requests), `head` (bytes received since its last response, but no
 * complete request head yet; over TLS, a handshake under way counts too) or `busy` (a request in
 * flight).
 */
export type ConnectionActivity = 'silent' | 'idle' | 'head' | 'busy';

export interface Admitted {
  activity(): ConnectionActivity;
}

/**
 * The connection to close so that a newcomer from `newcomer` can be admitted, or null when
 * there is none and the newcomer is refused. `holders` maps each counted address to its open
 * connections, oldest first (a Set iterates in insertion order).
 */
export function chooseVictim<C extends Admitted>(
  holders: ReadonlyMap<string, ReadonlySet<C>>,
  newcomer: string,
): C | null {
  const held = holders.get(newcomer)?.size ?? 0;
  const richer = [...holders]
    .filter(([subject, connections]) => subject !== newcomer && connections.size >= held + 2)
    .sort(([, a], [, b]) => b.size - a.size);
  let head: C | null = null;
  for (const [, connections] of richer) {
    const oldest = oldestByActivity(connections);
    const victim = oldest.silent ?? oldest.idle;
    if (victim) return victim;
    head ??= oldest.head ?? null;
  }
  return head;
}

/** The oldest connection of each activity, in one pass (one that has sent nothing ends it). */
function oldestByActivity<C extends Admitted>(
  connections: ReadonlySet<C>,
): Partial<Record<ConnectionActivity, C>> {
  const oldest: Partial<Record<ConnectionActivity, C>> = {};
  for (const connection of connections) {
    const activity = connection.activity();
    oldest[activity] ??= connection;
    if (activity === 'silent') break;
  }
  return oldest;
}
