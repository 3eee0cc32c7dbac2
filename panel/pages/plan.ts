/**
 * Plan and API switch: GET|PUT /admin/v1/api `{enabled}` and GET|PUT /admin/v1/plan
 * `{premium, until?, features}`. Each change acts at once in the daemon, so turning /v1 off
 * (the switch, or a plan that is not active) asks first and says what it does.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api } from '../api.ts';
import { attempt, ConfirmButton, ErrorLine, Field, useLoad, when, type View } from '../ui.ts';

type ApiSwitch = components['schemas']['AdminApiSwitch'];
type Plan = components['schemas']['AdminPlan'];

/** What an inactive plan does, as /v1 and the key routes answer then (docs/errors.md). */
const INACTIVE =
  'Every /v1 request is answered 403 premium_required, and no API key can be created or rolled.';

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
          : 'The API is disabled: every /v1 request is answered 404 not_found.',
    ),
    enabled === undefined
      ? null
      : enabled
        ? h(ConfirmButton, {
            label: 'Disable API',
            title: 'Disable the API?',
            consequence:
              'Every /v1 request is answered 404 not_found from the next one on, and open event ' +
              'streams end, until you enable it again. Bots cannot tell it from a wrong address.',
            onConfirm: () => flip(false),
          })
        : h('button', { type: 'button', onClick: () => flip(true) }, 'Enable API'),
    h(ErrorLine, { text: error ?? state.error }),
  );
}

/** Whether a plan with these fields is active now: premium on and its end not reached. */
function activeAt(premium: boolean, until: string): boolean {
  if (!premium) return false;
  if (until.trim() === '') return true;
  const end = Date.parse(until.trim());
  return Number.isNaN(end) || end > Date.now();
}

function planSummary(plan: Plan): string {
  if (plan.active) return `Premium, active${plan.until ? ` until ${when(plan.until)}` : ', no end date'}.`;
  if (plan.premium) return `Inactive: premium ended ${when(plan.until)}. ${INACTIVE}`;
  return `Inactive: no premium plan. ${INACTIVE}`;
}

function PlanCard(): View {
  const state = useLoad(() => api<Plan>('GET', '/plan'));
  if (state.value === undefined) {
    return h(
      'section',
      { class: 'card' },
      h('h2', null, 'Plan'),
      state.error === undefined ? h('p', null, 'Loading…') : h(ErrorLine, { text: state.error }),
    );
  }
  return h(PlanForm, { key: JSON.stringify(state.value), plan: state.value, onSaved: state.reload });
}

function PlanForm(props: { plan: Plan; onSaved: () => void }): View {
  const { plan } = props;
  const [premium, setPremium] = useState(plan.premium);
  const [until, setUntil] = useState(plan.until ?? '');
  const [features, setFeatures] = useState(plan.features.join(', '));
  const [error, setError] = useState<string | undefined>(undefined);
  const save = () => {
    const names = features
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const body = { premium, until: until.trim() === '' ? null : until.trim(), features: names };
    void attempt(() => api('PUT', '/plan', body), setError).then((saved) => saved && props.onSaved());
  };
  const turnsOff = plan.active && !activeAt(premium, until);
  const text = (event: Event) => (event.target as HTMLInputElement).value;
  return h(
    'section',
    { class: 'card' },
    h('h2', null, 'Plan'),
    h('p', { 'data-testid': 'plan-state', class: plan.active ? undefined : 'bad' }, planSummary(plan)),
    h(
      'form',
      {
        'aria-label': 'Plan',
        onSubmit: (event: Event) => {
          event.preventDefault();
          if (!turnsOff) save();
        },
      },
      h(
        'label',
        { class: 'check' },
        h('input', {
          type: 'checkbox',
          name: 'premium',
          checked: premium,
          onChange: (event: Event) => setPremium((event.target as HTMLInputElement).checked),
        }),
        'Premium',
      ),
      h(
        Field,
        { label: 'Until (ISO date, empty for no end)' },
        h('input', { name: 'until', value: until, onInput: (e: Event) => setUntil(text(e)) }),
      ),
      h(
        Field,
        { label: 'Features (comma-separated)' },
        h('input', { name: 'features', value: features, onInput: (e: Event) => setFeatures(text(e)) }),
      ),
      turnsOff
        ? h(ConfirmButton, {
            label: 'Save plan',
            title: 'Save a plan that turns /v1 off?',
            consequence: `With this plan premium is not active. ${INACTIVE}`,
            onConfirm: save,
          })
        : h('button', { type: 'submit' }, 'Save plan'),
    ),
    h(ErrorLine, { text: error }),
  );
}
