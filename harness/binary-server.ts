/**
 * A data dir set up the way an operator sets one up with a built executable's own CLI, for the
 * tests that run the single executable (test/e2e/binary.test.ts, binary-arm64.test.ts): `init`,
 * the premium plan and the API switched on, and one `server:read` key, whose secret it returns.
 */

/** Runs the executable under test with these arguments; rejects when it exits non-zero. */
export type RunBinary = (...args: string[]) => Promise<{ stdout: string; stderr: string }>;

export async function setUpServer(modgate: RunBinary, dir: string, name: string): Promise<string> {
  await modgate('init', '--data-dir', dir, '--name', name);
  await modgate('plan', 'set', '--data-dir', dir, '--premium', 'on');
  await modgate('api', 'enable', '--data-dir', dir);
  const created = await modgate(
    'keys',
    'create',
    '--data-dir',
    dir,
    '--name',
    'ci',
    '--scopes',
    'server:read',
    '--json',
  );
  return (JSON.parse(created.stdout) as { key: string }).key;
}
