/**
 * The filtered, paged lists of the game pages (ledger, deliveries, claim codes): a filter form of
 * text fields and choices that applies on submit (the cursors behind Newer and Older are
 * pages/cursor-pager.ts).
 */
import { h } from 'preact';
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
