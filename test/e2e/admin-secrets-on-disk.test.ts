/**
 * A secret the admin API shows once (an API key's text, an admin token's) is in the first answer
 * only: the idempotency journal keeps the answer for replays with that field null, so no file in
 * the data dir ever holds it (docs/idempotency.md, "The journal"), over a real `modgate serve`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { startServe, stop, type ModgateProcess } from '../../harness/processes.ts';

/** Every file of the data dir as text, base64 bodies of the journal decoded. */
async function dataDirText(dir: string): Promise<string> {
  const names = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isFile());
  const texts = await Promise.all(names.map((entry) => readFile(join(dir, entry.name), 'utf8')));
  const journal = texts.join('\n').match(/"body":"([A-Za-z0-9+/=]*)"/g) ?? [];
  const decoded = journal.map((field) => Buffer.from(field.slice(8, -1), 'base64').toString('utf8'));
  return [...texts, ...decoded].join('\n');
}

describe('secrets shown once by the admin API', () => {
  let data: TestDataDir;
  let serve: ModgateProcess;

  beforeAll(async () => {
    data = await makeDataDir();
    ({ serve } = await startServe(data.dir));
  }, 60_000);

  afterAll(async () => {
    if (serve) await stop(serve);
    await data?.remove();
  });

  const cases = [
    { path: '/admin/v1/keys', body: { name: 'bot', scopes: ['server:read'] }, field: 'key' },
    { path: '/admin/v1/tokens', body: { name: 'panel' }, field: 'token' },
  ];

  for (const { path, body, field } of cases) {
    it(`are never written to disk, and an Idempotency-Key replay of POST ${path} answers ${field} null`, async () => {
      const headers = { 'idempotency-key': `once-${field}` };
      const post = () => adminRequest({ dataDir: data.dir, method: 'POST', path, body, headers });
      const first = await post();
      expect(first.status).toBe(201);
      const secret = (first.json as Record<string, string>)[field] as string;
      expect(secret).toMatch(/_[A-Za-z0-9]{20,}$/);
      const replay = await post();
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json).toEqual({ ...(first.json as object), [field]: null });
      const onDisk = await dataDirText(data.dir);
      expect(onDisk).toContain((first.json as { id: string }).id);
      expect(onDisk).not.toContain(secret.slice(-20));
    });
  }
});
