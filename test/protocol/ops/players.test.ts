/**
 * The ban and mute duration rules of the op catalogue (PROTOCOL §6.6): the mod-side dispatcher
 * refuses what the daemon's API would have refused, and ops.schema.json says the same caps to a
 * mod written in another language.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dispatchRequest, RequestContext } from '../../../protocol/dispatch.ts';
import type { ReqFrame } from '../../../protocol/frames.ts';
import { silentLogger } from '../../../protocol/log.ts';
import { BAN_CAPS, MUTE_CAPS } from '../../../protocol/ops/players.ts';

const ACTOR = { key_id: 'k1', name: 'bot', platform_id: null, social_id: null };
const REF = { platform_id: '76561190000000001' };

function request(op: 'players.ban' | 'players.mute', args: Record<string, unknown>): ReqFrame {
  const extra = op === 'players.ban' ? { squad_id: null } : { channels: ['Global'] };
  return {
    t: 'req',
    id: 7,
    op,
    args: { ref: REF, reason: 'r', permanent: false, actor: ACTOR, ...extra, ...args },
    deadline_ms: 1_000,
    op_id: 'op-1.0',
  };
}

/** Dispatches to a handler that records whether it ran; answers the `res` and that flag. */
async function dispatch(frame: ReqFrame) {
  let ran = false;
  const handler = () => {
    ran = true;
    return { player: { platform_id: REF.platform_id, social_id: null } };
  };
  const handlers = { 'players.ban': handler, 'players.mute': handler } as never;
  const res = await dispatchRequest(frame, handlers, new RequestContext(frame.op_id, 1_000), silentLogger);
  return { res, ran };
}

const CASES = [
  ...Object.entries(BAN_CAPS).map(([unit, cap]) => ['players.ban', unit, cap] as const),
  ...Object.entries(MUTE_CAPS).map(([unit, cap]) => ['players.mute', unit, cap] as const),
];

describe('ban and mute durations (PROTOCOL §6.6)', () => {
  it.each(CASES)(
    '%s refuses a duration one over the %s cap as invalid before the handler runs',
    async (op, unit, cap) => {
      const { res, ran } = await dispatch(request(op, { duration: cap + 1, duration_unit: unit }));
      expect(res).toMatchObject({
        ok: false,
        error: { code: 'invalid', details: { issues: [expect.objectContaining({ path: 'duration' })] } },
      });
      expect(ran).toBe(false);
    },
  );

  it.each(CASES)('%s hands a duration exactly at the %s cap to the handler', async (op, unit, cap) => {
    const { ran } = await dispatch(request(op, { duration: cap, duration_unit: unit }));
    expect(ran).toBe(true);
  });

  it('refuses a temporary ban without a duration, and takes a permanent one without', async () => {
    const temporary = await dispatch(request('players.ban', { duration: null, duration_unit: 'days' }));
    expect(temporary.res).toMatchObject({ ok: false, error: { code: 'invalid' } });
    const permanent = await dispatch(
      request('players.ban', { permanent: true, duration: null, duration_unit: 'days' }),
    );
    expect(permanent.ran).toBe(true);
  });

  it('publishes each cap in ops.schema.json, with the rule in the op description', () => {
    const schema = JSON.parse(
      readFileSync(new URL('../../../protocol/ops.schema.json', import.meta.url), 'utf8'),
    ) as { ops: Record<string, { args: { description?: string; allOf?: unknown[] } }> };
    for (const [op, caps] of [
      ['players.ban', BAN_CAPS],
      ['players.mute', MUTE_CAPS],
    ] as const) {
      const args = schema.ops[op]!.args;
      for (const [unit, cap] of Object.entries(caps)) {
        expect(args.allOf).toContainEqual({
          if: { properties: { duration_unit: { const: unit } }, required: ['duration_unit'] },
          then: { properties: { duration: { maximum: cap } } },
        });
      }
    }
    expect(schema.ops['players.mute']!.args.description).toMatch(/rounds a temporary mute up to whole hours/);
  });
});
