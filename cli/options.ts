/**
 * Parsers for CLI flag values. Each throws commander's InvalidArgumentError, so a bad value
 * becomes one `error: option '--x <v>' argument 'y' is invalid. …` line and exit code 2.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { SCOPES, isScope, type Scope } from '../daemon/scopes.ts';
import { normaliseAllowIp } from '../daemon/store/allow-ip.ts';
import { DataDir, resolveDataDir } from '../daemon/store/data-dir.ts';
import { displayName, durationMs, InputRuleError } from '../daemon/store/input-rules.ts';
import { KEY_NAME_MAX_LENGTH, PLATFORM_ID_PATTERN, SOCIAL_ID_PATTERN } from '../daemon/store/keys-file.ts';
import { SERVER_NAME_MAX_LENGTH } from '../daemon/store/identity.ts';
import { PLAN_FEATURES, isPlanFeature, parsePlanDate, type PlanFeature } from '../daemon/store/state.ts';
import { parseHostPort, type HostPort } from '../daemon/host-port.ts';
import type { CliIo } from './io.ts';

/** Adds `--data-dir DIR`; read it back with dataDirOf(). */
export function withDataDirOption(command: Command): Command {
  return command.option('--data-dir <dir>', 'the data dir (default: $MODGATE_DATA_DIR)');
}

export function dataDirOf(options: { dataDir?: string }, io: CliIo): string {
  return resolveDataDir(options.dataDir, io.env);
}

/** The initialised, trusted data dir that `--data-dir` (or MODGATE_DATA_DIR) names. */
export function openDataDirOf(options: { dataDir?: string }, io: CliIo): Promise<DataDir> {
  return DataDir.open(dataDirOf(options, io));
}

/** `server:read,players:read` or `all`; duplicates are dropped, spec order is kept. */
export function parseScopes(value: string): Scope[] {
  const items = splitList(value);
  if (items.length === 1 && items[0] === 'all') return [...SCOPES];
  if (items.length === 0) throw new InvalidArgumentError(`give at least one scope; ${validScopes()}`);
  const unknown = items.filter((item) => !isScope(item));
  if (unknown.length > 0) {
    const which = unknown.map((item) => JSON.stringify(item)).join(', ');
    throw new InvalidArgumentError(`unknown scope ${which}; ${validScopes()}`);
  }
  return SCOPES.filter((scope) => items.includes(scope));
}

function validScopes(): string {
  return `valid scopes: all, ${SCOPES.join(', ')}`;
}

/** Repeatable `--allow-ip`; each value may also be a comma list. Stored in canonical form. */
export function collectAllowIp(value: string, previous: string[] = []): string[] {
  const entries = splitList(value);
  if (entries.length === 0) throw new InvalidArgumentError('expected an IP address or CIDR range');
  const added = entries.map((entry) => {
    const canonical = normaliseAllowIp(entry);
    if (canonical === null) {
      throw new InvalidArgumentError(
        `${JSON.stringify(entry)} is not an IP address or CIDR range (examples: 203.0.113.7, 10.0.0.0/8, 2001:db8::/32)`,
      );
    }
    return canonical;
  });
  return [...new Set([...previous, ...added])];
}

/** `30d`, `12h`, `90m`, `2w`: a duration in milliseconds (daemon/store/input-rules.ts). */
export function parseDuration(value: string): number {
  return byRule(() => durationMs(value));
}

export function parsePlatformId(value: string): string {
  if (!PLATFORM_ID_PATTERN.test(value)) throw new InvalidArgumentError('a platform id is 17 digits');
  return value;
}

export function parseSocialId(value: string): string {
  if (!SOCIAL_ID_PATTERN.test(value)) throw new InvalidArgumentError('a social id is 17 to 20 digits');
  return value;
}

export function parseOnOff(value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new InvalidArgumentError('expected on or off');
}

/**
 * `2030-01-31` (00:00 UTC that day) or a full ISO 8601 date-time with a zone
 * (`2030-01-31T18:00:00Z`, `2030-01-31T20:00:00+02:00`).
 */
export function parseIsoDate(value: string): Date {
  const date = parsePlanDate(value);
  if (date === null) {
    throw new InvalidArgumentError('expected an ISO 8601 date such as 2030-01-31 or 2030-01-31T18:00:00Z');
  }
  return date;
}

/** `shop`, a comma list, or `none`. */
export function parseFeatures(value: string): PlanFeature[] {
  const items = splitList(value);
  if (items.length === 1 && items[0] === 'none') return [];
  const unknown = items.filter((item) => !isPlanFeature(item));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown feature ${unknown.map((item) => JSON.stringify(item)).join(', ')}; valid features: none, ${PLAN_FEATURES.join(', ')}`,
    );
  }
  return PLAN_FEATURES.filter((feature) => items.includes(feature));
}

export function parseKeyName(value: string): string {
  return parseName(value, KEY_NAME_MAX_LENGTH);
}

export function parseServerName(value: string): string {
  return parseName(value, SERVER_NAME_MAX_LENGTH);
}

function parseName(value: string, maxLength: number): string {
  return byRule(() => displayName(value, maxLength));
}

/** A shared input rule's verdict as commander's usage error. */
function byRule<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InputRuleError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * The flags `serve` and `doctor` share: where the data dir and config file are, and what serve
 * listens on (doctor checks the daemon that these flags would start).
 */
export interface ServeSettingsFlags {
  dataDir?: string;
  config?: string;
  listen?: HostPort;
  modListen?: HostPort;
  tlsCert?: string;
  tlsKey?: string;
}

/** A HOST:PORT option value (`--listen`, `--mod-listen`). */
export function hostPort(value: string): HostPort {
  try {
    return parseHostPort(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** A whole-number option value from `min` to `max` (`--players`, `--timeout`). */
export function integer(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max)
      throw new InvalidArgumentError(`expected an integer ${min} to ${max}`);
    return n;
  };
}
