/**
 * API keys: the list (scopes, status, allowlist, expiry, last use), a rolled key shown with the
 * key that replaced it, revoked and expired keys behind a toggle; "Create key" (panel/pages/
 * key-forms.ts), edit, revoke and roll with an overlap, each destructive action confirmed saying
 * what it does. A new secret is shown once, in `data-testid="new-key"`, with a copy button; the
 * daemon keeps only its hash. The labels are part of the automation contract (docs/admin.md).
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api, type Page } from '../api.ts';
import { ConfirmButton, ErrorLine, Table, useLoad, when, type View } from '../ui.ts';
import { keyFailureInWords } from './key-fields.ts';
import { CreateForm, EditForm, NewKey, type Created, type Key } from './key-forms.ts';

const OVERLAPS = [
  ['5m', 5 * 60_000, 'in 5 minutes'],
  ['1h', 3_600_000, 'in 1 hour'],
  ['1d', 86_400_000, 'in 1 day'],
  ['7d', 7 * 86_400_000, 'in 7 days'],
] as const;

const HEAD = ['Name', 'Id', 'Scopes', 'Status', 'Allowed addresses', 'Expires', 'Last used', ''];

export function KeysPage(): View {
  const keys = useLoad(() => listAll());
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Key | undefined>(undefined);
  const [secret, setSecret] = useState<Created | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [showAll, setShowAll] = useState(false);
  const shown = (created: Created) => {
    setSecret(created);
    setCreating(false);
    keys.reload();
  };
  const all = keys.value ?? [];
  const hidden = all.filter((key) => key.status !== 'active').length;
  const rows = inChains(all).filter((key) => showAll || key.status === 'active');
  return h(
    'div',
    null,
    secret ? h(NewKey, { created: secret, onDone: () => setSecret(undefined) }) : null,
    h(
      'button',
      {
        type: 'button',
        'aria-expanded': creating,
        onClick: () => {
          setEditing(undefined);
          setCreating(true);
        },
      },
      'Create key',
    ),
    creating ? h(CreateForm, { onCreated: shown, onCancel: () => setCreating(false) }) : null,
    editing
      ? h(EditForm, {
          key: editing.id,
          item: editing,
          onSaved: () => {
            setEditing(undefined);
            keys.reload();
          },
          onCancel: () => setEditing(undefined),
        })
      : null,
    h(ErrorLine, { text: error ?? keys.error }),
    h(
      'label',
      { class: 'check' },
      h('input', {
        type: 'checkbox',
        checked: showAll,
        onChange: (event: Event) => setShowAll((event.target as HTMLInputElement).checked),
      }),
      `Show revoked and expired (${hidden})`,
    ),
    h(
      Table,
      {
        head: HEAD,
        loading: keys.value === undefined && keys.error === undefined,
        empty: all.length === 0 ? 'No keys yet: create one for each bot.' : 'No active keys.',
      },
      rows.map((key) =>
        h(KeyRow, {
          key: key.id,
          item: key,
          all,
          onChanged: keys.reload,
          onSecret: shown,
          onEdit: () => {
            setCreating(false);
            setEditing(key);
          },
          onError: setError,
        }),
      ),
    ),
  );
}

/** Every key, following the cursor: a server has tens of keys, not thousands. */
async function listAll(): Promise<Key[]> {
  const keys: Key[] = [];
  let cursor: string | null = null;
  do {
    const suffix: string = cursor === null ? '?limit=100' : `?limit=100&cursor=${encodeURIComponent(cursor)}`;
    const page: Page<Key> = await api<Page<Key>>('GET', `/keys${suffix}`);
    keys.push(...page.data);
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor !== null);
  return keys;
}

/** The keys with each roll chain together, newest first within it: a successor above what it replaced. */
function inChains(keys: readonly Key[]): Key[] {
  const byId = new Map(keys.map((key) => [key.id, key]));
  const ordered: Key[] = [];
  for (const key of keys) {
    if (key.rolled_to !== null && byId.has(key.rolled_to)) continue; // shown under its successor
    for (let link: Key | undefined = key; link !== undefined;) {
      ordered.push(link);
      link = link.rolled_from === null ? undefined : byId.get(link.rolled_from);
    }
  }
  return ordered;
}

/** The key as a person names it: its name, with its id when another key has the same name. */
function labelOf(item: Key, all: readonly Key[]): string {
  const shared = all.some((other) => other.id !== item.id && other.name === item.name);
  return shared ? `${item.name} (${item.id})` : item.name;
}

interface RowProps {
  item: Key;
  all: readonly Key[];
  onChanged: () => void;
  onSecret: (created: Created) => void;
  onEdit: () => void;
  onError: (text: string | undefined) => void;
}

function KeyRow(props: RowProps): View {
  const { item } = props;
  return h(
    'tr',
    {
      'data-testid': 'key-row',
      'data-key-id': item.id,
      class: item.rolled_to === null ? undefined : 'rolled',
    },
    h('td', { class: 'key-name' }, item.name),
    h('td', { class: 'mono' }, item.id),
    h('td', { class: 'scopes' }, item.scopes.join(' ')),
    h('td', null, h(Status, { item, all: props.all })),
    h('td', { class: 'mono' }, item.allow_ips.length === 0 ? 'any' : item.allow_ips.join(' ')),
    h('td', null, when(item.expires_at)),
    h(
      'td',
      null,
      item.last_used_at ? `${when(item.last_used_at)} from ${item.last_used_ip ?? '?'}` : 'never',
    ),
    h('td', { class: 'actions' }, item.status === 'active' ? h(Actions, props) : null),
  );
}

/** The status, and for a roll chain which key replaced which and when the old one stops. */
function Status(props: { item: Key; all: readonly Key[] }): View {
  const { item, all } = props;
  const to = all.find((key) => key.id === item.rolled_to);
  const from = all.find((key) => key.id === item.rolled_from);
  return h(
    'span',
    null,
    item.status,
    to
      ? h(
          'span',
          { class: 'chain' },
          `Replaced by ${to.id}`,
          item.status === 'active' ? `; stops working at ${when(item.expires_at)}` : '',
        )
      : null,
    from ? h('span', { class: 'chain' }, `Replaces ${from.id}`) : null,
  );
}

function Actions(props: RowProps): View {
  const { item } = props;
  const label = labelOf(item, props.all);
  const [overlap, setOverlap] = useState<string>('1h');
  const path = `/keys/${encodeURIComponent(item.id)}`;
  const act = (action: () => Promise<unknown>) =>
    void action().then(
      () => props.onError(undefined),
      (error: unknown) => props.onError(keyFailureInWords(error)),
    );
  const revoke = () => act(() => api('DELETE', path).then(props.onChanged));
  const roll = () =>
    act(async () => props.onSecret(await api<Created>('POST', `${path}/roll`, { expire_old_in: overlap })));
  const [, ms, words] = OVERLAPS.find(([text]) => text === overlap) ?? OVERLAPS[1];
  return h(
    'span',
    { class: 'key-actions' },
    h(
      'button',
      { type: 'button', class: 'quiet', 'aria-label': `Edit key ${label}`, onClick: props.onEdit },
      'Edit',
    ),
    h(ConfirmButton, {
      label: 'Revoke',
      name: `Revoke key ${label}`,
      title: `Revoke the key ${label}?`,
      consequence:
        'Every bot using this key gets 401 at once, and its open event streams end. A revoked key cannot be used again.',
      onConfirm: revoke,
    }),
    item.rolled_to === null
      ? h(
          'span',
          { class: 'roll' },
          h(ConfirmButton, {
            label: 'Roll',
            name: `Roll key ${label}`,
            title: `Roll the key ${label}?`,
            consequence:
              `A new key with the same scopes replaces it, shown once. The old key keeps working ${words} ` +
              `(until about ${when(new Date(Date.now() + ms).toISOString())}); then every bot still using it gets 401.`,
            onConfirm: roll,
          }),
          h(
            'select',
            {
              'aria-label': `Old key of ${label} stops`,
              value: overlap,
              onChange: (event: Event) => setOverlap((event.target as HTMLSelectElement).value),
            },
            OVERLAPS.map(([text, , words]) =>
              h('option', { key: text, value: text }, `old key stops ${words}`),
            ),
          ),
        )
      : null,
  );
}
