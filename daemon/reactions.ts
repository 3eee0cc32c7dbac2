/**
 * What a change sets off in a running daemon (docs/architecture.md, "What a change sets off"):
 * one named list per trigger, each entry a small reaction saying what it guarantees, run in the
 * list's order. A data dir change (an admin write, `modgate reload`, SIGHUP) takes away at once
 * what it revoked rather than at its next use; an admin token's revocation ends what the token
 * opened; a panel session's end ends what the session opened.
 *
 * `startDaemon` wires the lists once (`wireReactions`), before the admin API listens, so no change
 * can come before its reactions are in place. A part that subscribes itself (the /v1 pipeline's
 * open event streams) is handed a `Hook` that a reaction fires.
 */
import type { ModLinkServer } from '../protocol/link-server.ts';
import type { AdminEventStreams } from './admin/admin-event-streams.ts';
import type { AdminTokens } from './admin/admin-tokens.ts';
import type { SessionStore } from './admin/sessions.ts';
import type { WebhookService } from './events/webhooks/webhook-service.ts';
import type { Logger } from './log/log.ts';
import type { Snapshot } from './store/data-dir.ts';
import type { LiveSnapshot } from './store/live-snapshot.ts';

/** The running daemon's parts that a change reaches. */
export interface ReactingParts {
  /** What the daemon serves from; its 'change' is the data dir change. */
  snapshot: LiveSnapshot;
  tokens: AdminTokens;
  /** The panel's sessions. */
  sessions: SessionStore;
  webhooks: WebhookService;
  link: ModLinkServer;
  /** The /v1 pipeline's open event streams subscribe here (`PipelineOptions.onSnapshotChange`). */
  apiStreams: Hook;
  /** GET /admin/v1/events's open streams. */
  adminStreams: AdminEventStreams;
  log: Logger;
}

/** One reaction: what it needs of the parts, and what set it off (the new snapshot, a token id). */
export type Reaction<Cause> = (parts: ReactingParts, cause: Cause) => void | Promise<void>;

/** Listeners a part registers itself and a reaction calls. */
export class Hook {
  readonly #listeners = new Set<() => void>();

  /** Calls `listener` each time the hook fires. */
  readonly subscribe = (listener: () => void): void => {
    this.#listeners.add(listener);
  };

  fire(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** An admin token the change revoked or removed is refused from now on, and its revocation's reactions run. */
export function refreshAdminTokens(parts: Pick<ReactingParts, 'tokens'>, current: Snapshot): void {
  parts.tokens.snapshotChanged(current);
}

/**
 * A webhook endpoint whose key was revoked, removed or expired is disabled now, not at its next
 * event; the timer that disables endpoints when their key expires is re-armed for the new keys.
 */
export function disableWebhooksOfRevokedKeys(parts: Pick<ReactingParts, 'webhooks'>): Promise<void> {
  return parts.webhooks.enforceKeys();
}

/** A mod key taken from mod-keys.json ends the link it holds, not only its next handshake. */
export function closeUntrustedModLink(parts: Pick<ReactingParts, 'link' | 'log'>): void {
  if (parts.link.revokeUntrusted()) {
    parts.log.warn('mod link closed: its key is no longer trusted', { event: 'mod_key_revoked' });
  }
}

/** Every open /v1 event stream is authorized again; one the change refuses ends with that refusal. */
export function reauthorizeApiStreams(parts: Pick<ReactingParts, 'apiStreams'>): void {
  parts.apiStreams.fire();
}

/** Every admin event stream opened with the token (or a panel session made from it) ends with 401. */
export function cutAdminStreamsOfToken(parts: Pick<ReactingParts, 'adminStreams'>, tokenId: string): void {
  parts.adminStreams.tokenRevoked(tokenId);
}

/** Every panel session made from the token is signed out. */
export function endPanelSessionsOfToken(parts: Pick<ReactingParts, 'sessions'>, tokenId: string): void {
  parts.sessions.endForToken(tokenId);
}

/** Every admin event stream opened through a session that ended (signed out, expired, pushed out) ends with 401. */
export function recheckAdminStreams(parts: Pick<ReactingParts, 'adminStreams'>): void {
  parts.adminStreams.recheckAll();
}

/** The reactions to each change, in the order they run. */
export const REACTIONS: {
  /** The snapshot was replaced: an admin write, `modgate reload`, SIGHUP. */
  dataDirChanged: readonly Reaction<Snapshot>[];
  /** An admin token stopped being valid (AdminTokens.onRevoked; set off by refreshAdminTokens). */
  adminTokenRevoked: readonly Reaction<string>[];
  /** Panel sessions ended before their expiry (SessionStore.onEnded). */
  panelSessionEnded: readonly Reaction<void>[];
} = {
  dataDirChanged: [
    refreshAdminTokens,
    disableWebhooksOfRevokedKeys,
    closeUntrustedModLink,
    reauthorizeApiStreams,
  ],
  adminTokenRevoked: [cutAdminStreamsOfToken, endPanelSessionsOfToken],
  panelSessionEnded: [recheckAdminStreams],
};

/** Runs REACTIONS on the changes of `parts` from now on; returns the function that stops them. */
export function wireReactions(parts: ReactingParts): () => void {
  const run = <Cause>(reactions: readonly Reaction<Cause>[], cause: Cause) => {
    // A reaction's own promise (a webhook being disabled) settles on its own, as it did as a listener.
    for (const reaction of reactions) void reaction(parts, cause);
  };
  const onChange = (current: Snapshot) => run(REACTIONS.dataDirChanged, current);
  parts.snapshot.on('change', onChange);
  const unRevoked = parts.tokens.onRevoked((tokenId) => run(REACTIONS.adminTokenRevoked, tokenId));
  const unEnded = parts.sessions.onEnded(() => run(REACTIONS.panelSessionEnded, undefined));
  return () => {
    parts.snapshot.off('change', onChange);
    unRevoked();
    unEnded();
  };
}
