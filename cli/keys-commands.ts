/**
 * `modgate keys create|list|revoke`. Listing never shows key text or hashes; revoking keeps the
 * record (with revoked_at) so the list still tells what the key was.
 */
import type { Command } from 'commander';
import { SCOPES } from '../daemon/scopes.ts';
import { apiKeyStatus, parseApiKey } from '../daemon/store/api-keys.ts';
import { API_KEY_ID_PATTERN, keysFile, type ApiKeyRecord } from '../daemon/store/keys-file.ts';
import { CliError, UsageError } from './errors.ts';
import { formatDate, formatTable, jsonDate } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { registerKeysCreateCommand } from './keys-create-command.ts';
import { openDataDirOf, withDataDirOption } from './options.ts';

export function registerKeysCommands(program: Command, io: CliIo): void {
  const keys = program.command('keys').description('create, list and revoke API keys');
  registerKeysCreateCommand(keys, io);

  withDataDirOption(keys.command('list').description('list API keys (never shows key text or hashes)'))
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const dataDir = await openDataDirOf(flags, io);
      const records = await dataDir.read(keysFile);
      const now = io.now();
      if (flags.json) printJson(io, { keys: records.map((record) => listedJson(record, now)) });
      else printLines(io, ...listLines(records, now));
    });

  withDataDirOption(
    keys.command('revoke').description('revoke an API key; running daemons refuse it within a second'),
  )
    .argument('<id>', 'the key id shown by keys list (or the full key)')
    .option('--json', 'print one JSON object')
    .action(async (idOrKey: string, flags: { dataDir?: string; json?: boolean }) => {
      const id = keyIdOf(idOrKey);
      const dataDir = await openDataDirOf(flags, io);
      const update = await dataDir.update(keysFile, (records) => revoke(records, id, io.now(), dataDir.path));
      const record = update.after.find((candidate) => candidate.id === id);
      if (flags.json) {
        printJson(io, {
          id,
          name: record?.name ?? null,
          revoked_at: jsonDate(record?.revokedAt ?? null),
          changed: update.changed,
        });
      } else if (!update.changed && record?.revokedAt) {
        printLines(
          io,
          `Key ${id} (${record.name}) was already revoked at ${formatDate(record.revokedAt)}; nothing changed.`,
        );
      } else {
        printLines(io, `Revoked key ${id}${record ? ` (${record.name})` : ''}.`);
      }
    });
}

function keyIdOf(text: string): string {
  if (API_KEY_ID_PATTERN.test(text)) return text;
  const parsed = parseApiKey(text);
  if (parsed !== null) return parsed.id;
  throw new UsageError(
    `${JSON.stringify(text)} is not a key id (12 characters a-z0-9, as shown by keys list)`,
  );
}

function revoke(records: readonly ApiKeyRecord[], id: string, now: Date, dir: string): ApiKeyRecord[] {
  if (!records.some((record) => record.id === id)) {
    throw new CliError(`no key with id ${id} in ${dir} (see \`modgate keys list\`)`, 1, 'key_not_found');
  }
  return records.map((record) =>
    record.id === id && record.revokedAt === null ? { ...record, revokedAt: now } : record,
  );
}

function listedJson(record: ApiKeyRecord, now: Date): Record<string, unknown> {
  return {
    id: record.id,
    name: record.name,
    status: apiKeyStatus(record, now),
    scopes: record.scopes,
    allow_ips: record.allowIps,
    owner_platform_id: record.ownerPlatformId,
    owner_social_id: record.ownerSocialId,
    created_at: jsonDate(record.createdAt),
    expires_at: jsonDate(record.expiresAt),
    revoked_at: jsonDate(record.revokedAt),
  };
}

function listLines(records: readonly ApiKeyRecord[], now: Date): string[] {
  if (records.length === 0) return ['No API keys yet; create one with `modgate keys create`.'];
  const header = ['ID', 'NAME', 'STATUS', 'CREATED', 'EXPIRES', 'ALLOW IPS', 'SCOPES'];
  const rows = records.map((record) => [
    record.id,
    record.name,
    apiKeyStatus(record, now),
    formatDate(record.createdAt),
    record.expiresAt === null ? 'never' : formatDate(record.expiresAt),
    record.allowIps.length === 0 ? 'any' : record.allowIps.join(','),
    record.scopes.length === SCOPES.length ? 'all' : record.scopes.join(','),
  ]);
  return formatTable([header, ...rows]);
}
