/**
 * Where events enter the log from the daemon's side of the mod link: game events the mod sends
 * (PROTOCOL §9.2), checked against the limits and each type's shape (§9.5, event-checks.ts),
 * stored once each by their stream and sequence and acknowledged only after the fsync (§9.3), and
 * the daemon's own `mod.connected` / `mod.disconnected`. A refused event is counted in metrics,
 * summed into one log line a minute, and named in the ack so the mod knows.
 */
import type { ModEventBatch, ModLinkServer, ModPeer } from '../../protocol/link-server.ts';
import type { Logger } from '../log/log.ts';
import type { DaemonMetrics } from '../metrics/metrics.ts';
import { checkEvents } from './event-checks.ts';
import { EventRateLimit, resolveEventLimits, type EventLimits } from './event-limits.ts';
import { IntervalReport } from './interval-report.ts';
import type { FileEventLog } from './event-log.ts';
import type { StoredEvent } from './types.ts';

export interface IngestOptions {
  /** The bounds of PROTOCOL §9.5; each defaults to DEFAULT_EVENT_LIMITS. */
  limits?: Partial<EventLimits>;
  metrics?: Pick<DaemonMetrics, 'eventsRefused'>;
  now?: () => number;
}

interface Ingest {
  events: FileEventLog;
  log: Logger;
  limits: EventLimits;
  rate: EventRateLimit;
  refusals: IntervalReport;
  metrics: IngestOptions['metrics'];
}

/** Wires the link to the log; returns the function that unwires it. */
export function recordLinkEvents(
  link: ModLinkServer,
  events: FileEventLog,
  log: Logger,
  options: IngestOptions = {},
): () => void {
  const limits = resolveEventLimits(options.limits);
  const ingest: Ingest = {
    events,
    log,
    limits,
    rate: new EventRateLimit(limits, options.now),
    refusals: new IntervalReport(log, 'mod events refused (not stored; the mod was told in the ack)'),
    metrics: options.metrics,
  };
  const onEvents = (batch: ModEventBatch) => void storeBatch(batch, ingest);
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
    ingest.refusals.close();
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
 * PROTOCOL §9.3, §9.5: checks the batch, appends each accepted event in order (a sequence already
 * stored is skipped by the log), waits for the fsync, then acknowledges the highest sequence of
 * the batch with the refused ones listed. When the log refuses an append (writes failing and its
 * memory bound reached), nothing is acknowledged and the link is closed, so the mod resends.
 */
async function storeBatch(batch: ModEventBatch, ingest: Ingest): Promise<void> {
  const { stream } = batch;
  const { events, log } = ingest;
  const stored = events.streamSeq(stream);
  const checked = checkEvents(batch.events, ingest.limits, ingest.rate, (seq) => seq <= stored);
  const writes: Promise<StoredEvent | null>[] = checked.accepted.map((event) =>
    events.append({ type: event.type, data: event.data, at: event.at, source: { stream, seq: event.seq } }),
  );
  for (const { reason, seq } of checked.refused) {
    ingest.metrics?.eventsRefused(reason);
    ingest.refusals.add(reason, 1, { stream, last_seq: seq });
  }
  try {
    await Promise.all(writes);
    await events.flushed();
  } catch (error) {
    log.error('mod events not stored; closing the link so the mod sends them again', { stream, error });
    batch.abort();
    return;
  }
  const last = batch.events.at(-1)?.seq ?? 0;
  batch.ack(Math.max(last, events.streamSeq(stream)), checked.refused);
}
