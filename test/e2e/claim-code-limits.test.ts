/**
 * docs/packs.md#minting: `max_uses` is any integer >= 1. The mint takes every count the game can store
 * (a 32-bit integer, 2^31 − 1), not a product cap the spec does not have. Real HTTP listener, real
 * simulator.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { errorOf, http } from '../support/http.ts';
import { suiteStack } from '../support/suite.ts';

const INT32_MAX = 2_147_483_647;

describe('claim code max_uses over HTTP', () => {
  const stack = suiteStack();
  let packId: string;

  beforeAll(async () => {
    packId = String(stack.sim!.world.shop.packs.itemAt(0).id);
  });

  it.each([1_000_001, 123_456_789, INT32_MAX])('mints a code with max_uses %i', async (maxUses) => {
    const res = await http(stack, '/v1/claim-codes', {
      method: 'POST',
      body: { pack_id: packId, max_uses: maxUses },
    });
    expect(res.status).toBe(201);
    const minted = res.json as { code: string; max_uses: number };
    expect(minted.max_uses).toBe(maxUses);
    const listed = await http(stack, `/v1/claim-codes?pack_id=${packId}&limit=100`);
    const row = (
      listed.json as { data: Array<{ code: string; max_uses: number; uses_remaining: number }> }
    ).data.find((code) => code.code === minted.code);
    expect(row).toMatchObject({ max_uses: maxUses, uses_remaining: maxUses });
  });

  it.each([
    ['above what the game stores', INT32_MAX + 1],
    ['zero', 0],
    ['a fraction', 2.5],
  ])('refuses max_uses %s with 400 and mints nothing', async (_name, maxUses) => {
    const before = await http(stack, '/v1/claim-codes?limit=1');
    const res = await http(stack, '/v1/claim-codes', {
      method: 'POST',
      body: { pack_id: packId, max_uses: maxUses },
    });
    expect([res.status, errorOf(res.json).code]).toEqual([400, 'validation_error']);
    const after = await http(stack, '/v1/claim-codes?limit=1');
    expect((after.json as { total: number }).total).toBe((before.json as { total: number }).total);
  });
});
