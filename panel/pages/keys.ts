/**
 * API keys: the list (scopes, status, allowlist, expiry, last use), "Create key" with a scope
 * picker, allowlist and expiry, revoke, and roll with an overlap. A new secret is shown once, in
 * `data-testid="new-key"`, with a copy button; the daemon keeps only its hash. The labels are
 * part of the automation contract (docs/admin.md).
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, type Page } from '../api.ts';
import { attempt, ErrorLine, Field, Table, useLoad, when, type View } from '../ui.ts';

/** A key as GET /admin/v1/keys answers it (generated from the admin API's document). */
type Key = components['schemas']['AdminKey'];

/** POST /keys and POST /keys/{id}/roll; `key` is null when an Idempotency-Key replay answered. */
type Created = components['schemas']['AdminIssuedKey'];

const EXPIRIES = [
  ['', 'Never'],
  ['1d', '1 day'],
  ['7d', '7 days'],
  ['30d', '30 days'],
  ['90d', '90 days'],
  ['365d', '1 year'],
] as const;

const OVERLAPS = [
  ['5m', 'in 5 minutes'],
  ['1h', 'in 1 hour'],
  ['1d', 'in 1 day'],
  ['7d', 'in 7 days'],
] as const;

export function KeysPage(): View {
  const keys = useLoad(() => listAll());
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<Created | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const shown = (created: Created) => {
    setSecret(created);
    setCreating(false);
    keys.reload();
  };
  return h(
    'div',
    null,
    secret ? h(NewKey, { created: secret, onDone: () => setSecret(undefined) }) : null,
    creating
      ? h(CreateForm, { onCreated: shown, onCancel: () => setCreating(false) })
      : h('button', { type: 'button', onClick: () => setCreating(true) }, 'Create key'),
    h(ErrorLine, { text: error ?? keys.error }),
    h(
      Table,
      { head: ['Name', 'Id', 'Scopes', 'Status', 'Allowed addresses', 'Expires', 'Last used', ''] },
      (keys.value ?? []).map((key) =>
        h(KeyRow, { key: key.id, item: key, onChanged: keys.reload, onSecret: shown, onError: setError }),
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

function KeyRow(props: {
  item: Key;
  onChanged: () => void;
  onSecret: (created: Created) => void;
  onError: (text: string | undefined) => void;
}): View {
  const { item } = props;
  const [overlap, setOverlap] = useState<string>('1h');
  const active = item.status === 'active';
  const revoke = () =>
    void attempt(() => api('DELETE', `/keys/${encodeURIComponent(item.id)}`), props.onError).then(
      props.onChanged,
    );
  const roll = () =>
    void attempt(async () => {
      props.onSecret(
        await api<Created>('POST', `/keys/${encodeURIComponent(item.id)}/roll`, { expire_old_in: overlap }),
      );
    }, props.onError);
  return h(
    'tr',
    { 'data-testid': 'key-row', 'data-key-id': item.id },
    h('td', null, item.name),
    h('td', { class: 'mono' }, item.id),
    h('td', { class: 'scopes' }, item.scopes.join(' ')),
    h('td', null, item.status),
    h('td', { class: 'mono' }, item.allow_ips.length === 0 ? 'any' : item.allow_ips.join(' ')),
    h('td', null, when(item.expires_at)),
    h(
      'td',
      null,
      item.last_used_at ? `${when(item.last_used_at)} from ${item.last_used_ip ?? '?'}` : 'never',
    ),
    h(
      'td',
      { class: 'actions' },
      active ? h('button', { type: 'button', onClick: revoke }, 'Revoke') : null,
      active && !item.rolled_to
        ? h(
            'span',
            { class: 'roll' },
            h('button', { type: 'button', onClick: roll }, 'Roll'),
            h(
              'select',
              {
                'aria-label': `Old key of ${item.name} stops`,
                value: overlap,
                onChange: (event: Event) => setOverlap((event.target as HTMLSelectElement).value),
              },
              OVERLAPS.map(([value, text]) => h('option', { key: value, value }, `old key stops ${text}`)),
            ),
          )
        : null,
    ),
  );
}

function CreateForm(props: { onCreated: (created: Created) => void; onCancel: () => void }): View {
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const allow = String(form.get('allow_ips') ?? '')
      .split(/[\s,]+/)
      .filter((entry) => entry !== '');
    const expires = String(form.get('expires_in') ?? '');
    const body = {
      name: String(form.get('name') ?? '').trim(),
      scopes: form.getAll('scope').map(String),
      ...(allow.length > 0 ? { allow_ips: allow } : {}),
      ...(expires !== '' ? { expires_in: expires } : {}),
    };
    void attempt(async () => props.onCreated(await api<Created>('POST', '/keys', body)), setError);
  };
  return h(
    'form',
    { class: 'card', onSubmit: submit, 'aria-label': 'Create key' },
    h('h2', null, 'New key'),
    h(Field, { label: 'Name' }, h('input', { name: 'name', required: true, maxLength: 100 })),
    h(
      'fieldset',
      { class: 'scope-picker' },
      h('legend', null, 'Scopes'),
      MODGATE_SCOPES.map((scope) =>
        h(
          'label',
          { key: scope, class: 'check' },
          h('input', { type: 'checkbox', name: 'scope', value: scope }),
          scope,
        ),
      ),
    ),
    h(
      Field,
      { label: 'Allowed addresses (CIDR, one per line; empty for any)' },
      h('textarea', { name: 'allow_ips', rows: 2 }),
    ),
    h(
      Field,
      { label: 'Expires' },
      h(
        'select',
        { name: 'expires_in' },
        EXPIRIES.map(([value, text]) => h('option', { key: value, value }, text)),
      ),
    ),
    h('button', { type: 'submit' }, 'Create'),
    h('button', { type: 'button', class: 'quiet', onClick: props.onCancel }, 'Cancel'),
    h(ErrorLine, { text: error }),
  );
}

/** The secret, once: copy it now, it cannot be shown again. */
function NewKey(props: { created: Created; onDone: () => void }): View {
  const [copied, setCopied] = useState(false);
  const copy = () => void navigator.clipboard?.writeText(props.created.key ?? '').then(() => setCopied(true));
  return h(
    'section',
    { class: 'card secret' },
    h('p', null, 'The new key, shown once: copy it now. Only its hash is stored.'),
    h('code', { 'data-testid': 'new-key' }, props.created.key ?? '(not shown again)'),
    h('button', { type: 'button', onClick: copy }, copied ? 'Copied' : 'Copy'),
    h('button', { type: 'button', class: 'quiet', onClick: props.onDone }, 'Done'),
  );
}
