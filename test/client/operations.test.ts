/**
 * Every operation of /openapi.json, called through the generated typed client (client/index.ts)
 * over real HTTP against a real daemon and simulator. Each answer's status must be one the
 * document declares for that operation, and every operation must have been called.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createModgateClient,
  idempotencyKey,
  type ErrorCode,
  type ModgateClient,
} from '../../client/index.ts';
import { buildOpenApi, statusesOf } from '../../daemon/openapi/openapi.ts';
import { ROUTES } from '../../daemon/routes/index.ts';
import { startStack, type Stack } from '../../harness/stack.ts';

let stack: Stack;
let client: ModgateClient;
/** `GET /v1/players/{ref}` → the statuses it answered with. */
const seen = new Map<string, Set<number>>();

beforeAll(async () => {
  stack = await startStack({
    sim: { catalogDelayMs: 0 },
    daemon: {
      pipeline: { keyRateLimit: { limit: 10_000, windowSec: 60 } },
      // A key's webhook reaches public addresses only; this one points at loopback (never sent).
      webhookNetwork: { keyNetworksForTests: ['127.0.0.0/8'] },
    },
  });
  client = createModgateClient({ baseUrl: stack.baseUrl, apiKey: stack.key });
  client.use({
    onResponse({ schemaPath, request, response }) {
      const op = `${request.method} ${schemaPath}`;
      seen.set(op, (seen.get(op) ?? new Set()).add(response.status));
    },
  });
});
afterAll(() => stack.close());

const PLATFORM = /^[0-9]{17}$/;

describe('the typed client against a real daemon', () => {
  it('reads the server, players and their details with typed numbers and booleans', async () => {
    const server = await client.GET('/v1/server');
    expect(server.data?.online).toBe(true);

    const roster = await client.GET('/v1/players', { params: { query: { online: true, limit: 10 } } });
    expect(roster.response.status).toBe(200);
    expect(roster.data?.data.length).toBeGreaterThan(0);
    expect(roster.data?.data.every((row) => row.online)).toBe(true);
    expectTypeOf(roster.data!.total).toEqualTypeOf<number>();

    const online = await client.GET('/v1/players/online');
    const ref = online.data?.data[0]?.platform_id as string;
    expect(ref).toMatch(PLATFORM);
    const path = { path: { ref } };
    expect(
      (await client.GET('/v1/players/online', { params: { query: { platform_id: ref } } })).data?.online,
    ).toBe(1);
    expect((await client.GET('/v1/players/{ref}', { params: path })).data?.platform_id).toBe(ref);
    expect((await client.GET('/v1/players/{ref}/inventory', { params: path })).data?.items).toBeInstanceOf(
      Array,
    );
    expect(
      (await client.GET('/v1/players/{ref}/moderation', { params: path })).data?.player.platform_id,
    ).toBe(ref);
    const violations = await client.GET('/v1/players/{ref}/violations', {
      params: { ...path, query: { limit: 5 } },
    });
    expect(violations.data?.data.length).toBeLessThanOrEqual(5);
    expect((await client.GET('/v1/players/{ref}/ips', { params: path })).response.status).toBe(200);
  });

  it('answers 304 to If-None-Match with the ETag of a cacheable read', async () => {
    const first = await client.GET('/v1/players', { params: { query: { limit: 10 } } });
    const etag = first.response.headers.get('etag') as string;
    expect(etag).toMatch(/^"/);
    const again = await client.GET('/v1/players', {
      params: { query: { limit: 10 }, header: { 'If-None-Match': etag } },
    });
    expect(again.response.status).toBe(304);
    expect(again.data).toBeUndefined();
  });

  it('surfaces errors as typed envelopes', async () => {
    const tooSmall = await client.GET('/v1/players', { params: { query: { limit: 5 } } });
    expect(tooSmall.response.status).toBe(400);
    // Exactly the codes GET /v1/players can answer with: no 409, 412, 413 or 415 codes.
    expectTypeOf(tooSmall.error!.error.code).toEqualTypeOf<
      Exclude<
        ErrorCode,
        | 'conflict'
        | 'idempotency_conflict'
        | 'precondition_failed'
        | 'payload_too_large'
        | 'unsupported_media_type'
      >
    >();
    expect(tooSmall.error?.error.code).toBe('validation_error');
    const missing = await client.GET('/v1/players/{ref}', { params: { path: { ref: '76561100000000000' } } });
    expect(missing.error?.error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
    const socialRef = await client.POST('/v1/players/{ref}/social', {
      params: { path: { ref: 'social:123456789012345678' } },
      body: { social_id: '123456789012345678' },
    });
    expect(socialRef.error?.error.code).toBe('validation_error');
  });

  it('moderates with If-Match and Idempotency-Key, and answers 412 to a stale ETag', async () => {
    const roster = await client.GET('/v1/players', { params: { query: { limit: 100 } } });
    const player = roster.data?.data.find((row) => row.social_id === null && !row.online);
    const ref = player?.platform_id as string;
    const moderation = await client.GET('/v1/players/{ref}/moderation', { params: { path: { ref } } });
    const etag = moderation.response.headers.get('etag') as string;
    const ban = await client.POST('/v1/players/{ref}/ban', {
      params: { path: { ref }, header: { 'If-Match': etag, 'Idempotency-Key': idempotencyKey() } },
      body: { duration: 2, duration_unit: 'days', reason: 'typed client' },
    });
    expect(ban.data?.ban.banned).toBe(true);
    const stale = await client.DELETE('/v1/players/{ref}/ban', {
      params: { path: { ref }, header: { 'If-Match': etag } },
    });
    expect(stale.response.status).toBe(412);
    expect(stale.error?.error.code).toBe('precondition_failed');
    expect(
      (await client.DELETE('/v1/players/{ref}/ban', { params: { path: { ref } } })).data?.ban.banned,
    ).toBe(false);
    const mute = await client.POST('/v1/players/{ref}/mute', {
      params: { path: { ref }, header: { 'Idempotency-Key': idempotencyKey() } },
      body: { permanent: true, channels: ['Global'] },
    });
    expect(mute.data?.mute.muted).toBe(true);
    expect(
      (await client.DELETE('/v1/players/{ref}/mute', { params: { path: { ref } } })).data?.mute.muted,
    ).toBe(false);

    const socialId = '987654321098765432';
    const link = await client.POST('/v1/players/{ref}/social', {
      params: { path: { ref }, header: { 'Idempotency-Key': idempotencyKey() } },
      body: { social_id: socialId },
    });
    expect(link.data?.player).toEqual({ platform_id: ref, social_id: socialId });
    const unlink = await client.DELETE('/v1/players/{ref}/social', {
      params: { path: { ref: `social:${socialId}` } },
    });
    expect(unlink.data?.player.social_id).toBeNull();
  });

  it('replays a write sent again with the same Idempotency-Key, and refuses the key on another body', async () => {
    const online = await client.GET('/v1/players/online');
    const ref = online.data?.data[0]?.platform_id as string;
    const key = idempotencyKey();
    const send = (amount: number) =>
      client.POST('/v1/players/{ref}/coins', {
        params: { path: { ref }, header: { 'Idempotency-Key': key } },
        body: { amount, reason: 'typed client' },
      });
    const first = await send(25);
    const again = await send(25);
    expect(again.data).toEqual(first.data);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    const other = await send(26);
    expect(other.response.status).toBe(409);
    expect(other.error?.error.code).toBe('idempotency_conflict');
  });

  it('moves coins and currency for one player and for everyone, and reads the ledger', async () => {
    const online = await client.GET('/v1/players/online');
    const ref = online.data?.data[0]?.platform_id as string;
    const write = { header: { 'Idempotency-Key': idempotencyKey() } };
    const all = await client.POST('/v1/economy/coins', {
      params: write,
      body: { amount: 5, reason: 'typed client', target: 'online' },
    });
    expect(all.response.status).toBe(200);
    const cash = await client.POST('/v1/players/{ref}/currency', {
      params: { path: { ref }, header: { 'Idempotency-Key': idempotencyKey() } },
      body: { currency: 'cash', amount: 100, reason: 'typed client' },
    });
    expect(cash.data?.mode).toBe('delta');
    const gold = await client.POST('/v1/economy/currency', {
      params: { header: { 'Idempotency-Key': idempotencyKey() } },
      body: { currency: 'gold', mode: 'delta', amount: 1, reason: 'typed client', target: 'online' },
    });
    expect(gold.response.status).toBe(200);
    const ledger = await client.GET('/v1/economy/transactions', {
      params: { query: { platform_id: ref, asset: 'cash', limit: 3 } },
    });
    expect(ledger.data?.data[0]?.amount).toBe(100);
  });

  it('reads squads, bases, vehicles and containers by typed integer ids', async () => {
    const squads = await client.GET('/v1/squads', { params: { query: { min_members: 1, limit: 10 } } });
    const id = squads.data?.data[0]?.id as number;
    expectTypeOf(id).toEqualTypeOf<number>();
    const path = { path: { id } };
    expect((await client.GET('/v1/squads/{id}', { params: path })).data?.id).toBe(id);
    expect((await client.GET('/v1/squads/{id}/members', { params: path })).data?.data.length).toBeGreaterThan(
      0,
    );
    expect((await client.GET('/v1/squads/{id}/summary', { params: path })).data?.squad_id).toBe(id);
    for (const asset of ['bases', 'vehicles', 'containers'] as const) {
      const page = await client.GET(`/v1/squads/{id}/${asset}`, { params: { ...path, query: { limit: 2 } } });
      expect(page.response.status).toBe(200);
    }

    const bases = await client.GET('/v1/bases', {
      params: { query: { min_health: 0, max_health: 1, limit: 10 } },
    });
    const flag = bases.data?.data[0]?.flag_id as number;
    expect((await client.GET('/v1/bases/{id}', { params: { path: { id: flag } } })).data?.flag_id).toBe(flag);

    const vehicles = await client.GET('/v1/vehicles', { params: { query: { is_locked: false, limit: 10 } } });
    const vehicle = vehicles.data?.data[0]?.entity_id as string;
    expect(vehicles.data?.data.every((v) => !v.is_locked)).toBe(true);
    expect((await client.GET('/v1/vehicles/types')).data?.types).toBeTypeOf('object');
    expect(
      (await client.GET('/v1/vehicles/{id}', { params: { path: { id: vehicle } } })).data?.entity_id,
    ).toBe(vehicle);
    expect(
      (await client.GET('/v1/vehicles/{id}/inventory', { params: { path: { id: vehicle } } })).data?.items,
    ).toBeInstanceOf(Array);

    const containers = await client.GET('/v1/containers', {
      params: { query: { is_buried: false, limit: 10 } },
    });
    const container = containers.data?.data[0]?.entity_id as string;
    expect((await client.GET('/v1/containers/types')).data?.types).toBeTypeOf('object');
    expect(
      (await client.GET('/v1/containers/{id}', { params: { path: { id: container } } })).data?.entity_id,
    ).toBe(container);
    expect(
      (await client.GET('/v1/containers/{id}/inventory', { params: { path: { id: container } } })).data
        ?.total,
    ).toBeTypeOf('number');
  });

  it('runs a command and reads the catalogue (304 when unchanged) and the history', async () => {
    const run = await client.POST('/v1/commands', {
      params: { header: { 'Idempotency-Key': idempotencyKey() } },
      body: { verb: 'online' },
    });
    expect(run.data?.subject).toBeNull();
    const catalog = await client.GET('/v1/commands/catalog');
    expect(catalog.data?.data.length).toBeGreaterThan(0);
    const etag = catalog.response.headers.get('etag') as string;
    const unchanged = await client.GET('/v1/commands/catalog', {
      params: { header: { 'If-None-Match': etag } },
    });
    expect(unchanged.response.status).toBe(304);
    const history = await client.GET('/v1/commands/history', {
      params: { query: { start_date: '2000-01-01', limit: 1 } },
    });
    expect(history.data?.data[0]?.command).toMatch(/online/i);
  });

  it('lists and delivers packs, then mints, lists and revokes a claim code', async () => {
    const packs = await client.GET('/v1/packs', { params: { query: { enabled: true, limit: 5 } } });
    const pack = packs.data?.data[0]?.id as number;
    expect((await client.GET('/v1/packs/{id}', { params: { path: { id: pack } } })).data?.id).toBe(pack);
    const roster = await client.GET('/v1/players', { params: { query: { limit: 10 } } });
    const platformId = roster.data?.data[0]?.platform_id as string;
    const delivered = await client.POST('/v1/packs/{id}/deliver', {
      params: { path: { id: pack }, header: { 'Idempotency-Key': idempotencyKey() } },
      body: { platform_id: platformId, quantity: 2 },
    });
    expect(delivered.data?.quantity).toBe(2);
    const history = await client.GET('/v1/packs/deliveries', {
      params: { query: { pack_id: pack, limit: 5 } },
    });
    expect(history.data?.data[0]?.pack.id).toBe(pack);

    const minted = await client.POST('/v1/claim-codes', {
      params: { header: { 'Idempotency-Key': idempotencyKey() } },
      body: { pack_id: String(pack), max_uses: 3, expiry_days: 7 },
    });
    expect(minted.response.status).toBe(201);
    const code = minted.data?.code as string;
    const listed = await client.GET('/v1/claim-codes', {
      params: { query: { status: 'active', limit: 100 } },
    });
    expect(listed.data?.data.some((row) => row.code === code)).toBe(true);
    const revoked = await client.DELETE('/v1/claim-codes/{code}', { params: { path: { code } } });
    expect(revoked.data).toEqual({ code, revoked: true });
  });

  it('reads events as a page and manages a webhook endpoint', async () => {
    const page = await client.GET('/v1/events', { params: { query: { limit: 5 } } });
    expect(page.response.status).toBe(200);
    // 200 is JSON or, with Accept: text/event-stream, the stream: the type says both.
    expect(typeof page.data === 'object' && Array.isArray(page.data.data)).toBe(true);

    const created = await client.POST('/v1/webhooks', {
      body: { url: 'http://127.0.0.1:9/hooks', events: ['player.banned'] },
    });
    expect(created.response.status).toBe(201);
    const id = created.data?.id as string;
    expect(created.data?.secret).toMatch(/^whsec_/);
    expect((await client.GET('/v1/webhooks')).data?.data.map((endpoint) => endpoint.id)).toContain(id);
    expect((await client.GET('/v1/webhooks/{id}', { params: { path: { id } } })).data?.url).toBe(
      'http://127.0.0.1:9/hooks',
    );
    const deliveries = await client.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id } } });
    expect(deliveries.response.status).toBe(200);
    const rotated = await client.POST('/v1/webhooks/{id}/rotate-secret', {
      params: { path: { id } },
      body: { overlap: 60 },
    });
    expect(rotated.data?.secret).toMatch(/^whsec_/);
    expect(rotated.data?.secret).not.toBe(created.data?.secret);
    expect((await client.DELETE('/v1/webhooks/{id}', { params: { path: { id } } })).response.status).toBe(
      204,
    );
    const gone = await client.GET('/v1/webhooks/{id}', { params: { path: { id } } });
    expect(gone.error?.error.code).toBe('not_found');
  });

  it('reads the health check and the OpenAPI document without a key', async () => {
    expect(
      (await client.GET('/healthz', { params: { query: { mod: 'required' } } })).data?.mod_connected,
    ).toBe(true);
    const doc = await client.GET('/openapi.json');
    expect(doc.data).toEqual(JSON.parse(JSON.stringify(buildOpenApi(ROUTES))));
  });

  it('has called every operation of the document, each answering a status it declares', () => {
    const doc = buildOpenApi(ROUTES) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toHaveLength(ROUTES.length + 2);
    expect([...seen.keys()].sort()).toEqual([...operations].sort());
    for (const route of ROUTES) {
      const declared = statusesOf(route).map((s) => s.status);
      for (const status of seen.get(`${route.method} ${route.path}`) ?? []) {
        expect(declared, `${route.method} ${route.path}`).toContain(status);
      }
    }
  });
});
