/**
 * Issue 12, item 1: a flood of sockets that never send a byte, against `modgate serve` and
 * `modgate sim` as separate processes. The client on 127.0.0.1 must keep being served while
 * 5,000 silent sockets from 127.0.0.2 (another loopback address, so the per-address cap counts
 * them apart) are opened. Asserts service, not speed.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { startServeAndSim, stop, type ModgateProcess } from '../../harness/processes.ts';
import { parseReply, silent, type Silent } from '../support/raw-http.ts';

const SILENT_SOCKETS = 5_000;
const PER_ADDRESS_CAP = 64; // the default of api.max_connections_per_address
const FIRST_BYTE_TIMEOUT_MS = 2_000;

describe('5,000 silent sockets', () => {
  let data: TestDataDir;
  let key: string;
  let serve: ModgateProcess;
  let sim: ModgateProcess;
  let apiPort: number;

  beforeAll(async () => {
    // Node raises its soft open-file limit to the hard one at start; the flood needs ~5,100.
    const { stdout } = await promisify(execFile)('sh', ['-c', 'ulimit -n']);
    const limit = stdout.trim() === 'unlimited' ? Infinity : Number(stdout);
    if (limit < SILENT_SOCKETS + 200) {
      throw new Error(`open-file limit ${limit} is too low for this test: raise it (ulimit -Hn 8192)`);
    }
    data = await makeDataDir();
    key = (await data.createKey('--name', 'client')).key;
    // The admitted silent sockets are closed once the first-byte timeout passes: 2 s here, not
    // the default 10 s, so the file does not wait out the default (docs/configuration.md).
    const config = join(data.dir, 'modgate.toml');
    await writeFile(config, `[api]\nfirst_byte_timeout_ms = ${FIRST_BYTE_TIMEOUT_MS}\n`);
    ({ serve, sim, apiPort } = await startServeAndSim(data.dir, {
      extra: ['--config', config],
      simExtra: ['--players', '20'],
    }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all([sim && stop(sim), serve && stop(serve)]);
    await data?.remove();
  });

  it('cannot lock out a client that keeps asking while they are opened', async () => {
    const sockets: Silent[] = [];
    let flooding = true;
    const flood = (async () => {
      try {
        for (let i = 0; i < SILENT_SOCKETS; i += 250) {
          const batch = Array.from({ length: 250 }, () => silent(apiPort, '127.0.0.2'));
          sockets.push(...(await Promise.all(batch)));
        }
      } finally {
        flooding = false;
      }
    })();
    const statuses: number[] = [];
    const ask = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${apiPort}${path}`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(20_000),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    };
    try {
      // During the flood, and twice more once all 5,000 are open. Paced like a polling bot, so
      // the key's own rate limit (120 a minute) is never what answers.
      while (flooding) {
        for (const path of ['/healthz', '/v1/server']) await ask(path);
        await new Promise((resolve) => setTimeout(resolve, 600));
      }
      for (let i = 0; i < 2; i++) for (const path of ['/healthz', '/v1/server']) await ask(path);
      await flood;
      expect(sockets).toHaveLength(SILENT_SOCKETS);
      expect(statuses.length).toBeGreaterThanOrEqual(4);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      // None is held: over the cap each is answered 429 in the envelope and closed at once; the
      // ones admitted are closed without a word once the first-byte timeout passes.
      const replies = await Promise.all(sockets.map((s) => s.reply));
      const answers = replies.map((text) => (text === '' ? 'closed' : parseReply(text).status));
      expect(answers.filter((answer) => answer !== 429 && answer !== 'closed')).toEqual([]);
      const refused = answers.filter((answer) => answer === 429).length;
      expect(refused).toBeGreaterThan(SILENT_SOCKETS - 10 * PER_ADDRESS_CAP);
    } finally {
      for (const { socket } of sockets) socket.destroy();
    }
  }, 120_000);
});
