/**
 * Webhooks: every endpoint (the operator's and each key's) with its status, and adding one here
 * under the operator's address rules (docs/admin.md, "Webhooks"). Per endpoint: recent
 * deliveries, send a test event, edit its events and description, disable it (asked first) and
 * enable one that is disabled, by the operator or by the daemon after failures, rotate its signing secret (both secrets sign during the overlap; the
 * new one is shown once) and delete it. Each endpoint is a card, not a table row, so its buttons
 * wrap on a phone instead of scrolling off-screen; each button is named for its endpoint.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, type Page } from '../api.ts';
import {
  ConfirmButton,
  duration,
  ErrorLine,
  Table,
  useAnswerFocus,
  useLoad,
  when,
  type View,
} from '../ui.ts';
import { NewSecret, refusalText, WebhookForm, type ShownSecret, type Webhook } from './webhook-forms.ts';

type Delivery = components['schemas']['WebhookDeliveryAttempt'];
type TestOutcome = components['schemas']['AdminWebhookTestOutcome'];
type Rotated = components['schemas']['WebhookEndpointRotated'];

/** How long the old secret keeps signing after Rotate secret: the daemon's default, 24 hours. */
const ROTATE_OVERLAP_SEC = 86_400;

export function WebhooksPage(): View {
  const hooks = useLoad(() => api<Page<Webhook>>('GET', '/webhooks'));
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<ShownSecret | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  // A deleted endpoint's buttons are gone with it: focus goes to what the page says happened.
  const noticeLine = useAnswerFocus(notice);
  /** Runs a row's action; its outcome is announced, and the list loads again. */
  const act = (action: () => Promise<string | ShownSecret>) =>
    void action()
      .then(
        (outcome) => {
          setError(undefined);
          if (typeof outcome === 'string') setNotice(outcome);
          else setSecret(outcome);
        },
        (failure: unknown) => setError(refusalText(failure)),
      )
      .then(hooks.reload);
  const list = hooks.value?.data ?? [];
  return h(
    'div',
    { class: 'webhooks' },
    h('p', { class: 'notice', role: 'status', ref: noticeLine.ref, tabIndex: -1 }, notice),
    h(ErrorLine, { text: error ?? hooks.error }),
    secret ? h(NewSecret, { shown: secret, onDone: () => setSecret(undefined) }) : null,
    adding
      ? h(WebhookForm, {
          onSaved: (shown) => {
            setAdding(false);
            setSecret(shown);
            hooks.reload();
          },
          onCancel: () => setAdding(false),
        })
      : h('button', { type: 'button', onClick: () => setAdding(true) }, 'Add webhook'),
    hooks.value === undefined && hooks.error === undefined ? h('p', { class: 'hint' }, 'Loading…') : null,
    hooks.value !== undefined && list.length === 0
      ? h(
          'p',
          { class: 'hint' },
          'No webhooks yet. Press "Add webhook" to send events to your bot or a Discord channel: ' +
            'choose a URL and the events it receives, and keep the signing secret shown once.',
        )
      : null,
    h(
      'ul',
      { class: 'webhook-list', 'aria-label': 'Webhooks' },
      list.map((hook) =>
        h(WebhookItem, {
          key: hook.id,
          hook,
          act,
          onDeleted: noticeLine.focusNext,
          onChanged: hooks.reload,
        }),
      ),
    ),
  );
}

interface ItemProps {
  hook: Webhook;
  act: (action: () => Promise<string | ShownSecret>) => void;
  onDeleted: () => void;
  onChanged: () => void;
}

function WebhookItem(props: ItemProps): View {
  const { hook, act } = props;
  const [panel, setPanel] = useState<'deliveries' | 'edit' | undefined>(undefined);
  const toggle = (which: 'deliveries' | 'edit') => setPanel(panel === which ? undefined : which);
  const of = `webhook ${hook.url}`;
  return h(
    'li',
    { class: 'card webhook', 'data-testid': 'webhook-row', 'data-webhook-id': hook.id },
    h('h2', { class: 'mono webhook-url' }, hook.url),
    hook.description ? h('p', null, hook.description) : null,
    h(
      'dl',
      { class: 'webhook-facts' },
      fact('Events', hook.events.join(' ')),
      fact('Status', hook.status + (hook.disabled_reason ? ` (${hook.disabled_reason})` : '')),
      fact('Owner', ownerText(hook.owner)),
      fact('Last attempt', when(hook.last_attempt_at)),
      fact('Id', hook.id),
    ),
    h(
      'div',
      { class: 'webhook-actions' },
      h(
        'button',
        {
          type: 'button',
          'aria-expanded': panel === 'deliveries',
          'aria-label': `Deliveries of ${of}`,
          onClick: () => toggle('deliveries'),
        },
        'Deliveries',
      ),
      h(
        'button',
        { type: 'button', 'aria-label': `Test ${of}`, onClick: () => act(() => sendTest(hook)) },
        'Test',
      ),
      h(
        'button',
        {
          type: 'button',
          'aria-expanded': panel === 'edit',
          'aria-label': `Edit ${of}`,
          onClick: () => toggle('edit'),
        },
        'Edit',
      ),
      hook.status === 'disabled'
        ? h(
            'button',
            { type: 'button', 'aria-label': `Enable ${of}`, onClick: () => act(() => enable(hook)) },
            'Enable',
          )
        : h(ConfirmButton, {
            label: 'Disable',
            name: `Disable ${of}`,
            title: `Disable the webhook ${hook.url}?`,
            consequence:
              'Deliveries stop until you press Enable; the receiver gets nothing meanwhile. ' +
              'The endpoint keeps its place: Enable sends every event it missed that the event log still holds.',
            onConfirm: () => act(() => disable(hook)),
          }),
      h(ConfirmButton, {
        label: 'Rotate secret',
        name: `Rotate secret of ${of}`,
        title: `Rotate the signing secret of ${hook.url}?`,
        consequence:
          `A new secret is shown once. The old secret keeps signing beside it for ${duration(ROTATE_OVERLAP_SEC)}, ` +
          `until ${when(new Date(Date.now() + ROTATE_OVERLAP_SEC * 1000).toISOString())}; after that a receiver that still holds only the old one rejects every delivery.`,
        onConfirm: () => act(() => rotate(hook)),
      }),
      h(ConfirmButton, {
        label: 'Delete',
        name: `Delete ${of}`,
        title: `Delete the webhook ${hook.url}?`,
        consequence:
          'Deliveries stop at once; the receiver gets nothing more. Its delivery history goes too.',
        onConfirm: () =>
          act(async () => {
            await api('DELETE', `/webhooks/${encodeURIComponent(hook.id)}`);
            props.onDeleted();
            return `Deleted the webhook ${hook.url}.`;
          }),
      }),
    ),
    panel === 'edit'
      ? h(WebhookForm, {
          editing: hook,
          onSaved: () => {
            setPanel(undefined);
            props.onChanged();
          },
          onCancel: () => setPanel(undefined),
        })
      : null,
    panel === 'deliveries' ? h(Deliveries, { hook }) : null,
  );
}

function fact(term: string, value: string): View {
  return h('div', null, h('dt', null, term), h('dd', null, value));
}

function ownerText(owner: Webhook['owner']): string {
  if (owner.kind === 'operator') return 'operator';
  return `key ${owner.key_name ?? ''} (${owner.key_id ?? '?'})`;
}

const path = (hook: Webhook, action: string) => `/webhooks/${encodeURIComponent(hook.id)}/${action}`;

// Test, Enable and Disable take no request body: the routes refuse one, even `{}`.
async function sendTest(hook: Webhook): Promise<string> {
  const result = await api<TestOutcome>('POST', path(hook, 'test'));
  if (result.outcome === 'delivered') {
    return `Test event delivered to ${hook.url} (HTTP ${result.status ?? '?'}, ${Math.round(result.latency_ms)} ms).`;
  }
  const why = result.status !== null ? `HTTP ${result.status}` : (result.error ?? 'no answer');
  return `Test event to ${hook.url} failed (${why}).`;
}

async function rotate(hook: Webhook): Promise<ShownSecret> {
  const result = await api<Rotated>('POST', path(hook, 'rotate-secret'), { overlap: ROTATE_OVERLAP_SEC });
  return { url: hook.url, secret: result.secret, previousUntil: result.previous_secret_until };
}

async function disable(hook: Webhook): Promise<string> {
  await api('POST', path(hook, 'disable'));
  return `Disabled ${hook.url}: it receives nothing until Enable.`;
}

async function enable(hook: Webhook): Promise<string> {
  await api('POST', path(hook, 'enable'));
  return `Enabled ${hook.url}: deliveries resume from where they stopped.`;
}

function Deliveries(props: { hook: Webhook }): View {
  const deliveries = useLoad(
    () => api<Page<Delivery>>('GET', `${path(props.hook, 'deliveries')}?limit=20`),
    [props.hook.id],
  );
  return h(
    'section',
    { class: 'webhook-deliveries', 'aria-label': `Deliveries of ${props.hook.url}` },
    h('h3', null, 'Recent deliveries'),
    h(ErrorLine, { text: deliveries.error }),
    h(
      Table,
      {
        head: ['At', 'Outcome', 'HTTP', 'Latency', 'Events', 'Error'],
        loading: deliveries.value === undefined && deliveries.error === undefined,
        empty: 'No deliveries yet. A test event is not a delivery and is not listed here.',
      },
      (deliveries.value?.data ?? []).map((row, index) =>
        h(
          'tr',
          { key: `${row.at}-${index}` },
          h('td', null, when(row.at)),
          h('td', null, row.outcome),
          h('td', null, row.status === null ? '—' : String(row.status)),
          h('td', null, row.latency_ms === null ? '—' : `${Math.round(row.latency_ms)} ms`),
          h('td', null, `${row.first_event_id}–${row.last_event_id}`),
          h('td', null, row.error ?? ''),
        ),
      ),
    ),
  );
}
