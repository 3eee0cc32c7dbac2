/**
 * `modgate api enable|disable|status`. The API ships disabled: until it is enabled every /v1
 * request answers 404 not_found (spec "General rules" 3). Each is a request to `/admin/v1/api`,
 * sent to the running daemon (acting at once) or, without one, to the in-process admin over the
 * data dir (cli/admin-client.ts).
 */
import type { Command } from 'commander';
import { isPremiumActive, type Plan } from '../daemon/store/state.ts';
import { withAdmin, type AdminClient } from './admin-client.ts';
import { apiEnabledOf, planOf } from './admin-answers.ts';
import { describePlan } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { withDataDirOption } from './options.ts';

/** What a switch reports back: the switch as it is now and the plan. */
interface ApiSwitch {
  readonly enabled: boolean;
  readonly changed: boolean;
  readonly plan: Plan;
  /** The data dir, as resolved, for the note on how to set a plan. */
  readonly dir: string;
}

export function registerApiCommands(program: Command, io: CliIo): void {
  const api = program.command('api').description('enable or disable the /v1 API');
  for (const enabled of [true, false]) {
    const verb = enabled ? 'enable' : 'disable';
    withDataDirOption(api.command(verb).description(`${verb} the /v1 API (a running daemon follows at once)`))
      .option('--json', 'print one JSON object')
      .action(async (flags: { dataDir?: string; json?: boolean }) => {
        const result = await withAdmin(flags, io, (admin, dataDir) =>
          setSwitch(admin, enabled, dataDir.path),
        );
        printSwitch(io, result, flags);
      });
  }

  withDataDirOption(api.command('status').description('show whether the API is enabled'))
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const state = await withAdmin(flags, io, async (admin) => ({
        apiEnabled: await apiEnabledOf(admin),
        plan: await planOf(admin),
      }));
      const now = io.now();
      if (flags.json) {
        printJson(io, { api_enabled: state.apiEnabled, premium_active: isPremiumActive(state.plan, now) });
        return;
      }
      printLines(
        io,
        state.apiEnabled ? 'API: enabled' : 'API: disabled (every /v1 request answers 404 not_found)',
        `Plan: ${describePlan(state.plan, now)}`,
      );
    });
}

/** PUT /admin/v1/api; `changed` compares the switch before with the one asked for. */
async function setSwitch(admin: AdminClient, enabled: boolean, dir: string): Promise<ApiSwitch> {
  const before = await apiEnabledOf(admin);
  await admin.send({ method: 'PUT', path: '/api', body: { enabled } });
  return { enabled, changed: before !== enabled, plan: await planOf(admin), dir };
}

function printSwitch(io: CliIo, result: ApiSwitch, flags: { json?: boolean }): void {
  const premiumActive = isPremiumActive(result.plan, io.now());
  if (flags.json) {
    printJson(io, { api_enabled: result.enabled, changed: result.changed, premium_active: premiumActive });
    return;
  }
  const word = result.enabled ? 'enabled' : 'disabled';
  printLines(io, result.changed ? `API ${word}.` : `API already ${word}; nothing changed.`);
  if (result.enabled && !premiumActive) {
    printLines(
      io,
      `Note: there is no active premium plan, so /v1 calls answer 403 premium_required until \`modgate plan set --data-dir ${result.dir} --premium on\`.`,
    );
  }
}
