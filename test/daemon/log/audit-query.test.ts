import { execFileSync } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  auditPageReader,
  readAuditPage,
  type AuditFilter,
  type AuditPosition,
  type AuditReadLimits,
} from '../../../daemon/log/audit-query.ts';

let dir: string;
let clock = 0;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'modgate-audit-query-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Line {
  time: string;
  request_id: string;
  key_id: string | null;
  method: string;
  route: string;
  target: string;
  status: number;
  actor?: Record<string, unknown>;
}

/** `count` lines, one second apart, numbered from `from`; every third by key_b with a 404. */
function lines(from: number, count: number, extra: (n: number) => Partial<Line> = () => ({})): Line[] {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    return {
      time: new Date(Date.UTC(2030, 0, 1, 0, 0, n)).toISOString(),
      request_id: `req_${String(n).padStart(4, '0')}`,
      key_id: n % 3 === 0 ? 'key_b' : 'key_a',
      method: 'POST',
      route: '/v1/players/{ref}/ban',
      target: n === 7 ? '/v1/players/steam%3A7/ban' : `/v1/players/p${n}/ban`,
      status: n % 3 === 0 ? 404 : 200,
      ...extra(n),
    };
  });
}

const text = (items: Line[]) => items.map((line) => `${JSON.stringify(line)}\n`).join('');
const ids = (items: readonly object[]) =>
  items.map((item) => String((item as { request_id?: unknown }).request_id));

const LIMITS: AuditReadLimits = { limit: 7, budgetMs: 60_000, maxFiles: 64 };

/** Every page after `first`, following positions until none is left. */
async function allPages(filter: AuditFilter = {}, limits = LIMITS, now?: () => number) {
  const seen: string[] = [];
  let after: AuditPosition | null = null;
  for (let pages = 0; pages < 10_000; pages += 1) {
    const page = await readAuditPage(dir, filter, after, limits, now);
    seen.push(...ids(page.entries));
    if (page.next === null) return { seen, pages: pages + 1 };
    after = page.next;
  }
  throw new Error('the pages never ended');
}

describe('reading the audit log newest first', () => {
  it('pages through the current file and rotated plain and gzip copies without a gap or a repeat', async () => {
    await writeFile(join(dir, 'audit.jsonl.2.gz'), gzipSync(text(lines(0, 20))));
    await writeFile(join(dir, 'audit.jsonl.1'), text(lines(20, 20)));
    await writeFile(join(dir, 'audit.jsonl'), text(lines(40, 20)));
    const { seen } = await allPages();
    expect(seen).toEqual(ids(lines(0, 60)).reverse());
  });

  it('keeps a position working when the log is rotated and compressed between two pages', async () => {
    await writeFile(join(dir, 'audit.jsonl'), text(lines(0, 30)));
    const first = await readAuditPage(dir, {}, null, { ...LIMITS, limit: 10 });
    expect(ids(first.entries)).toEqual(ids(lines(20, 10)).reverse());
    // logrotate with compress: the file moves away, a new one starts, the old one is gzipped.
    await rename(join(dir, 'audit.jsonl'), join(dir, 'audit.jsonl.1'));
    await writeFile(join(dir, 'audit.jsonl'), text(lines(30, 5)));
    const second = await readAuditPage(dir, {}, first.next, { ...LIMITS, limit: 10 });
    expect(ids(second.entries)).toEqual(ids(lines(10, 10)).reverse());
    const moved = await readFile(join(dir, 'audit.jsonl.1'));
    await rm(join(dir, 'audit.jsonl.1'));
    await writeFile(join(dir, 'audit.jsonl.2.gz'), gzipSync(moved));
    const third = await readAuditPage(dir, {}, second.next, { ...LIMITS, limit: 10 });
    expect(ids(third.entries)).toEqual(ids(lines(0, 10)).reverse());
    expect(third.next).toBeNull();
  });

  it('reads within the limits its reader was built with, the defaults filling the rest', async () => {
    await writeFile(join(dir, 'audit.jsonl.1'), text(lines(0, 5)));
    await writeFile(join(dir, 'audit.jsonl'), text(lines(5, 5)));
    const current = await auditPageReader(dir, { maxFiles: 1 })({}, null, 20);
    expect(ids(current.entries)).toEqual(ids(lines(5, 5)).reverse());
    const both = await auditPageReader(dir)({}, null, 20);
    expect(ids(both.entries)).toEqual(ids(lines(0, 10)).reverse());
  });

  it('ends with no more pages when the file a position names was deleted by retention', async () => {
    await writeFile(join(dir, 'audit.jsonl'), text(lines(0, 30)));
    const first = await readAuditPage(dir, {}, null, LIMITS);
    await rm(join(dir, 'audit.jsonl'));
    await writeFile(join(dir, 'audit.jsonl'), text(lines(30, 3)));
    expect(await readAuditPage(dir, {}, first.next, LIMITS)).toEqual({ entries: [], next: null });
  });

  it('leaves out a line still being written and skips a damaged or over-long one', async () => {
    const good = lines(0, 3);
    const long = JSON.stringify({ ...lines(3, 1)[0], padding: 'x'.repeat(70 * 1024) });
    await writeFile(
      join(dir, 'audit.jsonl'),
      `${text(good.slice(0, 1))}{"torn\n${long}\n${text(good.slice(1))}`,
    );
    await appendFile(join(dir, 'audit.jsonl'), '{"time":"2031-01-01T00:00:00.000Z","request_id":"half');
    expect((await allPages()).seen).toEqual(ids(good).reverse());
  });

  it('reads lines across chunk boundaries in a file larger than one read', async () => {
    const many = lines(0, 2_000, (n) => ({ route: `/v1/route/${'r'.repeat(n % 97)}` }));
    await writeFile(join(dir, 'audit.jsonl'), text(many));
    const { seen } = await allPages({}, { ...LIMITS, limit: 200 });
    expect(seen).toEqual(ids(many).reverse());
  });

  it('filters by key, status or status class, route, method, admin actor and time range', async () => {
    const admin = (n: number): Partial<Line> =>
      n % 5 === 0
        ? { key_id: null, route: '/admin/v1/keys', actor: { kind: 'token', token_id: 'adm_1', name: 'ci' } }
        : n % 5 === 1
          ? { key_id: null, route: '/admin/v1/api', actor: { kind: 'local', uid: 1000 } }
          : {};
    const all = lines(0, 60, admin);
    await writeFile(join(dir, 'audit.jsonl.1'), text(all.slice(0, 30)));
    await writeFile(join(dir, 'audit.jsonl'), text(all.slice(30)));
    const expectFilter = async (filter: AuditFilter, keep: (line: Line) => boolean) =>
      expect((await allPages(filter)).seen).toEqual(ids(all.filter(keep)).reverse());
    await expectFilter({ keyId: 'key_b' }, (l) => l.key_id === 'key_b');
    await expectFilter({ status: '404' }, (l) => l.status === 404);
    await expectFilter({ status: '2xx' }, (l) => l.status < 300);
    await expectFilter({ route: '/admin/v1/keys' }, (l) => l.route === '/admin/v1/keys');
    await expectFilter({ method: 'DELETE' }, () => false);
    await expectFilter({ route: '/v1/players/p3/ban' }, (l) => l.target === '/v1/players/p3/ban');
    await expectFilter({ route: '/v1/players/steam:7/ban' }, (l) => l.target === '/v1/players/steam%3A7/ban');
    await expectFilter({ actor: 'token' }, (l) => l.actor?.['kind'] === 'token');
    await expectFilter({ actor: 'token:adm_1' }, (l) => l.actor?.['token_id'] === 'adm_1');
    await expectFilter({ actor: 'local:1000' }, (l) => l.actor?.['kind'] === 'local');
    await expectFilter({ actor: 'local:0' }, () => false);
    const since = all[12]?.time as string;
    const until = all[47]?.time as string;
    await expectFilter({ since, until }, (l) => l.time >= since && l.time <= until);
  });

  it('ends a page short when the time budget is spent, and the next page goes on from there', async () => {
    await writeFile(join(dir, 'audit.jsonl.2.gz'), gzipSync(text(lines(0, 40))));
    await writeFile(join(dir, 'audit.jsonl.1'), text(lines(40, 30)));
    await writeFile(join(dir, 'audit.jsonl'), text(lines(70, 30)));
    // Each look at the clock costs a millisecond: a 3 ms budget lets a page read three lines.
    const { seen, pages } = await allPages(
      { keyId: 'key_b' },
      { ...LIMITS, budgetMs: 3 },
      () => (clock += 1),
    );
    expect(seen).toEqual(ids(lines(0, 100).filter((l) => l.key_id === 'key_b')).reverse());
    expect(pages).toBeGreaterThan(100 / 7);
  });

  it('reads no rotated copy that is a symbolic link or not a regular file', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'modgate-audit-outside-'));
    try {
      await writeFile(join(outside, 'secret.jsonl'), text(lines(100, 3, () => ({ key_id: 'stolen' }))));
      await symlink(join(outside, 'secret.jsonl'), join(dir, 'audit.jsonl.1'));
      execFileSync('mkfifo', [join(dir, 'audit.jsonl.2')]);
      await writeFile(join(dir, 'audit.jsonl'), text(lines(0, 3)));
      expect((await allPages()).seen).toEqual(ids(lines(0, 3)).reverse());
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
