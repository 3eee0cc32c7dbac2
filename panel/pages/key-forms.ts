/**
 * The Keys page's forms: create a key (scopes described, presets, checks before sending), edit
 * one (name, allowed addresses, expiry: PATCH /admin/v1/keys/{id}), and the new key's text shown
 * once. A form takes focus when it opens and gives it back to the button that opened it.
 */
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api } from '../api.ts';
import { SCOPE_HELP, SCOPE_PRESETS } from '../scopes.ts';
import { ErrorLine, Field, when, type View } from '../ui.ts';
import {
  AddressField,
  addressProblem,
  keyFailureInWords,
  NameField,
  nameProblem,
  savedAddresses,
} from './key-fields.ts';

export type Key = components['schemas']['AdminKey'];

/** POST /keys and POST /keys/{id}/roll; `key` is null when an Idempotency-Key replay answered. */
export type Created = components['schemas']['AdminIssuedKey'];

const EXPIRIES = [
  ['1d', '1 day'],
  ['7d', '7 days'],
  ['30d', '30 days'],
  ['90d', '90 days'],
  ['365d', '1 year'],
] as const;

/**
 * Focus goes back to whatever opened the form (its button) when the form closes. The opener is
 * read at the first render, before the form's own effect moves focus into its first field.
 */
function useFocusReturn(): void {
  const [opener] = useState(() => document.activeElement as HTMLElement | null);
  useEffect(
    () => () => {
      if (opener?.isConnected) opener.focus();
    },
    [],
  );
}

/** Sends `send()` unless `problem` says why not; reports in words either way. */
async function submitted(
  problem: string | undefined,
  send: () => Promise<void>,
  report: (text?: string) => void,
) {
  if (problem !== undefined) return report(problem);
  try {
    await send();
  } catch (error) {
    report(keyFailureInWords(error));
  }
}

export function CreateForm(props: { onCreated: (created: Created) => void; onCancel: () => void }): View {
  useFocusReturn();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<readonly string[]>([]);
  const [addresses, setAddresses] = useState('');
  const [expires, setExpires] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = (event: Event) => {
    event.preventDefault();
    const problem =
      nameProblem(name) ?? (scopes.length === 0 ? 'Choose at least one scope.' : addressProblem(addresses));
    const allow = savedAddresses(addresses);
    const body = {
      name: name.trim(),
      scopes,
      ...(allow.length > 0 ? { allow_ips: allow } : {}),
      ...(expires !== '' ? { expires_in: expires } : {}),
    };
    void submitted(problem, async () => props.onCreated(await api<Created>('POST', '/keys', body)), setError);
  };
  return h(
    'form',
    { class: 'card key-form', onSubmit: submit, 'aria-labelledby': 'create-key-title', noValidate: true },
    h('h2', { id: 'create-key-title' }, 'New key'),
    h(NameField, { value: name, onInput: setName }),
    h(ScopePicker, { chosen: scopes, onChange: setScopes }),
    h(AddressField, { value: addresses, onInput: setAddresses }),
    h(ExpirySelect, { value: expires, onChange: setExpires, first: [['', 'Never']], suffix: '' }),
    h(ErrorLine, { text: error }),
    h('button', { type: 'submit' }, 'Create'),
    h('button', { type: 'button', class: 'quiet', onClick: props.onCancel }, 'Cancel'),
  );
}

/** The expiry choices: the form's own first options, then the durations. */
function ExpirySelect(props: {
  value: string;
  onChange: (value: string) => void;
  first: readonly (readonly [string, string])[];
  suffix: string;
}): View {
  return h(
    Field,
    { label: 'Expires' },
    h(
      'select',
      {
        name: 'expires',
        value: props.value,
        onChange: (event: Event) => props.onChange((event.target as HTMLSelectElement).value),
      },
      [...props.first, ...EXPIRIES.map(([text, label]) => [text, `${label}${props.suffix}`] as const)].map(
        ([text, label]) => h('option', { key: text, value: text }, label),
      ),
    ),
  );
}

/** The scopes, each with what it allows, and presets that tick a common set at once. */
function ScopePicker(props: {
  chosen: readonly string[];
  onChange: (scopes: readonly string[]) => void;
}): View {
  const toggle = (scope: string, on: boolean) =>
    props.onChange(MODGATE_SCOPES.filter((s) => (s === scope ? on : props.chosen.includes(s))));
  return h(
    'fieldset',
    { class: 'scope-picker' },
    h('legend', null, 'Scopes'),
    h(
      'div',
      { class: 'presets', role: 'group', 'aria-label': 'Presets' },
      h('span', { class: 'hint' }, 'Presets:'),
      SCOPE_PRESETS.map((preset) =>
        h(
          'button',
          {
            key: preset.name,
            type: 'button',
            class: 'quiet',
            title: preset.scopes.join(' '),
            onClick: () => props.onChange(MODGATE_SCOPES.filter((s) => preset.scopes.includes(s))),
          },
          preset.name,
        ),
      ),
    ),
    h(
      'ul',
      { class: 'scope-list' },
      MODGATE_SCOPES.map((scope) =>
        h(
          'li',
          { key: scope },
          h(
            'label',
            { class: 'check' },
            h('input', {
              type: 'checkbox',
              name: 'scope',
              value: scope,
              checked: props.chosen.includes(scope),
              'aria-describedby': `scope-help-${scope.replace(':', '-')}`,
              onChange: (event: Event) => toggle(scope, (event.target as HTMLInputElement).checked),
            }),
            h('span', { class: 'mono' }, scope),
          ),
          h('span', { id: `scope-help-${scope.replace(':', '-')}`, class: 'hint' }, SCOPE_HELP[scope] ?? ''),
        ),
      ),
    ),
  );
}

/** PATCH /keys/{id}: what changed is sent, nothing else. */
export function EditForm(props: { item: Key; onSaved: () => void; onCancel: () => void }): View {
  useFocusReturn();
  const { item } = props;
  const [name, setName] = useState(item.name);
  const [addresses, setAddresses] = useState(item.allow_ips.join('\n'));
  const [expires, setExpires] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = (event: Event) => {
    event.preventDefault();
    const allow = savedAddresses(addresses);
    const body = {
      ...(name.trim() !== item.name ? { name: name.trim() } : {}),
      ...(allow.join(' ') !== item.allow_ips.join(' ') ? { allow_ips: allow } : {}),
      ...(expires === 'never' ? { expires_at: null } : expires !== '' ? { expires_in: expires } : {}),
    };
    const send = async () => {
      if (Object.keys(body).length > 0) await api('PATCH', `/keys/${encodeURIComponent(item.id)}`, body);
      props.onSaved();
    };
    void submitted(nameProblem(name) ?? addressProblem(addresses), send, setError);
  };
  return h(
    'form',
    { class: 'card key-form', onSubmit: submit, 'aria-labelledby': 'edit-key-title', noValidate: true },
    h('h2', { id: 'edit-key-title' }, `Edit key ${item.name}`),
    h(NameField, { value: name, onInput: setName }),
    h(AddressField, { value: addresses, onInput: setAddresses }),
    h(ExpirySelect, {
      value: expires,
      onChange: setExpires,
      first: [
        ['', `Keep (${item.expires_at ? when(item.expires_at) : 'never'})`],
        ['never', 'Never'],
      ],
      suffix: ' from now',
    }),
    h(ErrorLine, { text: error }),
    h('button', { type: 'submit' }, 'Save'),
    h('button', { type: 'button', class: 'quiet', onClick: props.onCancel }, 'Cancel'),
  );
}

/** The secret, once, announced: copy it now, it cannot be shown again. */
export function NewKey(props: { created: Created; onDone: () => void }): View {
  const [copied, setCopied] = useState(false);
  const copy = () => void navigator.clipboard?.writeText(props.created.key ?? '').then(() => setCopied(true));
  return h(
    'section',
    { class: 'card secret', role: 'status', 'aria-label': `New key ${props.created.name}` },
    h('p', null, `The new key ${props.created.name}, shown once: copy it now. Only its hash is stored.`),
    h('code', { 'data-testid': 'new-key' }, props.created.key ?? '(not shown again)'),
    h('button', { type: 'button', onClick: copy }, copied ? 'Copied' : 'Copy'),
    h('button', { type: 'button', class: 'quiet', onClick: props.onDone }, 'Done'),
  );
}
