import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processDmQueue } from '../../../mod-sim/handlers/claim-codes-dm.ts';
import { redeemClaimCode } from '../../../mod-sim/handlers/claim-codes-redeem.ts';
import {
  DAY,
  DEFAULT_NOW,
  createWorld,
  sqlDateTime,
  type Pack,
  type Player,
  type World,
} from '../../../mod-sim/world/index.ts';
import { startStack, type Stack } from '../../../harness/stack.ts';

type Minted = {
  code: string;
  pack: { id: number; name: string | null; display_name: string | null };
  target: { platform_id: string; social_id: string | null } | null;
  max_uses: number;
  expires_at: string | null;
  dm_status: string;
};
type Code = Omit<Minted, 'dm_status'> & {
  source: string;
  status: string;
  uses_remaining: number;
  created_at: string;
  delivery_status: string;
  dm: { channel_id: string; message_id: string } | null;
};
type Page = { data: Code[]; has_more: boolean; next_cursor: string | null; total: number };

const CODE_KEYS = [
  'code',
  'pack',
  'target',
  'source',
  'status',
  'max_uses',
  'uses_remaining',
  'created_at',
  'expires_at',
  'delivery_status',
  'dm',
];

function errorOf(json: unknown) {
  return (json as { error: { code: string } }).error;
}

describe('claim codes', () => {
  let stack: Stack;
  let world: World;
  let now = DEFAULT_NOW;
  let pack: Pack;
  const pick = (test: (p: Player) => boolean, skip = 0) => world.players.list.values().filter(test)[skip]!;
  const mint = (body: unknown) =>
    stack.call('/v1/claim-codes', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
  const list = async (query = '') => (await stack.call(`/v1/claim-codes?${query}`)).json as Page;
  const find = async (code: string) => (await list('limit=100')).data.find((c) => c.code === code);

  beforeAll(async () => {
    world = createWorld({ seed: 3, players: 200, clock: () => now });
    pack = world.shop.packs.values().find((p) => p.name === 'gold-500')!;
    stack = await startStack({ sim: { world, dmQueueIntervalMs: 0 } });
  });
  afterAll(() => stack.close());

  describe('POST /v1/claim-codes', () => {
    it('mints a public code: 201, never expiring, no direct message asked for', async () => {
      const res = await mint({ pack_id: String(pack.id) });
      expect(res.status).toBe(201);
      const body = res.json as Minted;
      expect(Object.keys(body)).toEqual(['code', 'pack', 'target', 'max_uses', 'expires_at', 'dm_status']);
      expect(body).toMatchObject({
        pack: { id: pack.id, name: pack.name, display_name: pack.display_name },
        target: null,
        max_uses: 1,
        expires_at: null,
        dm_status: 'not_requested',
      });
      const row = (await list('limit=1')).data[0]!;
      expect(Object.keys(row)).toEqual(CODE_KEYS);
      expect(row).toMatchObject({ code: body.code, source: 'panel', status: 'active', uses_remaining: 1 });
    });

    it('queues a direct message to a linked recipient, which the game then sends', async () => {
      const player = pick((p) => p.social_id !== null);
      const res = await mint({ pack_id: String(pack.id), platform_id: player.platform_id, expiry_days: 30 });
      const body = res.json as Minted;
      expect(body).toMatchObject({
        target: { platform_id: player.platform_id, social_id: player.social_id },
        dm_status: 'queued',
        expires_at: sqlDateTime(now + 30 * DAY),
      });
      expect(await find(body.code)).toMatchObject({ delivery_status: 'pending', dm: null });
      processDmQueue(world);
      const sent = (await find(body.code))!;
      expect(sent.delivery_status).toBe('sent');
      expect(sent.dm).toEqual({ channel_id: expect.any(String), message_id: expect.any(String) });
    });

    it('reports target_not_linked for a recipient without a social link', async () => {
      const player = pick((p) => p.social_id === null);
      const body = (await mint({ pack_id: String(pack.id), platform_id: player.platform_id })).json as Minted;
      expect(body.dm_status).toBe('target_not_linked');
      expect((await find(body.code))?.delivery_status).toBe('target_not_linked');
    });

    it('reports failed when the queue refuses the message outright', async () => {
      world.shop.dmQueueCapacity = 0;
      try {
        const player = pick((p) => p.social_id !== null, 1);
        const body = (await mint({ pack_id: String(pack.id), platform_id: player.platform_id }))
          .json as Minted;
        expect(body.dm_status).toBe('failed');
        expect((await find(body.code))?.delivery_status).toBe('failed');
      } finally {
        world.shop.dmQueueCapacity = 1_000;
      }
    });

    it('answers 404 for an unknown pack', async () => {
      const res = await mint({ pack_id: '424242' });
      expect(res.status).toBe(404);
      expect(errorOf(res.json).code).toBe('not_found');
    });

    it('mints one code for two requests with the same Idempotency-Key', async () => {
      const headers = { 'content-type': 'application/json', 'idempotency-key': 'mint-once' };
      const body = JSON.stringify({ pack_id: String(pack.id), max_uses: 3 });
      const count = world.shop.claimCodes.length;
      const first = await stack.call('/v1/claim-codes', { method: 'POST', body, headers });
      const second = await stack.call('/v1/claim-codes', { method: 'POST', body, headers });
      expect(second.status).toBe(201);
      expect(second.json).toEqual(first.json);
      expect(world.shop.claimCodes.length).toBe(count + 1);
    });

    it.each([
      ['no pack_id', {}],
      ['pack_id as a number', { pack_id: 1 }],
      ['pack_id 0', { pack_id: '0' }],
      ['pack_id with a leading zero', { pack_id: '01' }],
      ['max_uses 0', { pack_id: '1', max_uses: 0 }],
      ['expiry_days -1', { pack_id: '1', expiry_days: -1 }],
      ['expiry_days 3651', { pack_id: '1', expiry_days: 3651 }],
      ['a malformed platform_id', { pack_id: '1', platform_id: '123' }],
      ['an unknown field', { pack_id: '1', source: 'partner' }],
    ])('refuses %s with 400', async (_what, body) => {
      const res = await mint(body);
      expect(res.status).toBe(400);
      expect(errorOf(res.json).code).toBe('validation_error');
    });

    it('accepts the limits exactly: expiry_days 0 and 3650, max_uses 1', async () => {
      for (const body of [
        { pack_id: String(pack.id), expiry_days: 3650, max_uses: 1 },
        { pack_id: String(pack.id), expiry_days: 0 },
      ]) {
        expect((await mint(body)).status).toBe(201);
      }
    });
  });

  describe('GET /v1/claim-codes', () => {
    it('lists every code newest first with total, and walks them with cursors', async () => {
      const all = world.shop.claimCodes.values();
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Page = await list(`limit=40${cursor === null ? '' : `&cursor=${cursor}`}`);
        expect(page.total).toBe(all.length);
        seen.push(...page.data.map((c) => c.code));
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual(all.map((c) => c.code));
    });

    it('filters by pack, source, status and partial target digits', async () => {
      const all = world.shop.claimCodes.values();
      const targeted = all.find((c) => c.target !== null && c.source === 'social')!;
      const digits = targeted.target!.platform_id.slice(-6);
      const page = await list(`target=${digits}&source=social&pack_id=${targeted.pack.id}`);
      expect(page.data.map((c) => c.code)).toContain(targeted.code);
      expect(page.total).toBe(
        all.filter(
          (c) =>
            c.source === 'social' && c.pack.id === targeted.pack.id && c.target?.platform_id.includes(digits),
        ).length,
      );
      const revoked = await list('status=revoked&limit=100');
      expect(revoked.data.every((c) => c.status === 'revoked')).toBe(true);
      expect(revoked.total).toBe(all.filter((c) => c.status === 'revoked').length);
    });

    it('moves an active code to expired when the game clock passes its expiry', async () => {
      const body = (await mint({ pack_id: String(pack.id), expiry_days: 2 })).json as Minted;
      expect((await find(body.code))?.status).toBe('active');
      now += 2 * DAY;
      expect((await find(body.code))?.status).toBe('expired');
      const expired = await list('status=expired&limit=100');
      expect(expired.data.map((c) => c.code)).toContain(body.code);
    });

    it('shows a code exhausted once players used it up in game', async () => {
      const body = (await mint({ pack_id: String(pack.id), max_uses: 2 })).json as Minted;
      for (const n of [0, 1]) {
        expect(redeemClaimCode(world, body.code, pick((p) => p.online, n).platform_id).ok).toBe(true);
      }
      expect(await find(body.code)).toMatchObject({ status: 'exhausted', uses_remaining: 0 });
      const claims = (await stack.call('/v1/packs/deliveries?source=claim&limit=2')).json as {
        data: Array<{ source: string; pack: { id: number } }>;
      };
      expect(claims.data.map((d) => d.pack.id)).toEqual([pack.id, pack.id]);
    });

    it.each([
      ['an unknown source', 'source=api'],
      ['an unknown status', 'status=used'],
      ['non-digit target', 'target=7656x'],
      ['a pack id of 0', 'pack_id=0'],
      ['a limit of 0', 'limit=0'],
    ])('refuses %s with 400', async (_what, query) => {
      const res = await stack.call(`/v1/claim-codes?${query}`);
      expect(res.status).toBe(400);
      expect(errorOf(res.json).code).toBe('validation_error');
    });
  });

  describe('DELETE /v1/claim-codes/{code}', () => {
    it('revokes a code in any case, repeatably, and the game refuses it afterwards', async () => {
      const body = (await mint({ pack_id: String(pack.id), max_uses: 5 })).json as Minted;
      const res = await stack.call(`/v1/claim-codes/${body.code.toLowerCase()}`, { method: 'DELETE' });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ code: body.code, revoked: true });
      expect((await stack.call(`/v1/claim-codes/${body.code}`, { method: 'DELETE' })).json).toEqual({
        code: body.code,
        revoked: true,
      });
      expect(await find(body.code)).toMatchObject({ status: 'revoked', uses_remaining: 5 });
      expect(redeemClaimCode(world, body.code, pick((p) => p.online).platform_id).ok).toBe(false);
    });

    it('answers 404 for an unknown code and 400 for a malformed one', async () => {
      const unknown = await stack.call('/v1/claim-codes/ZZZZ-ZZZZ-ZZZZ', { method: 'DELETE' });
      expect(unknown.status).toBe(404);
      expect(errorOf(unknown.json).code).toBe('not_found');
      expect((await stack.call('/v1/claim-codes/bad%20code', { method: 'DELETE' })).status).toBe(400);
    });
  });

  describe('scopes', () => {
    it('needs claim_codes:write to mint and revoke, claim_codes:read to list', async () => {
      const { key: reader } = await stack.data.createKey(
        '--name',
        'codes-reader',
        '--scopes',
        'claim_codes:read',
      );
      const auth = { authorization: `Bearer ${reader}` };
      expect((await stack.call('/v1/claim-codes', { headers: auth })).status).toBe(200);
      const minted = await stack.call('/v1/claim-codes', {
        method: 'POST',
        body: JSON.stringify({ pack_id: String(pack.id) }),
        headers: { ...auth, 'content-type': 'application/json' },
      });
      expect((minted.json as { error: { details: unknown } }).error.details).toEqual({
        missing_scope: 'claim_codes:write',
      });
      const revoked = await stack.call('/v1/claim-codes/ZZZZ-ZZZZ-ZZZZ', { method: 'DELETE', headers: auth });
      expect(revoked.status).toBe(403);
    });
  });
});
