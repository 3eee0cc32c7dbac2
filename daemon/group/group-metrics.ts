/**
 * Group mode's series (docs/metrics.md, "Group mode"), in the daemon's prom-client registry and
 * loaded only when both group mode and metrics are on: how far behind each server of the group is
 * (`modgate_group_pending`, read from the database at scrape time, or as last read while it is
 * unreachable), whether the database is connected, its failures, the propagation lag from a
 * sanction's creation on its origin server to its application here, and how many rows of the log
 * came in NOTIFY payloads and how many by query (docs/group.md, "Cost").
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Group } from './group.ts';
import type { GroupObserverMetrics } from './group-observer.ts';

/** Seconds: a live group applies within a second; a server back from a long absence, later. */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3_600];

export interface GroupMetrics extends GroupObserverMetrics {
  /** Starts the gauges read at scrape time, once the group exists. */
  watch(group: Group): void;
}

export function groupMetrics(registry: Registry): GroupMetrics {
  const registers = [registry];
  const lag = new Histogram({
    name: 'modgate_group_propagation_lag_seconds',
    help: "From a sanction's creation on its origin server to its application by this server's game.",
    buckets: LAG_BUCKETS,
    registers,
  });
  const errors = new Counter({
    name: 'modgate_group_database_errors_total',
    help: "Failed connection attempts, lost connections and failed reads on the group's database.",
    registers,
  });
  errors.inc(0);
  const received = new Counter({
    name: 'modgate_group_rows_received_total',
    help: "Rows of the group's log taken to apply, by where they came from: a NOTIFY payload or a query.",
    labelNames: ['via'],
    registers,
  });
  for (const via of ['notice', 'query'] as const) received.inc({ via }, 0);
  let group: Group | null = null;
  new Gauge({
    name: 'modgate_group_database_connected',
    help: "1 while this daemon is connected to the group's database.",
    registers,
    collect() {
      this.set(group?.connected === true ? 1 : 0);
    },
  });
  new Gauge({
    name: 'modgate_group_pending',
    help: 'Sanctions each server of the group has yet to apply (as last read while the database is unreachable).',
    labelNames: ['server_id', 'server_name'],
    registers,
    async collect() {
      if (group === null) return;
      const status = await group.status();
      this.reset();
      for (const server of status.servers)
        this.set({ server_id: server.server_id, server_name: server.name }, server.pending);
    },
  });
  return {
    lagSeconds: (seconds) => lag.observe(seconds),
    databaseError: () => errors.inc(),
    received: (via, rows) => received.inc({ via }, rows),
    watch(watched) {
      group = watched;
    },
  };
}
