/**
 * A text field that suggests values as you type: the ARIA combobox with a list box (the WAI-ARIA
 * Authoring Practices' "editable combobox with list autocomplete"). A `<datalist>` would be the
 * browser's own, but Chromium offers its suggestions in a popup the keyboard cannot reach in every
 * mode and that a test cannot read; this one is arrows, Enter and Escape, announced through
 * `aria-activedescendant`.
 */
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { View } from '../ui.ts';

export interface Suggestion {
  value: string;
  /** A few words shown after the value. */
  hint: string;
}

export interface ComboboxProps {
  id: string;
  label: string;
  value: string;
  suggestions: readonly Suggestion[];
  onInput: (value: string) => void;
  describedBy?: string;
}

/** Those containing `typed` (any case), those starting with it first. */
export function matching(suggestions: readonly Suggestion[], typed: string): Suggestion[] {
  const needle = typed.toLowerCase();
  const found = suggestions.filter((entry) => entry.value.toLowerCase().includes(needle));
  const starts = (entry: Suggestion) => (entry.value.toLowerCase().startsWith(needle) ? 0 : 1);
  return found.sort((a, b) => starts(a) - starts(b));
}

export function Combobox(props: ComboboxProps): View {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const shown = matching(props.suggestions, props.value);
  const listId = `${props.id}-list`;
  const optionId = (index: number) => `${props.id}-option-${index}`;
  const expanded = open && shown.length > 0;
  useEffect(() => {
    if (active >= 0) document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  }, [active]);
  const choose = (entry: Suggestion) => {
    props.onInput(entry.value);
    setOpen(false);
    setActive(-1);
  };
  const keydown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setOpen(true);
      setActive((index) => (open ? (index + step + shown.length) % Math.max(shown.length, 1) : 0));
    } else if (event.key === 'Enter' && expanded && active >= 0 && shown[active]) {
      event.preventDefault();
      choose(shown[active]);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      setOpen(false);
      setActive(-1);
    }
  };
  return h(
    'div',
    { class: 'combobox field' },
    h('label', { for: props.id }, props.label),
    h('input', {
      id: props.id,
      role: 'combobox',
      autoComplete: 'off',
      spellcheck: false,
      value: props.value,
      'aria-autocomplete': 'list',
      'aria-expanded': expanded ? 'true' : 'false',
      'aria-controls': listId,
      'aria-activedescendant': expanded && active >= 0 ? optionId(active) : undefined,
      'aria-describedby': props.describedBy,
      onInput: (event: Event) => {
        props.onInput((event.target as HTMLInputElement).value);
        setOpen(true);
        setActive(-1);
      },
      onKeyDown: keydown,
      onBlur: () => setOpen(false),
    }),
    h(
      'ul',
      { id: listId, role: 'listbox', 'aria-label': `${props.label} suggestions`, hidden: !expanded },
      shown.map((entry, index) =>
        h(
          'li',
          {
            key: entry.value,
            id: optionId(index),
            role: 'option',
            'aria-selected': index === active ? 'true' : 'false',
            // mousedown, not click: the field keeps its focus, so the list does not close first.
            onMouseDown: (event: MouseEvent) => {
              event.preventDefault();
              choose(entry);
            },
          },
          entry.value,
          h('span', { class: 'hint' }, ` ${entry.hint}`),
        ),
      ),
    ),
  );
}
