/**
 * `modgate webhooks add|list|remove|enable|rotate-secret|deliveries`: the operator's side of the
 * webhook registry (webhooks.json, see daemon/events/webhooks/). With a daemon running they go
 * through its admin socket (/admin/v1/webhooks: every change acts at once, and the list and
 * deliveries are the daemon's own); without one they read and write the files through the same
 * rules (cli/admin-client.ts). Output, `--json` shapes and exit codes are the same either way. A
 * secret is printed once, by `add` or `rotate-secret`; nothing else prints it.
 */
import { InvalidArgumentError, type Command } from 'commander';
import {
  parseEventSelectors,
  readEndpoints,
  updateEndpoints,
  WEBHOOK_FORMATS,
  WEBHOOK_ID_PATTERN,
  newEndpoint,
  type EventSelector,
  type NewEndpoint,
  type WebhookEndpoint,
  type WebhookFormat,
} from '../daemon/events/webhooks/endpoint-file.ts';
import {
  addEndpoint,
  DEFAULT_SECRET_OVERLAP_SEC,
  EndpointChangeError,
  enableEndpoint,
  MAX_SECRET_OVERLAP_SEC,
  rotateSecret,
} from '../daemon/events/webhooks/endpoint-changes.ts';
import { lastStoredEventId } from '../daemon/events/webhooks/log-end.ts';
import { readOutbox } from '../daemon/events/webhooks/outbox-journal.ts';
import { checkWebhookUrl } from '../daemon/events/webhooks/url-policy.ts';
import {
  createdView,
  endpointView,
  recentAttempts,
  rotatedView,
  type EndpointView,
} from '../daemon/events/webhooks/views.ts';
import { actOnDataDir, type AdminClient, type ErrorNames } from './admin-client.ts';
import {
  attemptsFromAnswer,
  unexpectedAnswer,
  webhookViewFromAnswer,
  webhookViewsFromAnswer,
} from './admin-answers.ts';
import { CliError, UsageError } from './errors.ts';
import { formatTable } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { parseDuration, withDataDirOption } from './options.ts';

interface AddFlags {
  dataDir?: string;
  url: string;
  events: EventSelector[];
  format: WebhookFormat;
  description?: string;
  allowHttp?: boolean;
  json?: boolean;
}

export function registerWebhooksCommands(program: Command, io: CliIo): void {
  const webhooks = program
    .command('webhooks')
    .description('register endpoints that receive events as signed webhooks (or Discord messages)');

  withDataDirOption(webhooks.command('add').description('register an endpoint; prints its secret once'))
    .requiredOption('--url <url>', 'https URL (plain http only to loopback, unless --allow-http)')
    .requiredOption('--events <types>', 'comma list of event types, or all', parseEvents)
    .option('--format <format>', `payload format: ${WEBHOOK_FORMATS.join(' or ')}`, parseFormat, 'standard')
    .option('--description <text>', 'a note for the operator (at most 200 characters)')
    .option('--allow-http', 'allow plain http to a non-loopback host (events travel unencrypted)')
    .option('--json', 'print one JSON object')
    .action(async (flags: AddFlags) => add(flags, io));

  withDataDirOption(webhooks.command('list').description('list endpoints with their status (never secrets)'))
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const views = await actOnDataDir(flags, io, {
        daemon: async (admin) =>
          webhookViewsFromAnswer((await admin.send({ method: 'GET', path: '/webhooks' })).body),
        offline: (dataDir) => listViews(dataDir.path),
      });
      if (flags.json) printJson(io, { webhooks: views });
      else printLines(io, ...listLines(views));
    });

  withDataDirOption(webhooks.command('remove').description('remove an endpoint; deliveries to it stop'))
    .argument('<id>', 'the endpoint id shown by webhooks list', parseId)
    .action(async (id: string, flags: { dataDir?: string }) => {
      await actOnDataDir(flags, io, {
        daemon: async (admin, dataDir) => {
          await admin.send({ method: 'DELETE', path: `/webhooks/${id}` }, namesFor(id, dataDir.path));
        },
        offline: async ({ path: dir }) => {
          await updateEndpoints(dir, (current) => withEndpoint(current, id, dir).filter((e) => e.id !== id));
        },
      });
      printLines(io, `Removed webhook ${id}.`);
    });

  withDataDirOption(
    webhooks.command('enable').description('re-enable a disabled endpoint; it resumes where it stopped'),
  )
    .argument('<id>', 'the endpoint id shown by webhooks list', parseId)
    .action(async (id: string, flags: { dataDir?: string }) => {
      const enabled = await actOnDataDir(flags, io, {
        daemon: (admin, dataDir) =>
          enableThroughDaemon(admin, id, {
            ...namesFor(id, dataDir.path),
            // The only conflict: its key no longer works (owner_gone); as offline, name the way out.
            conflict: (message) => new CliError(`${message} (modgate webhooks remove ${id})`),
          }),
        offline: async ({ path: dir }) => {
          const update = await updateEndpoints(dir, (current) =>
            changed(() => enableEndpoint(withEndpoint(current, id, dir), id, io.now())),
          );
          return update.changed;
        },
      });
      printLines(io, enabled ? `Enabled webhook ${id}.` : `Webhook ${id} is already enabled.`);
    });

  withDataDirOption(
    webhooks
      .command('rotate-secret')
      .description('give an endpoint a new secret, printed once; the old one keeps signing for the overlap'),
  )
    .argument('<id>', 'the endpoint id shown by webhooks list', parseId)
    .option(
      '--overlap <duration>',
      `how long the old secret still signs beside the new one: 0, or up to ${MAX_SECRET_OVERLAP_SEC / 86_400}d (e.g. 12h)`,
      parseOverlap,
      DEFAULT_SECRET_OVERLAP_SEC,
    )
    .option('--json', 'print one JSON object')
    .action(async (id: string, flags: { dataDir?: string; overlap: number; json?: boolean }) =>
      rotate(id, flags, io),
    );

  withDataDirOption(
    webhooks.command('deliveries').description('recent delivery attempts: status, latency, outcome'),
  )
    .argument('<id>', 'the endpoint id shown by webhooks list', parseId)
    .option('--limit <n>', 'how many, newest first (1 to 100)', parseLimit, 20)
    .option('--json', 'print one JSON object')
    .action(async (id: string, flags: { dataDir?: string; limit: number; json?: boolean }) => {
      const attempts = await actOnDataDir(flags, io, {
        daemon: async (admin, dataDir) => {
          const path = `/webhooks/${id}/deliveries?limit=${flags.limit}`;
          return attemptsFromAnswer(
            (await admin.send({ method: 'GET', path }, namesFor(id, dataDir.path))).body,
          );
        },
        offline: async ({ path: dir }) => {
          withEndpoint(await readEndpoints(dir), id, dir);
          const { state } = await readOutbox(dir);
          return recentAttempts(state.has(id) ? state.get(id) : undefined, flags.limit);
        },
      });
      if (flags.json) printJson(io, { data: attempts });
      else printLines(io, ...deliveryLines(attempts));
    });
}

async function add(flags: AddFlags, io: CliIo): Promise<void> {
  const allowHttp = flags.allowHttp === true;
  const checked = checkWebhookUrl(flags.url, { allowHttp });
  if ('error' in checked) throw new UsageError(`--url: ${checked.error}`);
  const description = flags.description?.trim() || null;
  if (description !== null && description.length > 200)
    throw new UsageError('--description: at most 200 characters');
  const fields = {
    url: checked.url.href,
    events: flags.events,
    format: flags.format,
    allowHttp,
    description,
  };
  const created = await actOnDataDir(flags, io, {
    daemon: async (admin) => {
      const body = {
        url: fields.url,
        events: fields.events,
        format: fields.format,
        ...(description === null ? {} : { description }),
        ...(allowHttp ? { allow_http: true } : {}),
      };
      const full = (message: string) => new CliError(message); // as addEndpoint's refusal offline
      const answer = await admin.send({ method: 'POST', path: '/webhooks', body }, { conflict: full });
      return createdFromAnswer(answer.body);
    },
    offline: ({ path: dir }) => addOffline(dir, fields, io.now()),
  });
  if (flags.json) {
    printJson(io, created);
    return;
  }
  printLines(
    io,
    `Created webhook ${created.id} → ${created.url} (${created.format}, events: ${created.events.join(',')})`,
    `Secret (shown only now; verify the webhook-signature header with it):`,
    created.secret,
  );
}

async function addOffline(
  dir: string,
  fields: Pick<NewEndpoint, 'url' | 'events' | 'format' | 'allowHttp' | 'description'>,
  now: Date,
): Promise<Created> {
  const endpoint = newEndpoint(
    {
      ...fields,
      sensitiveFields: true,
      createdBy: null,
      // It receives what happens from now on, not the log's backlog (docs/events.md).
      startAfter: await lastStoredEventId(dir),
    },
    now,
  );
  await updateEndpoints(dir, (current) => changed(() => addEndpoint(current, endpoint)));
  return createdView(endpoint);
}

async function rotate(
  id: string,
  flags: { dataDir?: string; overlap: number; json?: boolean },
  io: CliIo,
): Promise<void> {
  const view = await actOnDataDir(flags, io, {
    daemon: async (admin, dataDir) => {
      const call = {
        method: 'POST',
        path: `/webhooks/${id}/rotate-secret`,
        body: { overlap: flags.overlap },
      } as const;
      return createdFromAnswer((await admin.send(call, namesFor(id, dataDir.path))).body);
    },
    offline: async ({ path: dir }) => {
      let rotated: WebhookEndpoint | undefined;
      await updateEndpoints(dir, (current) =>
        changed(() => {
          const rotation = rotateSecret(withEndpoint(current, id, dir), id, flags.overlap, io.now());
          rotated = rotation.rotated;
          return rotation.endpoints;
        }),
      );
      const { state } = await readOutbox(dir);
      return rotatedView(rotated as WebhookEndpoint, state.has(id) ? state.get(id) : undefined, io.now());
    },
  });
  if (flags.json) {
    printJson(io, view);
    return;
  }
  printLines(
    io,
    `Rotated the secret of webhook ${id}.`,
    view.previous_secret_until === null
      ? 'The old secret no longer signs.'
      : `Until ${view.previous_secret_until} every delivery is signed with both the old and the new secret.`,
    `New secret (shown only now; verify the webhook-signature header with it):`,
    view.secret,
  );
}

/** An endpoint as created or rotated: its view and its secret, shown once. */
type Created = EndpointView & { secret: string };

function createdFromAnswer(body: unknown): Created {
  const view = webhookViewFromAnswer(body);
  const secret = (body as { secret?: unknown }).secret;
  if (typeof secret !== 'string') throw unexpectedAnswer('/webhooks');
  return { ...view, secret };
}

/** POST /webhooks/{id}/enable; true when it was disabled before. */
async function enableThroughDaemon(admin: AdminClient, id: string, names: ErrorNames): Promise<boolean> {
  const before = webhookViewFromAnswer(
    (await admin.send({ method: 'GET', path: `/webhooks/${id}` }, names)).body,
  );
  await admin.send({ method: 'POST', path: `/webhooks/${id}/enable` }, names);
  return before.status === 'disabled';
}

/** The daemon's refusals, named as the offline path names them (the same message, the same code). */
function namesFor(id: string, dir: string): ErrorNames {
  return { not_found: () => noSuchWebhook(id, dir) };
}

/** An endpoint change refused by its rules (endpoint-changes.ts) is the operator's error. */
function changed<T>(change: () => T): T {
  try {
    return change();
  } catch (error) {
    if (!(error instanceof EndpointChangeError)) throw error;
    // The API says "remove it"; here is the command that does.
    const remedy = error.code === 'owner_gone' ? ` (modgate webhooks remove ${error.id})` : '';
    throw new CliError(`${error.message}${remedy}`);
  }
}

async function listViews(dir: string): Promise<EndpointView[]> {
  const endpoints = await readEndpoints(dir);
  const { state } = await readOutbox(dir);
  return endpoints.map((endpoint) =>
    endpointView(endpoint, state.has(endpoint.id) ? state.get(endpoint.id) : undefined),
  );
}

function withEndpoint(
  current: readonly WebhookEndpoint[],
  id: string,
  dir: string,
): readonly WebhookEndpoint[] {
  if (!current.some((endpoint) => endpoint.id === id)) throw noSuchWebhook(id, dir);
  return current;
}

function noSuchWebhook(id: string, dir: string): CliError {
  return new CliError(`no webhook with id ${id} in ${dir} (see \`modgate webhooks list\`)`);
}

function listLines(views: readonly EndpointView[]): string[] {
  if (views.length === 0) return ['No webhooks yet; add one with `modgate webhooks add`.'];
  const rows = views.map((view) => [view.id, statusText(view), view.format, view.url, view.events.join(',')]);
  return formatTable([['ID', 'STATUS', 'FORMAT', 'URL', 'EVENTS'], ...rows]);
}

function statusText(view: EndpointView): string {
  if (view.status === 'disabled') return `DISABLED since ${view.disabled_at} (${view.disabled_reason})`;
  if (view.status === 'retrying') return `retrying (${view.failing_attempts} failed attempts)`;
  return 'active';
}

function deliveryLines(attempts: ReturnType<typeof recentAttempts>): string[] {
  if (attempts.length === 0) return ['No delivery attempts yet.'];
  const rows = attempts.map((a) => [
    a.at,
    a.first_event_id === a.last_event_id
      ? String(a.first_event_id)
      : `${a.first_event_id}-${a.last_event_id}`,
    a.attempt === null ? '-' : String(a.attempt),
    a.outcome,
    a.status === null ? '-' : String(a.status),
    a.latency_ms === null ? '-' : `${a.latency_ms} ms`,
    a.error ?? '',
  ]);
  return formatTable([['AT', 'EVENTS', 'ATTEMPT', 'OUTCOME', 'STATUS', 'LATENCY', 'ERROR'], ...rows]);
}

function parseEvents(value: string): EventSelector[] {
  const parsed = parseEventSelectors(
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );
  if ('error' in parsed) throw new InvalidArgumentError(parsed.error);
  return parsed;
}

function parseFormat(value: string): WebhookFormat {
  if (!(WEBHOOK_FORMATS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected ${WEBHOOK_FORMATS.join(' or ')}`);
  }
  return value as WebhookFormat;
}

function parseId(value: string): string {
  if (!WEBHOOK_ID_PATTERN.test(value))
    throw new InvalidArgumentError('a webhook id is wh_ and 16 characters a-z0-9');
  return value;
}

/** `0` (the old secret stops at once) or a duration (`12h`, `2d`) of at most the maximum overlap. */
function parseOverlap(value: string): number {
  if (value.trim() === '0') return 0;
  const seconds = parseDuration(value) / 1000;
  if (seconds > MAX_SECRET_OVERLAP_SEC) {
    throw new InvalidArgumentError(`at most ${MAX_SECRET_OVERLAP_SEC / 86_400}d`);
  }
  return seconds;
}

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new InvalidArgumentError('an integer from 1 to 100');
  return limit;
}
