/**
 * The filtered, paged lists of the game pages (ledger, deliveries, claim codes), the audit log
 * and the group's sanctions: a filter form of text fields and choices that applies on submit,
 * filters read from the location's hash, and one page of a list for its filters and cursor (the
 * cursors behind Newer and Older are pages/cursor-pager.ts).
 */
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, describe, query, type Page } from './api.ts';
import { hashParams } from './hash.ts';
import { Field, type View } from './ui.ts';

/** One filter: a text field, or a choice of `choices` (with "Any" first) when given. */
export interface FilterSpec<Name extends string> {
  name: Name;
  label: string;
  choices?: readonly string[];
  type?: string;
  /** `numeric` for an id, so a phone shows digits. */
  inputMode?: 'numeric';
}

export interface FilterFormProps<Name extends string> {
  /** The form's accessible name ("Ledger filters"). */
  label: string;
  specs: readonly FilterSpec<Name>[];
  values: Record<Name, string>;
  onApply: (values: Record<Name, string>) => void;
}

export function FilterForm<Name extends string>(props: FilterFormProps<Name>): View {
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const next = { ...props.values };
    for (const spec of props.specs) next[spec.name] = String(form.get(spec.name) ?? '').trim();
    props.onApply(next);
  };
  return h(
    'form',
    { class: 'filters', 'aria-label': props.label, onSubmit: submit },
    props.specs.map((spec) =>
      h(Field, { key: spec.name, label: spec.label }, filterInput(spec, props.values)),
    ),
    h('button', { type: 'submit' }, 'Filter'),
  );
}

function filterInput<Name extends string>(spec: FilterSpec<Name>, values: Record<Name, string>): View {
  if (spec.choices === undefined) {
    return h('input', {
      name: spec.name,
      type: spec.type ?? 'text',
      step: spec.type === 'datetime-local' ? 1 : undefined,
      inputMode: spec.inputMode,
      value: values[spec.name],
    });
  }
  return h(
    'select',
    { name: spec.name, value: values[spec.name] },
    h('option', { value: '' }, 'Any'),
    spec.choices.map((value) => h('option', { key: value, value }, value)),
  );
}

/** The filters `names` as the location's hash holds them (`#/audit?method=DELETE`), '' for none. */
export function filtersFromHash<Name extends string>(names: readonly Name[]): Record<Name, string> {
  const params = hashParams();
  return Object.fromEntries(names.map((name) => [name, params.get(name) ?? ''])) as Record<Name, string>;
}

export interface ShownPage<T> {
  page?: Page<T>;
  error?: string;
  loading: boolean;
}

/**
 * One page of the list at `path` for these filters and cursor, 50 rows; a new request clears what
 * the last one showed. `round` changing reads it again with the same filters.
 */
export function usePage<T>(
  path: string,
  filters: Record<string, string>,
  cursor: string | null,
  round: number,
): ShownPage<T> {
  const [shown, setShown] = useState<ShownPage<T>>({ loading: true });
  const url = `${path}${query({ ...filters, limit: 50, cursor })}`;
  useEffect(() => {
    let current = true;
    setShown({ loading: true });
    api<Page<T>>('GET', url).then(
      (page) => current && setShown({ page, loading: false }),
      (failure: unknown) => current && setShown({ error: describe(failure), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [url, round]);
  return shown;
}
