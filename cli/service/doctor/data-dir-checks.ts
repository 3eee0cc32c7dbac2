/**
 * Doctor, data dir: the folder and its files as the daemon needs them (docs/data-dir.md): there,
 * owned by one user, private (0700 / 0600), no link inside, nothing a stranger owns (the same
 * problems serve refuses, from store/data-dir-trust.ts), each file valid; then what the operator
 * has switched (API, plan, keys, trusted mods) and whether the mod's URL matches the mod-link
 * listener.
 */
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { formatHostPort, type HostPort } from '../../../daemon/host-port.ts';
import { apiKeyStatus } from '../../../daemon/store/api-keys.ts';
import {
  ADMIN_FILES,
  DATA_FILES,
  formatMode,
  LOCK_FILE,
  lstatOrNull,
  PRIVATE_FILE_NAMES,
  RECORD_FILE_NAMES,
  statOrNull,
  WEBHOOK_FILES,
} from '../../../daemon/store/data-dir.ts';
import { findUntrusted, type TrustProblem } from '../../../daemon/store/data-dir-trust.ts';
import { readDataFile, type DataFile } from '../../../daemon/store/data-file.ts';
import { identityFile } from '../../../daemon/store/identity.ts';
import { keysFile } from '../../../daemon/store/keys-file.ts';
import { modCredentialsFile } from '../../../daemon/store/mod-credentials.ts';
import { modKeysFile } from '../../../daemon/store/mod-keys.ts';
import { isPremiumActive, stateFile, type State } from '../../../daemon/store/state.ts';
import { describeUid, errorText, fail, ok, warn, type CheckResult } from './check.ts';

const DAY_MS = 86_400_000;
const STALE_LOCK_MS = 10_000;

export interface DataDirCheckOptions {
  now: Date;
  /** The uid doctor runs as (process.getuid()). */
  uid: number;
  /** Where serve's mod link listens, to compare with mod-credentials.json's url. */
  modListen?: HostPort;
}

export async function checkDataDir(dir: string, options: DataDirCheckOptions): Promise<CheckResult[]> {
  const folder = await statOrNull(dir);
  if (folder === null || !folder.isDirectory()) {
    return [fail('data dir', `${dir} does not exist`, `modgate init --data-dir ${dir}`)];
  }
  const results = [folderResult(dir, folder, options.uid)];
  const problems = await untrustedInside(dir, folder);
  results.push(...problems.map((problem) => fail(relative(dir, problem.path), problem.what, problem.fix)));
  const judged = new Set(problems.map((problem) => problem.path));
  for (const name of Object.values(DATA_FILES)) {
    if (!judged.has(join(dir, name))) results.push(await fileMode(dir, name, folder, true));
  }
  for (const name of [...RECORD_FILE_NAMES, ...Object.values(WEBHOOK_FILES), ...Object.values(ADMIN_FILES)]) {
    const path = join(dir, name);
    if (!judged.has(path) && (await lstatOrNull(path)) !== null) {
      results.push(await fileMode(dir, name, folder, false));
    }
  }
  if (folder.uid === options.uid) {
    const writable = await access(dir, constants.W_OK).then(
      () => true,
      () => false,
    );
    if (!writable) results.push(fail('data dir', `${dir} is not writable`, `chmod 700 ${dir}`));
  }
  results.push(...(await staleLock(dir, options.now)));
  if (results.some((result) => result.level === 'fail')) return results;
  return replacing(results, await contents(dir, options));
}

/**
 * What serve would refuse inside the folder, judged for the folder's owner (the daemon's user,
 * whoever runs doctor); the folder's own mode and owner are folderResult's.
 */
async function untrustedInside(dir: string, folder: Stats): Promise<TrustProblem[]> {
  const problems = await findUntrusted(dir, {
    uid: folder.uid,
    privateFiles: PRIVATE_FILE_NAMES,
    sockets: [ADMIN_FILES.socket],
  });
  return problems.filter((problem) => problem.path !== dir);
}

/** A file that fails to parse replaces its `mode 0600` line: one line per file. */
function replacing(results: CheckResult[], more: CheckResult[]): CheckResult[] {
  const merged = [...results];
  for (const result of more) {
    const index = merged.findIndex((earlier) => earlier.subject === result.subject && earlier.level === 'ok');
    if (index === -1) merged.push(result);
    else merged[index] = result;
  }
  return merged;
}

function folderResult(dir: string, folder: Stats, uid: number): CheckResult {
  const mode = formatMode(folder.mode);
  if ((folder.mode & 0o077) !== 0) {
    return fail('data dir', `${dir} is accessible to other users (mode ${mode})`, `chmod 700 ${dir}`);
  }
  const owner = describeUid(folder.uid);
  if (folder.uid !== uid) {
    return warn(
      'data dir',
      `${dir} is owned by ${owner}, not by the user running doctor (${describeUid(uid)})`,
      `run doctor as the daemon's user: sudo -u ${owner.split(' ')[0]} modgate doctor --data-dir ${dir}`,
    );
  }
  return ok('data dir', `${dir}: mode ${mode}, owned by ${owner}`);
}

/**
 * A file the daemon reads must be there and owned by the folder's owner (the daemon's user):
 * a root-owned one is trusted but cannot be read by it. Modes and links are untrustedInside's.
 */
async function fileMode(dir: string, name: string, folder: Stats, required: boolean): Promise<CheckResult> {
  const path = join(dir, name);
  const file = await lstatOrNull(path);
  if (file === null) {
    return required
      ? fail(name, `${path} is missing`, `modgate init --data-dir ${dir} (creates only what is missing)`)
      : ok(name, 'not created yet');
  }
  if (file.uid !== folder.uid) {
    return fail(
      name,
      `owned by ${describeUid(file.uid)}, but the data dir by ${describeUid(folder.uid)}: the daemon cannot read it`,
      `chown ${folder.uid}:${folder.gid} ${path}, and run modgate commands as the daemon's user (sudo -u …)`,
    );
  }
  return ok(name, `mode ${formatMode(file.mode)}`);
}

async function staleLock(dir: string, now: Date): Promise<CheckResult[]> {
  const lock = await statOrNull(join(dir, LOCK_FILE));
  if (lock === null || now.getTime() - lock.mtimeMs < STALE_LOCK_MS) return [];
  return [
    warn(
      LOCK_FILE,
      `a lock left behind ${Math.round((now.getTime() - lock.mtimeMs) / 1000)} s ago`,
      `rm ${join(dir, LOCK_FILE)} (only while no modgate command runs; commands also break it themselves)`,
    ),
  ];
}

async function readChecked<T>(dir: string, file: DataFile<T>, failures: CheckResult[]): Promise<T | null> {
  try {
    return await readDataFile(dir, file);
  } catch (error) {
    failures.push(
      fail(file.name, errorText(error), `restore ${file.name} from a backup (modgate docs data-dir)`),
    );
    return null;
  }
}

async function contents(dir: string, options: DataDirCheckOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const identity = await readChecked(dir, identityFile, results);
  const modKeys = await readChecked(dir, modKeysFile, results);
  const credentials = await readChecked(dir, modCredentialsFile, results);
  const state = await readChecked(dir, stateFile, results);
  const keys = await readChecked(dir, keysFile, results);
  if (identity)
    results.push(ok('identity', `${identity.serverId}${identity.name ? ` (${identity.name})` : ''}`));
  if (modKeys) {
    results.push(
      modKeys.trusted.length === 0
        ? fail(
            'mod keys',
            'no mod public key is trusted: every mod handshake is refused',
            `add the mod's key to ${join(dir, DATA_FILES.modKeys)} (modgate docs data-dir)`,
          )
        : ok(
            'mod keys',
            `${modKeys.trusted.length} trusted mod key${modKeys.trusted.length === 1 ? '' : 's'}`,
          ),
    );
  }
  if (credentials && options.modListen) results.push(modUrl(dir, credentials.url, options.modListen));
  if (state) results.push(...stateResults(dir, state, options.now));
  if (keys) {
    const active = keys.filter((record) => apiKeyStatus(record, options.now) === 'active');
    const soon = active.filter(
      (r) => r.expiresAt && r.expiresAt.getTime() - options.now.getTime() < 7 * DAY_MS,
    );
    results.push(
      active.length === 0
        ? warn(
            'api keys',
            'no active key: nobody can call the API',
            `modgate keys create --data-dir ${dir} --name NAME --scopes …`,
          )
        : soon.length > 0
          ? warn(
              'api keys',
              `${soon.map((r) => r.id).join(', ')} expire within 7 days`,
              `create replacements: modgate keys create --data-dir ${dir} …`,
            )
          : ok('api keys', `${active.length} active`),
    );
  }
  return results;
}

function stateResults(dir: string, state: State, now: Date): CheckResult[] {
  const api = state.apiEnabled
    ? ok('api', 'enabled')
    : warn('api', 'disabled: every /v1 request answers 404', `modgate api enable --data-dir ${dir}`);
  const { plan } = state;
  const renew = `modgate plan set --data-dir ${dir} --premium on [--until DATE]`;
  if (!isPremiumActive(plan, now)) {
    const why = plan.premium && plan.until ? `ended ${plan.until.toISOString()}` : 'off';
    return [api, warn('plan', `premium ${why}: every /v1 call answers 403 premium_required`, renew)];
  }
  if (plan.until && plan.until.getTime() - now.getTime() < 14 * DAY_MS) {
    const days = Math.floor((plan.until.getTime() - now.getTime()) / DAY_MS);
    return [api, warn('plan', `premium ends in ${days} days (${plan.until.toISOString()})`, renew)];
  }
  return [api, ok('plan', `premium active${plan.until ? ` until ${plan.until.toISOString()}` : ''}`)];
}

/** The mod dials the url of mod-credentials.json; a port other than serve's never connects. */
function modUrl(dir: string, url: string, modListen: HostPort): CheckResult {
  const port = Number(new URL(url).port || (url.startsWith('wss:') ? 443 : 80));
  if (port === modListen.port) return ok('mod url', `${url} (the mod-link port)`);
  return warn(
    'mod url',
    `mod-credentials.json says ${url}, but the mod link listens on ${formatHostPort(modListen)}`,
    `set "url" in ${join(dir, DATA_FILES.modCredentials)} and give the game mod the new file (modgate mod credentials)`,
  );
}
