/**
 * `modgate admin tokens create|list|revoke`: the admin tokens that open the admin API's TCP
 * listener (docs/admin.md, "Admin tokens"). A token is printed once, at creation; only its
 * SHA-256 is kept. Each is a request to /admin/v1/tokens, sent to the running daemon (a revoked
 * token is refused at once, and the list shows the daemon's last use) or, without one, to the
 * in-process admin over the data dir (cli/admin-client.ts).
 */
import { type Command, Option } from 'commander';
import { ADMIN_ROLES, type AdminRole } from '../daemon/admin/roles.ts';
import { ADMIN_TOKEN_ID_PATTERN, adminTokenName } from '../daemon/store/admin-tokens.ts';
import { formatIssues } from '../daemon/store/data-file.ts';
import { registerLoginUrlCommand } from './admin-login-command.ts';
import {
  createdTokenFromAnswer,
  tokensFromAnswer,
  unexpectedAnswer,
  type AdminToken,
  type CreatedToken,
} from './admin-answers.ts';
import { withAdmin, type AdminClient } from './admin-client.ts';
import { UsageError } from './errors.ts';
import { formatDate, formatTable } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { withDataDirOption } from './options.ts';

interface Flags {
  dataDir?: string;
  json?: boolean;
}

export function registerAdminCommands(program: Command, io: CliIo): void {
  const admin = program.command('admin').description('the admin API: its tokens, the panel');
  const tokens = admin.command('tokens').description('admin tokens for the admin API on TCP');
  registerLoginUrlCommand(admin, io);

  withDataDirOption(tokens.command('create').description('create an admin token; it is shown once'))
    .requiredOption('--name <name>', 'what the token is for (shown in lists and the audit log)')
    .addOption(
      new Option('--role <role>', 'what it may do (docs/admin.md, "Roles")')
        .choices(ADMIN_ROLES)
        .default('owner'),
    )
    .option('--invite', 'also print a one-time panel sign-in link for its holder (valid 7 days)')
    .option('--json', 'print {"id","name","role","token","created_at","invite"}')
    .action(async (flags: Flags & { name: string; role: AdminRole; invite?: boolean }) => {
      const body = { name: tokenName(flags.name), role: flags.role, invite: flags.invite === true };
      const created = await withAdmin(flags, io, async (admin) =>
        createdTokenFromAnswer((await admin.send({ method: 'POST', path: '/tokens', body })).body),
      );
      if (flags.json) return printJson(io, created);
      printLines(io, ...createdLines(created));
    });

  withDataDirOption(tokens.command('list').description('list admin tokens (never their text)'))
    .option('--json', 'print a JSON array')
    .action(async (flags: Flags) => {
      const list = await withAdmin(flags, io, (admin) => tokensOf(admin));
      if (flags.json) return printJson(io, list);
      printLines(io, ...listLines(list));
    });

  withDataDirOption(tokens.command('revoke').description('revoke an admin token; refused at once'))
    .argument('<id>', 'the token id, as listed')
    .option('--json', 'print the revoked token')
    .action(async (id: string, flags: Flags) => {
      if (!ADMIN_TOKEN_ID_PATTERN.test(id)) {
        throw new UsageError(`${JSON.stringify(id)} is not an admin token id (12 characters a-z0-9)`);
      }
      const revoked = await withAdmin(flags, io, async (admin) => {
        await admin.send({ method: 'DELETE', path: `/tokens/${id}` });
        const found = (await tokensOf(admin)).find((token) => token.id === id);
        if (found === undefined) throw unexpectedAnswer('/tokens');
        return found;
      });
      if (flags.json) return printJson(io, revoked);
      printLines(io, `Admin token ${revoked.id} (${revoked.name}) revoked.`);
    });
}

async function tokensOf(admin: AdminClient): Promise<AdminToken[]> {
  return tokensFromAnswer((await admin.send({ method: 'GET', path: '/tokens' })).body);
}

function tokenName(text: string): string {
  const parsed = adminTokenName.safeParse(text);
  if (!parsed.success) throw new UsageError(`--name: ${formatIssues(parsed.error)}`);
  return parsed.data;
}

function createdLines(created: CreatedToken): string[] {
  const lines = [
    `Admin token ${created.id} (${created.name}, ${created.role}):`,
    '',
    `  ${created.token}`,
    '',
  ];
  if (created.invite !== null) {
    const link = created.invite.url ?? `/login#${created.invite.code} on the panel's address`;
    lines.push(
      `Sign-in link for its holder (works once, until ${created.invite.expires_at}):`,
      '',
      `  ${link}`,
      '',
    );
  }
  lines.push(
    'It is shown only now; store it where your panel or scripts read it. Revoke it with',
    `\`modgate admin tokens revoke ${created.id}\`.`,
  );
  return lines;
}

function listLines(list: readonly AdminToken[]): string[] {
  if (list.length === 0) return ['No admin tokens yet; create one with `modgate admin tokens create`.'];
  const header = ['ID', 'NAME', 'ROLE', 'STATUS', 'CREATED', 'LAST USED'];
  const rows = list.map((token) => [
    token.id,
    token.name,
    token.role,
    token.status,
    formatDate(new Date(token.created_at)),
    token.last_used_at === null ? 'never' : formatDate(new Date(token.last_used_at)),
  ]);
  return formatTable([header, ...rows]);
}
