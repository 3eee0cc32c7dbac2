/** PROTOCOL §6.5: a mod reports a committed change before its result. */
import { afterEach, describe, expect, it } from 'vitest';
import { parseFrameBody } from '../../protocol/frames.ts';
import { LinkCallError } from '../../protocol/link-server.ts';
import { OpError, type OpResult } from '../../protocol/ops/index.ts';
import { connectedPair, runCleanups } from './support.ts';

afterEach(runCleanups);

type Status = OpResult<'server.status'>;

async function failure(promise: Promise<unknown>): Promise<LinkCallError> {
  const error = await promise.then(
    () => null,
    (cause: unknown) => cause,
  );
  expect(error).toBeInstanceOf(LinkCallError);
  return error as LinkCallError;
}

describe('applied', () => {
  it('parses from the mod and is refused from the daemon', () => {
    expect(parseFrameBody({ t: 'applied', id: 7 }, 'mod')).toEqual({
      ok: true,
      value: { t: 'applied', id: 7 },
    });
    expect(parseFrameBody({ t: 'applied', id: -1 }, 'mod')).toMatchObject({
      ok: false,
      error: { code: 'invalid_message' },
    });
    expect(parseFrameBody({ t: 'applied', id: 7 }, 'daemon')).toMatchObject({
      ok: false,
      error: { code: 'unexpected_frame' },
    });
  });

  it('marks a call that then times out as applied', async () => {
    const { server } = await connectedPair({
      bridge: {
        handlers: {
          'server.status': (_args, ctx) => {
            ctx.applied();
            return new Promise<Status>(() => {});
          },
        },
      },
    });
    const error = await failure(server.call('server.status', {}, { deadlineMs: 100 }));
    expect(error).toMatchObject({ kind: 'timeout', applied: true });
  });

  it('marks a call the mod reports as timed out after the notice as applied', async () => {
    const { server } = await connectedPair({
      bridge: {
        handlers: {
          'server.status': async (_args, ctx) => {
            ctx.applied();
            await new Promise((resolve) => setImmediate(resolve));
            throw new OpError('timeout', 'gave up');
          },
        },
      },
    });
    const error = await failure(server.call('server.status', {}));
    expect(error).toMatchObject({ kind: 'timeout', applied: true, opError: { code: 'timeout' } });
  });

  it('leaves a call that times out without the notice unapplied', async () => {
    const { server } = await connectedPair({
      bridge: { handlers: { 'server.status': () => new Promise<Status>(() => {}) } },
    });
    expect(await failure(server.call('server.status', {}, { deadlineMs: 100 }))).toMatchObject({
      applied: false,
    });
  });

  it('marks a call whose link drops after the notice as applied', async () => {
    const { server, bridge } = await connectedPair({
      bridge: {
        handlers: {
          'server.status': async (_args, ctx) => {
            ctx.applied();
            await new Promise((resolve) => setImmediate(resolve));
            bridge.dropLink();
            return new Promise<Status>(() => {});
          },
        },
      },
    });
    expect(await failure(server.call('server.status', {}))).toMatchObject({
      kind: 'link_lost',
      applied: true,
    });
  });

  it('still resolves normally when the result follows the notice', async () => {
    const { server } = await connectedPair({
      bridge: {
        handlers: {
          'server.status': (_args, ctx) => {
            ctx.applied();
            ctx.applied();
            return { player_count: 3 };
          },
        },
      },
    });
    await expect(server.call('server.status', {})).resolves.toEqual({ player_count: 3 });
  });
});
