/**
 * `modgate keys create|list|revoke|roll`. Listing never shows key text or hashes; revoking keeps
 * the record (with revoked_at) so the list still tells what the key was. The checks are
 * daemon/store/key-admin.ts's, the same the admin API runs. With a daemon running they go through
 * its admin socket (cli/keys-through-daemon.ts): a change acts at once, and the list shows the
 * daemon's own last use of each key.
 */
import type { Command } from 'commander';
import { handOverWebhooks } from '../daemon/events/webhooks/key-handover.ts';
import { SCOPES } from '../daemon/scopes.ts';
import { parseApiKey } from '../daemon/store/api-keys.ts';
import {
  DEFAULT_ROLL_OVERLAP_MS,
  keyViews,
  revokeKey,
  rollKey,
  type KeyView,
} from '../daemon/store/key-admin.ts';
import type { DataDir } from '../daemon/store/data-dir.ts';
import { StoreError } from '../daemon/store/errors.ts';
import { keyUsageFile, type KeyUsage } from '../daemon/store/key-usage.ts';
import { API_KEY_ID_PATTERN, keysFile } from '../daemon/store/keys-file.ts';
import { UsageError } from './errors.ts';
import { formatDate, formatTable, jsonDate } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { withKeyErrors } from './key-errors.ts';
import { createdJson, createdLines, registerKeysCreateCommand } from './keys-create-command.ts';
import { parseDuration, withDataDirOption } from './options.ts';
import { apiEnabledOf } from './admin-answers.ts';
import { actOnDataDir } from './admin-client.ts';
import {
  keyErrorNames,
  listThroughDaemon,
  revokeThroughDaemon,
  rollThroughDaemon,
} from './keys-through-daemon.ts';
import { stateFile } from '../daemon/store/state.ts';

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
      const views = await actOnDataDir(flags, io, {
        daemon: (admin) => listThroughDaemon(admin),
        offline: async (dataDir) => {
          const [records, usage] = await Promise.all([dataDir.read(keysFile), lastUses(dataDir, io)]);
          return keyViews(records, usage, io.now());
        },
      });
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
      const { record, changed } = await actOnDataDir(flags, io, {
        daemon: (admin, dataDir) => revokeThroughDaemon(admin, id, keyErrorNames(id, dataDir.path)),
        offline: (dataDir) => withKeyErrors(dataDir, () => revokeKey(dataDir, id, io.now())),
      });
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
      const { dir, apiEnabled, ...rolled } = await actOnDataDir(flags, io, {
        daemon: async (admin, dataDir) => ({
          ...(await rollThroughDaemon(admin, id, overlapMs, keyErrorNames(id, dataDir.path))),
          apiEnabled: await apiEnabledOf(admin),
          dir: dataDir.path,
        }),
        offline: async (dataDir) => {
          const done = await withKeyErrors(dataDir, () => rollKey(dataDir, id, overlapMs, io.now()));
          await handOverWebhooks(dataDir.path, done.old.id, done.record.id);
          return { ...done, apiEnabled: (await dataDir.read(stateFile)).apiEnabled, dir: dataDir.path };
        },
      });
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

/**
 * key-usage.json, or nothing when it does not parse: it only records, so a broken one is a
 * warning here (the daemon replaces it at its next write), never a reason not to list the keys.
 */
async function lastUses(dataDir: DataDir, io: CliIo): Promise<KeyUsage> {
  try {
    return await dataDir.read(keyUsageFile);
  } catch (error) {
    if (!(error instanceof StoreError) || error.code !== 'invalid_file') throw error;
    io.stderr.write(`warning: ${error.message}; last use is not shown\n`);
    return new Map();
  }
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
