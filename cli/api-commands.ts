/**
 * `modgate api enable|disable|status`. The API ships disabled: until it is enabled every /v1
 * request answers 404 not_found (spec "General rules" 3).
 */
import type { Command } from 'commander';
import { isPremiumActive, stateFile, type State } from '../daemon/store/state.ts';
import { describePlan } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { openDataDirOf, withDataDirOption } from './options.ts';

export function registerApiCommands(program: Command, io: CliIo): void {
  const api = program.command('api').description('enable or disable the /v1 API');
  for (const enabled of [true, false]) {
    const verb = enabled ? 'enable' : 'disable';
    withDataDirOption(
      api.command(verb).description(`${verb} the /v1 API (running daemons follow within a second)`),
    )
      .option('--json', 'print one JSON object')
      .action(async (flags: { dataDir?: string; json?: boolean }) => {
        const dataDir = await openDataDirOf(flags, io);
        const update = await dataDir.update(stateFile, (state): State => ({
          ...state,
          apiEnabled: enabled,
        }));
        if (flags.json) {
          printJson(io, {
            api_enabled: enabled,
            changed: update.changed,
            premium_active: isPremiumActive(update.after.plan, io.now()),
          });
          return;
        }
        const word = enabled ? 'enabled' : 'disabled';
        printLines(io, update.changed ? `API ${word}.` : `API already ${word}; nothing changed.`);
        if (enabled && !isPremiumActive(update.after.plan, io.now())) {
          printLines(
            io,
            `Note: there is no active premium plan, so /v1 calls answer 403 premium_required until \`modgate plan set --data-dir ${dataDir.path} --premium on\`.`,
          );
        }
      });
  }

  withDataDirOption(api.command('status').description('show whether the API is enabled'))
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const dataDir = await openDataDirOf(flags, io);
      const state = await dataDir.read(stateFile);
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
