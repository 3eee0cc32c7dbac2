/**
 * A simulated game in the test's own process dialling a `modgate serve` process (harness/
 * processes.ts): the test reaches into its world (an in-game ban, a count of applications), and
 * the world outlives the daemon, so a game that stays up across a kill -9 of its daemon is a new
 * simulator given the old one's `world`.
 */
import { DataDir } from '../daemon/store/data-dir.ts';
import { modCredentialsFile } from '../daemon/store/mod-credentials.ts';
import { startSimulator, type Simulator, type SimulatorOptions } from '../mod-sim/simulator.ts';

/** Starts a simulator with `dataDir`'s mod credentials on `modPort`; resolves once its link is up. */
export async function dialSimulator(
  dataDir: string,
  modPort: number,
  options: Partial<SimulatorOptions> = {},
): Promise<Simulator> {
  const credentials = await (await DataDir.open(dataDir)).read(modCredentialsFile);
  const sim = startSimulator({
    url: `ws://127.0.0.1:${modPort}`,
    identity: credentials.identity,
    daemonPublicKey: credentials.daemonPublicKey,
    backoff: { initialMs: 20, maxMs: 200 },
    ...options,
  });
  try {
    await sim.connected();
  } catch (error) {
    await sim.close();
    throw error;
  }
  return sim;
}
