/**
 * The audit log, newest first: filters by key, admin actor, route, status and time, and pages
 * through the collection envelope's cursor (GET /admin/v1/audit).
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, query, type Page } from '../api.ts';
import { ErrorLine, Field, Table, useLoad, when, type View } from '../ui.ts';

/** An audit line as GET /admin/v1/audit answers it (generated from the admin API's document). */
type AuditEntry = components['schemas']['AdminAuditLine'];

type Filters = Record<'key_id' | 'actor' | 'route' | 'status' | 'since' | 'until', string>;

const EMPTY: Filters = { key_id: '', actor: '', route: '', status: '', since: '', until: '' };
const LABELS: Record<keyof Filters, string> = {
  key_id: 'Key id',
  actor: 'Admin actor (token:ID, session, local)',
  route: 'Route',
  status: 'Status (404 or 4xx)',
  since: 'Since (ISO time)',
  until: 'Until (ISO time)',
};

export function AuditPage(): View {
  const [filters, setFilters] = useState<Filters>(EMPTY);
  /** The cursors of the pages before this one, so "Newer" can go back. */
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  const cursor = trail[trail.length - 1] ?? null;
  const page = useLoad(
    () => api<Page<AuditEntry>>('GET', `/audit${query({ ...filters, limit: 50, cursor })}`),
    [filters, cursor],
  );
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const next = { ...EMPTY };
    for (const name of Object.keys(EMPTY) as (keyof Filters)[])
      next[name] = String(form.get(name) ?? '').trim();
    setFilters(next);
    setTrail([null]);
  };
  return h(
    'div',
    null,
    h(
      'form',
      { class: 'filters', onSubmit: submit },
      (Object.keys(EMPTY) as (keyof Filters)[]).map((name) =>
        h(Field, { key: name, label: LABELS[name] }, h('input', { name, value: filters[name] })),
      ),
      h('button', { type: 'submit' }, 'Filter'),
    ),
    h(ErrorLine, { text: page.error }),
    h(
      Table,
      { head: ['At', 'Actor', 'Request', 'Status', 'Request id'] },
      (page.value?.data ?? []).map((entry, index) =>
        h(
          'tr',
          { key: entry.request_id ?? index, 'data-testid': 'audit-row' },
          h('td', null, when(entry.time)),
          h('td', { class: 'mono' }, actorText(entry)),
          h(
            'td',
            { class: 'mono', title: entry.route ?? '' },
            `${entry.method ?? ''} ${entry.target ?? entry.route ?? ''}`,
          ),
          h('td', null, entry.status === undefined ? '' : String(entry.status)),
          h('td', { class: 'mono' }, entry.request_id ?? ''),
        ),
      ),
    ),
    h(
      'p',
      { class: 'pager' },
      h(
        'button',
        { type: 'button', disabled: trail.length === 1, onClick: () => setTrail(trail.slice(0, -1)) },
        'Newer',
      ),
      h(
        'button',
        {
          type: 'button',
          disabled: !page.value?.has_more,
          onClick: () => page.value?.next_cursor && setTrail([...trail, page.value.next_cursor]),
        },
        'Older',
      ),
    ),
  );
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
