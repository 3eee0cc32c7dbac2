/**
 * Issue 24, item 1: no raw socket without an error path. Against `modgate serve` (with its metrics
 * listener) and a linked `modgate sim`, as separate processes: requests that node:http answers
 * itself or hands over raw (CONNECT, upgrades, malformed or oversized requests, no Host), each cut
 * with a TCP reset at the moment the answer arrives, or before any answer, many times over, on the
 * API port, the metrics port and the mod-link port. A socket left without an `'error'` listener
 * turns one such reset into an unhandled error that ends the daemon; here it must stay up, keep
 * answering `/healthz`, and keep its mod.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { startServeAndSim, stop, type ModgateProcess } from '../../harness/processes.ts';
import {
  HOSTILE_LINK_REQUESTS,
  HOSTILE_REQUESTS,
  sendThenReset,
  type ResetMoment,
} from '../support/resets.ts';

const ON_ANSWER = 50;
const BEFORE_ANSWER = 10;
const IN_PARALLEL = 10;

describe('connections reset around the answer', () => {
  let data: TestDataDir;
  let serve: ModgateProcess;
  let sim: ModgateProcess;
  const ports = { api: 0, metrics: 0, link: 0 };

  beforeAll(async () => {
    data = await makeDataDir();
    ports.metrics = await freePort();
    const extra = ['--metrics-listen', `127.0.0.1:${ports.metrics}`];
    ({ serve, sim, apiPort: ports.api, modPort: ports.link } = await startServeAndSim(data.dir, { extra }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all([sim && stop(sim), serve && stop(serve)]);
    await data?.remove();
  });

  /** `count` attempts, `IN_PARALLEL` at a time. */
  async function resetMany(port: number, request: string, moment: ResetMoment, count: number) {
    for (let done = 0; done < count; done += IN_PARALLEL) {
      const batch = Math.min(IN_PARALLEL, count - done);
      await Promise.all(Array.from({ length: batch }, () => sendThenReset(port, request, moment)));
    }
  }

  async function expectUpAndLinked(): Promise<void> {
    expect(serve.exitCode, serve.output().slice(-2_000)).toBeNull();
    const response = await fetch(`http://127.0.0.1:${ports.api}/healthz`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { mod_connected: boolean }).mod_connected).toBe(true);
    const metrics = await fetch(`http://127.0.0.1:${ports.metrics}/metrics`);
    expect(metrics.status).toBe(200);
    await metrics.arrayBuffer();
  }

  const targets: Array<[string, 'api' | 'metrics' | 'link', Readonly<Record<string, string>>]> = [
    ['the API port', 'api', HOSTILE_REQUESTS],
    ['the metrics port', 'metrics', HOSTILE_REQUESTS],
    ['the mod-link port', 'link', HOSTILE_LINK_REQUESTS],
  ];
  for (const [where, port, requests] of targets) {
    for (const [name, request] of Object.entries(requests)) {
      it(`stays up when a ${name} on ${where} is reset as its answer arrives, or before`, async () => {
        await resetMany(ports[port], request, 'on-answer', ON_ANSWER);
        await resetMany(ports[port], request, 'before-answer', BEFORE_ANSWER);
        await expectUpAndLinked();
      }, 60_000);
    }
  }

  it('has kept the same mod link through all of it', () => {
    const log = serve.output();
    expect(log.split('"msg":"mod connected"').length - 1).toBe(1);
    expect(log).not.toContain('"msg":"mod disconnected"');
  });
});
