/**
 * webhooks.json: the registered webhook endpoints, in the data dir like keys.json (0600, written
 * atomically under the data dir lock). Created on the first `webhooks add`; a missing file means
 * no endpoints. The CLI and the daemon (API registrations, and disabling an endpoint that keeps
 * failing) both write it, always through updateEndpoints(), so neither loses the other's change.
 *
 * The secret is stored as is, unlike an API key: the daemon needs it to sign every delivery.
 * It is shown once, when the endpoint is created or its secret rotated; neither `webhooks list`
 * nor the API show it. A rotated-out secret stays in `previous_secrets` until its overlap ends
 * (endpoint-changes.ts), and signs beside the new one until then.
 */
import * as z from 'zod';
import { DataDir, WEBHOOK_FILES, type Update } from '../../store/data-dir.ts';
import { dateField, defineDataFile, nullableDateField } from '../../store/data-file.ts';
import { LOWER_ALPHANUMERIC, randomText } from '../../store/random-text.ts';
import { EVENT_TYPES, type EventType } from '../types.ts';
import { generateSecret, SECRET_PATTERN } from './signing.ts';

export const WEBHOOKS_FILE = WEBHOOK_FILES.endpoints;
/** How many endpoints one server may register: each is a delivery worker. */
export const MAX_ENDPOINTS = 50;
/** How many of them one API key may register, so one key cannot take the whole server's room. */
export const MAX_ENDPOINTS_PER_KEY = 10;
export const WEBHOOK_ID_PATTERN = /^wh_[a-z0-9]{16}$/;
/** `*` subscribes to every event type, including types added later. */
export const ALL_EVENTS = '*';

export const WEBHOOK_FORMATS = ['standard', 'discord'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
export type EventSelector = EventType | typeof ALL_EVENTS;

export interface WebhookEndpoint {
  readonly id: string;
  readonly url: string;
  readonly events: readonly EventSelector[];
  readonly format: WebhookFormat;
  readonly secret: string;
  /** Secrets rotated out that still sign until `until` (newest first, at most MAX_PREVIOUS_SECRETS). */
  readonly previousSecrets: readonly PreviousSecret[];
  /** Plain http to a non-loopback host was allowed by the operator (`--allow-http`). */
  readonly allowHttp: boolean;
  /**
   * Payloads keep the fields only `players:read_sensitive` may see (a player's IP): true when
   * the operator registered it, or the registering key had that scope (docs/events.md).
   */
  readonly sensitiveFields: boolean;
  readonly description: string | null;
  /** The API key that registered it; null when the operator did, with the CLI. */
  readonly createdBy: string | null;
  readonly createdAt: Date;
  /**
   * The event log's last id when it was registered: it receives only later events. 0 for
   * endpoints registered before this was recorded.
   */
  readonly startAfter: number;
  /** Creation or the last re-enable: a run of failures counts from here at the earliest. */
  readonly enabledAt: Date;
  readonly disabledAt: Date | null;
  readonly disabledReason: string | null;
}

export interface PreviousSecret {
  readonly secret: string;
  readonly until: Date;
}

/** Secrets rotated out and still in their overlap: a third rotation drops the oldest at once. */
export const MAX_PREVIOUS_SECRETS = 2;

const secretField = z.string().regex(SECRET_PATTERN, 'expected whsec_ and base64');

const recordSchema = z
  .object({
    id: z.string().regex(WEBHOOK_ID_PATTERN, 'expected wh_ and 16 characters a-z0-9'),
    url: z.string().min(1),
    events: z.array(z.enum([ALL_EVENTS, ...EVENT_TYPES])).min(1),
    format: z.enum(WEBHOOK_FORMATS),
    secret: secretField,
    previous_secrets: z
      .array(z.object({ secret: secretField, until: dateField }))
      .max(MAX_PREVIOUS_SECRETS)
      .default([]),
    allow_http: z.boolean(),
    sensitive_fields: z.boolean(),
    description: z.string().max(200).nullable(),
    created_by: z.string().nullable(),
    created_at: dateField,
    start_after: z.number().int().min(0).default(0),
    enabled_at: dateField,
    disabled_at: nullableDateField,
    disabled_reason: z.string().nullable(),
  })
  .transform((file): WebhookEndpoint => ({
    id: file.id,
    url: file.url,
    events: file.events,
    format: file.format,
    secret: file.secret,
    previousSecrets: file.previous_secrets,
    allowHttp: file.allow_http,
    sensitiveFields: file.sensitive_fields,
    description: file.description,
    createdBy: file.created_by,
    createdAt: file.created_at,
    startAfter: file.start_after,
    enabledAt: file.enabled_at,
    disabledAt: file.disabled_at,
    disabledReason: file.disabled_reason,
  }));

export const webhooksFile = defineDataFile<readonly WebhookEndpoint[]>({
  name: WEBHOOKS_FILE,
  schema: z
    .object({ webhooks: z.array(recordSchema).max(MAX_ENDPOINTS) })
    .transform((file): readonly WebhookEndpoint[] => file.webhooks),
  serialize: (endpoints) => ({ webhooks: endpoints.map(serializeEndpoint) }),
  whenMissing: [],
});

function serializeEndpoint(endpoint: WebhookEndpoint): Record<string, unknown> {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: [...endpoint.events],
    format: endpoint.format,
    secret: endpoint.secret,
    previous_secrets: endpoint.previousSecrets.map((previous) => ({
      secret: previous.secret,
      until: previous.until.toISOString(),
    })),
    allow_http: endpoint.allowHttp,
    sensitive_fields: endpoint.sensitiveFields,
    description: endpoint.description,
    created_by: endpoint.createdBy,
    created_at: endpoint.createdAt.toISOString(),
    start_after: endpoint.startAfter,
    enabled_at: endpoint.enabledAt.toISOString(),
    disabled_at: endpoint.disabledAt?.toISOString() ?? null,
    disabled_reason: endpoint.disabledReason,
  };
}

/**
 * The endpoints; refuses a webhooks.json other users can read (it holds the secrets), as the data
 * dir check refuses every private file looser than 0600.
 */
export async function readEndpoints(dir: string): Promise<readonly WebhookEndpoint[]> {
  const dataDir = await DataDir.open(dir);
  return dataDir.read(webhooksFile);
}

/** Read-modify-write of webhooks.json under the data dir lock; `change` may throw to abort. */
export async function updateEndpoints(
  dir: string,
  change: (current: readonly WebhookEndpoint[]) => readonly WebhookEndpoint[],
): Promise<Update<readonly WebhookEndpoint[]>> {
  const dataDir = await DataDir.open(dir);
  return dataDir.update(webhooksFile, change);
}

export interface NewEndpoint {
  url: string;
  events: readonly EventSelector[];
  format: WebhookFormat;
  allowHttp: boolean;
  sensitiveFields: boolean;
  description: string | null;
  createdBy: string | null;
  /** The event log's last id now (EventLog.lastId(), or lastEventId() without a daemon). */
  startAfter: number;
}

export function newEndpoint(input: NewEndpoint, now: Date): WebhookEndpoint {
  return {
    ...input,
    id: `wh_${randomText(LOWER_ALPHANUMERIC, 16)}`,
    secret: generateSecret(),
    previousSecrets: [],
    createdAt: now,
    enabledAt: now,
    disabledAt: null,
    disabledReason: null,
  };
}

/** The secrets that sign a message sent at `now`: the current one, then those still overlapping. */
export function signingSecrets(endpoint: WebhookEndpoint, now: Date): string[] {
  const overlapping = endpoint.previousSecrets.filter((previous) => previous.until > now);
  return [endpoint.secret, ...overlapping.map((previous) => previous.secret)];
}

export function wantsEvent(endpoint: WebhookEndpoint, type: EventType): boolean {
  return endpoint.events.includes(ALL_EVENTS) || endpoint.events.includes(type);
}

/** `all` or `*` for every type; otherwise a comma list of known types, in catalogue order. */
export function parseEventSelectors(items: readonly string[]): EventSelector[] | { error: string } {
  if (items.length === 0) return { error: `give at least one event type, or all` };
  if (items.some((item) => item === 'all' || item === ALL_EVENTS)) return [ALL_EVENTS];
  const unknown = items.filter((item) => !(EVENT_TYPES as readonly string[]).includes(item));
  if (unknown.length > 0) {
    return {
      error: `unknown event type ${unknown.map((item) => JSON.stringify(item)).join(', ')}; valid: all, ${EVENT_TYPES.join(', ')}`,
    };
  }
  return EVENT_TYPES.filter((type) => items.includes(type));
}
