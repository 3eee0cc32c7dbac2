/**
 * Shop: the pack catalogue; for a chosen pack, a free delivery to a player (asked first) and a
 * claim code minted for it; the delivery history with each delivery's status; and the claim codes
 * with their status and direct-message delivery, revoked after asking. Every call is a game route
 * of the admin API (docs/admin.md "Game routes"), the /v1 operation itself, so the game records
 * codes minted here with source `panel` (docs/packs.md).
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, query } from '../api.ts';
import { FilterForm, type FilterSpec } from '../listing.ts';
import { NEWER_OLDER, useCursorTrail } from './cursor-pager.ts';
import { attempt, ConfirmButton, ErrorLine, Field, Table, useLoad, type View } from '../ui.ts';

type Pack = components['schemas']['Pack'];
type PackPage = components['schemas']['PackPage'];
type PackRef = components['schemas']['PackRef'];
type DeliveryPage = components['schemas']['PackDeliveryPage'];
type DeliveryResult = components['schemas']['PackDeliveryResult'];
type ClaimCode = components['schemas']['ClaimCode'];
type ClaimCodePage = components['schemas']['ClaimCodePage'];
type Minted = components['schemas']['MintedClaimCode'];

export function ShopPage(): View {
  const [chosen, setChosen] = useState<Pack | null>(null);
  /** Bumped after a delivery, a mint or a revocation, so the lists show it. */
  const [changes, setChanges] = useState(0);
  const changed = () => setChanges((n) => n + 1);
  return h(
    'div',
    { class: 'shop' },
    h(Catalogue, { onChoose: setChosen }),
    chosen === null ? null : h(PackCard, { key: chosen.id, pack: chosen, onChanged: changed }),
    h(Deliveries, { changes }),
    h(ClaimCodes, { changes, onChanged: changed }),
  );
}

function packName(pack: PackRef | Pack): string {
  return pack.display_name ?? pack.name ?? `pack ${pack.id} (deleted)`;
}

function Catalogue(props: { onChoose: (pack: Pack) => void }): View {
  const [search, setSearch] = useState({ search: '', enabled: '' });
  const trail = useCursorTrail();
  const { cursor } = trail;
  // The API refuses `search` with `enabled` (docs/packs.md, "Ids and filters"): a search wins.
  const params = search.search === '' ? { enabled: search.enabled } : { search: search.search };
  const page = useLoad(
    () => api<PackPage>('GET', `/game/packs${query({ ...params, limit: 25, cursor })}`),
    [search, cursor],
  );
  const specs: FilterSpec<'search' | 'enabled'>[] = [
    { name: 'search', label: 'Pack name' },
    { name: 'enabled', label: 'Enabled (ignored with a name)', choices: ['true', 'false'] },
  ];
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'catalogue-heading' },
    h('h2', { id: 'catalogue-heading' }, 'Packs'),
    h(FilterForm<'search' | 'enabled'>, {
      label: 'Pack filters',
      specs,
      values: search,
      onApply: (next) => (setSearch(next), trail.restart()),
    }),
    h(ErrorLine, { text: page.error }),
    h(
      Table,
      {
        head: ['Id', 'Pack', 'Category', 'Price (coins)', 'Enabled', 'In the shop', ''],
        loading: page.value === undefined && page.error === undefined,
        empty: 'No pack matches.',
      },
      (page.value?.data ?? []).map((pack) =>
        h(
          'tr',
          { key: pack.id, 'data-testid': 'pack-row' },
          h('td', null, String(pack.id)),
          h('td', { class: 'pack-name' }, packName(pack), h('span', { class: 'chain' }, pack.name)),
          h('td', null, pack.category.name),
          h('td', null, String(pack.price)),
          h('td', null, pack.enabled ? 'yes' : 'no'),
          h('td', null, pack.shop_enabled ? 'yes' : 'no'),
          h(
            'td',
            null,
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Choose ${packName(pack)}`,
                onClick: () => props.onChoose(pack),
              },
              'Choose',
            ),
          ),
        ),
      ),
    ),
    trail.pager(page.current, NEWER_OLDER),
  );
}

function PackCard(props: { pack: Pack; onChanged: () => void }): View {
  const { pack } = props;
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'pack-heading', 'data-testid': 'pack-card' },
    h('h2', { id: 'pack-heading' }, packName(pack)),
    h('p', null, pack.description),
    h(
      'div',
      { class: 'pack-forms' },
      h(DeliverForm, { pack, onChanged: props.onChanged }),
      h(MintForm, { pack, onChanged: props.onChanged }),
    ),
  );
}

/** One player by platform id or social id, and a quantity: a free grant, asked first. */
function DeliverForm(props: { pack: Pack; onChanged: () => void }): View {
  const [by, setBy] = useState<'platform_id' | 'social_id'>('platform_id');
  const [who, setWho] = useState('');
  const [quantity, setQuantity] = useState('1');
  const [answer, setAnswer] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const name = packName(props.pack);
  const valid = /^\d{17,20}$/.test(who.trim()) && /^(100|[1-9]\d?)$/.test(quantity);
  const deliver = () =>
    void attempt(async () => {
      const body = { [by]: who.trim(), quantity: Number(quantity) };
      const result = await api<DeliveryResult>('POST', `/game/packs/${props.pack.id}/deliver`, body);
      setAnswer(deliveryText(result));
      props.onChanged();
    }, setError);
  return h(
    'fieldset',
    { class: 'pack-form' },
    h('legend', null, 'Deliver for free'),
    h(
      Field,
      { label: 'Recipient by' },
      h(
        'select',
        {
          value: by,
          onChange: (event: Event) => setBy((event.target as HTMLSelectElement).value as 'social_id'),
        },
        h('option', { value: 'platform_id' }, 'Platform id'),
        h('option', { value: 'social_id' }, 'Social id'),
      ),
    ),
    h(Field, { label: 'Recipient' }, h('input', { value: who, inputMode: 'numeric', onInput: text(setWho) })),
    h(
      Field,
      { label: 'Quantity (1 to 100)' },
      h('input', { type: 'number', min: 1, max: 100, value: quantity, onInput: text(setQuantity) }),
    ),
    h(ConfirmButton, {
      label: 'Deliver',
      name: `Deliver ${name}`,
      title: `Deliver ${quantity} × ${name} to ${who.trim()}?`,
      consequence:
        `The game gives ${who.trim()} the pack's contents ${quantity} time(s), free: no coins are charged, ` +
        'and items and vehicles land only while the player is online. There is no undo.',
      disabled: !valid,
      onConfirm: deliver,
    }),
    answer === undefined ? null : h('p', { role: 'status', 'data-testid': 'delivery-answer' }, answer),
    h(ErrorLine, { text: error }),
  );
}

function text(set: (value: string) => void) {
  return (event: Event) => set((event.target as HTMLInputElement).value);
}

const STATUS_TEXT: Record<DeliveryResult['status'], string> = {
  completed: 'completed: everything landed',
  partial: 'partial: some of it landed',
  failed: 'failed: nothing landed',
  refund_failed: 'refund failed',
  ledger_failed: 'delivered, but the ledger entry could not be written',
};

function deliveryText(result: DeliveryResult): string {
  const why = result.error_message === null ? '' : ` (${result.error_message})`;
  return `The game answered: delivery ${result.purchase_id} ${STATUS_TEXT[result.status]}${why}.`;
}

/** A claim code for the pack: public, or for one player (sent by direct message when linked). */
function MintForm(props: { pack: Pack; onChanged: () => void }): View {
  const [target, setTarget] = useState('');
  const [uses, setUses] = useState('1');
  const [days, setDays] = useState('0');
  const [minted, setMinted] = useState<Minted | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = (event: Event) => {
    event.preventDefault();
    void attempt(async () => {
      const body = {
        pack_id: String(props.pack.id),
        ...(target.trim() === '' ? {} : { platform_id: target.trim() }),
        max_uses: Number(uses),
        expiry_days: Number(days),
      };
      setMinted(await api<Minted>('POST', '/game/claim-codes', body));
      props.onChanged();
    }, setError);
  };
  return h(
    'form',
    { class: 'pack-form', 'aria-label': 'Mint a claim code', onSubmit: submit },
    h('h3', null, 'Mint a claim code'),
    h(
      Field,
      { label: 'For platform id (empty: anyone)' },
      h('input', { value: target, inputMode: 'numeric', onInput: text(setTarget) }),
    ),
    h(Field, { label: 'Uses' }, h('input', { type: 'number', min: 1, value: uses, onInput: text(setUses) })),
    h(
      Field,
      { label: 'Expires after days (0: never)' },
      h('input', { type: 'number', min: 0, max: 3650, value: days, onInput: text(setDays) }),
    ),
    h('button', { type: 'submit' }, 'Mint code'),
    minted === undefined
      ? null
      : h(
          'p',
          { role: 'status', class: 'notice', 'data-testid': 'minted' },
          'Minted ',
          h('code', null, minted.code),
          ` for ${packName(minted.pack)}: ${DM_TEXT[minted.dm_status]}`,
        ),
    h(ErrorLine, { text: error }),
  );
}

const DM_TEXT: Record<Minted['dm_status'], string> = {
  queued: 'the game queued a direct message to the player.',
  target_not_linked: 'the player has no social link, so no direct message; give them the code.',
  not_requested: 'a public code; post it where players see it.',
  failed: 'the direct message could not be queued; give them the code.',
};

type DeliveryFilter = 'platform_id' | 'pack_id' | 'source' | 'status';
const DELIVERY_FILTERS: readonly FilterSpec<DeliveryFilter>[] = [
  { name: 'platform_id', label: 'Platform id', inputMode: 'numeric' },
  { name: 'pack_id', label: 'Pack id', inputMode: 'numeric' },
  { name: 'source', label: 'Source (api, shop, claim…)' },
  {
    name: 'status',
    label: 'Status',
    choices: ['completed', 'partial', 'failed', 'refund_failed', 'ledger_failed'],
  },
];

function Deliveries(props: { changes: number }): View {
  const [filters, setFilters] = useState<Record<DeliveryFilter, string>>({
    platform_id: '',
    pack_id: '',
    source: '',
    status: '',
  });
  const trail = useCursorTrail();
  const { cursor } = trail;
  const page = useLoad(
    () => api<DeliveryPage>('GET', `/game/packs/deliveries${query({ ...filters, limit: 25, cursor })}`),
    [filters, cursor, props.changes],
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'deliveries-heading' },
    h('h2', { id: 'deliveries-heading' }, 'Deliveries'),
    h(FilterForm<DeliveryFilter>, {
      label: 'Delivery filters',
      specs: DELIVERY_FILTERS,
      values: filters,
      onApply: (next) => (setFilters(next), trail.restart()),
    }),
    h(ErrorLine, { text: page.error }),
    h(
      Table,
      {
        head: ['Id', 'When (game time)', 'Pack', 'Player', 'Quantity', 'Source', 'Status'],
        loading: page.value === undefined && page.error === undefined,
        empty: 'No delivery matches.',
      },
      (page.value?.data ?? []).map((row) =>
        h(
          'tr',
          { key: row.id, 'data-testid': 'delivery-row' },
          h('td', null, String(row.id)),
          h('td', null, row.delivered_at),
          h('td', null, packName(row.pack)),
          h('td', { class: 'mono' }, row.player.platform_id),
          h('td', null, String(row.quantity)),
          h('td', null, row.source),
          h('td', null, row.error_message === null ? row.status : `${row.status}: ${row.error_message}`),
        ),
      ),
    ),
    trail.pager(page.current, NEWER_OLDER),
  );
}

type CodeFilter = 'pack_id' | 'source' | 'status' | 'target';
const CODE_FILTERS: readonly FilterSpec<CodeFilter>[] = [
  { name: 'pack_id', label: 'Pack id', inputMode: 'numeric' },
  { name: 'source', label: 'Source', choices: ['partner', 'social', 'panel'] },
  { name: 'status', label: 'Status', choices: ['active', 'expired', 'exhausted', 'revoked'] },
  { name: 'target', label: 'Target (digits of a platform id)', inputMode: 'numeric' },
];

function ClaimCodes(props: { changes: number; onChanged: () => void }): View {
  const [filters, setFilters] = useState<Record<CodeFilter, string>>({
    pack_id: '',
    source: '',
    status: '',
    target: '',
  });
  const trail = useCursorTrail();
  const { cursor } = trail;
  const page = useLoad(
    () => api<ClaimCodePage>('GET', `/game/claim-codes${query({ ...filters, limit: 25, cursor })}`),
    [filters, cursor, props.changes],
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'codes-heading' },
    h('h2', { id: 'codes-heading' }, 'Claim codes'),
    h(FilterForm<CodeFilter>, {
      label: 'Claim code filters',
      specs: CODE_FILTERS,
      values: filters,
      onApply: (next) => (setFilters(next), trail.restart()),
    }),
    h(ErrorLine, { text: page.error }),
    h(
      Table,
      {
        head: ['Code', 'Pack', 'For', 'Source', 'Status', 'Uses left', 'Expires', 'Message', ''],
        loading: page.value === undefined && page.error === undefined,
        empty: 'No claim code matches.',
      },
      (page.value?.data ?? []).map((code) =>
        h(CodeRow, { key: code.code, code, onChanged: props.onChanged }),
      ),
    ),
    trail.pager(page.current, NEWER_OLDER),
  );
}

function CodeRow(props: { code: ClaimCode; onChanged: () => void }): View {
  const { code } = props;
  const [error, setError] = useState<string | undefined>(undefined);
  const revoke = () =>
    void attempt(async () => {
      await api('DELETE', `/game/claim-codes/${code.code}`);
      props.onChanged();
    }, setError);
  return h(
    'tr',
    { 'data-testid': 'code-row' },
    h('td', { class: 'mono' }, code.code),
    h('td', null, packName(code.pack)),
    h('td', { class: 'mono' }, code.target?.platform_id ?? 'anyone'),
    h('td', null, code.source),
    h('td', null, code.status),
    h('td', null, `${code.uses_remaining} of ${code.max_uses}`),
    h('td', null, code.expires_at ?? 'never'),
    h('td', null, code.delivery_status.replaceAll('_', ' ')),
    h(
      'td',
      null,
      code.status === 'revoked'
        ? null
        : h(ConfirmButton, {
            label: 'Revoke',
            name: `Revoke code ${code.code}`,
            title: `Revoke the code ${code.code}?`,
            consequence:
              'Nobody can redeem it from now on. Uses already made stay; a revoked code cannot be restored.',
            onConfirm: revoke,
          }),
      h(ErrorLine, { text: error }),
    ),
  );
}
