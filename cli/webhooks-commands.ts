/**
 * `modgate webhooks add|list|edit|remove|enable|disable|rotate-secret|deliveries`: the operator's side of the
 * webhook registry (webhooks.json, see daemon/events/webhooks/). Each is a request to
 * /admin/v1/webhooks, sent to the running daemon (every change acts at once, and the list and
 * deliveries are the daemon's own) or, without one, to the in-process admin over the data dir
 * (cli/admin-client.ts): the same routes either way. A secret is printed once, by `add` or
 * `rotate-secret`; nothing else prints it.
 */
import { InvalidArgumentError, type Command } from 'commander';
import {
  parseEventSelectors,
  WEBHOOK_FORMATS,
  WEBHOOK_ID_PATTERN,
  type EventSelector,
  type WebhookFormat,
} from '../daemon/events/webhooks/endpoint-file.ts';
import {
  DEFAULT_SECRET_OVERLAP_SEC,
  MAX_SECRET_OVERLAP_SEC,
} from '../daemon/events/webhooks/endpoint-changes.ts';
import { checkWebhookUrl } from '../daemon/events/webhooks/url-policy.ts';
import { withAdmin, type AdminClient } from './admin-client.ts';
import {
  attemptsFromAnswer,
  webhookViewFromAnswer,
  webhookViewsFromAnswer,
  webhookWithSecretFromAnswer,
  type DeliveryAttempt,
  type WebhookView,
} from './admin-answers.ts';
import { UsageError } from './errors.ts';
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

interface EditFlags {
  dataDir?: string;
  events?: EventSelector[];
  description?: string;
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
      const views = await withAdmin(flags, io, async (admin) =>
        webhookViewsFromAnswer((await admin.send({ method: 'GET', path: '/webhooks' })).body),
      );
      if (flags.json) printJson(io, { webhooks: views });
      else printLines(io, ...listLines(views));
    });

  withDataDirOption(
    webhooks.command('edit').description('change what an endpoint receives or its description'),
  )
    .argument('<id>', 'the endpoint id shown by webhooks list', parseId)
    .option('--events <types>', 'comma list of event types, or all', parseEvents)
    .option('--description <text>', 'a note for the operator (at most 200 characters; "" clears it)')
    .option('--json', 'print one JSON object')
    .action(async (id: string, flags: EditFlags) => edit(id, flags, io));

  withDataDirOption(webhooks.command('remove').description('remove an endpoint; deliveries to it stop'))
    .argument('<id>', 'the endpoint id shown by webhooks list', parseId)
    .action(async (id: string, flags: { dataDir?: string }) => {
      await withAdmin(flags, io, (admin) => admin.send({ method: 'DELETE', path: `/webhooks/${id}` }));
      printLines(io, `Removed webhook ${id}.`);
    });

  withDataDirOption(
    webhooks.command('enable').description('re-enable a disabled endpoint; it resumes where it stopped'),
  )
    .argument('<id>', 'the endpoint id shown by webhooks list', parseId)
    .action(async (id: string, flags: { dataDir?: string }) => {
      const enabled = await withAdmin(flags, io, (admin) => enableEndpoint(admin, id));
      printLines(io, enabled ? `Enabled webhook ${id}.` : `Webhook ${id} is already enabled.`);
    });

  withDataDirOption(
    webhooks
      .command('disable')
      .description("stop an endpoint's deliveries until `webhooks enable`; it keeps its place"),
  )
    .argument('<id>', 'the endpoint id shown by webhooks list', parseId)
    .action(async (id: string, flags: { dataDir?: string }) => {
      const disabled = await withAdmin(flags, io, (admin) => disableEndpoint(admin, id));
      printLines(
        io,
        disabled
          ? `Disabled webhook ${id}; it receives nothing until \`modgate webhooks enable ${id}\`.`
          : `Webhook ${id} is already disabled.`,
      );
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
      const attempts = await withAdmin(flags, io, async (admin) => {
        const path = `/webhooks/${id}/deliveries?limit=${flags.limit}`;
        return attemptsFromAnswer((await admin.send({ method: 'GET', path })).body);
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
  const body = {
    url: checked.url.href,
    events: flags.events,
    format: flags.format,
    ...(description === null ? {} : { description }),
    ...(allowHttp ? { allow_http: true } : {}),
  };
  const created = await withAdmin(flags, io, async (admin) =>
    webhookWithSecretFromAnswer((await admin.send({ method: 'POST', path: '/webhooks', body })).body, false),
  );
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

/** PATCH /webhooks/{id}: the events, the description or both; the URL stays (a new receiver is a new endpoint). */
async function edit(id: string, flags: EditFlags, io: CliIo): Promise<void> {
  if (flags.events === undefined && flags.description === undefined)
    throw new UsageError('name --events, --description or both');
  const description = flags.description?.trim();
  if (description !== undefined && description.length > 200)
    throw new UsageError('--description: at most 200 characters');
  const body = {
    ...(flags.events === undefined ? {} : { events: flags.events }),
    ...(description === undefined ? {} : { description: description === '' ? null : description }),
  };
  const view = await withAdmin(flags, io, async (admin) =>
    webhookViewFromAnswer((await admin.send({ method: 'PATCH', path: `/webhooks/${id}`, body })).body),
  );
  if (flags.json) printJson(io, view);
  else printLines(io, `Changed webhook ${id} (events: ${view.events.join(',')}).`);
}

async function rotate(
  id: string,
  flags: { dataDir?: string; overlap: number; json?: boolean },
  io: CliIo,
): Promise<void> {
  const view = await withAdmin(flags, io, async (admin) => {
    const call = {
      method: 'POST',
      path: `/webhooks/${id}/rotate-secret`,
      body: { overlap: flags.overlap },
    } as const;
    return webhookWithSecretFromAnswer((await admin.send(call)).body, true);
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

/** POST /webhooks/{id}/enable; true when it was disabled before. */
async function enableEndpoint(admin: AdminClient, id: string): Promise<boolean> {
  const before = webhookViewFromAnswer((await admin.send({ method: 'GET', path: `/webhooks/${id}` })).body);
  await admin.send({ method: 'POST', path: `/webhooks/${id}/enable` });
  return before.status === 'disabled';
}

/** POST /webhooks/{id}/disable; true when it was enabled before (the answer says it is disabled now). */
async function disableEndpoint(admin: AdminClient, id: string): Promise<boolean> {
  const before = webhookViewFromAnswer((await admin.send({ method: 'GET', path: `/webhooks/${id}` })).body);
  await admin.send({ method: 'POST', path: `/webhooks/${id}/disable` });
  return before.status !== 'disabled';
}

function listLines(views: readonly WebhookView[]): string[] {
  if (views.length === 0) return ['No webhooks yet; add one with `modgate webhooks add`.'];
  const rows = views.map((view) => [view.id, statusText(view), view.format, view.url, view.events.join(',')]);
  return formatTable([['ID', 'STATUS', 'FORMAT', 'URL', 'EVENTS'], ...rows]);
}

function statusText(view: WebhookView): string {
  if (view.status === 'disabled') return `DISABLED since ${view.disabled_at} (${view.disabled_reason})`;
  if (view.status === 'retrying') return `retrying (${view.failing_attempts} failed attempts)`;
  return 'active';
}

function deliveryLines(attempts: readonly DeliveryAttempt[]): string[] {
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
