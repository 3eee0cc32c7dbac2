/**
 * The one way tests and benchmarks set up a data dir and its keys: a real data dir in a temp
 * folder, set up through the real CLI (the way an operator does it), for tests that need keys, a
 * plan and an enabled API; or the same steps on a folder the test chose.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, runOk, type CliRun } from './cli.ts';

/** What `keys create --json` prints. */
export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  scopes: string[];
  allow_ips: string[];
  expires_at: string | null;
}

/** The name and scopes a key gets when the flags name none. */
export interface KeyDefaults {
  readonly name: string;
  readonly scopes: string;
}

/** A key named bot with scope server:read: what `createKey` makes unless told otherwise. */
export const READ_KEY: KeyDefaults = { name: 'bot', scopes: 'server:read' };

/** A key named test with every scope: what `TestDataDir.createKey` makes unless told otherwise. */
export const ALL_SCOPES_KEY: KeyDefaults = { name: 'test', scopes: 'all' };

/** `--name` and `--scopes` from `defaults`, each unless `flags` already give it. */
export function withKeyDefaults(flags: readonly string[], defaults: KeyDefaults): string[] {
  const scopes = flags.includes('--scopes') ? [] : ['--scopes', defaults.scopes];
  const name = flags.includes('--name') ? [] : ['--name', defaults.name];
  return [...flags, ...scopes, ...name];
}

/** `modgate keys create --json` on `dir`; `flags` as given, `READ_KEY` for what they leave out. */
export async function createKey(dir: string, ...flags: string[]): Promise<CreatedKey> {
  const stdout = await runOk([
    'keys',
    'create',
    '--data-dir',
    dir,
    '--json',
    ...withKeyDefaults(flags, READ_KEY),
  ]);
  return JSON.parse(stdout) as CreatedKey;
}

/**
 * An initialised data dir at `dir` with an active premium plan, ready for `keys create`; `init`
 * and `plan` flags are passed on (`--name`, `--features`).
 */
export async function premiumDataDir(
  dir: string,
  init: readonly string[] = [],
  plan: readonly string[] = [],
): Promise<string> {
  await runOk(['init', '--data-dir', dir, ...init]);
  await runOk(['plan', 'set', '--data-dir', dir, '--premium', 'on', ...plan]);
  return dir;
}

export interface TestDataDir {
  dir: string;
  cli(...argv: string[]): Promise<CliRun>;
  /** `createKey` with `ALL_SCOPES_KEY` for what the flags leave out. */
  createKey(...flags: string[]): Promise<CreatedKey>;
  /**
   * `modgate webhooks add --json` for `url`, with `--events all` unless the flags name events;
   * throws when the CLI refuses. Returns the endpoint's id and signing secret.
   */
  addWebhook(url: string, ...flags: string[]): Promise<AddedWebhook>;
  remove(): Promise<void>;
}

/** What `webhooks add --json` prints that tests use. */
export interface AddedWebhook {
  id: string;
  secret: string;
}

/** `webhooks add --json` on `dir` (see `TestDataDir.addWebhook`). */
export async function addWebhook(dir: string, url: string, ...flags: string[]): Promise<AddedWebhook> {
  const events = flags.includes('--events') ? [] : ['--events', 'all'];
  const add = ['webhooks', 'add', '--data-dir', dir, '--url', url, '--json'];
  const stdout = await runOk([...add, ...flags, ...events]);
  return JSON.parse(stdout) as AddedWebhook;
}

export interface DataDirSetup {
  apiEnabled?: boolean;
  premium?: boolean;
  features?: string;
}

/** Every data dir makeDataDir made in this process and no one removed yet. */
const madeDataDirs = new Set<string>();

/**
 * Removes the data dirs this process made and left (a test that returned early, or a block
 * that never called `remove`); test/support/cleanup.ts runs it after each test file, once the
 * file's own hooks have stopped its processes.
 */
export async function removeLeftoverDataDirs(): Promise<void> {
  const left = [...madeDataDirs];
  madeDataDirs.clear();
  await Promise.all(left.map((dir) => rm(dir, { recursive: true, force: true })));
}

export async function makeDataDir(setup: DataDirSetup = {}): Promise<TestDataDir> {
  const dir = await mkdtemp(join(tmpdir(), 'modgate-test-'));
  madeDataDirs.add(dir);
  await premiumDataDir(dir, ['--name', 'Test server'], ['--features', setup.features ?? 'shop']);
  if (setup.apiEnabled ?? true) await runOk(['api', 'enable', '--data-dir', dir]);
  if (setup.premium === false) await runOk(['plan', 'set', '--data-dir', dir, '--premium', 'off']);
  return {
    dir,
    cli: (...argv: string[]) => run(argv),
    createKey: (...flags: string[]) => createKey(dir, ...withKeyDefaults(flags, ALL_SCOPES_KEY)),
    addWebhook: (url: string, ...flags: string[]) => addWebhook(dir, url, ...flags),
    remove: () => {
      madeDataDirs.delete(dir);
      return rm(dir, { recursive: true, force: true });
    },
  };
}
