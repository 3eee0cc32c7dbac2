import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../daemon/log/log.ts';
import { startStack, type Stack } from '../../../harness/stack.ts';
import { TEST_ROUTES, thing } from '../../support/test-routes.ts';

function errorOf(json: unknown) {
  return (json as { error: { code: string; message: string; details?: Record<string, unknown> } }).error;
}

describe('pipeline mechanics', () => {
  let stack: Stack;
  const logLines: string[] = [];
  beforeAll(async () => {
    const log = createLogger({ level: 'error', write: (line) => logLines.push(line) });
    stack = await startStack({ daemon: { routes: TEST_ROUTES, log }, sim: false });
  });
  afterAll(() => stack.close());

  const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    stack.call('/v1/echo', { method: 'POST', body, headers });

  describe('body', () => {
    it('accepts JSON and answers with the route status', async () => {
      const res = await post('{"name":"a"}');
      expect(res.status).toBe(201);
      expect(res.json).toEqual({ name: 'a' });
    });

    it('accepts application/json with a utf-8 charset', async () => {
      expect((await post('{"name":"a"}', { 'content-type': 'application/json; charset=UTF-8' })).status).toBe(
        201,
      );
    });

    it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['application/json; charset=latin1']])(
      'refuses a body sent as %s with 415',
      async (type) => {
        const res = await post('{"name":"a"}', { 'content-type': type });
        expect(res.status).toBe(415);
        expect(errorOf(res.json).code).toBe('unsupported_media_type');
      },
    );

    it('refuses a body without Content-Type with 415', async () => {
      expect((await post('{"name":"a"}', {})).status).toBe(415);
    });

    it('refuses a body over the limit with 413', async () => {
      const res = await post(JSON.stringify({ name: 'x'.repeat(1_048_576) }));
      expect(res.status).toBe(413);
      expect(errorOf(res.json).code).toBe('payload_too_large');
    });

    it('refuses malformed JSON with 400', async () => {
      const res = await post('{"name":');
      expect(res.status).toBe(400);
      expect(errorOf(res.json)).toMatchObject({
        code: 'validation_error',
        message: 'The request body is not valid JSON.',
      });
    });

    it('refuses a body on an endpoint that takes none with 400', async () => {
      const res = await stack.call('/v1/things/1', {
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
    });

    it('checks the key before reading the body, so a stranger’s oversize body is a 401', async () => {
      const res = await stack.call('/v1/echo', {
        method: 'POST',
        anonymous: true,
        body: 'x'.repeat(2_000_000),
        headers: { 'content-type': 'text/plain' },
      });
      expect(res.status).toBe(401);
    });
  });

  describe('validation', () => {
    it('lists every problem in details.errors with where it is', async () => {
      const res = await post('{"count":1.5,"extra":true}');
      expect(res.status).toBe(400);
      const errors = errorOf(res.json).details?.['errors'] as Array<{ in: string; path: string }>;
      expect(errors.map((e) => `${e.in}:${e.path}`).sort()).toEqual([
        'body:count',
        'body:extra',
        'body:name',
      ]);
    });

    it('refuses a malformed path parameter with 400', async () => {
      const res = await stack.call('/v1/things/007');
      expect(res.status).toBe(400);
      expect(errorOf(res.json).details?.['errors']).toEqual([
        { in: 'path', path: 'id', message: 'a positive integer without leading zeros' },
      ]);
    });

    it('refuses an unknown query parameter and a repeated one with 400', async () => {
      expect(errorOf((await stack.call('/v1/things/1?limt=5')).json).details?.['errors']).toEqual([
        { in: 'query', path: 'limt', message: 'unknown field' },
      ]);
      expect((await stack.call('/v1/things/1?limit=5&limit=6')).status).toBe(400);
    });

    it('treats a query parameter named __proto__ as an unknown parameter', async () => {
      const res = await stack.call('/v1/things/1?__proto__=x');
      expect(res.status).toBe(400);
    });
  });

  describe('routing', () => {
    it('prefers a static segment over a parameter', async () => {
      expect((await stack.call('/v1/things/special')).json).toEqual({ special: true });
    });

    it('answers 404 for a method the path does not have and for paths outside /v1', async () => {
      expect((await stack.call('/v1/server', { method: 'DELETE' })).status).toBe(404);
      expect((await stack.call('/v2/server')).status).toBe(404);
      expect((await stack.call('/')).status).toBe(404);
    });
  });

  describe('caching', () => {
    it('sends a strong ETag and private max-age on a cacheable read', async () => {
      const res = await stack.call('/v1/things/1');
      expect(res.headers['etag']).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(res.headers['cache-control']).toBe('private, max-age=15');
    });

    it('answers 304 with no body for a matching If-None-Match, strong, weak or in a list', async () => {
      const { headers } = await stack.call('/v1/things/1');
      const etag = headers['etag'] as string;
      for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const res = await stack.call('/v1/things/1', { headers: { 'if-none-match': inm } });
        expect(res.status, inm).toBe(304);
        expect(res.body).toBeNull();
        expect(res.headers['etag']).toBe(etag);
      }
    });

    it('answers 200 with the new tag once the representation changes', async () => {
      const { headers } = await stack.call('/v1/things/1');
      thing.version += 1;
      const res = await stack.call('/v1/things/1', {
        headers: { 'if-none-match': headers['etag'] as string },
      });
      expect(res.status).toBe(200);
      expect(res.headers['etag']).not.toBe(headers['etag']);
    });

    it('sends private, no-store and no ETag on a live read', async () => {
      const res = await stack.call('/v1/things/special');
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.headers['etag']).toBeUndefined();
    });
  });

  it('marks a deprecated route with Deprecation and Sunset, on errors too', async () => {
    const res = await stack.call('/v1/things/special');
    expect(res.headers['deprecation']).toBe(`@${Date.parse('2026-06-01T00:00:00Z') / 1000}`);
    expect(res.headers['sunset']).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    const refused = await stack.call('/v1/things/special', { anonymous: true });
    expect(refused.status).toBe(401);
    expect(refused.headers['deprecation']).toBeDefined();
  });

  it.each(['/v1/broken', '/v1/throws'])(
    'answers a bug at %s with a bare 500 and logs it whole',
    async (path) => {
      const res = await stack.call(path);
      expect(res.status).toBe(500);
      expect(errorOf(res.json)).toMatchObject({ code: 'internal', message: 'Internal error.' });
      expect(JSON.stringify(res.json)).not.toMatch(/secret|boom|password/);
      const requestId = res.headers['x-request-id'] as string;
      expect(logLines.some((line) => line.includes(requestId))).toBe(true);
    },
  );

  it('sends API-Version, X-Request-Id and the RateLimit headers on every response', async () => {
    for (const res of [await stack.call('/v1/things/1'), await stack.call('/v1/nope'), await post('nope')]) {
      expect(res.headers['api-version']).toBe('1.0');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy']) {
        expect(res.headers[name], name).toBeDefined();
      }
    }
  });
});
