/**
 * The audit log, newest first: filters by key, admin actor, method, route, status and time, kept
 * in the location's hash (`#/audit?method=DELETE`) so a reload or a shared link keeps them, and
 * pages through the collection envelope's cursor (GET /admin/v1/audit). Each row says what the
 * request did in its route's own words and how it ended.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { replaceHashParams } from '../hash.ts';
import { filtersFromHash, usePage } from '../listing.ts';
import { ErrorLine, Field, Table, when, type View } from '../ui.ts';
import { NEWER_OLDER, useCursorTrail } from './cursor-pager.ts';

/** An audit line as GET /admin/v1/audit answers it (generated from the admin API's document). */
type AuditEntry = components['schemas']['AdminAuditLine'];

const NAMES = ['key_id', 'actor', 'method', 'route', 'status', 'since', 'until'] as const;
type Filters = Record<(typeof NAMES)[number], string>;

const LABELS: Record<keyof Filters, string> = {
  key_id: 'Key id',
  actor: 'Admin actor (token:ID, session, local)',
  method: 'Method',
  route: 'Route (template or path)',
  status: 'Status (404 or 4xx)',
  since: 'Since (ISO time)',
  until: 'Until (ISO time)',
};

/** The audit log holds writes only (docs/admin.md, "Audit log"). */
const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

export function AuditPage(): View {
  const [filters, setFilters] = useState<Filters>(() => filtersFromHash(NAMES));
  const trail = useCursorTrail();
  /** Bumped by every "Filter", so pressing it again with the same filters reads the log again. */
  const [round, setRound] = useState(0);
  const shown = usePage<AuditEntry>('/audit', filters, trail.cursor, round);
  const apply = (next: Filters) => {
    setFilters(next);
    setRound(round + 1);
    trail.restart();
    replaceHashParams(next);
  };
  return h(
    'div',
    null,
    h(FilterForm, { filters, onApply: apply }),
    h(ErrorLine, { text: shown.error }),
    h(
      Table,
      {
        head: ['At', 'Actor', 'What it did', 'Request', 'Status'],
        loading: shown.loading,
        empty: shown.error
          ? 'Nothing to show: the filters were refused (see above).'
          : 'No audit lines match these filters.',
      },
      (shown.page?.data ?? []).map((entry, index) => h(AuditRow, { key: entry.request_id ?? index, entry })),
    ),
    trail.pager(shown.page, NEWER_OLDER),
  );
}

/** The filters as a form of their own: typing changes nothing until "Filter". */
function FilterForm(props: { filters: Filters; onApply: (filters: Filters) => void }): View {
  const [draft, setDraft] = useState<Filters>(props.filters);
  const set = (name: keyof Filters) => (event: Event) =>
    setDraft({ ...draft, [name]: (event.target as HTMLInputElement | HTMLSelectElement).value });
  const submit = (event: Event) => {
    event.preventDefault();
    const trimmed = Object.fromEntries(NAMES.map((name) => [name, draft[name].trim()])) as Filters;
    props.onApply(trimmed);
  };
  const control = (name: keyof Filters) =>
    name === 'method'
      ? h(
          'select',
          { name, value: draft.method, onChange: set(name) },
          h('option', { value: '' }, 'Any'),
          METHODS.map((method) => h('option', { key: method, value: method }, method)),
        )
      : h('input', {
          name,
          value: draft[name],
          onInput: set(name),
          list: name === 'route' ? 'audit-routes' : undefined,
        });
  return h(
    'form',
    { class: 'filters', onSubmit: submit },
    NAMES.map((name) => h(Field, { key: name, label: LABELS[name] }, control(name))),
    h(
      'datalist',
      { id: 'audit-routes' },
      [...new Set(MODGATE_WRITE_ROUTES.map((route) => route.path))]
        .sort()
        .map((path) => h('option', { key: path, value: path })),
    ),
    h('div', { class: 'filter-actions' }, h('button', { type: 'submit' }, 'Filter')),
  );
}

function AuditRow({ entry }: { entry: AuditEntry }): View {
  const change = changeOf(entry);
  return h(
    'tr',
    { 'data-testid': 'audit-row' },
    h('td', null, when(entry.time)),
    h('td', { class: 'mono' }, actorText(entry)),
    h(
      'td',
      { 'data-testid': 'audit-change' },
      h('span', null, change.what),
      h('br', null),
      h('span', { class: change.ok ? 'hint' : 'hint bad' }, change.outcome),
    ),
    h('td', { class: 'mono', title: entry.request_id }, `${entry.method} ${entry.target}`),
    h('td', null, String(entry.status)),
  );
}

/**
 * What a line did, from what it carries: the route's summary (up to its first `;` or `:`) with
 * the values the template's `{names}` took, and how it ended.
 */
function changeOf(entry: AuditEntry): { what: string; outcome: string; ok: boolean } {
  const route = MODGATE_WRITE_ROUTES.find(
    (known) => known.method === entry.method && known.path === entry.route,
  );
  const summary =
    route?.summary.split(/[;:] /)[0] ?? (entry.route === 'unmatched' ? 'No such route' : entry.route);
  const subject = templateValues(entry.route, entry.target);
  const what = subject === '' ? summary : `${summary} (${subject})`;
  if (entry.outcome === 'aborted') return { what, outcome: 'Abandoned: the client hung up first', ok: false };
  if (entry.outcome === 'error')
    return {
      what,
      outcome: `Refused, nothing changed: ${entry.error_code ?? `HTTP ${entry.status}`}`,
      ok: false,
    };
  return {
    what,
    outcome: entry.replayed ? 'Replayed an earlier answer, changed nothing again' : 'Done',
    ok: true,
  };
}

/** `id k3v9q2m7x1pa` from `/admin/v1/keys/{id}` and `/admin/v1/keys/k3v9q2m7x1pa`. */
function templateValues(template: string, target: string): string {
  const names = template.split('/');
  const values = target.split('/');
  if (names.length !== values.length) return '';
  return names
    .flatMap((name, index) => {
      const match = /^\{(.+)\}$/.exec(name);
      return match ? [`${match[1]} ${safeDecode(values[index] ?? '')}`] : [];
    })
    .join(', ');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `token mgadm_ab12 (ci)`, `uid 1000`, `key k_…`, whatever the entry carries. */
function actorText(entry: AuditEntry): string {
  const actor = entry.actor;
  if (actor && typeof actor === 'object') {
    const fields = actor as Record<string, unknown>;
    const who = fields['name'] ?? fields['token_id'] ?? fields['uid'];
    return `${String(fields['kind'] ?? '')} ${String(who ?? '')}`.trim();
  }
  if (typeof actor === 'string') return actor;
  return entry.key_id ? `key ${entry.key_id}` : '—';
}
