import { describe, expect, it } from 'vitest';
import { dispatchRequest, RequestContext } from '../../protocol/dispatch.ts';
import type { ReqFrame } from '../../protocol/frames.ts';
import { silentLogger, type Logger } from '../../protocol/log.ts';
import { OpError, type OpHandlers } from '../../protocol/ops/index.ts';

const req = (overrides: Partial<ReqFrame> = {}): ReqFrame => ({
  t: 'req',
  id: 5,
  op: 'server.status',
  args: {},
  deadline_ms: 1_000,
  ...overrides,
});

function dispatch(handlers: Partial<OpHandlers>, frame = req(), log: Logger = silentLogger) {
  return dispatchRequest(frame, handlers, new RequestContext(frame.op_id, frame.deadline_ms), log);
}

describe('dispatching a request', () => {
  it('answers with the handler result', async () => {
    const res = await dispatch({ 'server.status': () => ({ player_count: 4 }) });
    expect(res).toEqual({ t: 'res', id: 5, ok: true, result: { player_count: 4 } });
  });

  it('passes the op id and an abort signal to the handler', async () => {
    let seen: { opId: string | undefined; aborted: boolean } | null = null;
    await dispatch(
      {
        'server.status': (_args, ctx) => {
          seen = { opId: ctx.opId, aborted: ctx.signal.aborted };
          return { player_count: 0 };
        },
      },
      req({ op_id: 'op-1' }),
    );
    expect(seen).toEqual({ opId: 'op-1', aborted: false });
  });

  it('answers an op with no handler with unsupported', async () => {
    const res = await dispatch({});
    expect(res).toMatchObject({ ok: false, error: { code: 'unsupported' } });
  });

  it('answers an op outside the catalogue with unsupported, even when a same-named property exists', async () => {
    const res = await dispatch({ 'server.status': () => ({ player_count: 1 }) }, req({ op: 'toString' }));
    expect(res).toMatchObject({ id: 5, ok: false, error: { code: 'unsupported' } });
  });

  it('ignores arguments the op does not know (PROTOCOL §6.2): a newer daemon may send more', async () => {
    let seen: unknown;
    const res = await dispatch(
      { 'server.status': (args) => ((seen = args), { player_count: 1 }) },
      req({ args: { future_option: true } }),
    );
    expect(res).toMatchObject({ ok: true });
    expect(seen).toEqual({});
  });

  it('answers arguments the op schema rejects with invalid and mapped issues', async () => {
    const res = await dispatch(
      { 'players.get': () => Promise.reject(new Error('not reached')) },
      req({ op: 'players.get', args: { ref: 5 } }),
    );
    expect(res).toMatchObject({ ok: false, error: { code: 'invalid' } });
    const details = (
      res as unknown as { error: { details: { issues: Array<{ path: string; message: string }> } } }
    ).error.details;
    expect(details.issues.length).toBeGreaterThan(0);
    expect(Object.keys(details.issues[0] as object).sort()).toEqual(['message', 'path']);
  });

  it('answers a thrown OpError with its code, message and details', async () => {
    const res = await dispatch({
      'server.status': () => {
        throw new OpError('unavailable', 'world is loading', { retry_after_sec: 3 });
      },
    });
    expect(res).toEqual({
      t: 'res',
      id: 5,
      ok: false,
      error: { code: 'unavailable', message: 'world is loading', details: { retry_after_sec: 3 } },
    });
  });

  it('answers any other failure with a generic internal error and logs it whole', async () => {
    const logged: string[] = [];
    const log: Logger = {
      ...silentLogger,
      error: (message, fields) => logged.push(`${message} ${String(fields?.['error'])}`),
    };
    const res = await dispatch(
      {
        'server.status': async () => {
          throw new Error('database password is hunter2');
        },
      },
      req(),
      log,
    );
    expect(res).toEqual({
      t: 'res',
      id: 5,
      ok: false,
      error: { code: 'internal', message: 'the mod failed to handle the op' },
    });
    expect(logged.join()).toMatch(/hunter2/);
  });

  it('answers timeout, whatever the handler threw, when it fails once the deadline has passed', async () => {
    const frame = req({ deadline_ms: 5 });
    const res = await dispatch(
      {
        'server.status': async (_args, ctx) => {
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          throw new OpError('not_found', 'gave up');
        },
      },
      frame,
    );
    expect(res).toEqual({
      t: 'res',
      id: 5,
      ok: false,
      error: { code: 'timeout', message: 'server.status did not finish within its deadline' },
    });
  });

  it('answers a result that arrives after the deadline as the result', async () => {
    const res = await dispatch(
      {
        'server.status': async (_args, ctx) => {
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          return { player_count: 2 };
        },
      },
      req({ deadline_ms: 5 }),
    );
    expect(res).toEqual({ t: 'res', id: 5, ok: true, result: { player_count: 2 } });
  });

  it('answers an undefined result as nil so the field is never missing', async () => {
    const res = await dispatch({ 'server.status': () => undefined as unknown as { player_count: null } });
    expect(res).toEqual({ t: 'res', id: 5, ok: true, result: null });
  });
});

describe('the request context', () => {
  it('aborts its signal at the deadline', async () => {
    const ctx = new RequestContext(undefined, 5);
    const signal = ctx.signal;
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    expect(signal.aborted).toBe(true);
  });

  it('does not abort early for a deadline beyond what a timer holds', async () => {
    const ctx = new RequestContext(undefined, 0xffffffff);
    const signal = ctx.signal; // an overflowing timer would fire after 1 ms
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(signal.aborted).toBe(false);
    ctx.dispose();
  });

  it('hands out an already aborted signal after the link was lost', () => {
    const ctx = new RequestContext(undefined, 1_000);
    ctx.abort('the mod link was lost');
    expect(ctx.signal.aborted).toBe(true);
  });
});
