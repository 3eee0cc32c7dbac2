/**
 * Group: the servers of this daemon's group (docs/group.md, "Seeing the group"), whether each
 * one's daemon and game link are up, when it was last seen and how many sanctions it has yet to
 * apply (GET /admin/v1/group); the sanctions from the group this server's game refused, newest
 * first ("Refused here", GET /admin/v1/group/failures: kept in the data dir, so they show while
 * the database is unreachable too); then the group's sanctions, newest first, filtered by player, kind
 * and origin server, the filters kept in the location's hash as the Audit page's, paged by the
 * collection envelope's cursor (GET /admin/v1/group/sanctions). A ban or mute can be lifted on
 * every server at once (POST …/lift) by the roles the route allows, after confirming. A daemon in
 * no group answers 404 `not_found`: the page says so and where setting one up is explained.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { roleAllows, type AdminAccess } from 'modgate:roles';
import type { components } from '../admin-schema.ts';
import { api, ApiFailure, describe } from '../api.ts';
import { replaceHashParams } from '../hash.ts';
import { FilterForm, filtersFromHash, usePage, type FilterSpec } from '../listing.ts';
import { ACTION_ACCESS } from '../page-access.ts';
import { ConfirmButton, ErrorLine, Table, useAnswerFocus, useLoad, when, type View } from '../ui.ts';
import { NEWER_OLDER, useCursorTrail } from './cursor-pager.ts';

type Group = components['schemas']['AdminGroup'];
type Sanction = components['schemas']['AdminGroupSanction'];
type Failure = components['schemas']['AdminGroupFailure'];
type Lifted = components['schemas']['AdminGroupLift'];
type Session = components['schemas']['AdminSession'];

/** The group, or why there is none: a daemon without `[group]` answers 404 `not_found`. */
type GroupState = { kind: 'group'; group: Group } | { kind: 'none'; message: string };

async function loadGroup(): Promise<GroupState> {
  try {
    return { kind: 'group', group: await api<Group>('GET', '/group') };
  } catch (failure) {
    if (failure instanceof ApiFailure && failure.code === 'not_found')
      return { kind: 'none', message: failure.message };
    throw failure;
  }
}

export function GroupPage(): View {
  const group = useLoad(loadGroup);
  const state = group.value;
  if (state?.kind === 'none') return h(NotInGroup, null);
  return h(
    'div',
    { class: 'group' },
    h(ErrorLine, { text: group.error }),
    state?.kind === 'group' && !state.group.database_connected
      ? h(
          'p',
          { class: 'notice', role: 'status' },
          "The group's database is unreachable from this daemon: the servers are shown as last read.",
        )
      : null,
    h(Servers, { group: state?.kind === 'group' ? state.group : undefined, loading: state === undefined }),
    h(RefusedHere, { servers: state?.kind === 'group' ? state.group.servers : [] }),
    h(Sanctions, { onLifted: group.reload }),
  );
}

function NotInGroup(): View {
  return h(
    'div',
    { class: 'card', 'data-testid': 'not-in-group' },
    h('h2', null, 'This daemon is in no group'),
    h(
      'p',
      null,
      'Group mode lets several servers share their bans and mutes through one PostgreSQL database. ' +
        'This daemon has no [group] section in its config file, so there is nothing to show here.',
    ),
    h(
      'p',
      null,
      'To set one up, read docs/group.md, "Setup": run ',
      h('code', null, 'modgate docs group'),
      ' on the host.',
    ),
  );
}

function Servers(props: { group: Group | undefined; loading: boolean }): View {
  return h(
    'section',
    { 'aria-labelledby': 'group-servers' },
    h('h2', { id: 'group-servers' }, 'Servers'),
    h(
      Table,
      {
        head: ['Server', 'Daemon', 'Game link', 'Last seen', 'Pending'],
        loading: props.loading,
        empty: 'No server of the group has reported yet.',
      },
      (props.group?.servers ?? []).map((server) =>
        h(
          'tr',
          { key: server.server_id, 'data-testid': 'group-server' },
          h('td', null, server.name, h('br', null), h('span', { class: 'hint mono' }, server.server_id)),
          h('td', { class: server.daemon_up ? '' : 'bad' }, server.daemon_up ? 'Up' : 'Down'),
          h('td', { class: server.link_up ? '' : 'bad' }, server.link_up ? 'Up' : 'Down'),
          h('td', null, when(server.last_seen_at)),
          h('td', null, String(server.pending)),
        ),
      ),
    ),
  );
}

/**
 * The sanctions from the group this server's game refused (docs/group.md, "Seeing the group"):
 * the group has moved past each, so this is where a moderator learns that a ban made elsewhere
 * does not hold here. Each origin shows by name when the group knows the server.
 */
function RefusedHere(props: { servers: Group['servers'] }): View {
  const trail = useCursorTrail();
  const shown = usePage<Failure>('/group/failures', {}, trail.cursor, 0);
  const names = new Map(props.servers.map((server) => [server.server_id, server.name]));
  return h(
    'section',
    { 'aria-labelledby': 'group-refused' },
    h('h2', { id: 'group-refused' }, 'Refused here'),
    h(
      'p',
      { class: 'hint' },
      "Sanctions from the group this server's game refused: the group has moved past them. " +
        'To apply one after all, fix what the game refused and make the change again here. ' +
        'The newest 1,000 are kept.',
    ),
    h(ErrorLine, { text: shown.error }),
    h(
      Table,
      {
        head: ['Refused', 'Sanction', 'Player', 'Origin', "The game's answer"],
        loading: shown.loading,
        empty: "This server's game has refused no sanction from the group.",
      },
      (shown.page?.data ?? []).map((failure) =>
        h(
          'tr',
          { key: failure.id, 'data-testid': 'group-refused', 'data-sanction-id': failure.id },
          h('td', null, when(failure.at)),
          h('td', null, `${failure.action} (sanction ${failure.id})`),
          h('td', { class: 'mono' }, failure.platform_id),
          h('td', null, names.get(failure.origin_server) ?? failure.origin_server),
          h('td', null, failure.error),
        ),
      ),
    ),
    trail.pager(shown.page, NEWER_OLDER),
  );
}

const NAMES = ['platform_id', 'kind', 'origin'] as const;
type FilterName = (typeof NAMES)[number];
type Filters = Record<FilterName, string>;

/** What GET /admin/v1/group/sanctions filters by (docs/admin.md, "Group sanctions"). */
const SPECS: readonly FilterSpec<FilterName>[] = [
  { name: 'platform_id', label: 'Player (platform id)' },
  { name: 'kind', label: 'Kind', choices: ['bans', 'mutes'] },
  { name: 'origin', label: 'Origin server (server id)' },
];

function Sanctions(props: { onLifted: () => void }): View {
  const [filters, setFilters] = useState<Filters>(() => filtersFromHash(NAMES));
  const trail = useCursorTrail();
  /** Bumped by every "Filter" and every lift, so the list is read again. */
  const [round, setRound] = useState(0);
  const shown = usePage<Sanction>('/group/sanctions', filters, trail.cursor, round);
  const canLift = useCanLift();
  const [answer, setAnswer] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  // The lifted row's Lift button goes with the new page: the focus goes to what the daemon said.
  const answerLine = useAnswerFocus(answer);
  const apply = (next: Filters) => {
    setFilters(next);
    setRound(round + 1);
    trail.restart();
    replaceHashParams(next);
  };
  const lift = (sanction: Sanction) => {
    answerLine.focusNext();
    api<Lifted>('POST', `/group/sanctions/${encodeURIComponent(sanction.id)}/lift`).then(
      (lifted) => {
        setError(undefined);
        setAnswer(liftedText(lifted));
        setRound((n) => n + 1);
        props.onLifted();
      },
      (failure: unknown) => setError(describe(failure)),
    );
  };
  return h(
    'section',
    { 'aria-labelledby': 'group-sanctions' },
    h('h2', { id: 'group-sanctions' }, 'Sanctions'),
    h(FilterForm<FilterName>, { label: 'Sanction filters', specs: SPECS, values: filters, onApply: apply }),
    h('p', { role: 'status', ref: answerLine.ref, tabIndex: -1, 'data-testid': 'lift-answer' }, answer),
    h(ErrorLine, { text: error ?? shown.error }),
    h(
      Table,
      {
        head: ['Published', 'Sanction', 'Player', 'Origin', 'Servers', ''],
        loading: shown.loading,
        empty: shown.error
          ? 'Nothing to show: the filters were refused (see above).'
          : 'No sanctions of the group match these filters.',
      },
      (shown.page?.data ?? []).map((sanction) =>
        h(SanctionRow, { key: sanction.id, sanction, canLift, onLift: lift }),
      ),
    ),
    trail.pager(shown.page, NEWER_OLDER),
  );
}

/** Whether the signed-in role may lift (the lift route's own access, page-access.ts). */
function useCanLift(): boolean {
  const session = useLoad(() => api<Session>('GET', '/session'));
  const role = session.value?.role;
  return role !== undefined && roleAllows(role, ACTION_ACCESS.groupLift.access as AdminAccess);
}

function liftedText(lifted: Lifted): string {
  const { action, platform_id } = lifted.published;
  const here = lifted.applied_here
    ? 'this server lifted it now'
    : "this server's game is offline and lifts it when it is back";
  return `Published an ${action} of ${platform_id} to every server of the group; ${here}.`;
}

function SanctionRow(props: { sanction: Sanction; canLift: boolean; onLift: (s: Sanction) => void }): View {
  const { sanction } = props;
  const undo = sanction.action === 'ban' ? 'unban' : 'unmute';
  const ended = notInForce(sanction);
  return h(
    'tr',
    { 'data-testid': 'group-sanction', 'data-sanction-id': sanction.id, 'data-action': sanction.action },
    h('td', null, when(sanction.published_at)),
    h('td', null, sanctionText(sanction)),
    h('td', { class: 'mono' }, sanction.platform_id),
    h('td', null, originText(sanction)),
    h('td', null, sanction.servers.map((server) => `${server.name}: ${server.state}`).join(', ')),
    h(
      'td',
      null,
      // A sanction no longer in force says why instead of offering a Lift the daemon would refuse
      // (409 conflict), as a revoked key's row offers no Revoke.
      ended
        ? h('span', { class: 'hint', 'data-testid': 'not-in-force' }, ended)
        : ended === null && props.canLift
          ? h(ConfirmButton, {
              label: 'Lift',
              name: `Lift the ${sanction.action} of ${sanction.platform_id}`,
              title: `Lift the ${sanction.action} of ${sanction.platform_id}?`,
              consequence:
                `This publishes an ${undo} of ${sanction.platform_id} to every server of the group: ` +
                `each one's game lifts the ${sanction.action} as soon as it can.`,
              onConfirm: () => props.onLift(sanction),
            })
          : null,
    ),
  );
}

/**
 * Why a ban or mute is no longer in force, or null while it is (what the lift route checks,
 * docs/admin.md, "Group sanctions"); an unban or unmute is a lift itself, never lifted: ''.
 */
function notInForce(sanction: Sanction): string | null {
  if (sanction.action !== 'ban' && sanction.action !== 'mute') return '';
  const later = sanction.superseded_by;
  if (later !== null)
    return later.action === 'unban' || later.action === 'unmute'
      ? `Lifted (sanction ${later.id})`
      : `Replaced by sanction ${later.id}`;
  if (sanction.expires_at !== null && Date.parse(sanction.expires_at) <= Date.now()) return 'Ended';
  return null;
}

/** `ban until 2026-12-01 10:00:00`, `mute (global, local), permanent`, `unban`. */
function sanctionText(sanction: Sanction): string {
  const channels = sanction.channels?.length ? ` (${sanction.channels.join(', ')})` : '';
  if (sanction.action !== 'ban' && sanction.action !== 'mute') return sanction.action;
  const length = sanction.expires_at === null ? 'permanent' : `until ${when(sanction.expires_at)}`;
  return `${sanction.action}${channels}, ${length}`;
}

/** `alpha, by moderator-bot (api): griefing`. */
function originText(sanction: Sanction): string {
  const { origin } = sanction;
  const server = origin.name ?? origin.server_id;
  const reason = origin.reason ? `: ${origin.reason}` : '';
  return `${server}, by ${origin.actor.name} (${origin.actor.source})${reason}`;
}
