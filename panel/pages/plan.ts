/**
 * Plan and API switch: GET|PUT /admin/v1/api `{enabled}` and GET|PUT /admin/v1/plan
 * `{premium, until?, features}`. Each change acts at once in the daemon.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api } from '../api.ts';
import { attempt, ErrorLine, Field, useLoad, when, type View } from '../ui.ts';

type ApiSwitch = components['schemas']['AdminApiSwitch'];
type Plan = components['schemas']['AdminPlan'];

export function PlanPage(): View {
  return h('div', null, h(ApiSwitchCard, null), h(PlanCard, null));
}

function ApiSwitchCard(): View {
  const state = useLoad(() => api<ApiSwitch>('GET', '/api'));
  const [error, setError] = useState<string | undefined>(undefined);
  const flip = (enabled: boolean) =>
    void attempt(() => api('PUT', '/api', { enabled }), setError).then(state.reload);
  const enabled = state.value?.enabled;
  return h(
    'section',
    { class: 'card' },
    h('h2', null, 'API switch'),
    h(
      'p',
      { 'data-testid': 'api-state' },
      enabled === undefined
        ? 'Loading…'
        : enabled
          ? 'The API is enabled.'
          : 'The API is disabled: /v1 answers 404.',
    ),
    enabled === undefined
      ? null
      : h(
          'button',
          { type: 'button', onClick: () => flip(!enabled) },
          enabled ? 'Disable API' : 'Enable API',
        ),
    h(ErrorLine, { text: error ?? state.error }),
  );
}

function PlanCard(): View {
  const state = useLoad(() => api<Plan>('GET', '/plan'));
  const [error, setError] = useState<string | undefined>(undefined);
  if (state.value === undefined) return h('section', { class: 'card' }, h(ErrorLine, { text: state.error }));
  const plan = state.value;
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const until = String(form.get('until') ?? '');
    const features = String(form.get('features') ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const body = { premium: form.get('premium') === 'on', until: until === '' ? null : until, features };
    void attempt(() => api('PUT', '/plan', body), setError).then(state.reload);
  };
  return h(
    'section',
    { class: 'card' },
    h('h2', null, 'Plan'),
    h(
      'p',
      null,
      plan.premium
        ? `Premium${plan.until ? ` until ${when(plan.until)}` : ''}.`
        : 'Free: premium endpoints answer 403.',
    ),
    h(
      'form',
      { onSubmit: submit },
      h(
        'label',
        { class: 'check' },
        h('input', { type: 'checkbox', name: 'premium', checked: plan.premium }),
        'Premium',
      ),
      h(
        Field,
        { label: 'Until (ISO date, empty for no end)' },
        h('input', { name: 'until', value: plan.until ?? '' }),
      ),
      h(
        Field,
        { label: 'Features (comma-separated)' },
        h('input', { name: 'features', value: plan.features.join(', ') }),
      ),
      h('button', { type: 'submit' }, 'Save plan'),
    ),
    h(ErrorLine, { text: error ?? state.error }),
  );
}
