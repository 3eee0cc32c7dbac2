/**
 * `modgate api enable|disable|status`. The API ships disabled: until it is enabled every /v1
 * request answers 404 not_found (spec "General rules" 3). With a daemon running they go
 * through its admin socket (`/admin/v1/api`) and act at once; without one they write state.json
 * (cli/admin-client.ts).
 */
import type { Command } from 'commander';
import { isPremiumActive, stateFile, type Plan, type State } from '../daemon/store/state.ts';
import { actOnDataDir, type AdminClient } from './admin-client.ts';
import { apiEnabledOf, planOf } from './admin-answers.ts';
import { describePlan } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { withDataDirOption } from './options.ts';

/** What both ways (daemon, files) report back: the switch as it is now and the plan. */
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
        const result = await actOnDataDir(flags, io, {
          daemon: (admin, dataDir) => switchThroughDaemon(admin, enabled, dataDir.path),
          offline: async (dataDir) => {
            const update = await dataDir.update(stateFile, (state): State => ({
              ...state,
              apiEnabled: enabled,
            }));
            return { enabled, changed: update.changed, plan: update.after.plan, dir: dataDir.path };
          },
        });
        printSwitch(io, result, flags);
      });
  }

  withDataDirOption(api.command('status').description('show whether the API is enabled'))
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const state = await actOnDataDir(flags, io, {
        daemon: async (admin) => ({ apiEnabled: await apiEnabledOf(admin), plan: await planOf(admin) }),
        offline: (dataDir) => dataDir.read(stateFile),
      });
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

async function switchThroughDaemon(admin: AdminClient, enabled: boolean, dir: string): Promise<ApiSwitch> {
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
