/**
 * Small building blocks the pages share: a data loader hook, an error line, a labelled field,
 * a table, and time formatting. Preact's `h` directly (no JSX step), so the panel's sources are
 * plain TypeScript that tsc and eslint check like the rest of the tree.
 */
import { Component, h, type ComponentChild, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describe } from './api.ts';

/** What a component returns: an element, text, or nothing. */
export type View = ComponentChild;

export interface Loaded<T> {
  value: T | undefined;
  error: string | undefined;
  reload: () => void;
}

/** Runs `load` now and on `reload()`, keeping the last value while a reload runs. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[] = []): Loaded<T> {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (result) => current && (setValue(result), setError(undefined)),
      (failure: unknown) => current && setError(describe(failure)),
    );
    return () => {
      current = false;
    };
  }, [round, ...deps]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { value, error, reload };
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

export function Table(props: { head: string[]; children?: ComponentChildren }): View {
  return h(
    'table',
    null,
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        props.head.map((name) => h('th', { key: name }, name)),
      ),
    ),
    h('tbody', null, props.children),
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
