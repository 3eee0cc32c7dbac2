/**
 * Issue 38, item 4: the audit log on a disk that is really full, a small tmpfs mounted for this
 * file (root only). Lines lost while it is full leave a gap record in audit.jsonl itself, and
 * /healthz's fault (StorageHealth) ends as soon as that record is written, without waiting for the
 * next audited request. Where mounting is impossible (not root, no tmpfs) this file says so on
 * stderr and its test is skipped; .ci/run runs as root and sets MODGATE_REQUIRE_TMPFS=1, and then
 * a failed mount fails instead.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../harness/stack.ts';
import { fillDisk, mountTmpfs } from '../../../harness/tmpfs.ts';
import { AUDIT_FILE, AuditLog, type AuditEntry } from '../../../daemon/log/audit-log.ts';
import { silentLogger } from '../../../daemon/log/log.ts';
import { StorageHealth } from '../../../daemon/storage-health.ts';

const disk = mountTmpfs('256k', 'test/daemon/log/audit-log-disk-full.test.ts');
const mountPoint = disk.path;

afterAll(() => disk.unmount());

function entry(n: number, time: string): AuditEntry {
  return {
    time,
    request_id: `req_${n}`,
    key_id: null,
    actor: { kind: 'local', uid: 0 },
    method: 'POST',
    route: '/admin/v1/keys',
    target: '/admin/v1/keys',
    status: 201,
    outcome: 'ok',
    error_code: null,
    replayed: false,
  };
}

describe.runIf(disk.run)('the audit log on a full disk', () => {
  it('records the lines it lost in audit.jsonl and recovers health once the disk has room, before any new line', async () => {
    if (disk.failure !== null) throw new Error(`MODGATE_REQUIRE_TMPFS=1 but a tmpfs: ${disk.failure}`);
    const filler = await fillDisk(mountPoint);
    const health = new StorageHealth(silentLogger);
    const now = Date.parse('2030-01-01T00:00:10Z');
    const audit = await AuditLog.open(mountPoint, health, () => now);
    try {
      const times = ['2030-01-01T00:00:01.000Z', '2030-01-01T00:00:02.000Z', '2030-01-01T00:00:03.000Z'];
      for (const [n, time] of times.entries())
        await expect(audit.append(entry(n, time))).rejects.toThrow(/ENOSPC/);
      expect(health.faults).toEqual([expect.stringMatching(/^audit\.jsonl: ENOSPC/)]);

      await rm(filler);
      await eventually(() => health.faults.length === 0, 10_000);
      const lines = (await readFile(join(mountPoint, AUDIT_FILE), 'utf8')).split('\n').filter(Boolean);
      expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
        {
          time: '2030-01-01T00:00:10.000Z',
          gap: {
            lines_lost: 3,
            first_lost_at: times[0],
            last_lost_at: times[2],
            error: expect.stringMatching(/^ENOSPC/) as string,
          },
        },
      ]);

      await audit.append(entry(3, '2030-01-01T00:00:11.000Z'));
      const after = (await readFile(join(mountPoint, AUDIT_FILE), 'utf8')).split('\n').filter(Boolean);
      expect(after).toHaveLength(2);
      expect(JSON.parse(after[1] as string)).toMatchObject({ request_id: 'req_3' });
    } finally {
      await audit.close();
    }
  });
});
