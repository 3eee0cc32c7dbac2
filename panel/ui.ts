/**
 * Small building blocks the pages share: a data loader hook, an error line, a labelled field,
 * a table with its loading and empty states, a confirmed destructive action, and time formatting. Preact's `h` directly (no JSX step), so the panel's sources are
 * plain TypeScript that tsc and eslint check like the rest of the tree.
 */
import { Component, h, type ComponentChild, type ComponentChildren, type RefObject } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describe } from './api.ts';

/** What a component returns: an element, text, or nothing. */
export type View = ComponentChild;

export interface Loaded<T> {
  value: T | undefined;
  error: string | undefined;
  /**
   * The value only once it answers the current load (undefined while a reload runs): what an
   * action that belongs to the query must read, such as a page's next cursor, since `value` may
   * still be the answer to the filters or page before.
   */
  current: T | undefined;
  reload: () => void;
}

/** Runs `load` now and on `reload()`, keeping the last value while a reload runs. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[] = []): Loaded<T> {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [settled, setSettled] = useState(false);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setSettled(false);
    load().then(
      (result) => current && (setValue(result), setError(undefined), setSettled(true)),
      (failure: unknown) => current && (setError(describe(failure)), setSettled(true)),
    );
    return () => {
      current = false;
    };
  }, [round, ...deps]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { value, error, current: settled && error === undefined ? value : undefined, reload };
}

/** Runs `action`, reporting a failure as text; returns whether it succeeded. */
export async function attempt(action: () => Promise<unknown>, report: (text: string | undefined) => void) {
  try {
    await action();
    report(undefined);
    return true;
  } catch (error) {
    report(describe(error));
    return false;
  }
}

export function ErrorLine({ text }: { text: string | undefined }): View | null {
  return text === undefined ? null : h('p', { class: 'error', role: 'alert' }, text);
}

export function Field(props: { label: string; children?: ComponentChildren }): View {
  return h('label', { class: 'field' }, h('span', null, props.label), props.children);
}

export interface TableProps {
  head: string[];
  /** What the body says when there are no rows; with `loading`, it says "Loading…" instead. */
  empty?: string;
  loading?: boolean;
  /** The rows (an array of `tr`). */
  children?: ComponentChildren;
}

/**
 * A table inside a box that scrolls sideways on its own, so a wide table never widens the page; the
 * box is focusable and named so a keyboard user can scroll it. A head named '' is the actions
 * column: its name is read out, not shown.
 */
export function Table(props: TableProps): View {
  const rows = Array.isArray(props.children) ? props.children.length : props.children ? 1 : 0;
  const placeholder = props.loading ? 'Loading…' : rows === 0 ? props.empty : undefined;
  return h(
    'div',
    { class: 'table-box', tabIndex: 0, role: 'region', 'aria-label': props.head.filter(Boolean).join(', ') },
    h(
      'table',
      null,
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          props.head.map((name) =>
            h(
              'th',
              { key: name, scope: 'col' },
              name === '' ? h('span', { class: 'visually-hidden' }, 'Actions') : name,
            ),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        placeholder === undefined
          ? props.children
          : h('tr', { class: 'placeholder' }, h('td', { colSpan: props.head.length }, placeholder)),
      ),
    ),
  );
}

/**
 * A line saying what an action did that can take the focus: when the control that acted goes away
 * with the new state (Unban, Delete), `focusNext()` before the change sends the focus to the line
 * once `shown` has changed, not back to the top of the page. `ref` goes on the line (tabIndex -1).
 */
export function useAnswerFocus(shown: unknown): {
  ref: RefObject<HTMLParagraphElement>;
  focusNext: () => void;
} {
  const ref = useRef<HTMLParagraphElement>(null);
  const pending = useRef(false);
  useEffect(() => {
    if (pending.current) ref.current?.focus();
    pending.current = false;
  }, [shown]);
  return { ref, focusNext: () => void (pending.current = true) };
}

export interface ConfirmProps {
  /** The button's text, and the dialog's confirming button's. */
  label: string;
  /** The button's accessible name when the text alone is ambiguous ("Revoke key bot-1"). */
  name?: string;
  /** The dialog's question: "Revoke the key bot-1?". */
  title: string;
  /** What will happen, in words a person reads: "Every bot using this key gets 401 at once." */
  consequence: string;
  onConfirm: () => void;
  disabled?: boolean;
}

/**
 * A destructive action: a button that looks it, opening a modal dialog that says what will happen;
 * only its confirming button acts, Cancel or Escape does nothing. Focus moves into the dialog and
 * back to the button when it closes.
 */
export function ConfirmButton(props: ConfirmProps): View {
  const dialog = useRef<HTMLDialogElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const close = () => {
    dialog.current?.close();
    trigger.current?.focus();
  };
  return h(
    'span',
    { class: 'confirm' },
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        ref: trigger,
        disabled: props.disabled,
        'aria-label': props.name,
        'aria-haspopup': 'dialog',
        onClick: () => dialog.current?.showModal(),
      },
      props.label,
    ),
    h(
      'dialog',
      { ref: dialog, 'aria-label': props.title, onClose: () => trigger.current?.focus() },
      h('h2', null, props.title),
      h('p', null, props.consequence),
      h(
        'div',
        { class: 'dialog-actions' },
        h('button', { type: 'button', autoFocus: true, onClick: close }, 'Cancel'),
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onClick: () => {
              close();
              props.onConfirm();
            },
          },
          props.label,
        ),
      ),
    ),
  );
}

/** `2026-11-26 06:40:12` in the browser's zone, or an em dash for nothing. */
export function when(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** `3 d 4 h`, `12 min`, `40 s`. */
export function duration(seconds: number): string {
  if (seconds >= 86_400)
    return `${Math.floor(seconds / 86_400)} d ${Math.floor((seconds % 86_400) / 3_600)} h`;
  if (seconds >= 3_600) return `${Math.floor(seconds / 3_600)} h ${Math.floor((seconds % 3_600) / 60)} min`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds)} s`;
}

/**
 * Keeps one page's failure on that page: the message instead of the page, the navigation still
 * working (a render error would otherwise leave the panel blank). Keyed by page, so moving to
 * another page starts clean.
 */
export class PageBoundary extends Component<{ children?: ComponentChildren }, { failure?: string }> {
  override componentDidCatch(error: unknown): void {
    this.setState({ failure: String(error) });
  }

  override render(): ComponentChild {
    if (this.state.failure !== undefined) {
      return h('p', { class: 'error', role: 'alert' }, `This page failed to show: ${this.state.failure}`);
    }
    return this.props.children;
  }
}
