/**
 * The log lines of a real `modgate serve` process: JSON when its stdout is not a terminal, one
 * `request` line per request with the client address (after trusted proxies) and the error
 * code, snake_case fields, never a key; `--log-format pretty` for a person at a terminal.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { launchServe, logLines, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

describe('the logs of modgate serve', () => {
  let data: TestDataDir;
  /** The pretty daemon's: one serve per data dir (its admin.sock refuses a second). */
  let prettyData: TestDataDir;
  let key: { id: string; key: string };
  let json: ModgateProcess;
  let pretty: ModgateProcess;
  let api: string;
  const forged = 'mg_live_thisisnotakeybutlookslikeoneabcdefghijklmnop';

  beforeAll(async () => {
    [data, prettyData] = await Promise.all([makeDataDir(), makeDataDir()]);
    key = await data.createKey('--name', 'log-test');
    const config = join(data.dir, 'modgate.toml');
    await writeFile(config, '[api]\ntrusted_proxies = ["127.0.0.1"]\n');
    const [served, servedPretty] = await Promise.all([
      launchServe(data.dir, { extra: ['--config', config] }),
      launchServe(prettyData.dir, { extra: ['--log-format', 'pretty'] }),
    ]);
    [json, pretty] = [served.serve, servedPretty.serve];
    api = `http://127.0.0.1:${served.apiPort}`;
    await eventually(() => json.stdoutText().includes('"msg":"listening"'), 30_000);
    await eventually(() => pretty.stdoutText().includes('listening'), 30_000);
    await fetch(`${api}/v1/server`, {
      headers: { authorization: `Bearer ${key.key}`, 'x-forwarded-for': '203.0.113.9' },
    });
    await fetch(`${api}/v1/server`, { headers: { authorization: `Bearer ${forged}` } });
    await eventually(
      () => logLines(json.stdoutText()).filter((line) => line['msg'] === 'request').length === 2,
    );
  }, 90_000);

  afterAll(async () => {
    await Promise.all([json && stop(json), pretty && stop(pretty)]);
    await data?.remove();
    await prettyData?.remove();
  });

  const requests = () => logLines(json.stdoutText()).filter((line) => line['msg'] === 'request');

  it('writes JSON lines with an ISO time and a level name when stdout is not a terminal', () => {
    const lines = json.stdoutText().trim().split('\n');
    expect(logLines(json.stdoutText())).toHaveLength(lines.length);
    const listening = logLines(json.stdoutText()).find((line) => line['msg'] === 'listening');
    expect(listening).toMatchObject({ level: 'info', msg: 'listening' });
    expect(String(listening?.['time'])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('logs the client address a trusted proxy forwarded, and the error code', () => {
    const [ok, refused] = requests();
    // The mod is offline: /v1/server answers 503 server_unavailable for the valid key.
    expect(ok).toMatchObject({ route: '/v1/server', key_id: key.id, client_address: '203.0.113.9' });
    expect(ok?.['error_code']).toBe('server_unavailable');
    expect(refused).toMatchObject({
      status: 401,
      error_code: 'unauthorized',
      key_id: null,
      client_address: '127.0.0.1',
    });
  });

  it('uses snake_case field names only', () => {
    for (const line of logLines(json.stdoutText())) {
      for (const field of Object.keys(line)) expect(field).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });

  it('never logs a key, valid or forged', () => {
    expect(json.stdoutText()).not.toContain(key.key);
    expect(json.stdoutText()).not.toContain(forged);
  });

  it('writes one readable line per event with --log-format pretty', () => {
    const line =
      pretty
        .stdoutText()
        .split('\n')
        .find((text) => text.includes('listening')) ?? '';
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening \{/);
    expect(() => JSON.parse(line)).toThrow();
  });
});
