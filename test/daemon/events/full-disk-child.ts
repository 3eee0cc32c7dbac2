/**
 * Run as its own process under `prlimit --fsize` by event-log-disk-full.test.ts: a FileEventLog whose
 * first write fails (EFBIG, as on a full disk). It prints one JSON line per log line, then a
 * `result` line. Mode `recover`: appends past the pending cap are refused, then the process
 * raises its own file-size limit (as freed space would) and the log must resume by itself.
 * Mode `shutdown`: the log is closed while its events still wait.
 */
import { execFileSync } from 'node:child_process';
import { FileEventLog } from '../../../daemon/events/event-log.ts';
import type { Logger } from '../../../daemon/log/log.ts';

const [dir, mode] = process.argv.slice(2) as [string, 'recover' | 'shutdown'];
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
  metrics: { eventLineSkipped: () => {}, eventsNotStored: (n) => void (lostCounted += n) },
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
} else {
  await eventLog.close();
  const settled = await Promise.allSettled(first);
  print({ result: true, stored: settled.filter((s) => s.status === 'fulfilled').length, lostCounted });
}
