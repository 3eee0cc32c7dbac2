/**
 * Economy: one player's shop coins, cash and gold, changed with a reason (credit, debit, set);
 * the same changes for everyone, with the game's bulk coin cooldown shown; and the ledger with
 * the filters `/v1` takes. Every call is a game route of the admin API (docs/admin.md "Game
 * routes"), the /v1 operation itself, so the ledger records these changes with source `panel`.
 * Players are found with the picker the Players page uses.
 */
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, ApiFailure, query } from '../api.ts';
import { attempt, ConfirmButton, ErrorLine, Field, Table, useLoad, type View } from '../ui.ts';
import { FilterForm, type FilterSpec } from '../listing.ts';
import { NEWER_OLDER, useCursorTrail } from './cursor-pager.ts';
import { PlayerPicker } from './player-picker.ts';
import { fact } from './players.ts';

type Profile = components['schemas']['PlayerProfile'];
type CoinChange = components['schemas']['CoinChange'];
type CurrencyChange = components['schemas']['CurrencyChange'];
type BulkCoinChange = components['schemas']['BulkCoinChange'];
type BulkCurrencyChange = components['schemas']['BulkCurrencyChange'];
type LedgerEntry = components['schemas']['LedgerEntry'];
type LedgerPage = components['schemas']['LedgerPage'];

type Asset = LedgerEntry['asset'];
type Change = 'credit' | 'debit' | 'set';

const ASSETS: readonly Asset[] = ['coins', 'cash', 'gold'];
const ASSET_LABELS: Record<Asset, string> = { coins: 'Shop coins', cash: 'Cash', gold: 'Gold' };
const CHANGE_LABELS: Record<Change, string> = { credit: 'Credit', debit: 'Debit', set: 'Set' };

export function EconomyPage(): View {
  const [open, setOpen] = useState<string | null>(null);
  /** Bumped after every change made here, so the ledger shows it. */
  const [changes, setChanges] = useState(0);
  const changed = () => setChanges((n) => n + 1);
  return h(
    'div',
    { class: 'economy' },
    h(PlayerPicker, { onOpen: setOpen }),
    open === null ? null : h(BalanceCard, { key: open, platformId: open, onChanged: changed }),
    h(BulkCard, { onChanged: changed }),
    h(Ledger, { changes }),
  );
}

/** What the amount and reason fields hold, checked as /v1 checks them before anything is sent. */
interface Draft {
  asset: Asset;
  amount: string;
  reason: string;
}

/** Why the draft cannot be sent, or undefined when it can. */
function draftProblem(draft: Draft, change: Change): string | undefined {
  const amount = Number(draft.amount);
  if (draft.amount.trim() === '' || !Number.isInteger(amount)) return 'Give a whole number.';
  if (change === 'set' ? amount < 0 : amount < 1)
    return change === 'set' ? 'Give 0 or more.' : 'Give 1 or more.';
  if (amount > 2_147_483_647) return 'At most 2,147,483,647 (the game keeps balances in 32 bits).';
  if (draft.reason.trim() === '') return 'Give a reason: the ledger records it.';
  if (change === 'set' && draft.asset === 'coins') return 'Shop coins can be credited or debited, not set.';
  return undefined;
}

/** The signed amount and mode the API takes for a change. */
function bodyOf(draft: Draft, change: Change) {
  const amount = Number(draft.amount);
  return {
    amount: change === 'debit' ? -amount : amount,
    reason: draft.reason.trim(),
    ...(draft.asset === 'coins' ? {} : { currency: draft.asset, mode: change === 'set' ? 'set' : 'delta' }),
  };
}

function count(n: number): string {
  return n.toLocaleString('en');
}

function BalanceCard(props: { platformId: string; onChanged: () => void }): View {
  const profile = useLoad(() => api<Profile>('GET', `/game/players/${props.platformId}`), [props.platformId]);
  const [answer, setAnswer] = useState<string | undefined>(undefined);
  if (profile.value === undefined) {
    return h(
      'section',
      { class: 'card' },
      profile.error ? h(ErrorLine, { text: profile.error }) : 'Loading…',
    );
  }
  const player = profile.value;
  const name = player.char_name === '' ? player.platform_id : player.char_name;
  const send = async (draft: Draft, change: Change) => {
    const path = `/game/players/${player.platform_id}/${draft.asset === 'coins' ? 'coins' : 'currency'}`;
    const result = await api<CoinChange | CurrencyChange>('POST', path, bodyOf(draft, change));
    setAnswer(`The game answered: ${resultText(name, draft, change, result)}`);
    profile.reload();
    props.onChanged();
  };
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'balance-name', 'data-testid': 'balance-card' },
    h('h2', { id: 'balance-name' }, name),
    h(
      'dl',
      { class: 'pairs' },
      fact('Platform id', player.platform_id),
      fact('Shop coins', count(player.coins)),
      fact('Cash', count(player.money)),
      fact('Gold', count(player.gold)),
      fact('Online', player.online ? 'yes' : 'no (cash and gold change only while connected)'),
    ),
    h(ChangeForm, { scope: 'player', who: name, onSend: send }),
    answer === undefined ? null : h('p', { role: 'status', 'data-testid': 'economy-answer' }, answer),
  );
}

function resultText(name: string, draft: Draft, change: Change, result: CoinChange | CurrencyChange): string {
  const done = `${CHANGE_LABELS[change].toLowerCase()} ${count(Number(draft.amount))}`;
  if ('balance_before' in result) {
    const asset = ASSET_LABELS[draft.asset].toLowerCase();
    if (result.balance === null) return `${asset} ${done}; ${name} left before the balance was read back.`;
    const before = result.balance_before[result.currency];
    return `${asset} ${done}: ${name} now has ${count(result.balance[result.currency])} (was ${count(before)}).`;
  }
  return `shop coins ${done}: ${name} now has ${count(result.balance)}.`;
}

interface ChangeFormProps {
  /** One player, or everyone (the bulk routes). */
  scope: 'player' | 'everyone';
  /** Who the change reaches, for the dialogs: a player's name, "every player on record". */
  who: string;
  onSend: (draft: Draft, change: Change) => Promise<void>;
  /** Why an asset cannot be changed now (the bulk coin cooldown), by asset. */
  blocked?: Partial<Record<Asset, string>>;
}

/** Asset, amount and reason, then Credit, Debit or Set: a debit or a set (and any bulk change) asks first. */
function ChangeForm(props: ChangeFormProps): View {
  const [draft, setDraft] = useState<Draft>({ asset: 'coins', amount: '', reason: '' });
  const [error, setError] = useState<string | undefined>(undefined);
  const prefix = props.scope === 'player' ? 'Player' : 'Everyone';
  const edit = (field: keyof Draft) => (event: Event) =>
    setDraft({ ...draft, [field]: (event.target as HTMLInputElement).value });
  const run = (change: Change) =>
    void attempt(() => props.onSend(draft, change), setError).then((ok) => {
      if (ok) setDraft({ ...draft, amount: '' });
    });
  const blocked = props.blocked?.[draft.asset];
  const hintId = `${props.scope}-change-hint`;
  // An untouched form is not wrong yet: it says what the change does, and its buttons wait.
  const untouched = draft.amount === '' && draft.reason === '';
  const problem = untouched ? undefined : draftProblem(draft, 'credit');
  return h(
    'fieldset',
    { class: 'change-form' },
    h('legend', null, props.scope === 'player' ? 'Change a balance' : 'Change everyone’s balance'),
    h(
      Field,
      { label: `${prefix} asset` },
      h(
        'select',
        { value: draft.asset, onChange: edit('asset') },
        ASSETS.map((asset) => h('option', { key: asset, value: asset }, ASSET_LABELS[asset])),
      ),
    ),
    h(
      Field,
      { label: `${prefix} amount` },
      h('input', {
        type: 'number',
        min: 0,
        step: 1,
        inputMode: 'numeric',
        value: draft.amount,
        'aria-describedby': hintId,
        onInput: edit('amount'),
      }),
    ),
    h(
      Field,
      { label: `${prefix} reason` },
      h('input', { value: draft.reason, maxLength: 500, onInput: edit('reason') }),
    ),
    h(
      'p',
      { id: hintId, class: (blocked ?? problem) ? 'error' : 'hint', 'aria-live': 'polite' },
      blocked ?? problem ?? hintOf(draft, props.scope),
    ),
    h(ChangeButtons, { ...props, draft, blocked, run }),
    h(ErrorLine, { text: error }),
  );
}

function hintOf(draft: Draft, scope: 'player' | 'everyone'): string {
  if (draft.asset === 'coins') {
    return scope === 'player'
      ? 'A debit above the balance is refused; coins cannot be set.'
      : 'A debit stops each balance at 0; coins cannot be set.';
  }
  return scope === 'player'
    ? 'The game runs its console command; a debit may take the balance below 0.'
    : 'The game runs its console command, relayed by a connected player.';
}

function ChangeButtons(
  props: ChangeFormProps & { draft: Draft; blocked: string | undefined; run: (change: Change) => void },
): View {
  const { draft, who } = props;
  const asset = ASSET_LABELS[draft.asset].toLowerCase();
  const amount = count(Number(draft.amount));
  const confirmed = (change: Change, consequence: string) =>
    h(ConfirmButton, {
      label: CHANGE_LABELS[change],
      name: `${CHANGE_LABELS[change]} ${asset} of ${who}`,
      title: `${CHANGE_LABELS[change]} ${asset} of ${who}?`,
      consequence,
      disabled: props.blocked !== undefined || draftProblem(draft, change) !== undefined,
      onConfirm: () => props.run(change),
    });
  const credit =
    props.scope === 'player'
      ? h(
          'button',
          {
            type: 'button',
            'aria-label': `Credit ${asset} of ${who}`,
            disabled: draftProblem(draft, 'credit') !== undefined,
            onClick: () => props.run('credit'),
          },
          'Credit',
        )
      : confirmed('credit', `${who} gets ${amount} ${asset} more. There is no undo.`);
  return h(
    'div',
    { class: 'actions change-actions' },
    credit,
    confirmed('debit', `${amount} ${asset} are taken from ${who}. Reason: “${draft.reason.trim()}”.`),
    draft.asset === 'coins'
      ? null
      : confirmed('set', `The ${asset} of ${who} becomes exactly ${amount}, whatever it was.`),
  );
}

/** Changes for everyone; the game allows one bulk coin change per cooldown, shown while it runs. */
function BulkCard(props: { onChanged: () => void }): View {
  const [target, setTarget] = useState<'all' | 'online'>('all');
  const [answer, setAnswer] = useState<string | undefined>(undefined);
  const [readyAt, setReadyAt] = useState(0);
  const left = useSecondsUntil(readyAt);
  const who = target === 'all' ? 'every player on record' : 'every player online';
  const send = async (draft: Draft, change: Change) => {
    const path = draft.asset === 'coins' ? '/game/economy/coins' : '/game/economy/currency';
    try {
      const result = await api<BulkCoinChange | BulkCurrencyChange>('POST', path, {
        ...bodyOf(draft, change),
        target,
      });
      setAnswer(`The game answered: ${bulkText(draft, change, result)}`);
      props.onChanged();
    } catch (failure) {
      if (failure instanceof ApiFailure && failure.code === 'rate_limited') {
        setReadyAt(Date.now() + (failure.retryAfter ?? 1) * 1000);
      }
      throw failure;
    }
  };
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'bulk-heading' },
    h('h2', { id: 'bulk-heading' }, 'Everyone'),
    h(
      Field,
      { label: 'Who' },
      h(
        'select',
        {
          value: target,
          onChange: (event: Event) => setTarget((event.target as HTMLSelectElement).value as 'all'),
        },
        h('option', { value: 'all' }, 'Every player on record'),
        h('option', { value: 'online' }, 'Players online now'),
      ),
    ),
    h(
      'p',
      { class: 'hint' },
      'Bulk coin changes share one cooldown on the game server (5 seconds), whoever calls: one inside it is refused and changes nothing.',
    ),
    h(
      'p',
      { role: 'status', 'data-testid': 'bulk-cooldown', class: left > 0 ? 'notice' : 'visually-hidden' },
      left > 0 ? `The game’s bulk coin cooldown is running: ready again in ${left} s.` : '',
    ),
    h(ChangeForm, {
      scope: 'everyone',
      who,
      onSend: send,
      blocked: left > 0 ? { coins: `Wait ${left} s: the bulk coin cooldown is running.` } : {},
    }),
    answer === undefined ? null : h('p', { role: 'status', 'data-testid': 'bulk-answer' }, answer),
  );
}

function bulkText(draft: Draft, change: Change, result: BulkCoinChange | BulkCurrencyChange): string {
  const asset = ASSET_LABELS[draft.asset].toLowerCase();
  const done = `${asset} ${CHANGE_LABELS[change].toLowerCase()} ${count(Number(draft.amount))} for ${result.target === 'all' ? 'everyone on record' : 'everyone online'}`;
  if (result.affected_count === null) return `${done} (the game does not count who it reached).`;
  return `${done}: ${count(result.affected_count)} balances changed.`;
}

/** Whole seconds left until `at` (ms since the epoch), ticking down once a second; 0 once passed. */
function useSecondsUntil(at: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (at <= Date.now()) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [at]);
  return Math.max(0, Math.ceil((at - now) / 1000));
}

type LedgerFilter = 'platform_id' | 'asset' | 'source' | 'scope' | 'start_date' | 'end_date';

const NO_FILTERS: Record<LedgerFilter, string> = {
  platform_id: '',
  asset: '',
  source: '',
  scope: '',
  start_date: '',
  end_date: '',
};

/** What `GET /v1/economy/transactions` filters by (docs/economy.md, "The ledger"). */
const LEDGER_FILTERS: readonly FilterSpec<LedgerFilter>[] = [
  { name: 'platform_id', label: 'Platform id', inputMode: 'numeric' },
  { name: 'asset', label: 'Asset', choices: ASSETS },
  {
    name: 'source',
    label: 'Source',
    choices: ['api', 'panel', 'social_bank', 'social_cmd', 'pack', 'claim', 'task', 'leaderboard', 'system'],
  },
  { name: 'scope', label: 'Scope', choices: ['player', 'all', 'online'] },
  { name: 'start_date', label: 'From (game time)', type: 'datetime-local' },
  { name: 'end_date', label: 'To (game time)', type: 'datetime-local' },
];

/** `2026-11-26T06:40` or `…:12` from a datetime-local input, as the ledger takes it: `2026-11-26 06:40:00`. */
function gameTime(local: string): string {
  if (local === '') return '';
  const [date, time = ''] = local.split('T');
  return `${date} ${time.length === 5 ? `${time}:00` : time}`;
}

function Ledger(props: { changes: number }): View {
  const [filters, setFilters] = useState(NO_FILTERS);
  const trail = useCursorTrail();
  const { cursor } = trail;
  const params = {
    ...filters,
    start_date: gameTime(filters.start_date),
    end_date: gameTime(filters.end_date),
    limit: 25,
    cursor,
  };
  const page = useLoad(
    () => api<LedgerPage>('GET', `/game/economy/transactions${query(params)}`),
    [filters, cursor, props.changes],
  );
  const apply = (next: Record<LedgerFilter, string>) => {
    setFilters(next);
    trail.restart();
  };
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'ledger-heading' },
    h('h2', { id: 'ledger-heading' }, 'Ledger'),
    h(FilterForm<LedgerFilter>, {
      label: 'Ledger filters',
      specs: LEDGER_FILTERS,
      values: filters,
      onApply: apply,
    }),
    h(ErrorLine, { text: page.error }),
    h(
      Table,
      {
        head: ['When (game time)', 'Player', 'Asset', 'Change', 'Balance', 'Scope', 'Source', 'Reason'],
        loading: page.value === undefined && page.error === undefined,
        empty: 'No ledger entry matches.',
      },
      (page.error === undefined ? (page.value?.data ?? []) : []).map((entry) =>
        h(LedgerRow, { key: entry.id, entry }),
      ),
    ),
    trail.pager(page.current, NEWER_OLDER),
  );
}

function LedgerRow(props: { entry: LedgerEntry }): View {
  const { entry } = props;
  const change =
    entry.mode === 'set'
      ? `set to ${count(entry.amount)}`
      : `${entry.amount > 0 ? '+' : ''}${count(entry.amount)}`;
  const balance =
    entry.balance_before === null || entry.balance_after === null
      ? '—'
      : `${count(entry.balance_before)} → ${count(entry.balance_after)}`;
  const reached = entry.affected_count === null ? '' : ` (${count(entry.affected_count)} reached)`;
  return h(
    'tr',
    { 'data-testid': 'ledger-row' },
    h('td', null, entry.at),
    h('td', { class: 'mono' }, entry.player?.platform_id ?? 'everyone'),
    h('td', null, ASSET_LABELS[entry.asset]),
    h('td', null, change),
    h('td', null, balance),
    h('td', null, `${entry.scope}${reached}`),
    h('td', null, entry.source),
    h(
      'td',
      { class: 'ledger-reason' },
      entry.pack_name === null ? entry.reason : `${entry.reason} (${entry.pack_name})`,
    ),
  );
}
