/**
 * The panel's shell: who is signed in, the navigation, and which page shows. Pages are chosen by
 * the location's hash (`#/keys`), so the daemon serves one document for every page and a
 * reload stays where it was. `/login#CODE` is the one-time sign-in link's landing place: the
 * code travels in the fragment, which the browser never sends to a server or in a Referer.
 */
import { h } from 'preact';
import type { View } from './ui.ts';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, describe, SessionEnded } from './api.ts';
import { AuditPage } from './pages/audit.ts';
import { ConsolePage } from './pages/console.ts';
import { EventsPage } from './pages/events.ts';
import { KeysPage } from './pages/keys.ts';
import { OverviewPage } from './pages/overview.ts';
import { PlanPage } from './pages/plan.ts';
import { PlayersPage } from './pages/players.ts';
import { SignIn } from './pages/sign-in.ts';
import { WebhooksPage } from './pages/webhooks.ts';
import { WorldPage } from './pages/world.ts';
import { PageBoundary } from './ui.ts';

/** What GET /admin/v1/session answers for a signed-in browser. */
export interface Session {
  token_id: string;
  name: string;
  expires_at: string;
}

/** The navigation, in its order; the link texts are part of the automation contract. */
const PAGES = [
  { path: 'overview', title: 'Overview', view: OverviewPage },
  { path: 'players', title: 'Players', view: PlayersPage },
  { path: 'world', title: 'World', view: WorldPage },
  { path: 'console', title: 'Console', view: ConsolePage },
  { path: 'keys', title: 'Keys', view: KeysPage },
  { path: 'plan', title: 'Plan', view: PlanPage },
  { path: 'webhooks', title: 'Webhooks', view: WebhooksPage },
  { path: 'audit', title: 'Audit', view: AuditPage },
  { path: 'events', title: 'Events', view: EventsPage },
] as const;

type SessionState = { kind: 'checking' } | { kind: 'out'; error?: string } | { kind: 'in'; session: Session };

export function App(): View {
  const [state, setState] = useState<SessionState>({ kind: 'checking' });
  const page = useHashPage();
  useEffect(() => void start(setState), []);
  useEffect(() => {
    const ended = (event: Event) =>
      setState({
        kind: 'out',
        error:
          `Your session ended (${(event as SessionEnded).reason}). ` +
          'Sign in again to carry on where you were.',
      });
    addEventListener(SessionEnded.type, ended);
    return () => removeEventListener(SessionEnded.type, ended);
  }, []);
  if (state.kind === 'checking') return h('main', { class: 'center' }, h('p', null, 'Loading…'));
  if (state.kind === 'out') {
    return h(SignIn, {
      error: state.error,
      onSignedIn: (session: Session) => setState({ kind: 'in', session }),
    });
  }
  const current = PAGES.find((entry) => entry.path === page) ?? PAGES[0];
  return h(
    'div',
    { class: 'shell' },
    h(
      'header',
      null,
      h('strong', null, 'modgate'),
      h(
        'nav',
        null,
        PAGES.map((entry) =>
          h(
            'a',
            {
              key: entry.path,
              href: `#/${entry.path}`,
              'aria-current': entry === current ? 'page' : undefined,
            },
            entry.title,
          ),
        ),
      ),
      h('span', { class: 'who' }, `Signed in with ${state.session.name}`),
      h('button', { type: 'button', onClick: () => void signOut(setState) }, 'Sign out'),
    ),
    h(
      'main',
      null,
      h('h1', null, current.title),
      h(PageBoundary, { key: current.path }, h(current.view, null)),
    ),
  );
}

/** Redeems a one-time link if this is /login#CODE, else asks whether a session exists. */
async function start(setState: (state: SessionState) => void): Promise<void> {
  const code = location.pathname === '/login' ? location.hash.slice(1) : '';
  if (location.pathname === '/login') history.replaceState(null, '', '/#/overview');
  try {
    if (code !== '') {
      setState({ kind: 'in', session: await api<Session>('POST', '/session', { code }) });
      return;
    }
    setState({ kind: 'in', session: await api<Session>('GET', '/session') });
  } catch (error) {
    const silent = error instanceof ApiFailure && error.status === 401 && code === '';
    setState({ kind: 'out', error: silent ? undefined : describe(error) });
  }
}

async function signOut(setState: (state: SessionState) => void): Promise<void> {
  try {
    await api('DELETE', '/session');
  } finally {
    setState({ kind: 'out' });
  }
}

/** The page named by `#/name`, following hash changes. */
function useHashPage(): string {
  const read = () => location.hash.replace(/^#\/?/, '');
  const [page, setPage] = useState(read);
  useEffect(() => {
    const follow = () => setPage(read());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return page;
}
