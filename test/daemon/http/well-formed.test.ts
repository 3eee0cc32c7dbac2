import { beforeAll, describe, expect, it } from 'vitest';
import { suiteStack } from '../../support/suite.ts';

interface FieldError {
  in: string;
  path: string;
  message: string;
}

describe('text that is not valid Unicode', () => {
  const stack = suiteStack();
  let player: string;
  beforeAll(async () => {
    player = [...stack.sim!.world.players.list.values()][0]!.platform_id;
  });

  const coinOps = () => stack.sim!.opCounts.get('economy.coins') ?? 0;
  const post = (path: string, body: string | Buffer) =>
    fetch(`${stack.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.key}`, 'content-type': 'application/json' },
      body,
    });
  async function refusal(response: Response) {
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as {
      error: { code: string; request_id: string; details: { errors: FieldError[] } };
    };
    expect(error.code).toBe('validation_error');
    expect(error.request_id).toBe(response.headers.get('x-request-id'));
    return error.details.errors;
  }

  // The body is ASCII on the wire: the JSON escape \ud800 is what carries the lone surrogate.
  it('refuses a lone surrogate in a body field, naming it, and never reaches the game', async () => {
    const before = coinOps();
    const errors = await refusal(
      await post(`/v1/players/${player}/coins`, '{"amount":1,"reason":"bad \\ud800 guy"}'),
    );
    expect(errors).toContainEqual(expect.objectContaining({ in: 'body', path: 'reason' }));
    expect(coinOps()).toBe(before);
  });

  it('refuses a trailing low surrogate inside an array, naming its index', async () => {
    const errors = await refusal(await post('/v1/commands', '{"verb":"say","args":["fine","x\\udc00"]}'));
    expect(errors).toEqual([expect.objectContaining({ in: 'body', path: 'args.1' })]);
  });

  it('refuses a lone surrogate in an object key', async () => {
    const errors = await refusal(
      await post(`/v1/players/${player}/coins`, '{"amount":1,"reason":"r","\\ud83d":1}'),
    );
    expect(errors).toEqual([expect.objectContaining({ in: 'body', path: '\ud83d' })]);
  });

  it('accepts a surrogate pair (an emoji written as two escapes)', async () => {
    const response = await post(`/v1/players/${player}/coins`, '{"amount":1,"reason":"gg \\ud83d\\ude00"}');
    expect(response.status).toBe(200);
  });

  it('refuses a body whose bytes are not UTF-8', async () => {
    const before = coinOps();
    const body = Buffer.concat([
      Buffer.from('{"amount":1,"reason":"bad '),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('"}'),
    ]);
    const errors = await refusal(await post(`/v1/players/${player}/coins`, body));
    expect(errors).toEqual([expect.objectContaining({ in: 'body', path: '' })]);
    expect(coinOps()).toBe(before);
  });

  it('refuses a query value whose percent-encoding is a lone surrogate, naming the parameter', async () => {
    const response = await fetch(`${stack.baseUrl}/v1/players?search=ab%ED%A0%80`, {
      headers: { authorization: `Bearer ${stack.key}` },
    });
    const errors = await refusal(response);
    expect(errors).toContainEqual(expect.objectContaining({ in: 'query', path: 'search' }));
  });

  it('accepts a percent-encoded query value that is valid UTF-8', async () => {
    const response = await fetch(`${stack.baseUrl}/v1/players?search=%C3%A9`, {
      headers: { authorization: `Bearer ${stack.key}` },
    });
    expect(response.status).toBe(200);
  });
});
