/**
 * The group outbox while it runs (daemon/group/outbox.ts; docs/group.md, "When the database is
 * down"): a receiver appends lines for every sanction it applies, and the file is rewritten to
 * what still matters as it grows, so it stays bounded however many it applies; a kill -9 at any
 * point of that (a real child process) leaves a file that opens to what it held.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPACT_BYTES, GroupOutbox, SEEN_KEPT_MS, type ApplyingKey } from '../../../daemon/group/outbox.ts';
import { fromEvent } from '../../../daemon/group/sanction.ts';
import { eventually } from '../../../harness/stack.ts';
import { makeTempDir } from '../store/temp-dir.ts';
import { bundleModule } from '../../support/module-bundle.ts';

const OUTBOX_MODULE = new URL('../../../daemon/group/outbox.ts', import.meta.url);
const player = (n: number) => `7656119900${String(n).padStart(7, '0')}`;

/** A ban made on this server, as the outbox keeps it until it is published. */
function banMade(n: number) {
  const bannedAt = new Date(Date.now() - n).toISOString();
  const seen = fromEvent(
    'player.banned',
    {
      player: { platform_id: player(n) },
      ban: { banned: true, reason: 'cheating', expires_at: null, banned_at: bannedAt, banned_by: null },
      mute: { muted: false, muted_at: null, duration_minutes: null, channels: [] },
    },
    new Date(),
  );
  if (seen === null) throw new Error('a ban event is a sanction');
  return { ...seen.sanction, signature: seen.signature };
}

describe('the group outbox while it runs', () => {
  it('stays bounded after many applied sanctions, and opens again to what it held', async () => {
    const dir = await makeTempDir();
    let clock = Date.now();
    const outbox = await GroupOutbox.open(dir, () => clock);
    const unpublished = [banMade(1), banMade(2)];
    for (const sanction of unpublished) await outbox.add(sanction);
    await outbox.read(42);
    await outbox.applying('bans 76561199011111111'); // never answered before the stop
    const file = join(dir, 'group-outbox.jsonl');
    let largest = 0;
    // 20,000 rows a window of 32 at a time, 100 ms apart: about 4 MB of lines without rewrites.
    for (let row = 0; row < 20_000; row += 32) {
      const keys = Array.from({ length: 32 }, (_, n): ApplyingKey => `bans ${player(row + n)}`);
      await outbox.applying(...keys);
      for (const [n, key] of keys.entries()) {
        clock += 100;
        const note = {
          action: 'ban' as const,
          platform_id: player(row + n),
          signature: `s${row + n}`,
          at: clock,
        };
        await outbox.applied(key, note);
      }
      largest = Math.max(largest, (await stat(file)).size);
    }
    await outbox.close();
    // Five minutes of notes (3,000 at 100 ms) and the rest, under twice that plus the bound.
    expect(largest).toBeLessThan(2 * COMPACT_BYTES + 64 * 1024);

    const again = await GroupOutbox.open(dir, () => clock);
    expect(again.size).toBe(2);
    expect(again.first()?.local_id).toBe(unpublished[0]?.local_id);
    expect(again.readPosition).toBe(42);
    expect([...again.unsettled]).toEqual(['bans 76561199011111111']);
    const signatures = new Set(again.seen.map((note) => note.signature));
    expect(signatures.has('s19999')).toBe(true);
    expect(signatures.has('s100')).toBe(false); // older than SEEN_KEPT_MS
    expect(again.seen.every((note) => note.at >= clock - SEEN_KEPT_MS)).toBe(true);
    await again.close();
  }, 120_000);

  it('opens to what it held after a kill -9 at any moment of its rewrites', async () => {
    const dir = await makeTempDir();
    const first = await GroupOutbox.open(dir);
    const unpublished = [banMade(3), banMade(4), banMade(5)];
    for (const sanction of unpublished) await first.add(sanction);
    await first.read(7);
    await first.close();
    // A child that applies sanctions without end (a line each, no notes kept), as a receiver.
    // Run by plain node from a bundle of outbox.ts (test/support/module-bundle.ts): tsx would
    // compile the module's graph again in each of the four children.
    const bundleDir = await makeTempDir();
    const outboxBundle = await bundleModule(OUTBOX_MODULE, bundleDir);
    const script = join(bundleDir, 'receiver.mjs');
    await writeFile(
      script,
      `import { GroupOutbox } from ${JSON.stringify(outboxBundle)};
const outbox = await GroupOutbox.open(process.argv[2]);
for (let row = 0; ; row += 32) {
  const keys = Array.from({ length: 32 }, (_, n) => 'bans 7656119901' + String(row + n).padStart(7, '0'));
  await outbox.applying(...keys);
  for (const key of keys) await outbox.applied(key, null);
}
`,
    );
    const file = join(dir, 'group-outbox.jsonl');
    // Killed a different time after each rewrite began to show (the file's inode changes).
    for (const after of [0, 3, 11, 29]) {
      const inode = (await stat(file)).ino;
      const child = spawn(process.execPath, [script, dir], { stdio: 'ignore' });
      const exited = once(child, 'exit');
      await eventually(async () => (await stat(file)).ino !== inode, 60_000);
      await new Promise((resolve) => setTimeout(resolve, after));
      child.kill('SIGKILL');
      await exited;
      const opened = await GroupOutbox.open(dir);
      expect(opened.size).toBe(3);
      expect(opened.first()?.local_id).toBe(unpublished[0]?.local_id);
      expect(opened.readPosition).toBe(7);
      await opened.close();
      expect((await stat(file)).size).toBeLessThan(2 * COMPACT_BYTES + 64 * 1024);
    }
  }, 180_000);
});
