/**
 * A real data dir in a temp folder, set up through the real CLI (the way an operator does it),
 * for tests that need keys, a plan and an enabled API.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, runOk, type CliRun } from './cli.ts';

export interface TestDataDir {
  dir: string;
  cli(...argv: string[]): Promise<CliRun>;
  /** `modgate keys create --json`; extra flags as given. Returns the id and the key text. */
  createKey(...flags: string[]): Promise<{ id: string; key: string }>;
  remove(): Promise<void>;
}

export interface DataDirSetup {
  apiEnabled?: boolean;
  premium?: boolean;
  features?: string;
}

export async function makeDataDir(setup: DataDirSetup = {}): Promise<TestDataDir> {
  const dir = await mkdtemp(join(tmpdir(), 'modgate-test-'));
  const cli = (...argv: string[]) => run(argv);
  const must = (...argv: string[]) => runOk(argv);
  await must('init', '--data-dir', dir, '--name', 'Test server');
  await must('plan', 'set', '--data-dir', dir, '--premium', 'on', '--features', setup.features ?? 'shop');
  if (setup.apiEnabled ?? true) await must('api', 'enable', '--data-dir', dir);
  const createKey = async (...flags: string[]) => {
    const withScopes = flags.includes('--scopes') ? flags : [...flags, '--scopes', 'all'];
    const withName = withScopes.includes('--name') ? withScopes : [...withScopes, '--name', 'test'];
    const stdout = await must('keys', 'create', '--data-dir', dir, '--json', ...withName);
    return JSON.parse(stdout) as { id: string; key: string };
  };
  if (setup.premium === false) await must('plan', 'set', '--data-dir', dir, '--premium', 'off');
  return { dir, cli, createKey, remove: () => rm(dir, { recursive: true, force: true }) };
}
