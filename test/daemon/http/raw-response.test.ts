import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../daemon/http/api-error.ts';
import { refuseRaw } from '../../../daemon/http/raw-response.ts';
import { API_VERSION } from '../../../daemon/version.ts';
import { parseReply, raw } from '../../support/raw-http.ts';
import { suiteStack } from '../../support/suite.ts';

describe('answers to what node:http refuses before the pipeline', () => {
  const stack = suiteStack({ sim: false, daemon: { http: { headersTimeoutMs: 300 } } });

  const send = async (bytes: string | Buffer) =>
    parseReply(await raw(stack.daemon.api.port, (socket) => socket.write(bytes)));

  /** The spec's envelope, its request id the X-Request-Id header's, and API-Version. */
  function expectEnvelope(reply: Awaited<ReturnType<typeof send>>, status: number, code: string) {
    expect(reply.status).toBe(status);
    const error = (reply.json as { error: Record<string, unknown> }).error;
    expect(Object.keys(reply.json as object)).toEqual(['error']);
    expect(Object.keys(error).sort()).toEqual(['code', 'message', 'request_id']);
    expect(error['code']).toBe(code);
    expect(error['request_id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(reply.headers['x-request-id']).toBe(error['request_id']);
    expect(reply.headers['api-version']).toBe(API_VERSION);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['connection']).toBe('close');
  }

  it('answers a malformed request line with 400 validation_error in the envelope', async () => {
    expectEnvelope(await send('NOT AN HTTP REQUEST\r\n\r\n'), 400, 'validation_error');
  });

  it('answers a space in the URL with the envelope', async () => {
    expectEnvelope(await send('GET /v1/ser ver HTTP/1.1\r\nHost: x\r\n\r\n'), 400, 'validation_error');
  });

  it('answers raw non-ASCII bytes in the URL with the envelope', async () => {
    const request = Buffer.concat([
      Buffer.from('GET /v1/players/'),
      Buffer.from('é', 'utf8'),
      Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
    ]);
    expectEnvelope(await send(request), 400, 'validation_error');
  });

  it('answers a Content-Length that is not a number with the envelope', async () => {
    const reply = await send('POST /v1/server HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n');
    expectEnvelope(reply, 400, 'validation_error');
  });

  it('answers headers over the limit with 431 in the envelope', async () => {
    const reply = await send(`GET /v1/server HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectEnvelope(reply, 431, 'validation_error');
  });

  it('answers headers that never finish with 408 in the envelope', async () => {
    expectEnvelope(await send('GET /v1/server HTTP/1.1\r\nHost: x\r\n'), 408, 'validation_error');
  });

  it('answers CONNECT with 404 not_found instead of dropping it', async () => {
    expectEnvelope(
      await send('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
      404,
      'not_found',
    );
  });

  it('answers an HTTP/1.1 request without Host with 400 validation_error in the envelope', async () => {
    const reply = await send('GET /v1/server HTTP/1.1\r\n\r\n');
    expectEnvelope(reply, 400, 'validation_error');
    expect(reply.headers['content-length']).toBe(String(JSON.stringify(reply.json).length));
  });

  it('answers a body-carrying HTTP/1.1 request without Host with the envelope', async () => {
    const request = 'POST /v1/economy/coins HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}';
    expectEnvelope(await send(request), 400, 'validation_error');
  });

  it('answers a request with two Host headers with 400 validation_error, whichever comes first', async () => {
    for (const hosts of ['Host: x\r\nHost: y', 'Host: x\r\nhost: x']) {
      const reply = await send(`GET /healthz HTTP/1.1\r\n${hosts}\r\n\r\n`);
      expectEnvelope(reply, 400, 'validation_error');
    }
  });

  it('serves an HTTP/1.0 request without Host, which that version allows', async () => {
    const reply = await send('GET /healthz HTTP/1.0\r\n\r\n');
    expect(reply.status).toBe(200);
  });

  it('routes a request asking to upgrade to websocket or h2c like any other, in the envelope', async () => {
    for (const upgrade of ['websocket', 'h2c']) {
      const request =
        `GET /v1/nowhere HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\nUpgrade: ${upgrade}\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';
      const reply = await send(request);
      expect(reply.status).toBe(404);
      expect((reply.json as { error: { code: string } }).error.code).toBe('not_found');
      expect(reply.headers['x-request-id']).toMatch(/^req_/);
    }
  });

  it('gives every refusal its own request id', async () => {
    const first = await send('NOT HTTP\r\n\r\n');
    const second = await send('NOT HTTP\r\n\r\n');
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
  });
});

describe('refuseRaw', () => {
  it('destroys the socket of a peer that takes its answer and never closes its own side', async () => {
    // allowHalfOpen on both ends, as node:http's listener has it.
    const server = createServer({ allowHalfOpen: true }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const { port } = server.address() as { port: number };
    const peer = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    peer.on('error', () => undefined);
    peer.resume();
    const [socket] = await accepted;
    refuseRaw(socket, new ApiError('rate_limited'));
    await once(peer, 'end');
    await once(socket, 'close');
    expect(socket.destroyed).toBe(true);
    peer.destroy();
    server.close();
  });
});
