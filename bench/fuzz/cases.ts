/**
 * The fuzzer's requests: case number i of seed S is a pure function of (S, i), so any case can be
 * replayed alone (`--case i`). A case is the bytes to write (one request, or a pipelined batch),
 * and when to cut the connection. Families, by weight:
 *
 * - valid requests to every operation of the route table, pipelined in batches, with the key;
 * - the same operations with hostile values: traversal, odd encodings, forged cursors, junk
 *   query strings, huge numbers;
 * - bad, forged or missing keys; broken request lines; unknown methods; huge and odd headers;
 *   duplicate or conflicting Content-Length and Transfer-Encoding, bad chunking; bodies over the
 *   cap, not UTF-8, not JSON, deeply nested; CONNECT and upgrades;
 * - any of the above cut by a reset partway through the request or as the answer arrives.
 */
import { deriveRng, weightTable, type Rng } from '../../mod-sim/world/rng.ts';
import { resolve, sample, type Document, type IdPool, type Operation } from './operations.ts';

export type Reset = 'never' | 'on-answer' | { afterBytes: number };

export interface FuzzCase {
  index: number;
  family: string;
  bytes: Buffer;
  /** Methods of the complete requests in `bytes`, in order: one answer is awaited for each. */
  methods: string[];
  /** Each request's first line (at most 200 characters), to say which one an answer was to. */
  requestLines: string[];
  reset: Reset;
  /** Well-formed requests, safe to send on a kept-alive connection with others. */
  keepAlive: boolean;
}

export interface FuzzTarget {
  /** The Host header: the API listener's address. */
  host: string;
  key: string;
  doc: Document;
  operations: Operation[];
  ids: IdPool;
}

/** The pure-rand stream the fuzzer draws from (apart from the simulated world's). */
const FUZZ_STREAM = 9_001;
const MAX_BATCH = 6;

type Family = (
  rng: Rng,
  target: FuzzTarget,
) => Omit<FuzzCase, 'index' | 'family' | 'reset' | 'requestLines'> & {
  reset?: Reset;
  requestLines?: string[];
};

export function makeCase(seed: number, index: number, target: FuzzTarget): FuzzCase {
  const rng = deriveRng(seed, FUZZ_STREAM, index);
  const [family, build] = rng.weighted(FAMILIES);
  const built = build(rng, target);
  // One case in twelve, whatever its family, is cut short by the client.
  const reset: Reset = built.reset ?? (rng.chance(1 / 12) ? randomReset(rng, built.bytes.length) : 'never');
  const requestLines = (built.requestLines ?? [firstLine(built.bytes)]).map((line) => line.slice(0, 200));
  return { index, family, ...built, requestLines, reset, keepAlive: built.keepAlive && reset === 'never' };
}

function firstLine(bytes: Buffer): string {
  const text = bytes.subarray(0, 256).toString('latin1');
  const end = text.indexOf('\r\n');
  return end < 0 ? text : text.slice(0, end);
}

function randomReset(rng: Rng, length: number): Reset {
  return rng.chance(0.5) ? 'on-answer' : { afterBytes: rng.int(0, Math.max(0, length - 1)) };
}

// --- request bytes ---------------------------------------------------------------------------

interface RequestParts {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body?: Buffer;
  version?: string;
}

export function requestBytes(parts: RequestParts): Buffer {
  const lines = [`${parts.method} ${parts.target} ${parts.version ?? 'HTTP/1.1'}`];
  for (const [name, value] of parts.headers) lines.push(`${name}: ${value}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return parts.body ? Buffer.concat([head, parts.body]) : head;
}

function baseHeaders(target: FuzzTarget, body?: Buffer): Array<[string, string]> {
  const headers: Array<[string, string]> = [
    ['Host', target.host],
    ['Authorization', `Bearer ${target.key}`],
  ];
  if (body) headers.push(['Content-Type', 'application/json'], ['Content-Length', String(body.length)]);
  return headers;
}

/** A valid request to `op`: its parameters and body drawn from its schemas. */
function validParts(rng: Rng, target: FuzzTarget, op: Operation): RequestParts {
  let path = op.path;
  const query: string[] = [];
  const extra: Array<[string, string]> = [];
  for (const p of op.parameters) {
    if (p.in !== 'path' && !p.required && !rng.chance(0.4)) continue;
    const value = String(sample(target.doc, p.schema, rng, target.ids, p.name));
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(value));
    else if (p.in === 'query') query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(value)}`);
    else if (p.name.toLowerCase() !== 'authorization') extra.push([p.name, value.replace(/[\r\n]/g, '')]);
  }
  const body = op.body
    ? Buffer.from(JSON.stringify(sample(target.doc, resolve(target.doc, op.body), rng, target.ids)))
    : undefined;
  const headers = [...baseHeaders(target, body), ...extra];
  return {
    method: op.method,
    target: query.length ? `${path}?${query.join('&')}` : path,
    headers,
    ...(body ? { body } : {}),
  };
}

function single(parts: RequestParts, keepAlive = false): ReturnType<Family> {
  return { bytes: requestBytes(parts), methods: [parts.method], keepAlive };
}

/** An operation that answers and ends (not a stream). */
function pickOperation(rng: Rng, target: FuzzTarget): Operation {
  for (;;) {
    const op = rng.pick(target.operations);
    if (!op.streams || rng.chance(0.02)) return op;
  }
}

// --- families --------------------------------------------------------------------------------

const valid: Family = (rng, target) => {
  const count = rng.int(1, MAX_BATCH);
  const parts = Array.from({ length: count }, () => validParts(rng, target, pickOperation(rng, target)));
  // A stream never ends: it can only be the last of a batch.
  const streamAt = parts.findIndex((p, i) => i < parts.length - 1 && isStreamPath(target, p));
  const batch = streamAt >= 0 ? parts.slice(0, streamAt + 1) : parts;
  return {
    bytes: Buffer.concat(batch.map(requestBytes)),
    methods: batch.map((p) => p.method),
    requestLines: batch.map((p) => `${p.method} ${p.target}`),
    keepAlive: true,
  };
};

function isStreamPath(target: FuzzTarget, parts: RequestParts): boolean {
  return target.operations.some((op) => op.streams && parts.target.split('?')[0] === op.path);
}

const HOSTILE_SEGMENTS = [
  '..',
  '%2e%2e',
  '%2E%2e%2f',
  '.%2e',
  '%00',
  '%ff%fe',
  '%ED%A0%80',
  '%C0%AF',
  '%',
  '%zz',
  '\\..\\',
  '%5c',
  '//',
  ';x=1',
  'A'.repeat(300),
  '9'.repeat(40),
  '-1',
  '0',
  '00000000000000001',
  'social:',
  'social:%20',
  '%F0%9F%98%80',
  'null',
  '[]',
  '{}',
];

const HOSTILE_QUERIES = [
  'limit=-1',
  'limit=1e309',
  'limit=99999999999999999999999',
  'limit=&limit=10',
  'cursor=AAAA',
  'cursor=',
  'cursor=%ff',
  `cursor=${'A'.repeat(5000)}`,
  'cursor=eyJ4IjoxfQ.AAAA',
  'search=%ED%A0%80',
  'search=%00',
  'online=maybe',
  'platform_id=1&social_id=2',
  'start_date=2026-02-30',
  'end_date=9999-99-99 99:99:99',
  'types=' + ','.repeat(500),
  'a[b]=c',
  '__proto__=1',
  'constructor[prototype][x]=1',
  '=&&==&',
  '%26%3D',
  'x=' + '%41'.repeat(3000),
];

const hostileValues: Family = (rng, target) => {
  const parts = validParts(rng, target, pickOperation(rng, target));
  const [path, query = ''] = parts.target.split('?') as [string, string?];
  const segments = path.split('/');
  if (rng.chance(0.6)) segments[rng.int(1, segments.length - 1)] = rng.pick(HOSTILE_SEGMENTS);
  const queries = query ? query.split('&') : [];
  for (let i = rng.int(0, 3); i > 0; i--) queries.push(rng.pick(HOSTILE_QUERIES));
  parts.target = queries.length ? `${segments.join('/')}?${queries.join('&')}` : segments.join('/');
  return single(parts);
};

const badKeys: Family = (rng, target) => {
  const parts = validParts(rng, target, pickOperation(rng, target));
  const forged = [
    '',
    'Bearer',
    'Bearer ',
    `Bearer ${target.key}x`,
    `Bearer ${target.key.slice(0, -1)}`,
    `Bearer ${target.key.toUpperCase()}`,
    `Basic ${Buffer.from(`user:${target.key}`).toString('base64')}`,
    `bearer ${target.key}`,
    `Bearer  ${target.key}`,
    `Bearer ${'A'.repeat(4000)}`,
    'Bearer mg_live_0000000000000000000000000000000000000000',
    `Bearer ${target.key}, Bearer ${target.key}`,
    'Bearer \u00ff\u00fe',
  ];
  const headers = parts.headers.filter(([name]) => name !== 'Authorization');
  if (rng.chance(0.85)) headers.push(['Authorization', rng.pick(forged)]);
  if (rng.chance(0.1)) headers.push(['Authorization', `Bearer ${target.key}`]);
  return single({ ...parts, headers });
};

const requestLines: Family = (rng, target) => {
  const host = `Host: ${target.host}\r\n`;
  const lines = [
    'GET /healthz HTTP/1.1 extra',
    'GET  /healthz HTTP/1.1',
    'GET /healthz',
    'GET /healthz HTTP/2.0',
    'GET /healthz HTTP/0.9',
    'GET /healthz HTTP/1.2',
    'GET /healthz http/1.1',
    'GET http://127.0.0.1/v1/server HTTP/1.1',
    'GET http://evil.example/v1/server HTTP/1.1',
    'OPTIONS * HTTP/1.1',
    'GET * HTTP/1.1',
    'GET v1/server HTTP/1.1',
    'GET /v1/server\tHTTP/1.1',
    'GET /v1/server HTTP/1.1\r\r',
    '\r\nGET /healthz HTTP/1.1',
    `GET /${'a'.repeat(rng.int(8_000, 70_000))} HTTP/1.1`,
    'G\u00c9T /healthz HTTP/1.1',
    'GET /\u00e9 HTTP/1.1',
    'GET /%%% HTTP/1.1',
  ];
  const garbage = Buffer.from(Array.from({ length: rng.int(1, 64) }, () => rng.int(0, 255)));
  const bytes = rng.chance(0.2)
    ? Buffer.concat([garbage, Buffer.from('\r\n\r\n')])
    : Buffer.from(`${rng.pick(lines)}\r\n${host}\r\n`, 'latin1');
  return { bytes, methods: ['GET'], keepAlive: false };
};

const methods: Family = (rng, target) => {
  const parts = validParts(rng, target, pickOperation(rng, target));
  const method = rng.pick([
    'PROPFIND',
    'BREW',
    'TRACE',
    'OPTIONS',
    'PURGE',
    'get',
    'Get',
    'M-SEARCH',
    'PATCH',
    'PUT',
    'DELETE',
    'HEAD',
    'SEARCH',
    'QUERY',
  ]);
  return single({ ...parts, method }, method === 'HEAD');
};

const headerJunk: Family = (rng, target) => {
  const parts = validParts(rng, target, pickOperation(rng, target));
  const choices: Array<() => void> = [
    () => parts.headers.push(['X-Big', 'a'.repeat(rng.int(8_000, 40_000))]),
    () => {
      for (let i = rng.int(100, 3_000); i > 0; i--) parts.headers.push([`X-H${i}`, 'v']);
    },
    () => parts.headers.push(['X Space', 'v']),
    () => parts.headers.push(['X-Fold', 'a\r\n folded']),
    () => parts.headers.push(['X-Nul', 'a\u0000b']),
    () => parts.headers.push(['X-Ctl', 'a\u0001\u007fb']),
    () => parts.headers.push(['X-Latin', '\u00ff\u00e9']),
    () => parts.headers.push(['Host', 'second.example']),
    () => (parts.headers = parts.headers.filter(([name]) => name !== 'Host')),
    () => parts.headers.push(['', 'empty name']),
    () => parts.headers.push(['X-Colon:', 'x']),
    () => parts.headers.push(['X-Forwarded-For', '1.2.3.4, 5.6.7.8']),
    () => parts.headers.push(['Expect', '100-continue']),
    () => parts.headers.push(['Connection', 'keep-alive, Upgrade, close, x']),
    () => parts.headers.push(['If-None-Match', '"' + 'x'.repeat(2000) + '"']),
    () => parts.headers.push(['Accept-Encoding', 'gzip;q=1e9, *;q=-1']),
    () => parts.headers.push(['Content-Type', 'application/json; charset=utf-16']),
  ];
  for (let i = rng.int(1, 3); i > 0; i--) rng.pick(choices)();
  return single(parts);
};

const framing: Family = (rng, target) => {
  const parts = validParts(
    rng,
    target,
    rng.pick(target.operations.filter((op) => op.body) ?? target.operations),
  );
  const body = parts.body ?? Buffer.from('{}');
  const head = parts.headers.filter(([name]) => name !== 'Content-Length');
  const length = String(body.length);
  const chunked = `${body.length.toString(16)}\r\n${body.toString('latin1')}\r\n0\r\n\r\n`;
  const variants: Array<[Array<[string, string]>, string]> = [
    [
      [
        ['Content-Length', length],
        ['Content-Length', length],
      ],
      body.toString('latin1'),
    ],
    [
      [
        ['Content-Length', length],
        ['Content-Length', String(body.length + 1)],
      ],
      body.toString('latin1') + ' ',
    ],
    [[['Content-Length', `${length}, ${length}`]], body.toString('latin1')],
    [[['Content-Length', `+${length}`]], body.toString('latin1')],
    [[['Content-Length', '-1']], ''],
    [[['Content-Length', '99999999999999999999']], ''],
    [
      [
        ['Content-Length', length],
        ['Transfer-Encoding', 'chunked'],
      ],
      chunked,
    ],
    [
      [
        ['Transfer-Encoding', 'chunked'],
        ['Transfer-Encoding', 'chunked'],
      ],
      chunked,
    ],
    [[['Transfer-Encoding', 'gzip, chunked']], chunked],
    [[['Transfer-Encoding', 'chunked, gzip']], chunked],
    [[['Transfer-Encoding', 'identity']], body.toString('latin1')],
    [[['Transfer-Encoding', ' chunked']], chunked],
    [[['Transfer-Encoding', 'chunked']], `zz\r\n${body.toString('latin1')}\r\n0\r\n\r\n`],
    [
      [['Transfer-Encoding', 'chunked']],
      `${body.length.toString(16)};ext=${'x'.repeat(rng.int(1, 20_000))}\r\n${body.toString('latin1')}\r\n0\r\n\r\n`,
    ],
    [
      [['Transfer-Encoding', 'chunked']],
      `${body.length.toString(16)}\r\n${body.toString('latin1')}XX0\r\n\r\n`,
    ],
    [
      [['Transfer-Encoding', 'chunked']],
      `${(body.length + 5).toString(16)}\r\n${body.toString('latin1')}\r\n0\r\n\r\n`,
    ],
    [[['Transfer-Encoding', 'chunked']], `FFFFFFFFFFFFFFFFFF\r\n${body.toString('latin1')}\r\n0\r\n\r\n`],
    [[['Transfer-Encoding', 'chunked']], `${chunked.slice(0, -2)}X-Trailer: 1\r\n\r\n`],
  ];
  const [headers, text] = rng.pick(variants);
  return {
    bytes: requestBytes({ ...parts, headers: [...head, ...headers], body: Buffer.from(text, 'latin1') }),
    methods: [parts.method],
    keepAlive: false,
  };
};

const bodies: Family = (rng, target) => {
  const parts = validParts(rng, target, rng.pick(target.operations.filter((op) => op.body)));
  const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const texts: Array<() => Buffer> = [
    () => Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
    () => Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
    () => Buffer.from('{"a":'),
    () => Buffer.from('{"reason":"\\ud800"}'),
    () => Buffer.from('{"\\ud800":1}'),
    () => Buffer.from(deep(rng.int(100, 20_000))),
    () => Buffer.from(`{"amount":1${'0'.repeat(400)}}`),
    () => Buffer.from('{"amount":1e400}'),
    () => Buffer.from('{"__proto__":{"admin":true}}'),
    () => Buffer.from('null'),
    () => Buffer.from('"string"'),
    () => Buffer.from(''),
    () => Buffer.from(`{"reason":"${'x'.repeat(rng.int(1_000, 900_000))}"}`),
    () => Buffer.concat([Buffer.from('{"x":"'), Buffer.alloc(rng.int(10, 1000), 0), Buffer.from('"}')]),
  ];
  const body = rng.pick(texts)();
  const headers = parts.headers.filter(([name]) => name !== 'Content-Length' && name !== 'Content-Type');
  const type = rng.pick([
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/jsonx',
    '',
  ]);
  if (type) headers.push(['Content-Type', type]);
  if (rng.chance(0.15)) {
    // Over the cap by its Content-Length: refused before the body is read; send only a little.
    headers.push(['Content-Length', String(rng.int(1_048_577, 2_000_000_000))]);
    return {
      bytes: requestBytes({ ...parts, headers, body: body.subarray(0, 64) }),
      methods: [parts.method],
      keepAlive: false,
    };
  }
  headers.push(['Content-Length', String(body.length)]);
  return { bytes: requestBytes({ ...parts, headers, body }), methods: [parts.method], keepAlive: false };
};

const connectUpgrade: Family = (rng, target) => {
  const path = validParts(rng, target, pickOperation(rng, target)).target;
  const requests = [
    `CONNECT 127.0.0.1:${rng.int(1, 65535)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    `CONNECT ${target.host} HTTP/1.1\r\nHost: ${target.host}\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n`,
    `GET ${path} HTTP/1.1\r\nHost: ${target.host}\r\nAuthorization: Bearer ${target.key}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    `GET ${path} HTTP/1.1\r\nHost: ${target.host}\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n`,
    'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    `GET ${path} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\n\r\n`,
  ];
  const method = rng.chance(0.3) ? 'CONNECT' : 'GET';
  const text = method === 'CONNECT' ? rng.pick(requests.slice(0, 2)) : rng.pick(requests.slice(2));
  // Half of them are reset as the answer arrives: node:http hands a CONNECT's socket over raw.
  const reset: Reset | undefined = rng.chance(0.5) ? 'on-answer' : undefined;
  return {
    bytes: Buffer.from(text, 'latin1'),
    methods: [method],
    keepAlive: false,
    ...(reset ? { reset } : {}),
  };
};

/** A well-formed request that only a reset ends. */
const resets: Family = (rng, target) => {
  const built = rng.chance(0.5) ? valid(rng, target) : hostileValues(rng, target);
  return { ...built, reset: randomReset(rng, built.bytes.length) };
};

const FAMILIES = weightTable<[string, Family]>([
  [['valid', valid], 40],
  [['hostile values', hostileValues], 12],
  [['bad keys', badKeys], 6],
  [['request lines', requestLines], 6],
  [['methods', methods], 3],
  [['headers', headerJunk], 6],
  [['framing', framing], 8],
  [['bodies', bodies], 8],
  [['connect and upgrade', connectUpgrade], 3],
  [['resets', resets], 5],
]);
