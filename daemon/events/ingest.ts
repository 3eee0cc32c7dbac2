/**
 * Where events enter the log from the daemon's side of the mod link: game events the mod sends
 * (PROTOCOL §9.2), checked against the limits and each type's shape (§9.5, event-checks.ts),
 * stored once each by their stream and sequence and acknowledged only after the fsync (§9.3), and
 * the daemon's own `mod.connected` / `mod.disconnected`. A refused event is counted in metrics,
 * summed into one log line a minute, and named in the ack so the mod knows.
 */
import type { ModEvent } from '../../protocol/frames.ts';
import type { ModEventBatch, ModLinkServer, ModPeer } from '../../protocol/link-server.ts';
import type { Logger } from '../log/log.ts';
import type { DaemonMetrics } from '../metrics/metrics.ts';
import { checkEvents } from './event-checks.ts';
import { EventRateLimit, resolveEventLimits, type EventLimits } from './event-limits.ts';
import { IntervalReport } from './interval-report.ts';
import type { FileEventLog } from './event-log.ts';

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
  /** The last body's ack, sent or not: each ack waits for the one before it (PROTOCOL §9.3). */
  acked: Promise<void>;
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
    acked: Promise.resolve(),
  };
  const onEvents = (batch: ModEventBatch) => storeBatch(batch, ingest);
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
 * PROTOCOL §9.3, §9.5: checks the body, appends each accepted event in order (a sequence already
 * stored is skipped), and once all of them and every repeat are durable acknowledges the highest
 * sequence of this body, with the refused ones listed. Acks are per body and leave in body order,
 * so an ack never covers an event of a later body that is not yet durable. When the log refuses
 * an append (writes failing and its memory bound reached), nothing is acknowledged and the link is
 * closed, so the mod resends; the acks of later bodies, queued behind, then find the link closed.
 */
function storeBatch(batch: ModEventBatch, ingest: Ingest): void {
  const { stream } = batch;
  const { events, log } = ingest;
  const stored = events.streamSeq(stream);
  const checked = checkEvents(batch.events, ingest.limits, ingest.rate, (seq) => seq <= stored);
  const writes: Promise<unknown>[] = checked.accepted.map((event) =>
    events.append({ type: event.type, data: event.data, at: event.at, source: { stream, seq: event.seq } }),
  );
  // Taken now, it covers this body's events and the earlier ones its repeats stand for.
  writes.push(events.durable());
  for (const { reason, seq } of checked.refused) {
    ingest.metrics?.eventsRefused(reason);
    ingest.refusals.add(reason, 1, { stream, last_seq: seq });
  }
  const durable = Promise.all(writes).then(
    () => true,
    (error: unknown) => {
      log.error('mod events not stored; closing the link so the mod sends them again', { stream, error });
      return false;
    },
  );
  const last = (batch.events.at(-1) as ModEvent).seq;
  ingest.acked = Promise.all([durable, ingest.acked]).then(([ok]) => {
    if (ok) batch.ack(last, checked.refused);
    else batch.abort();
  });
}
