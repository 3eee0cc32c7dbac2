/**
 * The fuzzer's own parts (bench/fuzz/): its cases replay from (seed, index) alone, its response
 * reader frames pipelined answers, and its checks call out what docs/fuzzing.md says they do.
 */
import { describe, expect, it } from 'vitest';
import { makeCase, type FuzzTarget } from '../../bench/fuzz/cases.ts';
import { problemWith } from '../../bench/fuzz/checks.ts';
import { operationsOf } from '../../bench/fuzz/operations.ts';
import { ResponseReader, type Response } from '../../bench/fuzz/response-reader.ts';
import { buildOpenApi } from '../../daemon/openapi/openapi.ts';
import { ROUTES } from '../../daemon/routes/index.ts';

const doc = buildOpenApi(ROUTES) as unknown as Parameters<typeof operationsOf>[0];
const target: FuzzTarget = {
  host: '127.0.0.1:1',
  key: 'mg_test',
  doc,
  operations: operationsOf(doc).filter((op) => op.path.startsWith('/v1/')),
  ids: { players: ['76561190000000001'], squads: ['1'] },
};

describe('fuzz cases', () => {
  it('makes the same bytes for the same seed and index, whatever was drawn before', () => {
    const first = makeCase(7, 1234, target);
    for (let i = 0; i < 50; i++) makeCase(7, i, target);
    expect(makeCase(7, 1234, target)).toEqual(first);
    expect(makeCase(8, 1234, target).bytes.equals(first.bytes)).toBe(false);
  });

  it('reaches every operation of the route table with valid requests', () => {
    const reached = new Set<string>();
    for (let i = 0; i < 20_000 && reached.size < target.operations.length; i++) {
      const fuzzCase = makeCase(1, i, target);
      if (fuzzCase.family !== 'valid') continue;
      for (const line of fuzzCase.bytes.toString('latin1').matchAll(/(?:^|\n)([A-Z]+) (\/v1\/[^ ?]*)/g)) {
        const op = target.operations.find(
          (o) =>
            o.method === line[1] &&
            new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(line[2] ?? ''),
        );
        if (op) reached.add(`${op.method} ${op.path}`);
      }
    }
    expect(target.operations.length).toBeGreaterThanOrEqual(ROUTES.length);
    expect([...reached].sort()).toEqual(target.operations.map((op) => `${op.method} ${op.path}`).sort());
  });
});

describe('the fuzzer response reader', () => {
  const http = (text: string) => Buffer.from(text.replaceAll('\n', '\r\n'), 'latin1');

  it('frames pipelined answers by Content-Length, chunks and HEAD, fed one byte at a time', () => {
    const bytes = Buffer.concat([
      http('HTTP/1.1 100 Continue\n\n'),
      http('HTTP/1.1 200 OK\nContent-Length: 2\n\n'),
      Buffer.from('ok'),
      http('HTTP/1.1 404 Not Found\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n'),
      http('HTTP/1.1 200 OK\nContent-Length: 10\n\n'),
    ]);
    const reader = new ResponseReader();
    const methods = ['GET', 'GET', 'HEAD'];
    const responses: Response[] = [];
    for (const byte of bytes) responses.push(...reader.push(Buffer.from([byte]), methods));
    expect(responses.map((r) => [r.status, r.body.toString()])).toEqual([
      [200, 'ok'],
      [404, 'abc'],
      [200, ''],
    ]);
    expect(methods).toEqual([]);
    expect(reader.problem).toBeNull();
  });

  it('says so when the bytes are not an HTTP answer', () => {
    const reader = new ResponseReader();
    reader.push(http('SSH-2.0-OpenSSH\n\n'), ['GET']);
    expect(reader.problem).toMatch(/status line/);
  });
});

describe('the fuzzer checks', () => {
  const response = (status: number, headers: Record<string, string>, body: unknown): Response => ({
    status,
    headers,
    body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    streamed: false,
  });
  const id = 'req_0123';
  const envelope = (code: string) => ({ error: { code, message: 'm', request_id: id } });

  it('accepts a success or an enveloped error with its request id', () => {
    expect(problemWith(response(200, { 'x-request-id': id }, '{}'), 'GET')).toBeNull();
    expect(
      problemWith(response(400, { 'x-request-id': id }, envelope('validation_error')), 'GET'),
    ).toBeNull();
  });

  it('calls out an answer without X-Request-Id, a bare error and a foreign request id', () => {
    expect(problemWith(response(200, {}, '{}'), 'GET')).toMatch(/X-Request-Id/);
    expect(problemWith(response(400, { 'x-request-id': id }, ''), 'GET')).toMatch(/envelope/);
    const other = { error: { code: 'not_found', message: 'm', request_id: 'req_other' } };
    expect(problemWith(response(404, { 'x-request-id': id }, other), 'GET')).toMatch(/request_id/);
  });

  it('tolerates 503 server_unavailable and 504 gateway_timeout and calls out every other 5xx', () => {
    expect(
      problemWith(response(503, { 'x-request-id': id }, envelope('server_unavailable')), 'GET'),
    ).toBeNull();
    expect(problemWith(response(504, { 'x-request-id': id }, envelope('gateway_timeout')), 'GET')).toBeNull();
    expect(problemWith(response(500, { 'x-request-id': id }, envelope('internal')), 'GET')).toBe(
      '500 internal',
    );
    expect(problemWith(response(502, { 'x-request-id': id }, envelope('internal')), 'GET')).toBe(
      '502 internal',
    );
    expect(problemWith(response(503, { 'x-request-id': id }, envelope('internal')), 'GET')).toBe(
      '503 internal',
    );
  });
});
