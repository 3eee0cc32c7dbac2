/**
 * World: the game's squads, bases, vehicles and containers, each a list with the `/v1` list
 * route's own filters (docs/assets.md, "Filters"), paged by its cursors, each row opening its
 * details below it. Every call is a game route of the admin API (`/admin/v1/game/…`,
 * docs/admin.md "Game routes"), so the filters' rules and refusals are the API's, not the page's.
 * What each kind shows is in world-kinds.ts.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api, query, type Page } from '../api.ts';
import { ErrorLine, Field, Table, useLoad, type View } from '../ui.ts';
import { useCursorTrail } from './cursor-pager.ts';
import { WORLD_KINDS, type FilterSpec, type WorldKind } from './world-kinds.ts';

/** Rows a page asks for: the squads list takes no fewer. */
const PAGE_SIZE = 10;

export function WorldPage(): View {
  const [kindId, setKindId] = useState<WorldKind['id']>('squads');
  const kind = WORLD_KINDS.find((entry) => entry.id === kindId) ?? (WORLD_KINDS[0] as WorldKind);
  return h(
    'div',
    { class: 'world' },
    h(
      'div',
      { class: 'kind-switch', role: 'group', 'aria-label': 'What to show' },
      WORLD_KINDS.map((entry) =>
        h(
          'button',
          {
            key: entry.id,
            type: 'button',
            class: 'quiet',
            'aria-pressed': entry.id === kindId ? 'true' : 'false',
            onClick: () => setKindId(entry.id),
          },
          entry.title,
        ),
      ),
    ),
    h(EntityBrowser, { key: kind.id, kind }),
  );
}

type Filters = Record<string, string>;

function EntityBrowser(props: { kind: WorldKind }): View {
  const { kind } = props;
  const [filters, setFilters] = useState<Filters>({});
  const [open, setOpen] = useState<string | null>(null);
  const trail = useCursorTrail();
  const page = useLoad(
    () =>
      api<Page<unknown> & { total?: number }>(
        'GET',
        `/game/${kind.id}${query({ ...filters, limit: PAGE_SIZE, cursor: trail.cursor })}`,
      ),
    [JSON.stringify(filters), trail.cursor],
  );
  const apply = (next: Filters) => {
    setFilters(next);
    setOpen(null);
    trail.restart();
  };
  // A refused filter shows the refusal alone: rows left from the last answer would look like its result.
  const rows = page.error === undefined ? (page.value?.data ?? []) : [];
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'world-kind' },
    h('h2', { id: 'world-kind' }, kind.title),
    h(FilterForm, { kind, onApply: apply }),
    h(ErrorLine, { text: page.error }),
    page.value && page.error === undefined
      ? h('p', { class: 'hint', 'data-testid': 'world-total' }, `Matches: ${page.value.total ?? rows.length}`)
      : null,
    h(
      Table,
      {
        head: [...kind.head, ''],
        loading: page.value === undefined && page.error === undefined,
        empty: page.error === undefined ? `No ${kind.title.toLowerCase()} match.` : 'Nothing to show.',
      },
      rows.flatMap((row) => entityRows(kind, row, open, setOpen)),
    ),
    trail.pager(page.current),
  );
}

/** A row, and its details row below it while it is open. */
function entityRows(
  kind: WorldKind,
  row: unknown,
  open: string | null,
  setOpen: (key: string | null) => void,
): View[] {
  const key = kind.keyOf(row);
  const expanded = open === key;
  const detailsId = `details-${kind.id}-${key}`;
  const main = h(
    'tr',
    { key, 'data-testid': 'world-row' },
    kind.cells(row).map((cell, index) => h('td', { key: index }, cell)),
    h(
      'td',
      null,
      h(
        'button',
        {
          type: 'button',
          class: 'quiet',
          'aria-expanded': expanded ? 'true' : 'false',
          'aria-controls': expanded ? detailsId : undefined,
          'aria-label': `Details of ${kind.noun} ${kind.nameOf(row)}`,
          onClick: () => setOpen(expanded ? null : key),
        },
        // Its text stays: aria-expanded says whether it is open, and the name keeps its visible word.
        'Details',
      ),
    ),
  );
  if (!expanded) return [main];
  const details = h(
    'tr',
    { key: `${key}-details`, id: detailsId, class: 'details-row' },
    h('td', { colSpan: kind.head.length + 1 }, h(kind.Details, { row })),
  );
  return [main, details];
}

function FilterForm(props: { kind: WorldKind; onApply: (filters: Filters) => void }): View {
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const next: Filters = {};
    for (const filter of props.kind.filters) {
      const value = String(form.get(filter.name) ?? '').trim();
      if (value !== '') next[filter.name] = value;
    }
    props.onApply(next);
  };
  return h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': `Filter ${props.kind.title.toLowerCase()}`,
      onSubmit: submit,
    },
    props.kind.filters.map((filter) => h(FilterField, { key: filter.name, filter })),
    h(
      'div',
      { class: 'filter-actions' },
      h('button', { type: 'submit' }, 'Filter'),
      h('button', { type: 'reset', class: 'quiet', onClick: () => props.onApply({}) }, 'Clear'),
    ),
  );
}

function FilterField(props: { filter: FilterSpec }): View {
  const { filter } = props;
  if (filter.type === 'bool') {
    return h(
      Field,
      { label: filter.label },
      h(
        'select',
        // Named by the label alone: a select inside its label would add its chosen option's text.
        { name: filter.name, 'aria-label': filter.label },
        h('option', { value: '' }, 'Any'),
        h('option', { value: 'true' }, 'Yes'),
        h('option', { value: 'false' }, 'No'),
      ),
    );
  }
  return h(
    Field,
    { label: filter.label },
    h('input', {
      name: filter.name,
      autoComplete: 'off',
      inputMode: filter.type === 'number' ? 'decimal' : undefined,
    }),
  );
}
