/**
 * Players: who is online and a search (name, platform id, social id), then one player's profile,
 * social link, moderation state and violations, and moderation: ban, mute, unban, unmute. Every
 * call is a game route of the admin API (`/admin/v1/game/…`, docs/admin.md "Game routes"), the
 * /v1 operation itself, so the game records these writes with source `panel`. Before a ban or
 * mute is sent the page shows the unit's cap and, for a mute, the game's rounding; after, the
 * game's answer.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, query, type Page } from '../api.ts';
import {
  attempt,
  ConfirmButton,
  ErrorLine,
  Field,
  Table,
  useAnswerFocus,
  useLoad,
  when,
  type View,
} from '../ui.ts';
import { PlayerPicker } from './player-picker.ts';

type Profile = components['schemas']['PlayerProfile'];
type Moderation = components['schemas']['ModerationState'];
type Violation = components['schemas']['Violation'];

export function PlayersPage(): View {
  const [open, setOpen] = useState<string | null>(null);
  return h(
    'div',
    null,
    h(PlayerPicker, { onOpen: setOpen }),
    open === null ? null : h(PlayerCard, { key: open, platformId: open }),
  );
}

interface PlayerView {
  profile: Profile;
  moderation: Moderation;
  violations: Violation[];
}

async function loadPlayer(platformId: string): Promise<PlayerView> {
  const base = `/game/players/${platformId}`;
  const [profile, moderation, violations] = await Promise.all([
    api<Profile>('GET', base),
    api<Moderation>('GET', `${base}/moderation`),
    api<Page<Violation>>('GET', `${base}/violations${query({ limit: 20 })}`),
  ]);
  return { profile, moderation, violations: violations.data };
}

function PlayerCard(props: { platformId: string }): View {
  const player = useLoad(() => loadPlayer(props.platformId), [props.platformId]);
  const [answer, setAnswer] = useState<string | undefined>(undefined);
  // Unban and Unmute go with the state they lift: the focus goes to what the game answered.
  const answerLine = useAnswerFocus(answer);
  if (player.value === undefined) {
    return h('section', { class: 'card' }, player.error ? h(ErrorLine, { text: player.error }) : 'Loading…');
  }
  const { profile, moderation, violations } = player.value;
  const answered = (text: string, focus = false) => {
    if (focus) answerLine.focusNext();
    setAnswer(text);
    player.reload();
  };
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'player-name', 'data-testid': 'player-card' },
    h('h2', { id: 'player-name' }, profile.char_name),
    h(
      'dl',
      { class: 'pairs' },
      fact('Platform', `${profile.platform_name} (${profile.platform_id})`),
      fact('Social link', profile.social_id === null ? 'Not linked' : `Linked to ${profile.social_id}`),
      fact('Online', profile.online ? 'yes' : 'no'),
      fact('Last seen', profile.last_seen),
      fact('Ban', banText(moderation)),
      fact('Mute', muteText(moderation)),
    ),
    h(Moderate, { profile, moderation, onAnswer: answered }),
    answer === undefined
      ? null
      : h('p', { role: 'status', ref: answerLine.ref, tabIndex: -1, 'data-testid': 'game-answer' }, answer),
    h(Violations, { violations }),
  );
}

/** A `dt`/`dd` pair of a `dl.pairs` (a term beside its value; Overview's `dl.facts` are cards). */
export function fact(term: string, value: string): View {
  return [h('dt', { key: `${term}-t` }, term), h('dd', { key: `${term}-d` }, value)];
}

function banText(state: Moderation): string {
  const { ban } = state;
  if (!ban.banned) return 'Not banned';
  return ban.permanent
    ? `Banned for good: ${ban.reason}`
    : `Banned until ${when(ban.expires_at)}: ${ban.reason}`;
}

function muteText(state: Moderation): string {
  const { mute } = state;
  if (!mute.muted) return 'Not muted';
  const length = mute.permanent ? 'for good' : `for ${minutesText(mute.duration_minutes ?? 0)}`;
  return `Muted ${length} on ${mute.channels.join(', ')}`;
}

const UNIT_MINUTES = { minutes: 1, hours: 60, days: 1_440, months: 43_200 } as const;
type Unit = keyof typeof UNIT_MINUTES;

/** `2 hours`, `90 minutes`, `3 days`: the largest unit that divides it. */
function minutesText(minutes: number): string {
  const units = ['days', 'hours', 'minutes'] as const;
  const unit = units.find((name) => minutes % UNIT_MINUTES[name] === 0) ?? 'minutes';
  return plural(minutes / UNIT_MINUTES[unit], unit);
}

function plural(count: number, unit: string): string {
  return `${count} ${count === 1 ? unit.replace(/s$/, '') : unit}`;
}

/** What a ban or mute of this length does, said before sending: the cap, and the game's mute rounding. */
export function lengthPreview(
  action: 'ban' | 'mute',
  duration: number,
  unit: Unit,
): { ok: boolean; text: string } {
  const caps: Partial<Record<Unit, number>> =
    action === 'ban' ? MODGATE_MODERATION.banCaps : MODGATE_MODERATION.muteCaps;
  const cap = caps[unit];
  if (cap === undefined) return { ok: false, text: `A ${action} cannot be given in ${unit}.` };
  if (!Number.isInteger(duration) || duration < 1)
    return { ok: false, text: 'Give a whole number, 1 or more.' };
  if (duration > cap) return { ok: false, text: `At most ${plural(cap, unit)}.` };
  const asked = plural(duration, unit);
  if (action === 'ban') return { ok: true, text: `${asked}, kept exactly.` };
  const step = MODGATE_MODERATION.muteStepMinutes;
  const minutes = duration * UNIT_MINUTES[unit];
  const rounded = Math.ceil(minutes / step) * step;
  if (rounded === minutes) return { ok: true, text: `${asked}.` };
  return {
    ok: true,
    text: `${asked} will be ${minutesText(rounded)}: the game rounds a mute up to whole hours.`,
  };
}

interface ModerateProps {
  profile: Profile;
  moderation: Moderation;
  /** `focus`: the control that acted goes away with the new state, so the answer takes the focus. */
  onAnswer: (text: string, focus?: boolean) => void;
}

function Moderate(props: ModerateProps): View {
  const { moderation } = props;
  return h(
    'div',
    { class: 'moderate' },
    h(LengthForm, { ...props, action: 'ban' }),
    h(LengthForm, { ...props, action: 'mute' }),
    h(
      'div',
      { class: 'actions' },
      moderation.ban.banned ? h(LiftButton, { ...props, action: 'unban' }) : null,
      moderation.mute.muted ? h(LiftButton, { ...props, action: 'unmute' }) : null,
    ),
  );
}

function LiftButton(props: ModerateProps & { action: 'unban' | 'unmute' }): View {
  const [error, setError] = useState<string | undefined>(undefined);
  const path = `/game/players/${props.profile.platform_id}/${props.action === 'unban' ? 'ban' : 'mute'}`;
  const lift = () =>
    void attempt(async () => {
      const state = await api<Moderation>('DELETE', path);
      const text = props.action === 'unban' ? banText(state) : muteText(state);
      props.onAnswer(`The game answered: ${text}.`, true);
    }, setError);
  const label = props.action === 'unban' ? 'Unban' : 'Unmute';
  return h(
    'span',
    null,
    h(
      'button',
      { type: 'button', 'aria-label': `${label} ${props.profile.char_name}`, onClick: lift },
      label,
    ),
    h(ErrorLine, { text: error }),
  );
}

function LengthForm(props: ModerateProps & { action: 'ban' | 'mute' }): View {
  const { action, profile } = props;
  const [duration, setDuration] = useState('1');
  const [unit, setUnit] = useState<Unit>('hours');
  const [permanent, setPermanent] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const preview = permanent ? { ok: true, text: 'For good.' } : lengthPreview(action, Number(duration), unit);
  const verb = action === 'ban' ? 'Ban' : 'Mute';
  const length = permanent ? 'for good' : `for ${plural(Number(duration), unit)}`;
  const send = () =>
    void attempt(async () => {
      const body = {
        ...(permanent ? { permanent: true } : { duration: Number(duration), duration_unit: unit }),
        ...(reason.trim() === '' ? {} : { reason: reason.trim() }),
      };
      const state = await api<Moderation>('POST', `/game/players/${profile.platform_id}/${action}`, body);
      props.onAnswer(`The game answered: ${action === 'ban' ? banText(state) : muteText(state)}.`);
    }, setError);
  const units = Object.keys(action === 'ban' ? MODGATE_MODERATION.banCaps : MODGATE_MODERATION.muteCaps);
  const id = `${action}-preview`;
  return h(
    'fieldset',
    { class: 'length-form' },
    h('legend', null, verb),
    h(
      Field,
      { label: `${verb} length` },
      h('input', {
        type: 'number',
        min: 1,
        value: duration,
        disabled: permanent,
        'aria-describedby': id,
        onInput: (event: Event) => setDuration((event.target as HTMLInputElement).value),
      }),
    ),
    h(
      Field,
      { label: `${verb} unit` },
      h(
        'select',
        {
          value: unit,
          disabled: permanent,
          onChange: (event: Event) => setUnit((event.target as HTMLSelectElement).value as Unit),
        },
        units.map((name) => h('option', { key: name, value: name }, name)),
      ),
    ),
    h(
      'label',
      { class: 'check' },
      h('input', { type: 'checkbox', checked: permanent, onChange: () => setPermanent(!permanent) }),
      ` Permanent ${action}`,
    ),
    h(
      Field,
      { label: `${verb} reason` },
      h('input', {
        value: reason,
        maxLength: 500,
        onInput: (event: Event) => setReason((event.target as HTMLInputElement).value),
      }),
    ),
    h(
      'p',
      { id, class: preview.ok ? 'hint' : 'error', 'aria-live': 'polite', 'data-testid': `${action}-preview` },
      preview.text,
    ),
    h(ConfirmButton, {
      label: verb,
      name: `${verb} ${profile.char_name}`,
      title: `${verb} ${profile.char_name} ${length}?`,
      consequence:
        action === 'ban'
          ? `${profile.char_name} is kicked and cannot join ${length}. ${preview.text}`
          : `${profile.char_name} cannot chat ${length}. ${preview.text}`,
      disabled: !preview.ok,
      onConfirm: send,
    }),
    h(ErrorLine, { text: error }),
  );
}

function Violations(props: { violations: Violation[] }): View {
  return h(
    'div',
    null,
    h('h3', null, 'Violations'),
    h(
      Table,
      { head: ['When', 'Type', 'Action', 'Source', 'By', 'Reason'], empty: 'No violations.' },
      props.violations.map((row) =>
        h(
          'tr',
          { key: row.id },
          h('td', null, when(row.applied_at)),
          h('td', null, row.type),
          h('td', null, row.action),
          h('td', null, row.source),
          h('td', null, row.issued_by.name),
          h('td', null, row.reason),
        ),
      ),
    ),
  );
}
