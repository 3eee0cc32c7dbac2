/**
 * Run as its own process under `prlimit --fsize` by event-log-disk-full.test.ts: a FileEventLog whose
 * first write fails (EFBIG, as on a full disk). It prints one JSON line per log line, then a
 * `result` line. Mode `recover`: appends past the pending cap are refused, then the process
 * raises its own file-size limit (as freed space would) and the log must resume by itself.
 * Mode `shutdown`: the log is closed while its events still wait. Mode `repeat`: the mod resends
 * events that still wait (as after a redial), and the ingest must not acknowledge them before
 * they are durable (PROTOCOL §9.3), though the log's flushed() resolves while writes fail.
 */
import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { FileEventLog } from '../../../daemon/events/event-log.ts';
import { recordLinkEvents } from '../../../daemon/events/ingest.ts';
import type { Logger } from '../../../daemon/log/log.ts';
import type { ModEventBatch, ModLinkServer } from '../../../protocol/link-server.ts';

const [dir, mode] = process.argv.slice(2) as [string, 'recover' | 'shutdown' | 'repeat'];
const AT = '2025-06-01T12:00:00.000Z';
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
let failed = false;
const line =
  (level: string) =>
  (msg: string, fields: Record<string, unknown> = {}) => {
    if (msg.startsWith('event log: append failed')) failed = true;
    print({ level, msg, ...fields });
  };
const logger = { debug: () => {}, info: line('info'), warn: line('warn'), error: line('error') } as Logger;
let lostCounted = 0;
const eventLog = await FileEventLog.open(dir, {
  log: logger,
  maxPendingBytes: 20_000,
  metrics: {
    eventLineSkipped: () => {},
    eventsNotStored: (n) => void (lostCounted += n),
    eventIdsLost: () => {},
  },
});
const event = (n: number) => ({
  type: 'command.executed' as const,
  data: { at: '2025-06-01 12:00:00.000', command: `#Say ${n}`, result: 'p'.repeat(2_000), actor: null },
  source: { stream: 'child', seq: n + 1 },
});
// 60 events of 2 KB in one write: past the 64 KiB the file may grow to.
const first = Array.from({ length: 60 }, (_, n) => eventLog.append(event(n)));
while (!failed) await new Promise((resolve) => setTimeout(resolve, 20));
if (mode === 'recover') {
  // 126 KB already wait, past the 20,000-byte cap: these are refused at once, and lost.
  const more = await Promise.allSettled(Array.from({ length: 5 }, (_, n) => eventLog.append(event(60 + n))));
  execFileSync('prlimit', ['--pid', String(process.pid), '--fsize=unlimited:unlimited']);
  const stored = await Promise.allSettled(first);
  const read = eventLog.readAfter(0, 1000) as unknown as Array<{ id: number; data: { command: string } }>;
  const after = await eventLog.append(event(100));
  print({
    result: true,
    stored: stored.filter((s) => s.status === 'fulfilled').length,
    refused: more.filter((s) => s.status === 'rejected').length,
    lostCounted,
    commands: read.map((e) => e.data.command),
    readIds: read.map((e) => e.id),
    after: after?.id,
  });
  await eventLog.close();
} else if (mode === 'repeat') {
  const link = new EventEmitter();
  const unwire = recordLinkEvents(link as unknown as ModLinkServer, eventLog, logger);
  let raised = false;
  const acks: Array<{ seq: number; afterRaise: boolean }> = [];
  const resent = [1, 2].map((seq) => ({ seq, type: 'command.executed', at: AT, data: event(seq - 1).data }));
  const acked = new Promise<void>((resolve) => {
    const record = (seq: number) => {
      acks.push({ seq, afterRaise: raised });
      resolve();
    };
    const batch: ModEventBatch = { stream: 'child', events: resent, ack: record, abort: () => record(-1) };
    link.emit('events', batch);
  });
  // Long enough for an ack that waited on flushed() alone: a failing log's flush has returned.
  await eventLog.flushed();
  for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  raised = true;
  execFileSync('prlimit', ['--pid', String(process.pid), '--fsize=unlimited:unlimited']);
  await acked;
  const stored = await Promise.allSettled(first);
  print({ result: true, acks, stored: stored.filter((s) => s.status === 'fulfilled').length });
  unwire();
  await eventLog.close();
} else {
  await eventLog.close();
  const settled = await Promise.allSettled(first);
  print({ result: true, stored: settled.filter((s) => s.status === 'fulfilled').length, lostCounted });
}
