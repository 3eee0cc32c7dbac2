/**
 * Admin tokens, the owner's page (docs/admin.md, "Roles" and "Staff sign-in"): who has access and
 * with which role, "Add person" with a name and a role that answers a one-time sign-in link to
 * send them (and the token, shown once, for a script), a new link for someone who lost theirs,
 * and revoke, which signs their open pages out within a second.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, type Page } from '../api.ts';
import { attempt, ConfirmButton, ErrorLine, Field, Table, useLoad, when, type View } from '../ui.ts';

type Token = components['schemas']['AdminToken'];
type Created = components['schemas']['CreatedAdminToken'];
type Invite = components['schemas']['AdminLoginCode'];
type Role = Token['role'];

/** What each role may do, in the words the form shows (docs/admin.md, "Roles"). */
const ROLES: readonly (readonly [Role, string])[] = [
  ['moderator', 'Moderator: sees players and bans or mutes them; no keys, plan, webhooks or economy'],
  ['viewer', 'Viewer: sees the status and the game, changes nothing'],
  ['owner', 'Owner: everything, including keys, plan, webhooks and these tokens'],
];

/** What was just made, shown once: the link to send, and the token for a script. */
interface Shown {
  name: string;
  invite: Invite | null;
  token: string | null;
}

export function TokensPage(): View {
  const tokens = useLoad(() => api<Page<Token>>('GET', '/tokens'));
  const [adding, setAdding] = useState(false);
  const [shown, setShown] = useState<Shown | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const show = (next: Shown) => {
    setShown(next);
    setAdding(false);
    tokens.reload();
  };
  return h(
    'div',
    null,
    shown ? h(ShownOnce, { shown, onDone: () => setShown(undefined) }) : null,
    adding
      ? h(AddForm, { onCreated: show, onCancel: () => setAdding(false) })
      : h('button', { type: 'button', onClick: () => setAdding(true) }, 'Add person'),
    h(ErrorLine, { text: error ?? tokens.error }),
    h(
      Table,
      {
        head: ['Name', 'Role', 'Status', 'Created', 'Last used', ''],
        loading: tokens.value === undefined && tokens.error === undefined,
        empty: 'No admin tokens yet: add a person to give them access.',
      },
      (tokens.value?.data ?? []).map((token) =>
        h(TokenRow, {
          key: token.id,
          item: token,
          onChanged: tokens.reload,
          onShown: show,
          onError: setError,
        }),
      ),
    ),
  );
}

function TokenRow(props: {
  item: Token;
  onChanged: () => void;
  onShown: (shown: Shown) => void;
  onError: (text: string | undefined) => void;
}): View {
  const { item } = props;
  const path = `/tokens/${encodeURIComponent(item.id)}`;
  const revoke = () => void attempt(() => api('DELETE', path), props.onError).then(props.onChanged);
  const relink = () =>
    void attempt(async () => {
      const invite = await api<Invite>('POST', `${path}/invite`, {});
      props.onShown({ name: item.name, invite, token: null });
    }, props.onError);
  const active = item.status === 'active';
  return h(
    'tr',
    { 'data-testid': 'token-row', 'data-token-id': item.id },
    h('td', null, item.name),
    h('td', null, item.role),
    h('td', null, item.status),
    h('td', null, when(item.created_at)),
    h('td', null, item.last_used_at ? when(item.last_used_at) : 'never'),
    h(
      'td',
      { class: 'actions' },
      active
        ? h(
            'button',
            { type: 'button', onClick: relink, 'aria-label': `New sign-in link for ${item.name}` },
            'New sign-in link',
          )
        : null,
      active
        ? h(ConfirmButton, {
            label: 'Revoke',
            name: `Revoke ${item.name}`,
            title: `Revoke ${item.name}'s access?`,
            consequence:
              'Their token stops working at once and their open pages sign out within a second; their unused sign-in link stops working too.',
            onConfirm: revoke,
          })
        : null,
    ),
  );
}

function AddForm(props: { onCreated: (shown: Shown) => void; onCancel: () => void }): View {
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('moderator');
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = (event: Event) => {
    event.preventDefault();
    void attempt(async () => {
      const created = await api<Created>('POST', '/tokens', { name, role, invite: true });
      props.onCreated({ name: created.name, invite: created.invite, token: created.token });
    }, setError);
  };
  return h(
    'form',
    { class: 'card', onSubmit: submit },
    h(
      Field,
      { label: 'Name' },
      h('input', {
        value: name,
        required: true,
        maxLength: 100,
        autoFocus: true,
        onInput: (event: Event) => setName((event.target as HTMLInputElement).value),
      }),
    ),
    h(
      'fieldset',
      null,
      h('legend', null, 'Role'),
      ROLES.map(([value, text]) =>
        h(
          'label',
          { key: value, class: 'choice' },
          h('input', {
            type: 'radio',
            name: 'role',
            value,
            checked: role === value,
            onChange: () => setRole(value),
          }),
          ` ${text}`,
        ),
      ),
    ),
    h(ErrorLine, { text: error }),
    h('button', { type: 'submit' }, 'Create'),
    h('button', { type: 'button', class: 'quiet', onClick: props.onCancel }, 'Cancel'),
  );
}

/** The sign-in link (and token) just made: shown once, announced, each with a Copy button. */
function ShownOnce(props: { shown: Shown; onDone: () => void }): View {
  const { invite, token, name } = props.shown;
  return h(
    'section',
    { class: 'card secret', role: 'status' },
    h(
      'p',
      null,
      `Send ${name} this sign-in link: it works once, until ${when(invite?.expires_at)}, on a phone too. It is shown only now.`,
    ),
    invite
      ? h(Copyable, { text: invite.url ?? `/login#${invite.code}`, testId: 'invite-link', what: 'link' })
      : null,
    token
      ? h(
          'p',
          null,
          'Or, for a script, the token itself (also shown once): ',
          h(Copyable, { text: token, testId: 'new-token', what: 'token' }),
        )
      : null,
    h('button', { type: 'button', class: 'quiet', onClick: props.onDone }, 'Done'),
  );
}

function Copyable(props: { text: string; testId: string; what: string }): View {
  const [copied, setCopied] = useState(false);
  const copy = () => void navigator.clipboard?.writeText(props.text).then(() => setCopied(true));
  return h(
    'span',
    { class: 'copyable' },
    h('code', { 'data-testid': props.testId }, props.text),
    h(
      'button',
      { type: 'button', onClick: copy, 'aria-label': `Copy the ${props.what}` },
      copied ? 'Copied' : 'Copy',
    ),
  );
}
