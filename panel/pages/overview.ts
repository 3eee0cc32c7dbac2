/**
 * Overview: the link to the game server, players online, the API switch and plan at a glance,
 * and the request rate over the last hour as a chart (GET /admin/v1/status). Refreshes every
 * 10 s while the page is open.
 */
import { h } from 'preact';
import { useEffect } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api } from '../api.ts';
import { RequestChart } from '../chart.ts';
import { duration, ErrorLine, useLoad, when, type View } from '../ui.ts';

/** GET /admin/v1/status (generated from the admin API's document). */
export type Status = components['schemas']['AdminStatus'];

const REFRESH_MS = 10_000;

export function OverviewPage(): View {
  const status = useLoad(() => api<Status>('GET', '/status'));
  useEffect(() => {
    const timer = setInterval(status.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [status.reload]);
  const value = status.value;
  if (value === undefined)
    return h(
      'div',
      null,
      h(ErrorLine, { text: status.error }),
      status.error ? null : h('p', { role: 'status' }, 'Loading…'),
    );
  const link = value.link;
  return h(
    'div',
    null,
    h(ErrorLine, { text: status.error }),
    h(
      'dl',
      { class: 'facts' },
      fact('Server', `${value.name} (${value.server_id})`),
      fact(
        'Game link',
        link?.connected
          ? `connected, mod ${link.mod_version ?? '?'} since ${when(link.since)}`
          : 'not connected',
        link?.connected ? 'ok' : 'bad',
      ),
      fact(
        'Players online',
        value.players_online === undefined || value.players_online === null
          ? '—'
          : String(value.players_online),
      ),
      fact('API', value.api?.enabled ? 'enabled' : 'disabled', value.api?.enabled ? 'ok' : 'bad'),
      fact('Plan', planText(value.plan)),
      fact('Uptime', value.uptime_seconds === undefined ? '—' : duration(value.uptime_seconds)),
      fact(
        'Last event',
        value.events?.last_id === undefined || value.events.last_id === null
          ? '—'
          : String(value.events.last_id),
      ),
      fact(
        'Version',
        value.versions
          ? Object.entries(value.versions)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')
          : '—',
      ),
    ),
    h('h2', null, 'Requests per minute, last hour'),
    h(RequestChart, {
      buckets: value.requests?.per_minute ?? [],
      label: 'Requests per minute over the last hour',
    }),
    h(
      'p',
      { class: 'legend' },
      ['2xx', '3xx', '4xx', '5xx'].map((name) => h('span', { key: name, class: `key bar-${name}` }, name)),
    ),
  );
}

function fact(term: string, value: string, tone?: 'ok' | 'bad'): View {
  return h('div', null, h('dt', null, term), h('dd', { class: tone ?? '' }, value));
}

function planText(plan: Status['plan']): string {
  if (plan === undefined) return '—';
  if (!plan.premium) return 'free';
  const features = plan.features && plan.features.length > 0 ? ` (${plan.features.join(', ')})` : '';
  return `premium${features}${plan.until ? ` until ${when(plan.until)}` : ''}`;
}
