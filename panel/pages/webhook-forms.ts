/**
 * The Webhooks page's forms and its secret card: adding an endpoint (URL, the events it receives
 * chosen from the catalogue with what each means, a description), editing one (events,
 * description: PATCH /admin/v1/webhooks/{id}), and a signing secret shown once with a Copy
 * button. The daemon's refusal of a URL (its own listeners, a network not in `[webhooks]
 * allow_networks`) is shown under the URL field in the envelope's words.
 */
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api, ApiFailure } from '../api.ts';
import { ErrorLine, Field, when, type View } from '../ui.ts';

export type Webhook = components['schemas']['AdminWebhookEndpoint'];
type Created = components['schemas']['WebhookEndpointCreated'];

/** A secret to show once, with the endpoint it signs for. */
export interface ShownSecret {
  url: string;
  secret: string;
  /** After a rotation: until when the old secret still signs; null when it stopped at once. */
  previousUntil?: string | null;
}

const ALL = '*';

/** The payload formats (the daemon's WEBHOOK_FORMATS), each with what it is for. */
const FORMATS: readonly (readonly [Webhook['format'], string])[] = [
  ['standard', 'Standard Webhooks JSON, signed (a bot)'],
  ['discord', 'Discord messages (a Discord channel webhook)'],
];

/** What a refusal says: the envelope's message, for a person, without the code. */
export function refusalText(error: unknown): string {
  return error instanceof ApiFailure ? error.message : String(error);
}

/** The message of a refusal about the URL field, or undefined when it is about something else. */
function urlRefusal(error: unknown): string | undefined {
  if (!(error instanceof ApiFailure) || error.code !== 'validation_error') return undefined;
  if (!error.message.startsWith('Invalid body.url')) return undefined;
  return error.message.replace(/^Invalid body\.url:\s*/, 'This URL is refused: ');
}

interface FormProps {
  /** The endpoint being edited; none when adding. */
  editing?: Webhook;
  onSaved: (secret: ShownSecret | undefined) => void;
  onCancel: () => void;
}

/** Add (URL, events, description) or, given `editing`, edit (events, description). */
export function WebhookForm(props: FormProps): View {
  const { editing } = props;
  const [urlError, setUrlError] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  // Opening the form moves focus into it, so a keyboard user carries on from there.
  useEffect(() => heading.current?.focus(), []);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const chosen = form.getAll('event').map(String);
    if (chosen.length === 0) {
      setError('Choose at least one event, or All events.');
      return;
    }
    const events = chosen.includes(ALL) ? [ALL] : chosen;
    const description = String(form.get('description') ?? '').trim();
    const added = { url: String(form.get('url') ?? '').trim(), format: String(form.get('format') ?? '') };
    setError(undefined);
    setUrlError(undefined);
    void save(editing, added, events, description).then(props.onSaved, (failure: unknown) => {
      const aboutUrl = urlRefusal(failure);
      if (aboutUrl !== undefined) setUrlError(aboutUrl);
      else setError(refusalText(failure));
    });
  };
  const title = editing ? `Edit webhook ${editing.url}` : 'Add a webhook';
  return h(
    'form',
    { class: 'card webhook-form', onSubmit: submit, 'aria-label': title, noValidate: true },
    h('h2', { ref: heading, tabIndex: -1 }, title),
    editing ? null : h(UrlField, { error: urlError }),
    editing
      ? null
      : h(
          Field,
          { label: 'Format' },
          h(
            'select',
            { name: 'format' },
            FORMATS.map(([value, text]) => h('option', { key: value, value }, text)),
          ),
        ),
    h(EventPicker, { selected: editing?.events ?? [] }),
    h(
      Field,
      { label: 'Description (optional, at most 200 characters)' },
      h('input', { name: 'description', maxLength: 200, defaultValue: editing?.description ?? '' }),
    ),
    h(ErrorLine, { text: error }),
    h(
      'div',
      { class: 'webhook-actions' },
      h('button', { type: 'submit' }, editing ? 'Save changes' : 'Add webhook'),
      h('button', { type: 'button', class: 'quiet', onClick: props.onCancel }, 'Cancel'),
    ),
  );
}

async function save(
  editing: Webhook | undefined,
  added: { url: string; format: string },
  events: string[],
  description: string,
): Promise<ShownSecret | undefined> {
  if (editing) {
    const body = { events, description: description === '' ? null : description };
    await api('PATCH', `/webhooks/${encodeURIComponent(editing.id)}`, body);
    return undefined;
  }
  const body = { ...added, events, ...(description === '' ? {} : { description }) };
  const created = await api<Created>('POST', '/webhooks', body);
  return { url: created.url, secret: created.secret };
}

function UrlField(props: { error: string | undefined }): View {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: 'webhook-url' }, 'URL'),
    h('input', {
      id: 'webhook-url',
      name: 'url',
      type: 'url',
      required: true,
      placeholder: 'https://bot.example/hook',
      'aria-invalid': props.error === undefined ? undefined : 'true',
      'aria-describedby': props.error === undefined ? 'webhook-url-hint' : 'webhook-url-error',
    }),
    props.error === undefined
      ? h(
          'p',
          { id: 'webhook-url-hint', class: 'hint' },
          'https anywhere public; plain http to this machine (loopback); other private networks only when [webhooks] allow_networks lists them.',
        )
      : h('p', { id: 'webhook-url-error', class: 'error', role: 'alert' }, props.error),
  );
}

/** Every event type with what it means, and "All events" (which takes types added later too). */
function EventPicker(props: { selected: readonly string[] }): View {
  const checked = (type: string) => props.selected.includes(type);
  const option = (type: string, label: string, about: string) =>
    h(
      'label',
      { key: type, class: 'event-option' },
      h('input', { type: 'checkbox', name: 'event', value: type, defaultChecked: checked(type) }),
      h('span', null, h('span', { class: 'mono' }, label), h('span', { class: 'hint' }, ` ${about}`)),
    );
  return h(
    'fieldset',
    { class: 'event-picker' },
    h('legend', null, 'Events it receives'),
    option(ALL, 'All events', 'every type below, and types added later'),
    MODGATE_EVENT_TYPES.map((type) => option(type, type, MODGATE_EVENT_SUMMARIES[type] ?? '')),
  );
}

/**
 * A signing secret, once: copied with the Copy button, or selected by hand where the browser
 * gives no clipboard (plain http to a host other than localhost). What happened is announced.
 */
export function NewSecret(props: { shown: ShownSecret; onDone: () => void }): View {
  const [status, setStatus] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [props.shown.secret]);
  const copy = () => {
    const done = () => setStatus('Copied to the clipboard.');
    const manual = () => setStatus('This browser did not copy it: select the secret above and copy it.');
    if (navigator.clipboard === undefined) manual();
    else navigator.clipboard.writeText(props.shown.secret).then(done, manual);
  };
  const { previousUntil } = props.shown;
  return h(
    'section',
    { class: 'card secret', 'aria-labelledby': 'new-secret-title' },
    h('h2', { id: 'new-secret-title', ref: heading, tabIndex: -1 }, `Signing secret of ${props.shown.url}`),
    h(
      'p',
      null,
      'Shown once: put it in your receiver now to verify the webhook-signature header. It cannot be shown again.',
    ),
    previousUntil
      ? h('p', null, `The old secret keeps signing beside it until ${when(previousUntil)}.`)
      : null,
    h('code', { 'data-testid': 'new-secret' }, props.shown.secret),
    h(
      'div',
      { class: 'webhook-actions' },
      h('button', { type: 'button', onClick: copy }, 'Copy'),
      h('button', { type: 'button', class: 'quiet', onClick: props.onDone }, 'Done'),
    ),
    h('p', { role: 'status', 'aria-live': 'polite', class: 'hint' }, status),
  );
}
