/**
 * Where events enter the log from the daemon's side of the mod link: game events the mod sends
 * (PROTOCOL §9.2), stored once each by their stream and sequence and acknowledged only after the
 * fsync (§9.3), and the daemon's own `mod.connected` / `mod.disconnected`.
 */
import type { ModEventBatch, ModLinkServer, ModPeer } from '../../protocol/link-server.ts';
import type { Logger } from '../log.ts';
import type { FileEventLog } from './log.ts';
import { isEventType, type StoredEvent } from './types.ts';

/** Wires the link to the log; returns the function that unwires it. */
export function recordLinkEvents(link: ModLinkServer, events: FileEventLog, log: Logger): () => void {
  const onEvents = (batch: ModEventBatch) => void storeBatch(batch, events, log);
  const onConnect = (peer: ModPeer) =>
    record(events, log, 'mod.connected', {
      mod_version: peer.modVersion,
      protocol_version: peer.protocolVersion,
    });
  const onDisconnect = (code: number, reason: string) =>
    record(events, log, 'mod.disconnected', { code, reason });
  link.on('events', onEvents);
  link.on('connect', onConnect);
  link.on('disconnect', onDisconnect);
  return () => {
    link.off('events', onEvents);
    link.off('connect', onConnect);
    link.off('disconnect', onDisconnect);
  };
}

function record(
  events: FileEventLog,
  log: Logger,
  type: 'mod.connected' | 'mod.disconnected',
  data: Record<string, unknown>,
): void {
  events.append({ type, data }).catch((error: unknown) => log.error('event not stored', { type, error }));
}

/**
 * PROTOCOL §9.3: appends each new event in order (a sequence already stored is skipped by the
 * log), waits for the fsync, then acknowledges the highest sequence of the batch. An event of a
 * type this daemon does not know (a newer mod) is logged and acknowledged, never stored.
 */
async function storeBatch(batch: ModEventBatch, events: FileEventLog, log: Logger): Promise<void> {
  const { stream } = batch;
  const writes: Promise<StoredEvent | null>[] = [];
  for (const event of batch.events) {
    if (!isEventType(event.type)) {
      log.warn('mod sent an event type this daemon does not know; skipped', { type: event.type });
      continue;
    }
    const at = Date.parse(event.at);
    writes.push(
      events.append({
        type: event.type,
        data: event.data,
        at: Number.isNaN(at) ? new Date().toISOString() : new Date(at).toISOString(),
        source: { stream, seq: event.seq },
      }),
    );
  }
  try {
    await Promise.all(writes);
    await events.flushed();
  } catch (error) {
    log.error('mod events not stored; not acknowledged, the mod will resend them', { stream, error });
    return;
  }
  const last = batch.events.at(-1)?.seq ?? 0;
  batch.ack(Math.max(last, events.streamSeq(stream)));
}
