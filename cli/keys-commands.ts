/**
 * `modgate keys create|list|revoke|roll`. Listing never shows key text or hashes; revoking keeps
 * the record (with revoked_at) so the list still tells what the key was. Each is a request to
 * /admin/v1/keys (cli/key-requests.ts), sent to the running daemon (a change acts at once, and
 * the list shows the daemon's own last use of each key) or, without one, to the in-process admin
 * over the data dir (cli/admin-client.ts).
 */
import type { Command } from 'commander';
import { SCOPES } from '../daemon/scopes.ts';
import { parseApiKey } from '../daemon/store/api-keys.ts';
import { checkRollOverlap, DEFAULT_ROLL_OVERLAP_MS, type KeyView } from '../daemon/store/key-admin.ts';
import { API_KEY_ID_PATTERN } from '../daemon/store/keys-file.ts';
import { UsageError } from './errors.ts';
import { formatDate, formatTable, jsonDate } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { createdJson, createdLines, registerKeysCreateCommand } from './keys-create-command.ts';
import { parseDuration, withDataDirOption } from './options.ts';
import { apiEnabledOf } from './admin-answers.ts';
import { withAdmin } from './admin-client.ts';
import { adminListKeys, adminRevokeKey, adminRollKey, checkOption } from './key-requests.ts';

export function registerKeysCommands(program: Command, io: CliIo): void {
  const keys = program.command('keys').description('create, list, revoke and roll API keys');
  registerKeysCreateCommand(keys, io);

  withDataDirOption(
    keys
      .command('list')
      .description('list API keys and when each was last used (never shows key text or hashes)'),
  )
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const views = await withAdmin(flags, io, (admin) => adminListKeys(admin));
      if (flags.json) printJson(io, { keys: views });
      else printLines(io, ...listLines(views));
    });

  withDataDirOption(
    keys.command('revoke').description('revoke an API key; a running daemon refuses it at once'),
  )
    .argument('<id>', 'the key id shown by keys list (or the full key)')
    .option('--json', 'print one JSON object')
    .action(async (idOrKey: string, flags: { dataDir?: string; json?: boolean }) => {
      const id = keyIdOf(idOrKey);
      const { record, changed } = await withAdmin(flags, io, (admin) => adminRevokeKey(admin, id));
      if (flags.json) {
        printJson(io, { id, name: record.name, revoked_at: jsonDate(record.revokedAt), changed });
      } else if (!changed && record.revokedAt) {
        printLines(
          io,
          `Key ${id} (${record.name}) was already revoked at ${formatDate(record.revokedAt)}; nothing changed.`,
        );
      } else {
        printLines(io, `Revoked key ${id} (${record.name}).`);
      }
    });

  withDataDirOption(
    keys
      .command('roll')
      .description(
        'replace an API key by a new one (shown once); the old one works until --expire-old-in passes',
      ),
  )
    .argument('<id>', 'the key id shown by keys list (or the full key)')
    .option(
      '--expire-old-in <duration>',
      'how long the old key keeps working: 90m, 12h, 30d (default 1h, at most 30d)',
      parseDuration,
    )
    .option('--json', 'print one JSON object with the new key')
    .action(async (idOrKey: string, flags: { dataDir?: string; expireOldIn?: number; json?: boolean }) => {
      const id = keyIdOf(idOrKey);
      const overlapMs = flags.expireOldIn ?? DEFAULT_ROLL_OVERLAP_MS;
      checkOption(() => checkRollOverlap(overlapMs));
      const { dir, apiEnabled, ...rolled } = await withAdmin(flags, io, async (admin, dataDir) => ({
        ...(await adminRollKey(admin, id, overlapMs)),
        apiEnabled: await apiEnabledOf(admin),
        dir: dataDir.path,
      }));
      if (flags.json) {
        printJson(io, {
          ...createdJson(rolled.key, rolled.record),
          rolled_from: rolled.old.id,
          old_expires_at: jsonDate(rolled.old.expiresAt),
        });
        return;
      }
      const lines = createdLines(rolled.key, rolled.record, apiEnabled, dir);
      lines[0] = `Rolled key ${rolled.old.id} (${rolled.record.name}) to ${rolled.record.id}`;
      // After the new key's `expires:` line, before the key itself.
      lines.splice(
        4,
        0,
        `  old key:   ${rolled.old.id} works until ${formatDate(rolled.old.expiresAt as Date)}`,
      );
      printLines(io, ...lines);
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

function listLines(views: readonly KeyView[]): string[] {
  if (views.length === 0) return ['No API keys yet; create one with `modgate keys create`.'];
  const header = [
    'ID',
    'NAME',
    'STATUS',
    'CREATED',
    'EXPIRES',
    'LAST USED',
    'LAST IP',
    'ALLOW IPS',
    'SCOPES',
  ];
  const rows = views.map((view) => [
    view.id,
    view.name,
    view.status,
    shortDate(view.created_at),
    view.expires_at === null ? 'never' : shortDate(view.expires_at),
    view.last_used_at === null ? 'never' : shortDate(view.last_used_at),
    view.last_used_ip ?? '-',
    view.allow_ips.length === 0 ? 'any' : view.allow_ips.join(','),
    view.scopes.length === SCOPES.length ? 'all' : view.scopes.join(','),
  ]);
  return formatTable([header, ...rows]);
}

function shortDate(iso: string): string {
  return formatDate(new Date(iso));
}
