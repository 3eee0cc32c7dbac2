/**
 * Paging through a collection envelope's cursors (docs/pipeline.md: `next_cursor` goes back as
 * `cursor`), as every paged list of the panel does (World, the command history, the ledger, the
 * shop, the audit log): the trail of cursors already passed, so "Previous page" goes back without
 * the API having one, and the two buttons.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { Page } from '../api.ts';
import type { View } from '../ui.ts';

export interface CursorTrail {
  /** The cursor of the page shown; null for the first. */
  cursor: string | null;
  /** Back to the first page (new filters). */
  restart: () => void;
  pager: (page: Page<unknown> | undefined, labels?: PagerLabels) => View;
}

/** The two buttons' words, and whether the page's number shows beside them. */
export interface PagerLabels {
  back: string;
  forward: string;
  numbered: boolean;
}

/** Newer and Older, for lists shown newest first (the ledger, deliveries, claim codes). */
export const NEWER_OLDER: PagerLabels = { back: 'Newer', forward: 'Older', numbered: false };

export function useCursorTrail(): CursorTrail {
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  const cursor = trail[trail.length - 1] ?? null;
  const pager = (
    page: Page<unknown> | undefined,
    labels: PagerLabels = { back: 'Previous page', forward: 'Next page', numbered: true },
  ) =>
    h(
      'p',
      { class: 'pager' },
      h(
        'button',
        { type: 'button', disabled: trail.length === 1, onClick: () => setTrail(trail.slice(0, -1)) },
        labels.back,
      ),
      h(
        'button',
        {
          type: 'button',
          disabled: !page?.has_more,
          onClick: () => page?.next_cursor && setTrail([...trail, page.next_cursor]),
        },
        labels.forward,
      ),
      labels.numbered && trail.length > 1 ? h('span', { class: 'hint' }, `Page ${trail.length}`) : null,
    );
  return { cursor, restart: () => setTrail([null]), pager };
}
