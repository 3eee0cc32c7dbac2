import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../../daemon/openapi/openapi.ts';
import { CLAIM_CODE_ROUTES } from '../../../daemon/routes/claim-codes.ts';
import { ROUTES } from '../../../daemon/routes/index.ts';
import { PACK_ROUTES } from '../../../daemon/routes/packs.ts';
import type { Player } from '../../../mod-sim/world/index.ts';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';
import { suiteStack } from '../../support/suite.ts';

const SHOP_ROUTES = [...PACK_ROUTES, ...CLAIM_CODE_ROUTES];

/** One request per shop endpoint, each of which succeeds (or 404s) with the shop feature. */
const REQUESTS: Array<[string, string, unknown?]> = [
  ['GET', '/v1/packs'],
  ['GET', '/v1/packs/1'],
  ['POST', '/v1/packs/1/deliver', { platform_id: '76561190000000001' }],
  ['GET', '/v1/packs/deliveries'],
  ['POST', '/v1/claim-codes', { pack_id: '1' }],
  ['GET', '/v1/claim-codes'],
  ['DELETE', '/v1/claim-codes/ZZZZ-ZZZZ-ZZZZ'],
];

function errorOf(json: unknown) {
  return (json as { error: { code: string; message: string } }).error;
}

describe('the shop feature of the plan', () => {
  const stack = suiteStack({ sim: { seed: 3 } });
  const send = (method: string, path: string, body?: unknown) =>
    stack.call(path, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
  const plan = (...flags: string[]) => stack.data.cli('plan', 'set', '--data-dir', stack.data.dir, ...flags);

  it('answers 403 premium_required on all seven pack and claim-code endpoints when premium lacks shop', async () => {
    expect((await plan('--premium', 'on')).code).toBe(0);
    await eventually(async () => (await send('GET', '/v1/packs')).status === 403);
    for (const [method, path, body] of REQUESTS) {
      const res = await send(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(errorOf(res.json).code).toBe('premium_required');
      expect(errorOf(res.json).message).toMatch(/shop/);
    }
  });

  it('leaves every other endpoint working meanwhile', async () => {
    expect((await send('GET', '/v1/server')).status).toBe(200);
    expect((await send('GET', '/v1/players?limit=10')).status).toBe(200);
    const player = stack.sim!.world.players.list.itemAt(0);
    expect((await send('GET', `/v1/players/${player.platform_id}/inventory`)).status).toBe(200);
  });

  it('opens them again once the plan has the shop feature', async () => {
    expect((await plan('--premium', 'on', '--features', 'shop')).code).toBe(0);
    await eventually(async () => (await send('GET', '/v1/packs')).status === 200);
    for (const [method, path, body] of REQUESTS) {
      const res = await send(method, path, body);
      expect([200, 201, 404], `${method} ${path}`).toContain(res.status);
    }
  });
});

describe('game servers too old for free grants', () => {
  const stacks: Stack[] = [];
  afterAll(() => Promise.all(stacks.map((s) => s.close())));
  const deliver = (stack: Stack, packId: number | string, body: unknown) =>
    stack.call(`/v1/packs/${packId}/deliver`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });

  it('answers 409 conflict on a mod older than 2.0.40 and records nothing', async () => {
    const stack = await startStack({ sim: { seed: 3, modVersion: '2.0.39' } });
    stacks.push(stack);
    const world = stack.sim!.world;
    const pack = world.shop.packs.itemAt(0);
    const count = world.shop.deliveries.length;
    const res = await deliver(stack, pack.id, { platform_id: world.players.list.itemAt(0).platform_id });
    expect(res.status).toBe(409);
    expect(errorOf(res.json).code).toBe('conflict');
    expect(errorOf(res.json).message).toMatch(/too old/);
    expect(world.shop.deliveries.length).toBe(count);
    expect((await deliver(stack, 999_999, { platform_id: '76561190000000001' })).status).toBe(409);
    expect((await stack.call('/v1/packs')).status).toBe(200);
  });

  it('grants from mod 2.0.40, where claim-code messages are still untracked before 2.0.47', async () => {
    const stack = await startStack({ sim: { seed: 3, modVersion: '2.0.40' } });
    stacks.push(stack);
    const world = stack.sim!.world;
    const linked = world.players.list.values().find((p: Player) => p.social_id !== null)!;
    const pack = world.shop.packs.itemAt(0);
    expect((await deliver(stack, pack.id, { platform_id: linked.platform_id })).status).toBe(200);
    const minted = await stack.call('/v1/claim-codes', {
      method: 'POST',
      body: JSON.stringify({ pack_id: String(pack.id), platform_id: linked.platform_id }),
      headers: { 'content-type': 'application/json' },
    });
    expect((minted.json as { dm_status: string }).dm_status).toBe('queued');
    const listed = (await stack.call('/v1/claim-codes?limit=1')).json as {
      data: Array<{ delivery_status: string }>;
    };
    expect(listed.data[0]?.delivery_status).toBe('unknown');
  });
});

describe('the OpenAPI document for packs and claim codes', () => {
  type Op = {
    'x-required-scope': string;
    parameters: Array<{ name: string; in: string }>;
    requestBody?: unknown;
    responses: Record<string, unknown>;
  };
  const doc = buildOpenApi(ROUTES) as unknown as {
    paths: Record<string, Record<string, Op>>;
    components: { schemas: Record<string, unknown> };
  };

  it('describes all seven endpoints with their scope, shop gate errors and bodies', () => {
    expect(SHOP_ROUTES).toHaveLength(7);
    for (const route of SHOP_ROUTES) {
      expect(ROUTES).toContain(route);
      expect(route.feature).toBe('shop');
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op?.['x-required-scope']).toBe(route.scope);
      expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['400', '403', '404', '503']));
      expect(op?.requestBody !== undefined).toBe(route.method === 'POST');
    }
    expect(Object.keys(doc.paths['/v1/claim-codes']?.['post']?.responses ?? {})).toContain('201');
    expect(Object.keys(doc.paths['/v1/packs/{id}/deliver']?.['post']?.responses ?? {})).toContain('409');
    const names = doc.paths['/v1/packs/deliveries']?.['get']?.parameters.map((p) => `${p.in}:${p.name}`);
    expect(names).toEqual([
      'query:platform_id',
      'query:social_id',
      'query:pack_id',
      'query:source',
      'query:status',
      'query:limit',
      'query:cursor',
    ]);
  });

  it('names the spec’s shapes as components', () => {
    for (const name of [
      'Pack',
      'PackRef',
      'PackDelivery',
      'PackDeliveryResult',
      'ClaimCode',
      'MintedClaimCode',
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });
});
