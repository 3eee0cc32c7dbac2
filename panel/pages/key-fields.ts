/**
 * The fields the key forms share (create and edit, panel/pages/key-forms.ts): the name with its
 * limit said before sending, the allowed addresses with what each will be saved as, and the
 * admin API's refusals of a key in words a person reads.
 */
import { h } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { normaliseAllowIp } from 'modgate:allow-ip';
import { ApiFailure, describe } from '../api.ts';
import type { View } from '../ui.ts';

/** What the name field holds wrong, or undefined when it may be sent. */
export function nameProblem(name: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed === '') return 'Give the key a name.';
  if (trimmed.length > MODGATE_KEY_NAME_MAX_LENGTH) {
    return `A key name is at most ${MODGATE_KEY_NAME_MAX_LENGTH} characters; this one is ${trimmed.length}.`;
  }
  return undefined;
}

/** The name field; the whole text is kept (never cut at the limit), and a long one is refused here. */
export function NameField(props: { value: string; onInput: (value: string) => void }): View {
  const input = useRef<HTMLInputElement>(null);
  // Opening a form moves focus into it, so a keyboard or screen-reader user lands where they type.
  useEffect(() => input.current?.focus(), []);
  const problem =
    props.value.trim().length > MODGATE_KEY_NAME_MAX_LENGTH ? nameProblem(props.value) : undefined;
  return h(
    'div',
    { class: 'field' },
    h('label', { for: 'key-name' }, 'Name'),
    h('input', {
      id: 'key-name',
      ref: input,
      name: 'name',
      value: props.value,
      'aria-invalid': problem === undefined ? undefined : 'true',
      'aria-describedby': problem === undefined ? undefined : 'key-name-problem',
      onInput: (event: Event) => props.onInput((event.target as HTMLInputElement).value),
    }),
    problem === undefined ? null : h('span', { id: 'key-name-problem', class: 'error' }, problem),
  );
}

/** One allowlist entry as typed, and what the daemon will store (null: it refuses it). */
interface Entry {
  typed: string;
  saved: string | null;
}

export function addressEntries(text: string): Entry[] {
  return text
    .split(/[\s,]+/)
    .filter((typed) => typed !== '')
    .map((typed) => ({ typed, saved: normaliseAllowIp(typed) }));
}

/** The allowlist's entries to send, or the sentence saying which ones cannot be. */
export function addressProblem(text: string): string | undefined {
  const wrong = addressEntries(text).filter((entry) => entry.saved === null);
  if (wrong.length === 0) return undefined;
  return (
    `Not an IP address or CIDR range: ${wrong.map((entry) => entry.typed).join(', ')} ` +
    '(for example 203.0.113.7 or 10.0.0.0/8).'
  );
}

/**
 * The allowlist field, saying under it what each entry will be saved as when that differs from
 * what was typed (`192.168.1.5/24` → `192.168.1.0/24`), so nothing is changed silently.
 */
export function AddressField(props: { value: string; onInput: (value: string) => void }): View {
  const changed = addressEntries(props.value).filter(
    (entry) => entry.saved !== null && entry.saved !== entry.typed,
  );
  const problem = addressProblem(props.value);
  return h(
    'div',
    { class: 'field' },
    h(
      'label',
      { for: 'key-addresses' },
      'Allowed addresses (IP addresses or CIDR ranges, one per line; empty for any)',
    ),
    h('textarea', {
      id: 'key-addresses',
      name: 'allow_ips',
      rows: 2,
      value: props.value,
      'aria-invalid': problem === undefined ? undefined : 'true',
      'aria-describedby': 'key-address-preview',
      onInput: (event: Event) => props.onInput((event.target as HTMLTextAreaElement).value),
    }),
    h(
      'span',
      { id: 'key-address-preview', class: 'address-preview', 'aria-live': 'polite' },
      problem === undefined ? null : h('span', { class: 'error' }, problem),
      changed.map((entry) =>
        h(
          'span',
          { key: entry.typed, class: 'hint' },
          `${entry.typed} will be saved as ${entry.saved ?? ''}`,
        ),
      ),
    ),
  );
}

/** The saved form of every entry, duplicates once, as the daemon keeps them. */
export function savedAddresses(text: string): string[] {
  return [...new Set(addressEntries(text).map((entry) => entry.saved ?? entry.typed))];
}

/** The body fields the forms name, as a person calls them. */
const FIELD_WORDS: Record<string, string> = {
  name: 'Name',
  scopes: 'Scopes',
  allow_ips: 'Allowed addresses',
  expires_in: 'Expires',
  expires_at: 'Expires',
  expire_old_in: 'Old key stops',
};

/** A key request's refusal in words a person reads, not the API client's. */
export function keyFailureInWords(error: unknown): string {
  if (!(error instanceof ApiFailure)) return describe(error);
  switch (error.code) {
    case 'premium_required':
      return 'This server has no active premium plan, so no key can be created or rolled. Turn premium on in Plan.';
    case 'not_found':
      return 'This key no longer exists: it may have been removed by someone else. The list is reloaded.';
    case 'network':
      return 'The daemon did not answer. Check that it is running, then try again.';
    case 'validation_error':
      return validationInWords(error) ?? `The daemon refused this: ${error.message}`;
    default:
      return `The daemon refused this: ${error.message}`;
  }
}

function validationInWords(error: ApiFailure): string | undefined {
  const errors = (error.details as { errors?: { path?: unknown; message?: unknown }[] } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  return errors
    .map((entry) => {
      const field = String(entry.path ?? '').split('.')[0] ?? '';
      return `${FIELD_WORDS[field] ?? 'The request'}: ${String(entry.message ?? 'not accepted')}.`;
    })
    .join(' ');
}
