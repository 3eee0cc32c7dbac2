/**
 * `modgate keys create`: mints an API key and prints it once; only its SHA-256 is stored. Key
 * creation is refused on a server without an active premium plan (docs/errors.md,
 * premium_required), here with exit code 3. The key is made by a POST /admin/v1/keys, sent to
 * the running daemon (it works at once) or, without one, to the in-process admin over the data
 * dir (cli/admin-client.ts).
 */
import type { Command } from 'commander';
import type { Scope } from '../daemon/scopes.ts';
import { checkAllowIps, type KeyRequest } from '../daemon/store/key-admin.ts';
import { apiEnabledOf } from './admin-answers.ts';
import { withAdmin } from './admin-client.ts';
import { adminCreateKey, checkOption, type ShownKey } from './key-requests.ts';
import { formatDate, jsonDate } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import {
  collectAllowIp,
  parseDuration,
  parseKeyName,
  parsePlatformId,
  parseScopes,
  parseSocialId,
  withDataDirOption,
} from './options.ts';

interface CreateFlags {
  dataDir?: string;
  name: string;
  scopes: Scope[];
  allowIp: string[];
  expiresIn?: number;
  ownerPlatformId?: string;
  ownerSocialId?: string;
  json?: boolean;
}

export function registerKeysCreateCommand(keys: Command, io: CliIo): void {
  withDataDirOption(keys.command('create').description('create an API key and print it (shown once)'))
    .requiredOption('--name <name>', 'what the key is for, e.g. discord-bot', parseKeyName)
    .requiredOption('--scopes <list>', 'comma-separated scopes, or all', parseScopes)
    .option(
      '--allow-ip <cidr>',
      'accept the key only from this address or range (repeatable)',
      collectAllowIp,
      [],
    )
    .option(
      '--expires-in <duration>',
      'expire after N minutes/hours/days/weeks: 90m, 12h, 30d, 2w',
      parseDuration,
    )
    .option(
      '--owner-platform-id <id>',
      'the player (17 digits) that writes through this key are attributed to',
      parsePlatformId,
    )
    .option('--owner-social-id <id>', "the owner's linked social id (17 to 20 digits)", parseSocialId)
    .option('--json', 'print one JSON object with the key')
    .action(async (flags: CreateFlags) => {
      const request = keyRequest(flags);
      checkOption(() => checkAllowIps(request.allowIps));
      const created = await withAdmin(flags, io, async (admin, dataDir) => ({
        ...(await adminCreateKey(admin, request)),
        apiEnabled: await apiEnabledOf(admin),
        dir: dataDir.path,
      }));
      if (flags.json) printJson(io, createdJson(created.key, created.record));
      else printLines(io, ...createdLines(created.key, created.record, created.apiEnabled, created.dir));
    });
}

function keyRequest(flags: CreateFlags): KeyRequest {
  return {
    name: flags.name,
    scopes: flags.scopes,
    allowIps: flags.allowIp,
    ownerPlatformId: flags.ownerPlatformId ?? null,
    ownerSocialId: flags.ownerSocialId ?? null,
    expiresInMs: flags.expiresIn ?? null,
  };
}

export function createdJson(key: string, record: ShownKey): Record<string, unknown> {
  return {
    id: record.id,
    key,
    name: record.name,
    scopes: record.scopes,
    allow_ips: record.allowIps,
    owner_platform_id: record.ownerPlatformId,
    owner_social_id: record.ownerSocialId,
    created_at: jsonDate(record.createdAt),
    expires_at: jsonDate(record.expiresAt),
  };
}

export function createdLines(key: string, record: ShownKey, apiEnabled: boolean, dir: string): string[] {
  const lines = [
    `Created API key ${record.id} (${record.name})`,
    `  scopes:    ${record.scopes.join(', ')}`,
    `  allow ips: ${record.allowIps.length === 0 ? 'any' : record.allowIps.join(', ')}`,
    `  expires:   ${record.expiresAt === null ? 'never' : formatDate(record.expiresAt)}`,
    '',
    `  ${key}`,
    '',
    'Copy this key now: it will not be shown again (only its hash is stored).',
  ];
  if (!apiEnabled)
    lines.push(`The API is disabled; enable it with \`modgate api enable --data-dir ${dir}\`.`);
  return lines;
}
