/**
 * `modgate plan set|status`. The plan gates the API: without active premium, key creation and
 * every /v1 call answer premium_required; packs and claim codes also need the `shop` feature.
 * `plan set` replaces the whole plan: an omitted --until means no end date, omitted --features
 * means none, and the resulting plan is printed. Each is a request to `/admin/v1/plan`, sent to
 * the running daemon (acting at once) or, without one, to the in-process admin over the data dir
 * (cli/admin-client.ts).
 */
import type { Command } from 'commander';
import { isPremiumActive, type Plan, type PlanFeature } from '../daemon/store/state.ts';
import { planFromAnswer, planOf } from './admin-answers.ts';
import { withAdmin, type AdminClient } from './admin-client.ts';
import { describePlan, jsonDate } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { parseFeatures, parseIsoDate, parseOnOff, withDataDirOption } from './options.ts';

interface SetFlags {
  dataDir?: string;
  premium: boolean;
  until?: Date;
  features?: PlanFeature[];
  json?: boolean;
}

export function registerPlanCommands(program: Command, io: CliIo): void {
  const plan = program.command('plan').description("set or show the server's plan");

  withDataDirOption(plan.command('set').description('replace the plan (a running daemon follows at once)'))
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
      const update = await withAdmin(flags, io, (admin) => setPlan(admin, next));
      if (flags.json) {
        printJson(io, { ...planJson(update.plan, io.now()), changed: update.changed });
        return;
      }
      const summary = describePlan(update.plan, io.now());
      printLines(io, update.changed ? `Plan set: ${summary}.` : `Plan unchanged: ${summary}.`);
    });

  withDataDirOption(plan.command('status').description('show the plan'))
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const current = await withAdmin(flags, io, (admin) => planOf(admin));
      const now = io.now();
      if (!flags.json) {
        printLines(io, `Plan: ${describePlan(current, now)}`);
        return;
      }
      printJson(io, planJson(current, now));
    });
}

/** PUT /admin/v1/plan; `changed` compares the plan before with the one the daemon kept. */
async function setPlan(admin: AdminClient, next: Plan): Promise<{ plan: Plan; changed: boolean }> {
  const before = await planOf(admin);
  const body = { premium: next.premium, until: jsonDate(next.until), features: [...next.features] };
  const after = planFromAnswer((await admin.send({ method: 'PUT', path: '/plan', body })).body);
  return { plan: after, changed: !samePlan(before, after) };
}

function samePlan(a: Plan, b: Plan): boolean {
  return (
    a.premium === b.premium &&
    a.until?.getTime() === b.until?.getTime() &&
    a.features.join(',') === b.features.join(',')
  );
}

function planJson(plan: Plan, now: Date): Record<string, unknown> {
  return {
    premium: plan.premium,
    until: jsonDate(plan.until),
    features: plan.features,
    active: isPremiumActive(plan, now),
  };
}
