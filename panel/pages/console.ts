/**
 * Console: run an admin console command with the game's command catalogue as suggestions and
 * help (console-form.ts), see the game's answer, and page the command history with its filters
 * (text in the command, a date range on the game's clock). Every call is a game route of the
 * admin API (`/admin/v1/game/commands…`, docs/admin.md "Game routes"), so a command run here
 * reaches the game with source `panel` and its history entry says "panel console" (the Source
 * column; `source` null from a game that does not record it).
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, query, type Page } from '../api.ts';
import { ErrorLine, Field, Table, useLoad, type View } from '../ui.ts';
import { CommandForm, type CommandResult } from './console-form.ts';
import { NEWER_OLDER, useCursorTrail } from './cursor-pager.ts';

type Catalog = components['schemas']['CommandCatalog'];
type HistoryEntry = components['schemas']['CommandHistoryEntry'];

export function ConsolePage(): View {
  const catalog = useLoad(() => api<Catalog>('GET', '/game/commands/catalog'));
  const [result, setResult] = useState<CommandResult | undefined>(undefined);
  /** Bumped after each command, so the history shows it. */
  const [runs, setRuns] = useState(0);
  const ran = (answer: CommandResult) => {
    setResult(answer);
    setRuns((n) => n + 1);
  };
  return h(
    'div',
    { class: 'console' },
    catalog.value === undefined
      ? h('p', { class: 'card' }, catalog.error === undefined ? 'Loading the command catalogue…' : null)
      : h(CommandForm, { catalog: catalog.value.data, onRan: ran }),
    h(ErrorLine, { text: catalog.error }),
    h(ResultView, { result }),
    h(History, { runs }),
  );
}

function ResultView(props: { result: CommandResult | undefined }): View {
  const { result } = props;
  if (result === undefined) return h('div', { role: 'status' });
  const subject = result.subject;
  const aimed =
    subject === null
      ? ''
      : subject.kind === 'player'
        ? ` Aimed at player ${subject.player?.platform_id ?? '?'}.`
        : ` Aimed at ${subject.position?.x}, ${subject.position?.y}, ${subject.position?.z}.`;
  return h(
    'section',
    {
      class: 'card',
      role: 'status',
      'aria-labelledby': 'command-result-title',
      'data-testid': 'command-result',
    },
    h(
      'h2',
      { id: 'command-result-title' },
      `${result.verb}: ${result.success ? 'done' : 'refused by the game'}`,
    ),
    h('pre', { class: 'command-output' }, result.result === '' ? '(no output)' : result.result),
    aimed === '' ? null : h('p', { class: 'hint' }, aimed.trim()),
  );
}

type Filters = Record<'command' | 'start_date' | 'end_date', string>;
const NO_FILTERS: Filters = { command: '', start_date: '', end_date: '' };
const FILTER_LABELS: Record<keyof Filters, string> = {
  command: 'Command contains',
  start_date: 'From (YYYY-MM-DD [HH:MM:SS])',
  end_date: 'To (YYYY-MM-DD [HH:MM:SS])',
};

function History(props: { runs: number }): View {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const trail = useCursorTrail();
  const page = useLoad(
    () =>
      api<Page<HistoryEntry>>(
        'GET',
        `/game/commands/history${query({ ...filters, limit: 20, cursor: trail.cursor })}`,
      ),
    [JSON.stringify(filters), trail.cursor, props.runs],
  );
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const next = { ...NO_FILTERS };
    for (const name of Object.keys(NO_FILTERS) as (keyof Filters)[])
      next[name] = String(form.get(name) ?? '').trim();
    setFilters(next);
    trail.restart();
  };
  const rows = page.error === undefined ? (page.value?.data ?? []) : [];
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'history-title' },
    h('h2', { id: 'history-title' }, 'Command history'),
    h(
      'form',
      { class: 'filters', role: 'search', 'aria-label': 'Filter the command history', onSubmit: submit },
      (Object.keys(NO_FILTERS) as (keyof Filters)[]).map((name) =>
        h(Field, { key: name, label: FILTER_LABELS[name] }, h('input', { name, autoComplete: 'off' })),
      ),
      h('div', { class: 'filter-actions' }, h('button', { type: 'submit' }, 'Filter')),
    ),
    h(ErrorLine, { text: page.error }),
    h(
      Table,
      {
        head: ['At (game clock)', 'Command', 'Result', 'Source', 'Run by'],
        loading: page.value === undefined && page.error === undefined,
        empty: page.error === undefined ? 'No command matches.' : 'Nothing to show.',
      },
      rows.map((entry, index) =>
        h(
          'tr',
          { key: `${entry.at}-${index}`, 'data-testid': 'history-row' },
          h('td', null, entry.at),
          h('td', { class: 'mono' }, entry.command),
          h('td', { class: 'command-output' }, entry.result),
          h('td', null, SOURCE_LABELS[entry.source ?? 'unknown']),
          h('td', null, runBy(entry)),
        ),
      ),
    ),
    trail.pager(page.current, { ...NEWER_OLDER, numbered: true }),
  );
}

/** Where a command came from, in words; `unknown` when the game does not record it (source null). */
const SOURCE_LABELS: Record<NonNullable<HistoryEntry['source']> | 'unknown', string> = {
  api: 'API',
  panel: 'panel console',
  chat: 'chat command',
  task: 'scheduled task',
  unknown: 'not recorded',
};

/**
 * Who ran it, as far as the history says: the player ids of whoever ran it, so a command from
 * this panel, a scheduled task or a key without an owner read "nobody named" here, and the Source
 * column tells them apart (docs/commands.md, "GET /v1/commands/history").
 */
function runBy(entry: HistoryEntry): string {
  if (entry.actor === null) return 'not recorded (game server before 2.0.47)';
  const { platform_id, social_id } = entry.actor;
  if (platform_id === null && social_id === null) return 'nobody named';
  return platform_id ?? `social ${social_id}`;
}
