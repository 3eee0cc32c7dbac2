/**
 * The player picker the game pages share (Players, Economy): who is online now, or a search by
 * name, platform id or social id through the game routes (`/admin/v1/game/players…`), and an Open
 * button per row that hands the page the player's platform id.
 */
import { Fragment, h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, query, type Page } from '../api.ts';
import { ErrorLine, Field, Table, useLoad, type View } from '../ui.ts';

type RosterRow = components['schemas']['RosterRow'];
type OnlineSnapshot = components['schemas']['OnlineSnapshot'];

const SEARCH_KINDS = [
  { value: 'search', label: 'Name' },
  { value: 'platform_id', label: 'Platform id' },
  { value: 'social_id', label: 'Social id' },
] as const;
type SearchKind = (typeof SEARCH_KINDS)[number]['value'];

/** What the list shows: those online now, or a search's matches. */
type Listing = { kind: 'online' } | { kind: 'search'; by: SearchKind; text: string };

/** A row of the list, from either source: enough to name and open a player. */
interface Found {
  platform_id: string;
  name: string;
  online: boolean;
}

/** The search form and the list it fills; `onOpen` gets the chosen player's platform id. */
export function PlayerPicker(props: { onOpen: (platformId: string) => void }): View {
  const [listing, setListing] = useState<Listing>({ kind: 'online' });
  return h(
    Fragment,
    null,
    h(SearchForm, { onSearch: setListing }),
    h(PlayerList, { listing, onOpen: props.onOpen }),
  );
}

function SearchForm(props: { onSearch: (listing: Listing) => void }): View {
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const text = String(form.get('text') ?? '').trim();
    const by = String(form.get('by') ?? 'search') as SearchKind;
    props.onSearch(text === '' ? { kind: 'online' } : { kind: 'search', by, text });
  };
  return h(
    'form',
    { class: 'card filters', role: 'search', onSubmit: submit },
    h(
      Field,
      { label: 'Search by' },
      h(
        'select',
        { name: 'by' },
        SEARCH_KINDS.map((kind) => h('option', { key: kind.value, value: kind.value }, kind.label)),
      ),
    ),
    h(Field, { label: 'Player' }, h('input', { name: 'text', type: 'search', autoComplete: 'off' })),
    h('button', { type: 'submit' }, 'Search'),
    h('button', { type: 'reset', onClick: () => props.onSearch({ kind: 'online' }) }, 'Online now'),
  );
}

async function listPlayers(listing: Listing): Promise<Found[]> {
  if (listing.kind === 'online') {
    const online = await api<OnlineSnapshot>('GET', '/game/players/online');
    return online.data.map((row) => ({ platform_id: row.platform_id, name: row.name, online: true }));
  }
  const page = await api<Page<RosterRow>>(
    'GET',
    `/game/players${query({ [listing.by]: listing.text, limit: 50 })}`,
  );
  return page.data.map((row) => ({ platform_id: row.platform_id, name: row.char_name, online: row.online }));
}

function PlayerList(props: { listing: Listing; onOpen: (platformId: string) => void }): View {
  const { listing } = props;
  const key = JSON.stringify(listing);
  const rows = useLoad(async () => ({ key, found: await listPlayers(listing) }), [key]);
  // useLoad keeps the last listing's rows until the next one arrives: under the new title they
  // would be the wrong players, and a keyboard user tabbing on from the search would open one.
  const found = rows.value?.key === key ? rows.value.found : undefined;
  const title = listing.kind === 'online' ? 'Online now' : `Players matching “${listing.text}”`;
  // Open comes first: on a phone the table scrolls sideways in its box, and the action must show.
  return h(
    'section',
    { class: 'card' },
    h('h2', null, title),
    h(
      Table,
      {
        head: ['', 'Name', 'Platform id', 'Online'],
        loading: found === undefined && rows.error === undefined,
        empty: listing.kind === 'online' ? 'Nobody is online.' : 'No player matches.',
      },
      (found ?? []).map((row) =>
        h(
          'tr',
          { key: row.platform_id, 'data-testid': 'player-row' },
          h(
            'td',
            null,
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Open ${row.name}`,
                onClick: () => props.onOpen(row.platform_id),
              },
              'Open',
            ),
          ),
          h('td', null, row.name),
          h('td', null, row.platform_id),
          h('td', null, row.online ? 'yes' : 'no'),
        ),
      ),
    ),
    h(ErrorLine, { text: rows.error }),
  );
}
