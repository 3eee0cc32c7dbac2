/**
 * The panel's shell: who is signed in, the navigation, and which page shows. Pages are chosen by
 * the location's hash (`#/keys`), so the daemon serves one document for every page and a
 * reload stays where it was. `/login#CODE` is the one-time sign-in link's landing place: the
 * code travels in the fragment, which the browser never sends to a server or in a Referer.
 * The navigation shows only the pages the session's role may use (docs/admin.md, "Roles"; the
 * API refuses the rest anyway), and a signed-in shell holds the session watch, so a page left
 * open learns within a second that it was signed out or its token revoked.
 */
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiFailure, describe, SessionEnded } from './api.ts';
import type { components } from './admin-schema.ts';
import { hashPage } from './hash.ts';
import { ADMIN_ROLES, roleAllows, type AdminAccess } from 'modgate:roles';
import { PAGE_ACCESS } from './page-access.ts';
import { AuditPage } from './pages/audit.ts';
import { ConsolePage } from './pages/console.ts';
import { EconomyPage } from './pages/economy.ts';
import { EventsPage } from './pages/events.ts';
import { GroupPage } from './pages/group.ts';
import { KeysPage } from './pages/keys.ts';
import { OverviewPage } from './pages/overview.ts';
import { PlanPage } from './pages/plan.ts';
import { PlayersPage } from './pages/players.ts';
import { ShopPage } from './pages/shop.ts';
import { SignIn } from './pages/sign-in.ts';
import { TokensPage } from './pages/tokens.ts';
import { WebhooksPage } from './pages/webhooks.ts';
import { WorldPage } from './pages/world.ts';
import { watchSession } from './session-watch.ts';
import { PageBoundary, type View } from './ui.ts';

/** What GET /admin/v1/session answers for a signed-in browser. */
export type Session = components['schemas']['AdminSession'];
type Role = Session['role'];

/**
 * The navigation, in its order, with the roles that see each page: those the admin API lets call
 * the route the page reads (page-access.ts, docs/admin.md "Roles"); the link texts are part of
 * the automation contract.
 */
const PAGES = (
  [
    { path: 'overview', title: 'Overview', view: OverviewPage },
    { path: 'players', title: 'Players', view: PlayersPage },
    { path: 'world', title: 'World', view: WorldPage },
    { path: 'economy', title: 'Economy', view: EconomyPage },
    { path: 'shop', title: 'Shop', view: ShopPage },
    { path: 'console', title: 'Console', view: ConsolePage },
    { path: 'group', title: 'Group', view: GroupPage },
    { path: 'keys', title: 'Keys', view: KeysPage },
    { path: 'plan', title: 'Plan', view: PlanPage },
    { path: 'webhooks', title: 'Webhooks', view: WebhooksPage },
    { path: 'audit', title: 'Audit', view: AuditPage },
    { path: 'events', title: 'Events', view: EventsPage },
    { path: 'tokens', title: 'Tokens', view: TokensPage },
  ] as const
).map((entry) => ({
  ...entry,
  // Each scope is a real one: test/panel/page-access.test.ts holds every access to its route's.
  roles: ADMIN_ROLES.filter((role) =>
    roleAllows(role, PAGE_ACCESS[entry.path].access as AdminAccess),
  ) as readonly Role[],
}));

type SessionState = { kind: 'checking' } | { kind: 'out'; error?: string } | { kind: 'in'; session: Session };

export function App(): View {
  const [state, setState] = useState<SessionState>({ kind: 'checking' });
  const page = useHashPage();
  useEffect(() => void start(setState), []);
  useEffect(() => (state.kind === 'in' ? watchSession() : undefined), [state.kind]);
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
  if (state.kind === 'checking')
    return h('main', { class: 'center' }, h('p', { role: 'status' }, 'Loading…'));
  if (state.kind === 'out') {
    return h(SignIn, {
      error: state.error,
      onSignedIn: (session: Session) => setState({ kind: 'in', session }),
    });
  }
  const pages = PAGES.filter((entry) => entry.roles.includes(state.session.role));
  const current = pages.find((entry) => entry.path === page) ?? (PAGES[0] as PageEntry);
  return h(Shell, { session: state.session, pages, current, onSignOut: () => void signOut(setState) });
}

type PageEntry = (typeof PAGES)[number];

/**
 * The signed-in frame: a skip link, a header that wraps on a phone (nav and Sign out stay in
 * reach without a menu), and the page's heading, which takes focus when the page changes so a
 * screen reader announces it and Tab starts from the page, not from the top of the document.
 */
function Shell(props: {
  session: Session;
  pages: readonly PageEntry[];
  current: PageEntry;
  onSignOut: () => void;
}): View {
  const { current } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  const first = useRef(true);
  useEffect(() => {
    // The first page after sign-in keeps the browser's own focus; a page change moves it.
    if (first.current) first.current = false;
    else heading.current?.focus();
  }, [current.path]);
  return h(
    'div',
    { class: 'shell' },
    h(
      'header',
      null,
      // First in the banner landmark; not `href="#main"`: the hash names the page, so the link
      // moves focus itself.
      h(
        'a',
        {
          class: 'skip-link',
          href: `#/${current.path}`,
          onClick: (event: Event) => {
            event.preventDefault();
            heading.current?.focus();
          },
        },
        'Skip to main content',
      ),
      h('strong', { class: 'brand' }, 'modgate'),
      h(
        'nav',
        { 'aria-label': 'Pages' },
        props.pages.map((entry) =>
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
      h(
        'div',
        { class: 'account' },
        h('span', { class: 'who' }, `Signed in with ${props.session.name}`),
        h('button', { type: 'button', class: 'quiet', onClick: props.onSignOut }, 'Sign out'),
      ),
    ),
    h(
      'main',
      { id: 'main' },
      h('h1', { ref: heading, tabIndex: -1 }, current.title),
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

/** The page named by `#/name` (or `#/name?query`), following hash changes. */
function useHashPage(): string {
  const [page, setPage] = useState(hashPage);
  useEffect(() => {
    const follow = () => setPage(hashPage());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return page;
}
