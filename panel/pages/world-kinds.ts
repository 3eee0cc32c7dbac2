/**
 * What the World page shows of each kind: the list route's filters (the query parameters of
 * `/v1/squads`, `/v1/bases`, `/v1/vehicles`, `/v1/containers`, docs/assets.md "Filters"), the
 * columns, and a row's details: a squad's summary and members, a base's containers, a vehicle's
 * or container's inventory, each read through the game routes when the row is opened.
 */
import { h } from 'preact';
import type { components } from '../admin-schema.ts';
import { api, query, type Page } from '../api.ts';
import { ErrorLine, Table, useLoad, type View } from '../ui.ts';
import { fact } from './players.ts';

type Schemas = components['schemas'];
type Squad = Schemas['Squad'];
type Base = Schemas['Base'];
type Vehicle = Schemas['Vehicle'];
type Container = Schemas['Container'];
type Owner = Schemas['Owner'];
type Item = Schemas['InventoryItem'];

export interface FilterSpec {
  /** The query parameter, as the list route names it. */
  name: string;
  label: string;
  /** `bool` is Any / Yes / No (`true`, `false`); the rest are text the API checks. */
  type: 'text' | 'number' | 'bool';
}

export interface WorldKind<Row = unknown> {
  /** The list's path under /game, and the kind's name in ids. */
  id: 'squads' | 'bases' | 'vehicles' | 'containers';
  title: string;
  /** One of them, in a button's name: "Details of squad Wolves". */
  noun: string;
  filters: readonly FilterSpec[];
  head: readonly string[];
  keyOf: (row: Row) => string;
  nameOf: (row: Row) => string;
  cells: (row: Row) => View[];
  Details: (props: { row: Row }) => View;
}

/** Each kind is typed by its own row; the page handles them alike. */
function kind<Row>(spec: WorldKind<Row>): WorldKind {
  return spec as unknown as WorldKind;
}

const text = (name: string, label: string): FilterSpec => ({ name, label, type: 'text' });
const number = (name: string, label: string): FilterSpec => ({ name, label, type: 'number' });
const bool = (name: string, label: string): FilterSpec => ({ name, label, type: 'bool' });

/** `search` stands alone (the API refuses it beside a structured filter); the owner filters follow. */
const OWNER_FILTERS = [
  text('owner_platform_id', 'Owner platform id'),
  text('owner_social_id', 'Owner social id'),
  text('owner_name', 'Owner name (exact)'),
];

const yesNo = (value: boolean) => (value ? 'yes' : 'no');
const position = (at: Schemas['Position']) => `${at.x}, ${at.y}, ${at.z}`;
const ownerText = (owner: Owner) =>
  `${owner.name} (${owner.platform_id}${owner.social_id === null ? '' : `, social ${owner.social_id}`})`;

export const WORLD_KINDS: readonly WorldKind[] = [
  kind<Squad>({
    id: 'squads',
    title: 'Squads',
    noun: 'squad',
    filters: [
      text('search', 'Squad name contains'),
      text('leader_platform_id', 'Leader platform id'),
      text('leader_social_id', 'Leader social id'),
      number('min_members', 'Members at least'),
      number('max_members', 'Members at most'),
      number('min_score', 'Score at least'),
      number('active_within_days', 'Active within days'),
    ],
    head: ['Name', 'Members', 'Score', 'Leader', 'Last active'],
    keyOf: (squad) => String(squad.id),
    nameOf: (squad) => squad.name,
    cells: (squad) => [
      squad.name,
      `${squad.member_count} of ${squad.member_limit}`,
      String(squad.score),
      squad.leader.name,
      squad.last_active,
    ],
    Details: SquadDetails,
  }),
  kind<Base>({
    id: 'bases',
    title: 'Bases',
    noun: 'base',
    filters: [
      text('search', 'Owner name contains'),
      ...OWNER_FILTERS,
      number('min_elements', 'Elements at least'),
      number('max_elements', 'Elements at most'),
      number('min_health', 'Health at least (0 to 1)'),
      number('max_health', 'Health at most (0 to 1)'),
    ],
    head: ['Flag id', 'Owner', 'Elements', 'Health'],
    keyOf: (base) => String(base.flag_id),
    nameOf: (base) => `flag ${base.flag_id}`,
    cells: (base) => [
      String(base.flag_id),
      base.owner.name,
      `${base.element_count} of ${base.max_elements}`,
      `${Math.round(base.avg_health * 100)} %`,
    ],
    Details: BaseDetails,
  }),
  kind<Vehicle>({
    id: 'vehicles',
    title: 'Vehicles',
    noun: 'vehicle',
    filters: [
      text('search', 'Name or owner contains'),
      ...OWNER_FILTERS,
      text('alias', 'Display name (exact)'),
      bool('is_locked', 'Locked'),
      bool('is_functional', 'Working'),
    ],
    head: ['Vehicle', 'Owner', 'Health', 'Locked', 'Working'],
    keyOf: (vehicle) => vehicle.entity_id,
    nameOf: (vehicle) => `${vehicle.display_name} ${vehicle.entity_id}`,
    cells: (vehicle) => [
      vehicle.display_name,
      vehicle.owner.name,
      `${vehicle.health} of ${vehicle.max_health}`,
      yesNo(vehicle.is_locked),
      yesNo(vehicle.is_functional),
    ],
    Details: (props) => h(EntityDetails, { plural: 'vehicles', entity: props.row }),
  }),
  kind<Container>({
    id: 'containers',
    title: 'Containers',
    noun: 'container',
    filters: [
      text('search', 'Name, base or owner contains'),
      ...OWNER_FILTERS,
      number('base_id', 'Base id'),
      bool('is_locked', 'Locked'),
      bool('is_buried', 'Buried'),
    ],
    head: ['Container', 'Base', 'Owner', 'Locked', 'Buried'],
    keyOf: (container) => container.entity_id,
    nameOf: (container) => `${container.custom_name || container.display_name} ${container.entity_id}`,
    cells: (container) => [
      container.custom_name || container.display_name,
      container.base_name ?? '—',
      container.owner.name,
      yesNo(container.is_locked),
      yesNo(container.is_buried),
    ],
    Details: (props) => h(EntityDetails, { plural: 'containers', entity: props.row }),
  }),
];

function SquadDetails(props: { row: Squad }): View {
  const base = `/game/squads/${props.row.id}`;
  const loaded = useLoad(
    () =>
      Promise.all([
        api<Schemas['SquadSummary']>('GET', `${base}/summary`),
        api<{ data: Schemas['SquadMember'][] }>('GET', `${base}/members`),
      ]),
    [base],
  );
  if (loaded.value === undefined) return h(Pending, { error: loaded.error });
  const [summary, members] = loaded.value;
  return h(
    'div',
    { class: 'details', 'data-testid': 'world-details' },
    h(
      'dl',
      { class: 'pairs' },
      fact('Squad id', String(props.row.id)),
      fact('Leader', `${props.row.leader.name} (${props.row.leader.platform_id})`),
      fact('Kills / deaths', `${summary.total_kills} / ${summary.total_deaths}`),
      fact('Cash, bank, gold', `${summary.total_cash}, ${summary.total_bank_money}, ${summary.total_gold}`),
      fact('Fame', String(summary.total_fame)),
      fact('Vehicles, containers', `${summary.total_vehicles}, ${summary.total_containers}`),
    ),
    h(
      Table,
      { head: ['Member', 'Platform id', 'Rank', 'Online', 'Kills', 'Deaths'], empty: 'No members.' },
      members.data.map((member) =>
        h(
          'tr',
          { key: member.id },
          h('td', null, member.char_name),
          h('td', null, member.platform_id),
          h('td', null, RANKS[member.rank] ?? String(member.rank)),
          h('td', null, yesNo(member.online)),
          h('td', null, String(member.kills)),
          h('td', null, String(member.deaths)),
        ),
      ),
    ),
  );
}

const RANKS: Record<number, string> = { 4: 'leader', 3: 'officer', 2: 'member', 1: 'recruit' };

function BaseDetails(props: { row: Base }): View {
  const base = props.row;
  const inside = useLoad(
    () =>
      api<Page<Container> & { total: number }>(
        'GET',
        `/game/containers${query({ base_id: base.base_id, limit: 10 })}`,
      ),
    [base.base_id],
  );
  return h(
    'div',
    { class: 'details', 'data-testid': 'world-details' },
    h(
      'dl',
      { class: 'pairs' },
      fact('Flag id, base id', `${base.flag_id}, ${base.base_id}`),
      fact('Owner', ownerText(base.owner)),
      fact('Position', position(base.position)),
    ),
    inside.value === undefined
      ? h(Pending, { error: inside.error })
      : h('p', null, containersText(inside.value)),
  );
}

/** `Containers in this base: 3 (Box, Safe, Locker)`, the first page's names. */
function containersText(page: Page<Container> & { total: number }): string {
  const names = page.data.map((container) => container.custom_name || container.display_name);
  const more = page.has_more ? ', …' : '';
  return `Containers in this base: ${page.total}${names.length > 0 ? ` (${names.join(', ')}${more})` : ''}`;
}

function EntityDetails(props: { plural: 'vehicles' | 'containers'; entity: Vehicle | Container }): View {
  const { entity, plural } = props;
  const inventory = useLoad(
    () => api<Schemas['AssetInventory']>('GET', `/game/${plural}/${entity.entity_id}/inventory`),
    [entity.entity_id],
  );
  return h(
    'div',
    { class: 'details', 'data-testid': 'world-details' },
    h(
      'dl',
      { class: 'pairs' },
      fact('Entity id', entity.entity_id),
      fact('Class', entity.class_name),
      fact('Owner', ownerText(entity.owner)),
      fact('Lock', entity.is_locked ? `${entity.lock_type ?? 'locked'}, ${entity.lock_hp} HP` : 'not locked'),
      fact('Last opened', entity.last_access_time ?? '—'),
      fact('Position', position(entity.position)),
    ),
    h('h3', null, 'Inventory'),
    inventory.value === undefined
      ? h(Pending, { error: inventory.error })
      : inventory.value.items.length === 0
        ? h('p', null, 'Empty.')
        : h(Items, { items: inventory.value.items }),
  );
}

/** The items, a container's contents nested under it. */
function Items(props: { items: Item[] }): View {
  return h(
    'ul',
    { class: 'items' },
    props.items.map((item) =>
      h(
        'li',
        { key: item.id },
        `${item.name} (${item.class})`,
        item.contents.length > 0 ? h(Items, { items: item.contents }) : null,
      ),
    ),
  );
}

function Pending(props: { error: string | undefined }): View {
  return props.error === undefined ? h('p', null, 'Loading…') : h(ErrorLine, { text: props.error });
}
