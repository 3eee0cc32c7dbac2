import { describe, expect, it } from 'vitest';
import { parseReply, raw } from '../../../support/raw-http.ts';
import { suiteStack } from '../../../support/suite.ts';

describe('the request target', () => {
  const stack = suiteStack();

  const get = async (path: string) =>
    parseReply(
      await raw(stack.daemon.api.port, (socket) =>
        socket.write(
          `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.key}\r\nConnection: close\r\n\r\n`,
        ),
      ),
    );
  const codeOf = (reply: Awaited<ReturnType<typeof get>>) =>
    (reply.json as { error?: { code: string } }).error?.code;

  it('routes /v1/server as sent', async () => {
    expect((await get('/v1/server')).status).toBe(200);
  });

  it.each([
    '/healthz/%2e%2e/v1/server',
    '/v1/players/%2e%2e/server',
    '/v1/players/%2E%2e/server',
    '/v1/players/.%2E/server',
    '/v1/players/../server',
    '/v1/./server',
    '/v1/%2e/server',
    '/v1/server/.',
    '/v1/server/%2E',
    '/healthz/..',
  ])('answers %s with 404 not_found instead of resolving the dot segments', async (path) => {
    const reply = await get(path);
    expect(reply.status).toBe(404);
    expect(codeOf(reply)).toBe('not_found');
    expect(reply.headers['x-request-id']).toMatch(/^req_/);
  });

  it('keeps a segment that merely contains dots as data', async () => {
    const reply = await get('/v1/players/a..b');
    expect(reply.status).not.toBe(200);
    expect(codeOf(reply)).not.toBe('internal');
  });

  it('routes an absolute-form target by its path', async () => {
    expect((await get('http://x/v1/server')).status).toBe(200);
  });

  it('keeps routing the query string apart from the path', async () => {
    expect((await get('/healthz?mod=required')).status).toBe(200);
  });
});
