/**
 * `modgate init`: creates a data dir, or completes and checks an existing one. Idempotent: a
 * second run reads every file, creates only what is missing and writes nothing when nothing
 * changed, so it is safe in provisioning scripts. Existing keys and state are never replaced.
 */
import type { HostPort } from '../host-port.ts';
import { chmod, readdir } from 'node:fs/promises';
import { keysEqual } from '../../protocol/keys.ts';
import { join } from 'node:path';
import { DIR_MODE, ensureFolder } from './atomic-file.ts';
import { assertPermissions, formatMode, lstatOrNull, statOrNull } from './data-dir.ts';
import { readDataFile, writeDataFile, type DataFile } from './data-file.ts';
import { StoreError } from './errors.ts';
import { createIdentity, identityFile, type ServerIdentity } from './identity.ts';
import { keysFile } from './keys-file.ts';
import { withDataDirLock } from './lock.ts';
import {
  createModCredentials,
  modCredentialsFile,
  modLinkUrl,
  type ModCredentials,
} from './mod-credentials.ts';
import { isTrusted, modKeysFile, trustModKey } from './mod-keys.ts';
import { INITIAL_STATE, stateFile } from './state.ts';

export interface InitOptions {
  /** Sets the server name; undefined keeps the current one (null on a new data dir). */
  readonly name?: string;
  readonly now?: Date;
  /** serve's mod-link address: mod-credentials.json's url is written (or rewritten) to dial it. */
  readonly modListen?: HostPort | undefined;
}

export interface InitReport {
  readonly dir: string;
  readonly identity: ServerIdentity;
  /** Files written because they did not exist, in the order written. */
  readonly created: readonly string[];
  /** Other changes, in words (`name set to "eu-1"`). */
  readonly updated: readonly string[];
}

export const BUNDLED_MOD_LABEL = 'bundled mod identity (mod-credentials.json)';

export async function initDataDir(dir: string, options: InitOptions = {}): Promise<InitReport> {
  const now = options.now ?? new Date();
  const updated: string[] = [];
  const folderNote = await prepareFolder(dir);
  if (folderNote !== null) updated.push(folderNote);
  await assertPermissions(dir);
  const created = await withDataDirLock(dir, () =>
    completeFiles(dir, { name: options.name, modListen: options.modListen }, now, updated),
  );
  const identity = await readDataFile(dir, identityFile);
  return { dir, identity, created, updated };
}

/** Creates the folder, or tightens an empty one that someone made with looser permissions. */
async function prepareFolder(dir: string): Promise<string | null> {
  const folder = await statOrNull(dir);
  if (folder === null) {
    await ensureFolder(dir);
    await chmod(dir, DIR_MODE); // in case the umask took bits away the owner needs
    return null;
  }
  if (!folder.isDirectory()) throw new StoreError('not_initialised', `${dir} exists and is not a folder`);
  if ((folder.mode & 0o077) === 0 || (await readdir(dir)).length > 0) return null;
  await chmod(dir, DIR_MODE);
  return `folder permissions tightened from ${formatMode(folder.mode)} to 0700`;
}

async function completeFiles(
  dir: string,
  { name, modListen }: Pick<InitOptions, 'name' | 'modListen'>,
  now: Date,
  updated: string[],
): Promise<string[]> {
  const created: string[] = [];
  const save = async <T>(file: DataFile<T>, value: T, isNew: boolean): Promise<void> => {
    await writeDataFile(dir, file, value);
    if (isNew) created.push(file.name);
  };

  const identity = await ensureIdentity(dir, name, now, updated);
  if (identity.changed) await save(identityFile, identity.value, identity.isNew);

  const credentials = await ensureCredentials(dir, identity.value, modListen, updated);
  if (credentials.changed) await save(modCredentialsFile, credentials.value, credentials.isNew);

  // Trust the bundled mod's key when either file is new; never re-add a key the operator removed.
  const modKeys = await readIfPresent(dir, modKeysFile);
  if (modKeys === null) {
    const trusted = trustModKey(
      { trusted: [] },
      credentials.value.identity.publicKey,
      BUNDLED_MOD_LABEL,
      now,
    );
    await save(modKeysFile, trusted, true);
  } else if (credentials.isNew && !isTrusted(modKeys, credentials.value.identity.publicKey)) {
    await save(
      modKeysFile,
      trustModKey(modKeys, credentials.value.identity.publicKey, BUNDLED_MOD_LABEL, now),
      false,
    );
    updated.push(`trusted the new mod key in ${modKeysFile.name}`);
  }

  if ((await readIfPresent(dir, stateFile)) === null) await save(stateFile, INITIAL_STATE, true);
  if ((await readIfPresent(dir, keysFile)) === null) await save(keysFile, [], true);
  return created;
}

interface Ensured<T> {
  readonly value: T;
  readonly isNew: boolean;
  readonly changed: boolean;
}

async function ensureIdentity(
  dir: string,
  name: string | undefined,
  now: Date,
  updated: string[],
): Promise<Ensured<ServerIdentity>> {
  const existing = await readIfPresent(dir, identityFile);
  if (existing === null) return { value: createIdentity(name ?? null, now), isNew: true, changed: true };
  if (name === undefined || name === existing.name) return { value: existing, isNew: false, changed: false };
  updated.push(`name set to ${JSON.stringify(name)}`);
  return { value: { ...existing, name }, isNew: false, changed: true };
}

async function ensureCredentials(
  dir: string,
  identity: ServerIdentity,
  modListen: HostPort | undefined,
  updated: string[],
): Promise<Ensured<ModCredentials>> {
  const existing = await readIfPresent(dir, modCredentialsFile);
  const url = modListen ? modLinkUrl(modListen) : undefined;
  if (existing === null)
    return { value: createModCredentials(identity.daemonPublicKey, url), isNew: true, changed: true };
  let value = existing;
  if (!keysEqual(existing.daemonPublicKey, identity.daemonPublicKey)) {
    // Only after identity.json was lost and recreated: the mod must pin the new daemon key.
    updated.push(`daemon_public_key in ${modCredentialsFile.name} updated to the current identity`);
    value = { ...value, daemonPublicKey: identity.daemonPublicKey };
  }
  if (url !== undefined && url !== existing.url) {
    updated.push(`url in ${modCredentialsFile.name} set to ${url}`);
    value = { ...value, url };
  }
  return { value, isNew: false, changed: value !== existing };
}

async function readIfPresent<T>(dir: string, file: DataFile<T>): Promise<T | null> {
  if ((await lstatOrNull(join(dir, file.name))) === null) return null;
  return readDataFile(dir, file);
}
