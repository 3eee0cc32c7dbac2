/**
 * The changes an operator or a key makes to the registry, as pure functions over the list in
 * webhooks.json: adding an endpoint (within the caps), editing what it receives and its note,
 * re-enabling one and rotating its secret. The CLI (with no daemon), the
 * running daemon's WebhookService (for /v1 and the admin API) and every future caller apply the
 * same function inside `updateEndpoints`, so the rules live once. A refusal is an
 * EndpointChangeError with a stable code the caller turns into its own error (a CLI message, the
 * API's envelope).
 */
import {
  MAX_ENDPOINTS,
  MAX_ENDPOINTS_PER_KEY,
  MAX_PREVIOUS_SECRETS,
  type EventSelector,
  type WebhookEndpoint,
} from './endpoint-file.ts';
import { generateSecret } from './signing.ts';

/** How long the old secret keeps signing after a rotation when the caller names no overlap. */
export const DEFAULT_SECRET_OVERLAP_SEC = 86_400;
/**
 * The longest overlap: a week covers a receiver deployed weekly; longer leaves a secret the
 * operator meant to retire (perhaps leaked) working for longer than anyone remembers.
 */
export const MAX_SECRET_OVERLAP_SEC = 7 * 86_400;

export type EndpointChangeCode = 'not_found' | 'owner_gone' | 'registry_full';

export class EndpointChangeError extends Error {
  constructor(
    readonly code: EndpointChangeCode,
    message: string,
    /** The endpoint the change was refused for; null when none is (a full registry). */
    readonly id: string | null = null,
  ) {
    super(message);
  }
}

/**
 * The list with `endpoint` added: at most MAX_ENDPOINTS in all, and MAX_ENDPOINTS_PER_KEY for
 * the key that registers it (the operator's are not counted per key); `registry_full` past one.
 */
export function addEndpoint(
  current: readonly WebhookEndpoint[],
  endpoint: WebhookEndpoint,
): readonly WebhookEndpoint[] {
  if (current.length >= MAX_ENDPOINTS) {
    throw new EndpointChangeError('registry_full', `This server already has ${MAX_ENDPOINTS} webhooks.`);
  }
  const byKey = current.filter((other) => other.createdBy === endpoint.createdBy);
  if (endpoint.createdBy !== null && byKey.length >= MAX_ENDPOINTS_PER_KEY) {
    throw new EndpointChangeError('registry_full', `This key already has ${MAX_ENDPOINTS_PER_KEY} webhooks.`);
  }
  return [...current, endpoint];
}

/** The list with one endpoint changed by `change`; a missing id is `not_found`. */
function changeOne(
  current: readonly WebhookEndpoint[],
  id: string,
  change: (endpoint: WebhookEndpoint) => WebhookEndpoint,
): readonly WebhookEndpoint[] {
  if (!current.some((endpoint) => endpoint.id === id)) {
    throw new EndpointChangeError('not_found', `No webhook ${id}.`, id);
  }
  return current.map((endpoint) => (endpoint.id === id ? change(endpoint) : endpoint));
}

/**
 * Re-enables a disabled endpoint: it resumes with the message it stopped on, and its failure run
 * counts from now. An endpoint disabled because its key no longer works (`key_revoked`,
 * `key_expired`) stays disabled: the key cannot own it any more (`owner_gone`), and so does one
 * disabled for another reason whose key has stopped working since (`ownerProblem`). An enabled
 * one is left as it is (the update reports no change).
 */
export function enableEndpoint(
  current: readonly WebhookEndpoint[],
  id: string,
  now: Date,
  ownerProblem: (endpoint: WebhookEndpoint) => string | null = () => null,
): readonly WebhookEndpoint[] {
  return changeOne(current, id, (endpoint) => {
    if (endpoint.disabledAt === null) return endpoint;
    const gone = endpoint.disabledReason?.startsWith('key_')
      ? endpoint.disabledReason
      : ownerProblem(endpoint);
    if (gone) {
      throw new EndpointChangeError(
        'owner_gone',
        `Webhook ${id} was disabled because the API key that registered it no longer works (${gone}); remove it instead.`,
        id,
      );
    }
    return { ...endpoint, disabledAt: null, disabledReason: null, enabledAt: now };
  });
}

/** `disabled_reason` of an endpoint the operator disabled (`webhooks disable`), not a failure. */
export const OPERATOR_DISABLED = 'operator';

/**
 * Disables an endpoint at the operator's word: deliveries stop until it is enabled, and it keeps
 * its position, so it then resumes with the message it stopped on, as after a failure. A
 * disabled one is left as it is, with its reason (the update reports no change).
 */
export function disableEndpoint(
  current: readonly WebhookEndpoint[],
  id: string,
  now: Date,
): readonly WebhookEndpoint[] {
  return changeOne(current, id, (endpoint) =>
    endpoint.disabledAt === null
      ? { ...endpoint, disabledAt: now, disabledReason: OPERATOR_DISABLED }
      : endpoint,
  );
}

/** What an edit may change: the events an endpoint receives and the operator's note about it. */
export interface EndpointEdit {
  readonly events?: readonly EventSelector[];
  /** null clears it. */
  readonly description?: string | null;
}

/**
 * Changes an endpoint's events or description. Its URL, format and owner stay: they decide where
 * deliveries go and who may see them, so a different receiver is a new endpoint. Its position
 * stays too: it receives the new selection from the next event it has not been sent.
 */
export function editEndpoint(
  current: readonly WebhookEndpoint[],
  id: string,
  edit: EndpointEdit,
): readonly WebhookEndpoint[] {
  return changeOne(current, id, (endpoint) => ({
    ...endpoint,
    ...(edit.events === undefined ? {} : { events: edit.events }),
    ...(edit.description === undefined ? {} : { description: edit.description }),
  }));
}

export interface Rotation {
  readonly endpoints: readonly WebhookEndpoint[];
  /** The endpoint as rotated, carrying its new secret. */
  readonly rotated: WebhookEndpoint;
}

/**
 * Gives the endpoint a new secret; the one it replaces keeps signing beside it for
 * `overlapSec` seconds (0: stops at once). Secrets whose overlap has ended are dropped, and at
 * most MAX_PREVIOUS_SECRETS stay (the oldest goes first), so a rotation never widens the set
 * of secrets that sign without bound. `overlapSec` is checked by the caller's schema; the bound
 * is enforced here again because this is the one place every caller passes through.
 */
export function rotateSecret(
  current: readonly WebhookEndpoint[],
  id: string,
  overlapSec: number,
  now: Date,
): Rotation {
  if (!Number.isInteger(overlapSec) || overlapSec < 0 || overlapSec > MAX_SECRET_OVERLAP_SEC) {
    throw new RangeError(`overlap must be an integer from 0 to ${MAX_SECRET_OVERLAP_SEC} seconds`);
  }
  let rotated: WebhookEndpoint | undefined;
  const endpoints = changeOne(current, id, (endpoint) => {
    const stillSigning = endpoint.previousSecrets.filter((previous) => previous.until > now);
    const replaced =
      overlapSec > 0 ? [{ secret: endpoint.secret, until: new Date(now.getTime() + overlapSec * 1000) }] : [];
    rotated = {
      ...endpoint,
      secret: generateSecret(),
      previousSecrets: [...replaced, ...stillSigning].slice(0, MAX_PREVIOUS_SECRETS),
    };
    return rotated;
  });
  return { endpoints, rotated: rotated as WebhookEndpoint };
}
