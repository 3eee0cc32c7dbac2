/**
 * The event log on a disk that refuses writes (issue 24, item 7a), in a child process under a
 * soft file-size limit (`prlimit --fsize`, no root needed) so the failure is the kernel's own
 * EFBIG: the log holds what it could not write and retries by itself, refuses (and counts) what
 * would pass its memory cap, says what it lost once it resumes, and never leaves a hole or a
 * torn line in the segment. The child is full-disk-child.ts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../store/temp-dir.ts';

const CHILD = new URL('./full-disk-child.ts', import.meta.url).pathname;

async function runChild(mode: 'recover' | 'shutdown' | 'repeat') {
  const dir = await makeTempDir();
  const { stdout } = await promisify(execFile)('prlimit', [
    '--fsize=65536:unlimited',
    '--',
    process.execPath,
    '--import',
    'tsx',
    CHILD,
    dir,
    mode,
  ]);
  const lines = stdout
    .trim()
    .split('\n')
    .map((text) => JSON.parse(text) as Record<string, unknown>);
  return { lines, result: lines.find((line) => line['result'] === true) as Record<string, unknown>, dir };
}

describe('the event log when a write fails', () => {
  it('holds the events, retries by itself once space returns, and says how many it refused meanwhile', async () => {
    const { lines, result } = await runChild('recover');
    expect(result).toMatchObject({ stored: 60, refused: 5, lostCounted: 5, after: 61 });
    expect(result['readIds']).toEqual([...Array(60).keys()].map((n) => n + 1));
    expect(result['commands']).toEqual([...Array(60).keys()].map((n) => `#Say ${n}`));
    const messages = lines.map((line) => line['msg']);
    expect(
      messages.filter(
        (msg) => msg === 'event log: append failed; the events wait in memory and the write is retried',
      ),
    ).toHaveLength(1);
    expect(lines.find((line) => line['msg'] === 'event log: appends resumed')).toMatchObject({
      events_lost: 5,
    });
  }, 60_000);

  it('acknowledges a resent body whose events still wait for the disk only once they are durable', async () => {
    // PROTOCOL §9.3 rule 5: an ack before then would let the mod forget events a crash would lose.
    const { result } = await runChild('repeat');
    expect(result).toMatchObject({ acks: [{ seq: 2, afterRaise: true }], stored: 60 });
  }, 60_000);

  it('says how many events it loses when it stops while writes still fail', async () => {
    const { lines, result } = await runChild('shutdown');
    expect(result).toMatchObject({ stored: 0, lostCounted: 60 });
    expect(
      lines.find((line) => line['msg'] === 'event log: events not stored, lost at shutdown'),
    ).toMatchObject({
      events_lost: 60,
    });
  }, 60_000);
});
