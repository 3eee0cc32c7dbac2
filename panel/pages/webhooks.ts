/**
 * Webhooks: every endpoint (the operator's and each key's) with its status, and per endpoint:
 * recent deliveries, send a test event, rotate its signing secret (both secrets sign during the
 * overlap; the new one is shown once), and enable one the daemon disabled after failures.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, type Page } from '../api.ts';
import { attempt, ErrorLine, Table, useLoad, when, type View } from '../ui.ts';

/** Generated from the admin API's document (GET /admin/v1/webhooks, …/deliveries). */
type Webhook = components['schemas']['AdminWebhookEndpoint'];
type Delivery = components['schemas']['WebhookDeliveryAttempt'];

export function WebhooksPage(): View {
  const hooks = useLoad(() => api<Page<Webhook>>('GET', '/webhooks'));
  const [open, setOpen] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const act = (action: () => Promise<string>) =>
    void attempt(async () => setNotice(await action()), setError).then(hooks.reload);
  const list = hooks.value?.data ?? [];
  return h(
    'div',
    null,
    notice ? h('p', { class: 'notice', 'data-testid': 'webhook-notice' }, notice) : null,
    h(ErrorLine, { text: error ?? hooks.error }),
    list.length === 0 && hooks.value
      ? h('p', null, 'No webhooks yet. Keys with webhooks:manage create them on /v1.')
      : null,
    h(
      Table,
      { head: ['URL', 'Events', 'Status', 'Owner', 'Last attempt', ''] },
      list.map((hook) =>
        h(
          'tr',
          { key: hook.id, 'data-testid': 'webhook-row' },
          h('td', { class: 'mono' }, hook.url),
          h('td', null, hook.events.join(' ')),
          h('td', null, hook.status + (hook.disabled_reason ? ` (${hook.disabled_reason})` : '')),
          h('td', null, ownerText(hook.owner)),
          h('td', null, when(hook.last_attempt_at)),
          h(
            'td',
            { class: 'actions' },
            h(
              'button',
              { type: 'button', onClick: () => setOpen(open === hook.id ? undefined : hook.id) },
              'Deliveries',
            ),
            h('button', { type: 'button', onClick: () => act(() => sendTest(hook.id)) }, 'Test'),
            h('button', { type: 'button', onClick: () => act(() => rotate(hook.id)) }, 'Rotate secret'),
            hook.status === 'disabled'
              ? h('button', { type: 'button', onClick: () => act(() => enable(hook.id)) }, 'Enable')
              : null,
          ),
        ),
      ),
    ),
    open ? h(Deliveries, { id: open }) : null,
  );
}

function ownerText(owner: Webhook['owner']): string {
  if (owner.kind === 'operator') return 'operator';
  return `key ${owner.key_name ?? ''} (${owner.key_id ?? '?'})`;
}

const path = (id: string, action: string) => `/webhooks/${encodeURIComponent(id)}/${action}`;

async function sendTest(id: string): Promise<string> {
  const result = await api<{ outcome: string; status: number | null; error: string | null }>(
    'POST',
    path(id, 'test'),
    {},
  );
  const detail = result.status ? ` (HTTP ${result.status})` : result.error ? ` (${result.error})` : '';
  return `Test event: ${result.outcome}${detail}.`;
}

async function rotate(id: string): Promise<string> {
  const result = await api<{ secret: string; previous_secret_until?: string | null }>(
    'POST',
    path(id, 'rotate-secret'),
    {},
  );
  const until = result.previous_secret_until
    ? `; the old one signs too until ${when(result.previous_secret_until)}`
    : '';
  return `New signing secret (shown once): ${result.secret}${until}.`;
}

async function enable(id: string): Promise<string> {
  await api('POST', path(id, 'enable'), {});
  return 'Enabled: deliveries resume from where they stopped.';
}

function Deliveries(props: { id: string }): View {
  const deliveries = useLoad(
    () => api<Page<Delivery>>('GET', `${path(props.id, 'deliveries')}?limit=20`),
    [props.id],
  );
  return h(
    'section',
    { class: 'card' },
    h('h2', null, `Deliveries of ${props.id}`),
    h(ErrorLine, { text: deliveries.error }),
    h(
      Table,
      { head: ['At', 'Outcome', 'HTTP', 'Latency', 'Events', 'Error'] },
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
