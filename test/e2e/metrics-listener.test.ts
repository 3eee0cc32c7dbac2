/**
 * The metrics listener of a real `modgate serve` process, with a real `modgate sim` behind it:
 * after real requests, an SSE subscriber and webhook deliveries to receivers on loopback
 * sockets, /metrics parses with a Prometheus text-format parser and holds the documented
 * families (docs/metrics.md) with bounded labels only.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../daemon/routes/index.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { launchServe, startSim, stop, type ModgateProcess } from '../../harness/processes.ts';
import { openSse, type SseClient } from '../../harness/sse-client.ts';
import { eventually } from '../../harness/stack.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

const KEY_LIMIT = 20;

describe('the metrics listener of modgate serve', () => {
  let data: TestDataDir;
  let serve: ModgateProcess;
  let sim: ModgateProcess;
  let api: string;
  let metricsUrl: string;
  let key: { id: string; key: string };
  let limited: { id: string; key: string };
  let playerId: string;
  let families: Map<string, ParsedFamily>;
  let scraped: string;
  let subscriber: SseClient;
  /** Answers its first attempt 503 with Retry-After: 0 (retried at once), then 204. */
  let flaky: Receiver;
  /** Answers 410 Gone: its endpoint is disabled after the first attempt. */
  let gone: Receiver;

  const get = (path: string, bearer: string | null = key.key, init: RequestInit = {}) =>
    fetch(`${api}${path}`, {
      ...init,
      headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...init.headers },
    });
  const command = (idempotencyKey: string, text: string) =>
    get('/v1/commands', key.key, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify({ verb: 'Announce', args: [text] }),
    });
  const samples = (name: string) => families.get(name)?.metrics ?? [];
  const value = (name: string, labels: Record<string, string> = {}) =>
    Number(samples(name).find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v))?.value);
  const addWebhook = async (receiver: Receiver) => {
    receiver.secret = (await data.addWebhook(receiver.url)).secret;
  };

  beforeAll(async () => {
    data = await makeDataDir();
    key = await data.createKey('--name', 'metrics-main');
    limited = await data.createKey('--name', 'metrics-limited');
    flaky = await startReceiver((request) =>
      request.index === 0 ? { status: 503, headers: { 'retry-after': '0' } } : { status: 204 },
    );
    gone = await startReceiver(() => ({ status: 410 }));
    await addWebhook(flaky);
    await addWebhook(gone);
    const metricsPort = await freePort();
    const config = join(data.dir, 'modgate.toml');
    await writeFile(
      config,
      `[rate_limit]\nper_key = { limit = ${KEY_LIMIT}, window_sec = 600 }\nper_address = { limit = 100000, window_sec = 60 }\n`,
    );
    const extra = ['--config', config, '--metrics-listen', `127.0.0.1:${metricsPort}`];
    const served = await launchServe(data.dir, { extra });
    serve = served.serve;
    api = `http://127.0.0.1:${served.apiPort}`;
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    await eventually(() => serve.stdoutText().includes('"msg":"listening"'), 30_000);
    sim = startSim(data.dir, served.modPort, ['--catalog-delay', '0', '--players', '20']);
    // /healthz, not /v1: polling with a key would spend its rate limit.
    const healthz = async () => (await (await get('/healthz', null)).json()) as { mod_connected: boolean };
    await eventually(async () => (await healthz()).mod_connected, 30_000);
    await get('/v1/server');
    subscriber = await openSse(`${api}/v1/events`, { authorization: `Bearer ${key.key}` });

    await get('/v1/server', null); // 401
    await get('/v1/no-such-thing'); // 404, no route
    const page = (await (await get('/v1/players?limit=10')).json()) as { data: { platform_id: string }[] };
    playerId = page.data[0]?.platform_id ?? '';
    await get('/v1/players?limit=10'); // the same read again: from the cache
    await get(`/v1/players/${playerId}`);
    await command('metrics-1', 'hello');
    await command('metrics-1', 'hello'); // replayed
    await command('metrics-1', 'something else'); // 409 idempotency_conflict
    for (let i = 0; i <= KEY_LIMIT; i++) await get('/v1/server', limited.key); // the last is 429
    // The command's event reaches the subscriber and both receivers (the flaky one on its retry).
    await subscriber.next((message) => message.event === 'command.executed', 30_000);
    await eventually(() => flaky.processed.length > 0 && gone.requests.length > 0, 30_000);
    scraped = await (await fetch(metricsUrl)).text();
    families = new Map(parsePrometheusTextFormat(scraped).map((f) => [f.name, f]));
  }, 120_000);

  afterAll(async () => {
    subscriber?.close();
    await Promise.all([sim && stop(sim), serve && stop(serve), flaky?.close(), gone?.close()]);
    await data?.remove();
  });

  it('counts requests by route template, method and status', () => {
    expect(
      value('modgate_http_requests_total', { route: '/v1/server', method: 'GET', status: '200' }),
    ).toBeGreaterThan(0);
    expect(value('modgate_http_requests_total', { route: '/v1/server', status: '401' })).toBe(1);
    expect(value('modgate_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(value('modgate_http_requests_total', { route: '/v1/players/{ref}', status: '200' })).toBe(1);
    expect(value('modgate_http_requests_total', { route: '/v1/server', status: '429' })).toBe(1);
  });

  it('has a latency histogram per route and per op', () => {
    expect(families.get('modgate_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(families.get('modgate_mod_op_duration_seconds')?.type).toBe('HISTOGRAM');
    // The parser folds a labelled histogram's series into one; the count lines show each route.
    for (const route of ['/v1/server', '/v1/players', '/v1/players/{ref}', '/v1/commands', 'unmatched'])
      expect(scraped).toContain(`modgate_http_request_duration_seconds_count{route="${route}"}`);
    expect(scraped).toContain('modgate_mod_op_duration_seconds_count{op="players.list"}');
  });

  it('reports the mod link up, its connects and the ops by outcome', () => {
    expect(value('modgate_mod_link_up')).toBe(1);
    expect(value('modgate_mod_link_connects_total')).toBeGreaterThanOrEqual(1);
    expect(value('modgate_mod_ops_total', { op: 'server.status', outcome: 'ok' })).toBeGreaterThan(0);
    expect(value('modgate_mod_ops_total', { op: 'commands.execute', outcome: 'ok' })).toBe(1);
  });

  it('counts read-cache hits and misses, idempotency replays and conflicts, and rate limits by layer', () => {
    expect(value('modgate_read_cache_lookups_total', { outcome: 'hit' })).toBeGreaterThanOrEqual(1);
    expect(value('modgate_read_cache_lookups_total', { outcome: 'miss' })).toBeGreaterThanOrEqual(1);
    expect(value('modgate_idempotency_total', { outcome: 'replay' })).toBe(1);
    expect(value('modgate_idempotency_total', { outcome: 'conflict' })).toBe(1);
    expect(value('modgate_rate_limited_total', { layer: 'key' })).toBe(1);
    expect(value('modgate_rate_limited_total', { layer: 'edge' })).toBe(0);
  });

  it('starts the write-failure counters at zero and exposes the process metrics', () => {
    expect(value('modgate_write_failures_total', { store: 'audit' })).toBe(0);
    expect(value('modgate_write_failures_total', { store: 'journal' })).toBe(0);
    expect(families.has('process_cpu_seconds_total')).toBe(true);
    expect(families.has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect(value('modgate_build_info')).toBe(1);
  });

  it('counts the open SSE subscribers, and none once the subscriber has hung up', async () => {
    expect(value('modgate_event_subscribers', { transport: 'sse' })).toBe(1);
    subscriber.close();
    await eventually(async () => {
      const now = new Map(
        parsePrometheusTextFormat(await (await fetch(metricsUrl)).text()).map((f) => [f.name, f]),
      );
      return Number(now.get('modgate_event_subscribers')?.metrics[0]?.value) === 0;
    });
  });

  it('counts every webhook attempt by outcome, with its duration', () => {
    // The flaky receiver's 503, then its 204s; the 410 gives up on the other endpoint at once.
    expect(value('modgate_webhook_deliveries_total', { outcome: 'failed' })).toBe(1);
    expect(value('modgate_webhook_deliveries_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
    expect(value('modgate_webhook_deliveries_total', { outcome: 'gave_up' })).toBe(1);
    expect(families.get('modgate_webhook_delivery_duration_seconds')?.type).toBe('HISTOGRAM');
    const attempts = scraped.match(/^modgate_webhook_delivery_duration_seconds_count (\d+)$/m)?.[1];
    const counted = ['failed', 'delivered', 'gave_up'].map((outcome) =>
      value('modgate_webhook_deliveries_total', { outcome }),
    );
    expect(Number(attempts)).toBe(counted.reduce((a, b) => a + b, 0));
  });

  it('never puts a key, key id, player id or client address in a label', async () => {
    const text = await (await fetch(metricsUrl)).text();
    for (const secret of [key.key, key.id, limited.id, playerId, '127.0.0.1'])
      expect(text).not.toContain(secret);
    const routes = new Set([...ROUTES.map((route) => route.path), 'unmatched', '/healthz', '/openapi.json']);
    for (const sample of samples('modgate_http_requests_total')) {
      expect(routes).toContain(sample.labels?.['route']);
    }
  });

  it('answers only /metrics', async () => {
    expect((await fetch(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(405);
  });
});
