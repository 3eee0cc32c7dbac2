/**
 * Platform ids of players no simulator has: the spec's ban takes a well-formed id that never
 * joined, and the group tests sanction such players so no game event of the simulated world can
 * touch them. Each file gives its own prefix, so the ids of two files never meet in one group.
 */
export function strangerIds(prefix: string): () => string {
  let players = 0;
  return () => {
    players += 1;
    return `${prefix}${String(1000 + players)}`;
  };
}
