import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEndpoints, updateEndpoints } from '../../daemon/events/webhooks/endpoint-file.ts';
import { run, runOk } from '../../harness/cli.ts';
import { doctor, freePort } from './doctor-support.ts';

let dir: string;

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'modgate-webhooks-')), 'data');
  await runOk(['init', '--data-dir', dir]);
});

afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

async function add(...flags: string[]) {
  const stdout = await runOk(['webhooks', 'add', '--data-dir', dir, '--json', ...flags]);
  return JSON.parse(stdout) as Record<string, unknown> & { id: string; secret: string };
}

describe('modgate webhooks', () => {
  it('adds an endpoint and shows its secret once, in a 0600 webhooks.json', async () => {
    const created = await add('--url', 'https://bot.example/hook', '--events', 'player.muted,player.banned');
    expect(created).toMatchObject({
      url: 'https://bot.example/hook',
      events: ['player.banned', 'player.muted'],
      format: 'standard',
      status: 'active',
      created_by: null,
    });
    expect(created.id).toMatch(/^wh_[a-z0-9]{16}$/);
    expect(() => new Webhook(created.secret)).not.toThrow();
    expect((await stat(join(dir, 'webhooks.json'))).mode & 0o777).toBe(0o600);
    const listed = JSON.parse(await runOk(['webhooks', 'list', '--data-dir', dir, '--json'])) as {
      webhooks: Record<string, unknown>[];
    };
    expect(listed.webhooks).toHaveLength(1);
    expect(listed.webhooks[0]).not.toHaveProperty('secret');
    expect(await runOk(['webhooks', 'list', '--data-dir', dir])).not.toContain(created.secret);
  });

  it('edits the events and description of an endpoint, and refuses an edit that names neither', async () => {
    const created = await add('--url', 'https://bot.example/hook', '--events', 'all', '--description', 'ops');
    const args = ['webhooks', 'edit', created.id, '--data-dir', dir];
    expect(await runOk([...args, '--events', 'player.muted,player.banned'])).toBe(
      `Changed webhook ${created.id} (events: player.banned,player.muted).\n`,
    );
    const cleared = JSON.parse(await runOk([...args, '--description', '', '--json'])) as Record<
      string,
      unknown
    >;
    expect(cleared).toMatchObject({ events: ['player.banned', 'player.muted'], description: null });
    expect(cleared).not.toHaveProperty('secret');
    expect((await run(args)).code).not.toBe(0);
  });

  it('prints the secret in the text output of add', async () => {
    const stdout = await runOk([
      'webhooks',
      'add',
      '--data-dir',
      dir,
      '--url',
      'http://127.0.0.1:9/x',
      '--events',
      'all',
    ]);
    expect(stdout).toMatch(
      /^Created webhook wh_[a-z0-9]{16} → http:\/\/127\.0\.0\.1:9\/x \(standard, events: \*\)\n/,
    );
    expect(stdout).toMatch(/\nwhsec_[A-Za-z0-9+/]+=*\n$/);
  });

  it('refuses plain http to a public host unless --allow-http is given', async () => {
    const refused = await run([
      'webhooks',
      'add',
      '--data-dir',
      dir,
      '--url',
      'http://bot.example/x',
      '--events',
      'all',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('plain http is allowed only to a loopback address');
    const allowed = await add('--url', 'http://bot.example/x', '--events', 'all', '--allow-http');
    expect(allowed.allow_http).toBe(true);
  });

  it('refuses unknown event types and formats with a usage error', async () => {
    const events = await run([
      'webhooks',
      'add',
      '--data-dir',
      dir,
      '--url',
      'https://a.example/',
      '--events',
      'player.exploded',
    ]);
    expect(events.code).toBe(2);
    expect(events.stderr).toContain('unknown event type "player.exploded"');
    const format = await run([
      'webhooks',
      'add',
      '--data-dir',
      dir,
      '--url',
      'https://a.example/',
      '--events',
      'all',
      '--format',
      'slack',
    ]);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('expected standard or discord');
  });

  it('removes an endpoint, and says so when the id is unknown', async () => {
    const { id } = await add('--url', 'https://a.example/', '--events', 'all');
    expect(await runOk(['webhooks', 'remove', id, '--data-dir', dir])).toBe(`Removed webhook ${id}.\n`);
    const again = await run(['webhooks', 'remove', id, '--data-dir', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no webhook with id ${id} in ${dir} (see \`modgate webhooks list\`)`);
    const json = await run(['webhooks', 'remove', id, '--data-dir', dir, '--json']);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'webhook_not_found' } });
    expect((await run(['webhooks', 'remove', 'nope', '--data-dir', dir])).code).toBe(2);
  });

  it('lists a disabled endpoint with its reason, warns in doctor, and enables it again', async () => {
    const { id } = await add('--url', 'https://a.example/', '--events', 'all');
    await updateEndpoints(dir, (all) =>
      all.map((e) => ({
        ...e,
        disabledAt: new Date('2030-01-01T00:00:00Z'),
        disabledReason: 'the receiver answered 410 Gone',
      })),
    );
    const text = await runOk(['webhooks', 'list', '--data-dir', dir]);
    expect(text).toContain('DISABLED since 2030-01-01T00:00:00.000Z (the receiver answered 410 Gone)');
    const report = await doctor(dir, { api: await freePort(), mod: await freePort() });
    expect(report.line('webhooks')).toMatch(
      new RegExp(`^warn +webhooks +${id} \\(https://a.example\\) is disabled since`),
    );
    expect(report.fix('webhooks')).toBe(
      `fix the receiver, then: modgate webhooks enable --data-dir ${dir} ${id}`,
    );
    expect(await runOk(['webhooks', 'enable', id, '--data-dir', dir])).toBe(`Enabled webhook ${id}.\n`);
    const listed = JSON.parse(await runOk(['webhooks', 'list', '--data-dir', dir, '--json'])) as {
      webhooks: { status: string; disabled_at: string | null }[];
    };
    expect(listed.webhooks[0]).toMatchObject({ status: 'active', disabled_at: null });
  });

  it('names a failing endpoint in doctor by its origin, never by the path that holds a Discord token', async () => {
    const url = 'https://discord.com/api/webhooks/123/TOKEN-SECRET-abc';
    const { id } = await add('--url', url, '--events', 'all', '--format', 'discord');
    await updateEndpoints(dir, (all) =>
      all.map((e) => ({ ...e, disabledAt: new Date('2030-01-01T00:00:00Z'), disabledReason: 'http_status' })),
    );
    const report = await doctor(dir, { api: await freePort(), mod: await freePort() });
    expect(report.line('webhooks')).toContain(`${id} (https://discord.com) is disabled since`);
    expect(report.stdout + report.stderr).not.toContain('TOKEN-SECRET');
  });

  it('rotates a secret with an overlap, prints the new one once, and refuses an overlap past a week', async () => {
    const { id, secret } = await add('--url', 'https://a.example/', '--events', 'all');
    const now = new Date('2030-01-01T00:00:00.000Z');
    const rotated = await run(
      ['webhooks', 'rotate-secret', id, '--overlap', '12h', '--data-dir', dir, '--json'],
      {
        now,
      },
    );
    expect(rotated.code).toBe(0);
    const view = JSON.parse(rotated.stdout) as { secret: string; previous_secret_until: string };
    expect(view.secret).not.toBe(secret);
    expect(view.previous_secret_until).toBe('2030-01-01T12:00:00.000Z');
    const [stored] = await readEndpoints(dir);
    expect(stored?.previousSecrets).toEqual([{ secret, until: new Date('2030-01-01T12:00:00.000Z') }]);
    const text = await runOk(['webhooks', 'rotate-secret', id, '--overlap', '0', '--data-dir', dir]);
    expect(text).toMatch(/^Rotated the secret of webhook wh_[a-z0-9]{16}\.\n/);
    expect(text.trim().split('\n').at(-1)).toMatch(/^whsec_/);
    expect(await runOk(['webhooks', 'list', '--data-dir', dir])).not.toContain('whsec_');
    const long = await run(['webhooks', 'rotate-secret', id, '--overlap', '8d', '--data-dir', dir]);
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('at most 7d');
  });

  it('shows no deliveries for a new endpoint', async () => {
    const { id } = await add('--url', 'https://a.example/', '--events', 'all');
    expect(await runOk(['webhooks', 'deliveries', id, '--data-dir', dir])).toBe(
      'No delivery attempts yet.\n',
    );
    expect(JSON.parse(await runOk(['webhooks', 'deliveries', id, '--data-dir', dir, '--json']))).toEqual({
      data: [],
    });
  });

  it('refuses to read a webhooks.json other users can read', async () => {
    await add('--url', 'https://a.example/', '--events', 'all');
    await chmod(join(dir, 'webhooks.json'), 0o644);
    const result = await run(['webhooks', 'list', '--data-dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('chmod 600');
    expect(await readFile(join(dir, 'webhooks.json'), 'utf8')).toContain('whsec_');
  });
});
