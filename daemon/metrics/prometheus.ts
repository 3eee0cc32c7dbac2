/**
 * The DaemonMetrics hooks recorded with prom-client, in a registry of their own (never the
 * global one, so two daemons in one process, as in tests, do not share counts), plus Node's
 * process metrics (collectDefaultMetrics). Series whose labels come from a small fixed set start
 * at zero, so an alert on `increase(…)` works from the first scrape. Names and labels are
 * documented, with example alerts, in docs/metrics.md.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { EVENT_REFUSALS } from '../../protocol/frames.ts';
import { methodLabel, type DaemonMetrics } from './metrics.ts';

export interface PrometheusMetrics extends DaemonMetrics {
  readonly registry: Registry;
}

/** Seconds: from a cached read (well under a millisecond) to an op near its deadline. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/**
 * How often the event-loop lag is sampled (`nodejs_eventloop_lag_*`). prom-client's 10 ms woke an
 * idle daemon a hundred times a second: 10 CPU ticks per 30 s, where the daemon itself takes about
 * one (docs/performance-history.md, "Idle CPU: what polled, and what each poll cost"). Each sample
 * is still exact; there are fewer of them.
 */
const EVENT_LOOP_SAMPLE_MS = 1_000;

export function createPrometheusMetrics(version: string): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Histogram<L>({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers });

  gauge('modgate_build_info', 'Always 1; the running version as a label.', ['version']).set({ version }, 1);
  const requests = counter('modgate_http_requests_total', 'HTTP requests answered.', [
    'route',
    'method',
    'status',
  ]);
  const requestSeconds = histogram('modgate_http_request_duration_seconds', 'Time to answer.', ['route']);
  const linkUp = gauge('modgate_mod_link_up', '1 while an authenticated mod is connected.');
  const connects = counter(
    'modgate_mod_link_connects_total',
    'Mods that authenticated (the first and every reconnect).',
  );
  const disconnects = counter('modgate_mod_link_disconnects_total', 'Authenticated links that closed.');
  const ops = counter('modgate_mod_ops_total', 'Ops sent to the mod, by outcome.', ['op', 'outcome']);
  const opSeconds = histogram('modgate_mod_op_duration_seconds', 'Time from sending an op to its end.', [
    'op',
  ]);
  const cache = counter('modgate_read_cache_lookups_total', 'Cacheable reads, by how they were answered.', [
    'outcome',
  ]);
  const idempotency = counter('modgate_idempotency_total', 'Idempotency-Key replays and conflicts.', [
    'outcome',
  ]);
  const limited = counter('modgate_rate_limited_total', 'Requests refused with 429 by a rate limit.', [
    'layer',
  ]);
  const writeFailures = counter('modgate_write_failures_total', 'Failed appends to the data dir files.', [
    'store',
  ]);
  const subscribers = gauge('modgate_event_subscribers', 'Open event-stream subscriptions.', ['transport']);
  const streamCuts = counter('modgate_event_stream_cuts_total', 'Event streams the daemon cut.', ['reason']);
  const deliveries = counter('modgate_webhook_deliveries_total', 'Webhook delivery attempts.', ['outcome']);
  const deliverySeconds = histogram('modgate_webhook_delivery_duration_seconds', 'Webhook attempt time.');
  const refused = counter('modgate_mod_events_refused_total', 'Mod events refused, not stored.', ['reason']);
  const skipped = counter('modgate_event_log_lines_skipped_total', 'Event log lines a reader skipped.');
  const notStored = counter('modgate_event_log_events_lost_total', 'Events the log could not store.');
  const idsLost = counter('modgate_event_log_ids_lost_total', 'Event ids lost to a damaged segment.');
  const restarts = counter('modgate_worker_restarts_total', 'Background loops restarted.', ['worker']);

  linkUp.set(0);
  for (const outcome of ['hit', 'coalesced', 'miss']) cache.inc({ outcome }, 0);
  for (const outcome of ['replay', 'conflict']) idempotency.inc({ outcome }, 0);
  for (const layer of ['edge', 'key', 'stream']) limited.inc({ layer }, 0);
  for (const store of ['audit', 'journal']) writeFailures.inc({ store }, 0);
  subscribers.set({ transport: 'sse' }, 0);
  for (const reason of ['slow_reader', 'gone', 'access_revoked']) streamCuts.inc({ reason }, 0);
  for (const outcome of ['delivered', 'failed', 'gave_up']) deliveries.inc({ outcome }, 0);
  for (const reason of EVENT_REFUSALS) refused.inc({ reason }, 0);
  restarts.inc({ worker: 'webhook' }, 0);

  return {
    registry,
    httpRequest(route, method, status, seconds) {
      requests.inc({ route, method: methodLabel(method), status: String(status) });
      requestSeconds.observe({ route }, seconds);
    },
    modLink(up) {
      linkUp.set(up ? 1 : 0);
      (up ? connects : disconnects).inc();
    },
    modOp(op, outcome, seconds) {
      ops.inc({ op, outcome });
      opSeconds.observe({ op }, seconds);
    },
    readCache: (outcome) => cache.inc({ outcome }),
    idempotency: (outcome) => idempotency.inc({ outcome }),
    rateLimited: (layer) => limited.inc({ layer }),
    writeFailed: (store) => writeFailures.inc({ store }),
    eventSubscribers: (delta, transport) => subscribers.inc({ transport }, delta),
    eventStreamCut: (reason) => streamCuts.inc({ reason }),
    webhookDelivery(outcome, seconds) {
      deliveries.inc({ outcome });
      deliverySeconds.observe(seconds);
    },
    eventsRefused: (reason) => refused.inc({ reason }),
    eventLineSkipped: () => skipped.inc(),
    eventsNotStored: (count) => notStored.inc(count),
    eventIdsLost: (count) => idsLost.inc(count),
    workerRestarted: (worker) => restarts.inc({ worker }),
  };
}
