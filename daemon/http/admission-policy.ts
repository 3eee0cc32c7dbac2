/**
 * Which connection makes room when the API listener is full (docs/configuration.md, "Silent
 * connections"). A pure choice over what the connection guard tracks, so it is tested without
 * sockets.
 *
 * First come, first served at the global cap lets one address that reconnects fast enough hold
 * every slot. Instead, a newcomer from an address holding few connections takes the place of a
 * connection of the address holding the most, as long as that address would still hold at least
 * as many as the newcomer's afterwards (so two addresses never trade places back and forth, and
 * a flooder never evicts itself). Only a connection doing nothing is taken: the oldest that has
 * sent no byte, else the oldest idle keep-alive one. A request in flight (an event stream
 * included) is never cut.
 */

/** What a tracked connection is doing now. */
export type ConnectionActivity = 'silent' | 'idle' | 'busy';

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
  for (const [, connections] of richer) {
    const victim = oldest(connections, 'silent') ?? oldest(connections, 'idle');
    if (victim) return victim;
  }
  return null;
}

function oldest<C extends Admitted>(connections: ReadonlySet<C>, activity: ConnectionActivity): C | null {
  for (const connection of connections) if (connection.activity() === activity) return connection;
  return null;
}
