import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../../daemon/openapi/openapi.ts';
import { ROUTES } from '../../../daemon/routes/index.ts';
import { startStack, type Stack } from '../../../harness/stack.ts';
import { errorOf, newKey } from './commands-support.ts';
import { suiteStack } from '../../support/suite.ts';

type Catalog = { version: number; data: Array<Record<string, unknown> & { verb: string; args: unknown[] }> };

const ENTRY_KEYS = [
  'verb',
  'level',
  'target_mode',
  'output_mode',
  'requires_online',
  'direct_spawn_capable',
  'args',
];
const ARG_KEYS = [
  'name',
  'type_name',
  'description',
  'data_type',
  'completion',
  'required',
  'repeating',
  'values',
];

describe('GET /v1/commands/catalog', () => {
  let stack: Stack;
  let twin: Stack;

  beforeAll(async () => {
    [stack, twin] = await Promise.all([
      startStack({ sim: { catalogDelayMs: 0, activityIntervalMs: 0 } }),
      startStack({ sim: { catalogDelayMs: 0, activityIntervalMs: 0, seed: 1 } }),
    ]);
  });
  afterAll(() => Promise.all([stack.close(), twin.close()]));

  it('answers the envelope with every verb, sorted, each entry and argument with every key', async () => {
    const res = await stack.call('/v1/commands/catalog');
    expect(res.status).toBe(200);
    const catalog = res.json as Catalog;
    expect(Object.keys(catalog)).toEqual(['version', 'data']);
    expect(catalog.version).toBe(stack.sim!.world.commands.catalog.version);
    const verbs = catalog.data.map((e) => e.verb);
    expect(verbs).toHaveLength(44);
    expect(verbs).toEqual([...verbs].sort());
    for (const entry of catalog.data) {
      expect(Object.keys(entry)).toEqual(ENTRY_KEYS);
      for (const arg of entry.args) expect(Object.keys(arg as object)).toEqual(ARG_KEYS);
    }
    const weather = catalog.data.find((e) => e.verb === 'SetWeather');
    expect(weather?.args[0]).toMatchObject({ values: ['Sunny', 'Cloudy', 'Rain', 'Storm', 'Fog', 'Snow'] });
  });

  it('gives byte-identical bodies and ETags for identical catalogues on two servers', async () => {
    const [one, two] = await Promise.all([
      stack.call('/v1/commands/catalog'),
      twin.call('/v1/commands/catalog'),
    ]);
    expect(String(one.body)).toBe(String(two.body));
    expect(one.headers['etag']).toBe(two.headers['etag']);
  });

  it('sends a strong ETag and a private max-age of 60 s, and 304 on If-None-Match', async () => {
    const res = await stack.call('/v1/commands/catalog');
    const etag = res.headers['etag']!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(res.headers['cache-control']).toBe('private, max-age=60');
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await stack.call('/v1/commands/catalog', { headers: { 'if-none-match': header } });
      expect(again.status).toBe(304);
      expect(again.body).toBeNull();
      expect(again.headers['etag']).toBe(etag);
    }
    const changed = await stack.call('/v1/commands/catalog', { headers: { 'if-none-match': '"stale"' } });
    expect(changed.status).toBe(200);
  });

  it('asks the game at most once per max-age window however often it is read', async () => {
    const before = twin.sim!.opCounts.get('commands.catalog') ?? 0;
    await Promise.all(Array.from({ length: 5 }, () => twin.call('/v1/commands/catalog')));
    await twin.call('/v1/commands/catalog');
    expect((twin.sim!.opCounts.get('commands.catalog') ?? 0) - before).toBeLessThanOrEqual(1);
  });

  it('needs the commands:read scope', async () => {
    const executor = await newKey(stack, '--name', 'runner', '--scopes', 'commands:execute');
    const res = await stack.call('/v1/commands/catalog', {
      headers: { authorization: `Bearer ${executor}` },
    });
    expect(res.status).toBe(403);
    expect(errorOf(res.json).details).toEqual({ missing_scope: 'commands:read' });
  });
});

describe('GET /v1/commands/catalog while the game builds it', () => {
  const stack = suiteStack({ sim: { catalogDelayMs: 30_000, activityIntervalMs: 0 } });

  it('answers 503 server_unavailable with Retry-After until loaded, then the catalogue', async () => {
    const res = await stack.call('/v1/commands/catalog');
    expect(res.status).toBe(503);
    expect(errorOf(res.json).code).toBe('server_unavailable');
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(res.headers['etag']).toBeUndefined();
    stack.sim!.console.loadCatalog();
    const loaded = await stack.call('/v1/commands/catalog');
    expect(loaded.status).toBe(200);
    expect((loaded.json as Catalog).data).toHaveLength(44);
  });
});

describe('the OpenAPI description of the command routes', () => {
  const doc = buildOpenApi(ROUTES) as {
    paths: Record<string, Record<string, { 'x-required-scope': string; responses: Record<string, unknown> }>>;
    components: { schemas: Record<string, { properties?: Record<string, { oneOf?: unknown[] }> }> };
  };

  it('lists the three routes with their scopes, the 304 of the catalogue and the 503 of all', () => {
    expect(doc.paths['/v1/commands']?.['post']?.['x-required-scope']).toBe('commands:execute');
    expect(doc.paths['/v1/commands/catalog']?.['get']?.['x-required-scope']).toBe('commands:read');
    expect(doc.paths['/v1/commands/history']?.['get']?.['x-required-scope']).toBe('commands:read');
    expect(Object.keys(doc.paths['/v1/commands/catalog']?.['get']?.responses ?? {})).toContain('304');
    for (const [path, method] of [
      ['/v1/commands', 'post'],
      ['/v1/commands/catalog', 'get'],
      ['/v1/commands/history', 'get'],
    ] as const) {
      expect(Object.keys(doc.paths[path]?.[method]?.responses ?? {})).toContain('503');
    }
  });

  it('describes the subject as a player or a position, never both', () => {
    expect(doc.components.schemas['CommandRequest']?.properties?.['subject']?.oneOf).toHaveLength(2);
    expect(doc.components.schemas['CommandSubject']).toBeDefined();
    expect(doc.components.schemas['CommandCatalogEntry']).toBeDefined();
    expect(doc.components.schemas['CommandHistoryEntry']).toBeDefined();
  });
});
