import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_FILE } from '../../../daemon/log/audit-log.ts';
import { createLogger } from '../../../daemon/log/log.ts';
import { parseReply, raw } from '../../support/raw-http.ts';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';

type Line = Record<string, unknown>;

describe('a client that goes away mid-request', () => {
  let stack: Stack;
  let player: string;
  const lines: Line[] = [];
  beforeAll(async () => {
    const log = createLogger({ level: 'debug', write: (line) => void lines.push(JSON.parse(line) as Line) });
    stack = await startStack({ daemon: { log, http: { headersTimeoutMs: 300, requestTimeoutMs: 300 } } });
    player = stack.sim!.world.players.list.itemAt(0).platform_id;
  });
  afterAll(() => stack.close());

  /** Headers announcing 100 body bytes, and only the first few of them. */
  const partial = (requestId: string) =>
    `POST /v1/players/${player}/coins HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.key}\r\n` +
    `Content-Type: application/json\r\nContent-Length: 100\r\nX-Test: ${requestId}\r\n\r\n{"amount":`;
  const requestLines = () => lines.filter((line) => line['msg'] === 'request' && line['route'] !== null);
  const audit = async () =>
    (await readFile(join(stack.data.dir, AUDIT_FILE), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);

  it('logs and audits an aborted request as 499, never as a 500', async () => {
    const before = requestLines().length;
    const socket = connect(stack.daemon.api.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(partial('abort'));
    await eventually(() => socket.bytesWritten > 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await eventually(() => requestLines().length > before);
    const line = requestLines().at(-1) as Line;
    expect(line['status']).toBe(499);
    expect(line['level']).toBe('info');
    await eventually(async () => (await audit()).some((entry) => entry['status'] === 499));
    expect((await audit()).find((entry) => entry['status'] === 499)).toMatchObject({
      outcome: 'aborted',
      error_code: null,
    });
    expect(lines.filter((l) => l['level'] === 'error')).toEqual([]);
  });

  it('answers a body that stops arriving with 408 in the envelope, and logs 408', async () => {
    const before = requestLines().length;
    const reply = parseReply(await raw(stack.daemon.api.port, (socket) => socket.write(partial('slow'))));
    expect(reply.status).toBe(408);
    expect((reply.json as { error: { request_id: string } }).error.request_id).toBe(
      reply.headers['x-request-id'],
    );
    await eventually(() => requestLines().length > before);
    expect(requestLines().at(-1)?.['status']).toBe(408);
    expect(lines.filter((l) => l['level'] === 'error')).toEqual([]);
  });
});
