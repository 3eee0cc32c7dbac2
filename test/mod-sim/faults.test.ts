import { describe, expect, it } from 'vitest';
import { FaultPlan, FaultSpecError, parseFaultSpec, validateFaultRule } from '../../mod-sim/faults.ts';

describe('FaultPlan', () => {
  it('answers normally when no rule matches', () => {
    const plan = new FaultPlan([{ op: 'players.ban', kind: 'hang' }]);
    expect(plan.take('server.status')).toBeUndefined();
  });

  it('matches a rule by op name, or every op with *', () => {
    const plan = new FaultPlan();
    plan.add({ op: '*', kind: 'delay', ms: 10 });
    plan.add({ op: 'server.status', kind: 'drop' });
    expect(plan.take('server.status')?.kind).toBe('drop');
    expect(plan.take('players.ban')).toEqual({ op: '*', kind: 'delay', ms: 10 });
  });

  it('prefers the oldest of several rules for the same op', () => {
    const plan = new FaultPlan([
      { op: 'server.status', kind: 'hang' },
      { op: 'server.status', kind: 'garbage' },
    ]);
    expect(plan.take('server.status')?.kind).toBe('hang');
  });

  it('expires a rule after its times, then falls through to the next', () => {
    const plan = new FaultPlan([
      { op: 'server.status', kind: 'error', code: 'unavailable', message: 'loading', times: 2 },
      { op: '*', kind: 'delay', ms: 5 },
    ]);
    expect(plan.take('server.status')?.kind).toBe('error');
    expect(plan.rules()[0]?.times).toBe(1);
    expect(plan.take('server.status')?.kind).toBe('error');
    expect(plan.take('server.status')?.kind).toBe('delay');
    expect(plan.rules()).toEqual([{ op: '*', kind: 'delay', ms: 5 }]);
  });

  it('keeps a rule without times forever', () => {
    const plan = new FaultPlan([{ op: '*', kind: 'hang' }]);
    for (let i = 0; i < 100; i++) expect(plan.take('server.status')?.kind).toBe('hang');
  });

  it('passes afterApply through for the simulator to act on', () => {
    const plan = new FaultPlan([{ op: 'players.ban', kind: 'drop', afterApply: true, times: 1 }]);
    expect(plan.take('players.ban')).toEqual({ op: 'players.ban', kind: 'drop', afterApply: true, times: 1 });
    expect(plan.take('players.ban')).toBeUndefined();
  });

  it('forgets every rule on clear', () => {
    const plan = new FaultPlan([{ op: '*', kind: 'hang' }]);
    plan.clear();
    expect(plan.take('server.status')).toBeUndefined();
    expect(plan.rules()).toEqual([]);
  });

  it('is not changed by later edits to a rule it was given', () => {
    const rule = { op: 'server.status', kind: 'delay' as const, ms: 10 };
    const plan = new FaultPlan([rule]);
    rule.ms = 99_999;
    expect(plan.take('server.status')).toEqual({ op: 'server.status', kind: 'delay', ms: 10 });
  });

  it.each([
    [{ op: 'status', kind: 'hang' }, /not '\*' or a dotted op name/],
    [{ op: 'server.status', kind: 'delay', ms: -1 }, /delay must be/],
    [{ op: 'server.status', kind: 'delay', ms: 1.5 }, /delay must be/],
    [{ op: 'server.status', kind: 'hang', times: 0 }, /times must be a positive integer/],
    [{ op: 'server.status', kind: 'error', code: 'teapot', message: 'x' }, /unknown error code 'teapot'/],
  ] as const)('rejects the rule %o', (rule, message) => {
    expect(() => new FaultPlan().add(rule as never)).toThrow(message);
  });

  it('rejects an op the catalogue lacks when told the known ops', () => {
    expect(() => validateFaultRule({ op: 'players.fly', kind: 'hang' }, ['server.status'])).toThrow(
      /unknown op 'players.fly' \(known: server.status\)/,
    );
  });
});

describe('parseFaultSpec', () => {
  it.each([
    ['server.status=delay:2000', { op: 'server.status', kind: 'delay', ms: 2000 }],
    ['server.status=delay:250ms', { op: 'server.status', kind: 'delay', ms: 250 }],
    ['server.status=delay:2s', { op: 'server.status', kind: 'delay', ms: 2000 }],
    ['*=hang', { op: '*', kind: 'hang' }],
    ['players.ban=drop,after-apply,times:1', { op: 'players.ban', kind: 'drop', afterApply: true, times: 1 }],
    ['server.status=garbage,times:3', { op: 'server.status', kind: 'garbage', times: 3 }],
    ['server.status=invalid-result', { op: 'server.status', kind: 'invalid-result' }],
    [
      'packs.deliver=error:conflict:server too old: 2.0.39',
      { op: 'packs.deliver', kind: 'error', code: 'conflict', message: 'server too old: 2.0.39' },
    ],
    [
      'server.status=error:unavailable',
      { op: 'server.status', kind: 'error', code: 'unavailable', message: 'injected fault (unavailable)' },
    ],
  ])('parses %j', (spec, rule) => {
    expect(parseFaultSpec(spec)).toEqual(rule);
  });

  it.each([
    ['server.status', /missing 'OP='/],
    ['=hang', /missing 'OP='/],
    ['server.status=', /missing action after =/],
    [
      'server.status=explode',
      /unknown action 'explode' \(delay, hang, error, drop, garbage, invalid-result\)/,
    ],
    ['server.status=delay', /delay needs a duration/],
    ['server.status=delay:soon', /delay 'soon' is not a whole number/],
    ['server.status=delay:-5', /delay '-5' is not a whole number/],
    ['server.status=error:teapot', /error needs one of the codes not_found, conflict/],
    ['server.status=hang:10', /hang takes no argument/],
    ['server.status=hang,twice', /unknown modifier 'twice' \(after-apply, times:N\)/],
    ['server.status=hang,times:0', /times must be a positive integer/],
    ['Server Status=hang', /not '\*' or a dotted op name/],
  ])('rejects %j with a clear message', (spec, message) => {
    let error: unknown;
    try {
      parseFaultSpec(spec);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(FaultSpecError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(`invalid --fault '${spec}'`);
    expect((error as Error).message).toContain("e.g. 'server.status=delay:2000'");
  });

  it('checks op names against a catalogue when given one', () => {
    expect(parseFaultSpec('server.status=hang', ['server.status'])).toEqual({
      op: 'server.status',
      kind: 'hang',
    });
    expect(() => parseFaultSpec('players.ban=hang', ['server.status'])).toThrow(/unknown op 'players.ban'/);
    expect(parseFaultSpec('*=hang', ['server.status']).op).toBe('*');
  });
});
