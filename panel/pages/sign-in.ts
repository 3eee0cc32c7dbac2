/**
 * Sign-in: an admin token (`modgate admin tokens create`) traded for a session cookie. The
 * field's label "Admin token" and the "Sign in" button are part of the automation contract
 * (docs/admin.md). The token leaves the page's memory once the cookie is set.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api, describe } from '../api.ts';
import type { Session } from '../app.ts';
import { ErrorLine, type View } from '../ui.ts';

export function SignIn(props: { error: string | undefined; onSignedIn: (session: Session) => void }): View {
  const [token, setToken] = useState('');
  const [error, setError] = useState(props.error);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const session = await api<Session>('POST', '/session', { token: token.trim() });
      setToken('');
      props.onSignedIn(session);
    } catch (failure) {
      setError(describe(failure));
    } finally {
      setBusy(false);
    }
  };
  return h(
    'main',
    { class: 'center' },
    h(
      'form',
      { class: 'card sign-in', onSubmit: (event: Event) => void submit(event) },
      h('h1', null, 'modgate'),
      h(
        'label',
        { class: 'field' },
        h('span', null, 'Admin token'),
        h('input', {
          type: 'password',
          name: 'token',
          autocomplete: 'off',
          required: true,
          value: token,
          onInput: (event: Event) => setToken((event.target as HTMLInputElement).value),
        }),
      ),
      h('button', { type: 'submit', disabled: busy }, 'Sign in'),
      h(ErrorLine, { text: error }),
      h(
        'p',
        { class: 'hint' },
        'Create a token on the host with ',
        h('code', null, 'modgate admin tokens create --name NAME --data-dir DIR'),
        ', or open the one-time link that ',
        h('code', null, 'modgate admin login-url --data-dir DIR'),
        ' prints (DIR is the daemon’s data dir).',
      ),
    ),
  );
}
