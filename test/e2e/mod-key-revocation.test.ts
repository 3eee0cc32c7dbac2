/**
 * Revoking a mod key reaches the link it already holds (docs/security.md, "Credentials"): the
 * operator removes the mod's entry from mod-keys.json while `serve` and `sim` run as their own
 * processes, and runs `modgate reload`; the daemon closes the live link with `unknown_identity` (PROTOCOL §5.3) and refuses
 * the simulator's redials, instead of serving that mod until it happens to reconnect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { modKeysFile } from '../../daemon/store/mod-keys.ts';
import { runOk } from '../../harness/cli.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { logLines, startServeAndSim, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

describe('a mod key removed from mod-keys.json', () => {
  let data: TestDataDir;
  let serve: ModgateProcess;
  let sim: ModgateProcess;
  let apiPort: number;

  const health = async () =>
    (await (await fetch(`http://127.0.0.1:${apiPort}/healthz`)).json()) as { mod_connected: boolean };

  beforeAll(async () => {
    data = await makeDataDir();
    ({ serve, sim, apiPort } = await startServeAndSim(data.dir, { simExtra: ['--players', '5'] }));
    await eventually(async () => (await health()).mod_connected);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([sim && stop(sim), serve && stop(serve)]);
    await data?.remove();
  });

  it('closes the link that key holds with unknown_identity and refuses its redials', async () => {
    await (await DataDir.open(data.dir)).update(modKeysFile, () => ({ trusted: [] }));
    await runOk(['reload', '--data-dir', data.dir]);
    await eventually(async () => !(await health()).mod_connected);
    const lines = logLines(serve);
    expect(lines.some((line) => line['event'] === 'mod_key_revoked')).toBe(true);
    expect(
      lines.some((line) => line['event'] === 'mod_disconnected' && line['reason'] === 'unknown_identity'),
    ).toBe(true);
    // The simulator redials with backoff; every handshake is refused, so the link stays down.
    const refused = (line: Record<string, unknown>) =>
      line['event'] === 'mod_link_rejected' && line['code'] === 'unknown_identity';
    await eventually(() => logLines(serve).some(refused));
    expect((await health()).mod_connected).toBe(false);
  }, 60_000);
});
