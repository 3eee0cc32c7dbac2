/**
 * The lint rule modgate/socket-error-path (scripts/lint/socket-error-path.js), run by ESLint with
 * the project's own config on code it must report and code it must let pass.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
// A path no real file holds: the project service opens it with the text given, typed by tsconfig.json.
const FILE = `${ROOT}test/scripts/socket-error-path.fixture.ts`;
const FIXTURE_PROJECT = {
  files: ['**/*.ts'],
  languageOptions: {
    parserOptions: {
      projectService: { allowDefaultProject: ['test/scripts/*.fixture.ts'], defaultProject: 'tsconfig.json' },
    },
  },
};

const HEADER = `import { createServer, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
const server = createServer();
`;

async function reports(code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT, overrideConfig: FIXTURE_PROJECT });
  const [result] = await eslint.lintText(HEADER + code, { filePath: FILE });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'modgate/socket-error-path')
    .map((m) => m.messageId ?? '');
}

describe('the socket-error-path lint rule', () => {
  it('reports a connect handler that writes to its socket without an error listener', async () => {
    expect(
      await reports(`server.on('connect', (_req: IncomingMessage, socket: Duplex) => socket.end('no'));`),
    ).toEqual(['missing']);
  }, 60_000);

  it('reports an upgrade handler that leaves its socket out', async () => {
    expect(await reports(`server.on('upgrade', (_req) => undefined);`)).toEqual(['missing']);
  }, 60_000);

  it('reports a raw-socket handler passed by name', async () => {
    const code = `const onUpgrade = (_req: IncomingMessage, socket: Duplex) => socket.end();\nserver.on('upgrade', onUpgrade);`;
    expect(await reports(code)).toEqual(['byName']);
  }, 60_000);

  it('lets pass a handler that listens for errors or refuses through refuseRaw', async () => {
    const code = `server.on('upgrade', (_req, socket) => {
  socket.on('error', () => socket.destroy());
  socket.end();
});
declare function refuseRaw(socket: Duplex): void;
server.on('connect', (_req, socket) => refuseRaw(socket));`;
    expect(await reports(code)).toEqual([]);
  }, 60_000);

  it('lets pass events that hand over no raw socket: a client connect, a WebSocket connection', async () => {
    const code = `connect(1).on('connect', () => undefined);
new WebSocketServer({ noServer: true }).on('connection', (socket) => socket.close());`;
    expect(await reports(code)).toEqual([]);
  }, 60_000);
});
