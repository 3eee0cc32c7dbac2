/**
 * `modgate plan set|status`. The plan gates the API: without active premium, key creation and
 * every /v1 call answer premium_required; packs and claim codes also need the `shop` feature.
 * `plan set` replaces the whole plan: an omitted --until means no end date, omitted --features
 * means none, and the resulting plan is printed.
 */
import type { Command } from 'commander';
import {
  isPremiumActive,
  stateFile,
  type Plan,
  type PlanFeature,
  type State,
} from '../daemon/store/state.ts';
import { describePlan, jsonDate } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { openDataDirOf, parseFeatures, parseIsoDate, parseOnOff, withDataDirOption } from './options.ts';

interface SetFlags {
  dataDir?: string;
  premium: boolean;
  until?: Date;
  features?: PlanFeature[];
  json?: boolean;
}

export function registerPlanCommands(program: Command, io: CliIo): void {
  const plan = program.command('plan').description("set or show the server's plan");

  withDataDirOption(
    plan.command('set').description('replace the plan (running daemons follow within a second)'),
  )
    .requiredOption('--premium <on|off>', 'whether the premium plan is on', parseOnOff)
    .option(
      '--until <iso-date>',
      'premium ends at this instant (2030-01-31 means 00:00 UTC); default: no end',
      parseIsoDate,
    )
    .option(
      '--features <list>',
      'comma-separated plan features (shop), or none; default: none',
      parseFeatures,
    )
    .option('--json', 'print the resulting plan as one JSON object')
    .action(async (flags: SetFlags) => {
      const next: Plan = {
        premium: flags.premium,
        until: flags.until ?? null,
        features: flags.features ?? [],
      };
      const dataDir = await openDataDirOf(flags, io);
      const update = await dataDir.update(stateFile, (state): State => ({
        ...state,
        plan: next,
      }));
      if (flags.json) {
        printJson(io, { ...planJson(update.after.plan, io.now()), changed: update.changed });
        return;
      }
      const summary = describePlan(update.after.plan, io.now());
      printLines(io, update.changed ? `Plan set: ${summary}.` : `Plan unchanged: ${summary}.`);
    });

  withDataDirOption(plan.command('status').description('show the plan'))
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const dataDir = await openDataDirOf(flags, io);
      const state = await dataDir.read(stateFile);
      const now = io.now();
      if (!flags.json) {
        printLines(io, `Plan: ${describePlan(state.plan, now)}`);
        return;
      }
      printJson(io, planJson(state.plan, now));
    });
}

function planJson(plan: Plan, now: Date): Record<string, unknown> {
  return {
    premium: plan.premium,
    until: jsonDate(plan.until),
    features: plan.features,
    active: isPremiumActive(plan, now),
  };
}
