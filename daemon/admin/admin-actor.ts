/**
 * Who made an admin request (docs/admin.md, "Who the audit log names"), on its own so that the
 * modules naming an actor (routes, the pipeline's stages, the event streams, the audit log) need
 * not import each other for it.
 */

/**
 * - `local`: a connection to admin.sock; `uid` is the uid the socket is owned by, the only
 *   non-root user whose processes can open it (Node does not expose SO_PEERCRED; see the docs);
 * - `token`: an `Authorization: Bearer mgadm_…` admin token on the TCP listener;
 * - `session`: the operator panel's session cookie, made from a token or a one-time link.
 */
export type AdminActor =
  | { kind: 'local'; uid: number }
  | { kind: 'token'; token_id: string; name: string }
  | { kind: 'session'; token_id: string; name: string };

/** `local:1000`, `token:abc…`: the actor as one string (idempotency records, the log). */
export function actorId(actor: AdminActor): string {
  return actor.kind === 'local' ? `local:${actor.uid}` : `${actor.kind}:${actor.token_id}`;
}
