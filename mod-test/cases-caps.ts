/**
 * The duration caps of bans and mutes at their boundaries (PROTOCOL §6.6, "Bans and mutes"):
 * in every unit a duration exactly at the cap is accepted and one past it is `invalid`, a month
 * is 30 days, and a ban keeps its exact duration. One line per boundary; each accepted ban or
 * mute is lifted again before the next, so the test player ends as it began.
 */
import { BAN_CAPS, MUTE_CAPS } from '../protocol/ops/players.ts';
import { check, describeAnswer, expectError, judgeResult } from './answers.ts';
import { fail, type CaseContext, type ModCase } from './case.ts';
import { banArgs, muteArgs, unban, unmute } from './cases-ops.ts';
import { player } from './world-fixtures.ts';

type Row = Record<string, unknown>;

/** PROTOCOL §6.6: minutes in one of each unit; "a month: 30 days". */
const MINUTES_PER = { minutes: 1, hours: 60, days: 24 * 60, months: 30 * 24 * 60 } as const;
type Unit = keyof typeof MINUTES_PER;
const MINUTE_MS = 60_000;

function amount(duration: number, unit: string): string {
  return `${duration.toLocaleString('en-US')} ${unit}`;
}

/** Sends a write that must be accepted; any other answer fails, saying the cap allows it. */
async function accepted(ctx: CaseContext, op: string, args: Row, what: string): Promise<Row> {
  const answer = await ctx.call(op, args);
  if (answer.kind === 'error' && answer.error.code !== 'unsupported') {
    fail(`${what}, exactly at the cap, must be accepted (§6.6), but ${describeAnswer(op, answer)}`);
  }
  return judgeResult(op, answer);
}

/** One past each cap is `invalid` (§6.6): nothing changes in the game. */
async function refusals(ctx: CaseContext, op: string, caps: Readonly<Record<string, number>>, who: Row) {
  const args = op === 'players.ban' ? banArgs : muteArgs;
  const noun = op === 'players.ban' ? 'ban' : 'mute';
  for (const [unit, cap] of Object.entries(caps)) {
    await expectError(
      ctx,
      op,
      args(who, cap + 1, unit),
      'invalid',
      `a ${noun} of ${amount(cap + 1, unit)}, one past the cap of ${amount(cap, unit)} (§6.6)`,
    );
  }
}

/** docs/players.md "Durations", PROTOCOL §6.6: every unit's cap and the month's length, for bans. */
export async function banCaps(ctx: CaseContext): Promise<string> {
  const who = await player(ctx);
  await refusals(ctx, 'players.ban', BAN_CAPS, who);
  await expectError(
    ctx,
    'players.ban',
    banArgs(who, null, 'days'),
    'invalid',
    'a temporary ban without a duration (§6.6)',
  );
  await unban(ctx, who); // an accepted ban lasts ten years: lifting it must work first
  const lines: Array<[number, Unit]> = [
    ...(Object.entries(BAN_CAPS) as Array<[Unit, number]>).map(([unit, cap]): [number, Unit] => [cap, unit]),
    [2, 'days'],
    [1, 'months'],
  ];
  for (const [duration, unit] of lines) {
    const what = `a ban of ${amount(duration, unit)}`;
    const { ban } = (await accepted(ctx, 'players.ban', banArgs(who, duration, unit), what)) as { ban: Row };
    await unban(ctx, who);
    const minutes =
      (Date.parse(String(ban['expires_at'])) - Date.parse(String(ban['banned_at']))) / MINUTE_MS;
    const want = duration * MINUTES_PER[unit];
    check(
      minutes === want,
      `${what} answered expires_at − banned_at = ${amount(minutes, 'minutes')}; a ban keeps its exact duration, ${amount(want, 'minutes')}${unit === 'months' ? ' (a month is 30 days)' : ''} (§6.6)`,
    );
  }
  return 'one past each cap refused as invalid; 5,256,000 minutes, 87,600 hours, 3,650 days and 120 months accepted; a month lasts 30 days';
}

/** PROTOCOL §6.6: every unit's cap for mutes, which take no months. */
async function muteCaps(ctx: CaseContext): Promise<string> {
  const who = await player(ctx);
  await refusals(ctx, 'players.mute', MUTE_CAPS, who);
  await expectError(
    ctx,
    'players.mute',
    muteArgs(who, 1, 'months'),
    'invalid',
    'a mute in months, a unit mutes do not take (§6.6)',
  );
  await unmute(ctx, who); // an accepted mute lasts ten years: lifting it must work first
  for (const [unit, cap] of Object.entries(MUTE_CAPS) as Array<[Unit, number]>) {
    const what = `a mute of ${amount(cap, unit)}`;
    const { mute } = (await accepted(ctx, 'players.mute', muteArgs(who, cap, unit), what)) as { mute: Row };
    await unmute(ctx, who);
    const want = cap * MINUTES_PER[unit];
    check(
      mute['duration_minutes'] === want,
      `${what} answered duration_minutes ${String(mute['duration_minutes'])}; it is ${amount(want, 'minutes')}, already whole hours (§6.6)`,
    );
  }
  return 'one past each cap and a mute in months refused as invalid; 5,256,000 minutes, 87,600 hours and 3,650 days accepted';
}

export function capCases(): ModCase[] {
  return [{ id: 'game.mute-caps', op: 'players.mute', section: '§6.6', run: muteCaps }];
}
