/**
 * The one mapping of the admin API's refusals to the CLI's errors (docs/admin.md, "The CLI and a
 * running daemon"; docs/operations.md, "Exit codes"), whether the daemon or the in-process admin
 * refused. A not_found or conflict says which record it is about (`details.resource` and
 * `details.id`, declared by the route), so the CLI's code and sentence come from this one table,
 * not from each command: `key_not_found` naming `modgate keys list`, a premium refusal naming
 * `modgate plan set`.
 */
import type { AdminResource } from '../daemon/admin/define-admin-route.ts';
import type { components } from '../panel/admin-schema.ts';
import { CliError, EXIT_OPERATIONAL, PremiumRequiredError, UsageError } from './errors.ts';

/** An answer's status and parsed JSON body (cli/admin-client.ts's AdminAnswer). */
interface Refusal {
  readonly status: number;
  readonly body: unknown;
}

/** The error envelope as the admin API's document gives it (panel/admin-schema.ts, generated). */
type Envelope = Partial<components['schemas']['Error404NotFound']['error']>;

/** The API's error codes the CLI reports as usage errors, exit 2. */
const USAGE_CODES: ReadonlySet<string> = new Set([
  'validation_error',
  'unsupported_media_type',
  'payload_too_large',
]);

/** How the CLI names each resource: its code when missing, its noun and the command that lists it. */
const RESOURCES: Readonly<Record<AdminResource, { missing: string; noun: string; list: string }>> = {
  key: { missing: 'key_not_found', noun: 'key', list: 'modgate keys list' },
  admin_token: { missing: 'token_not_found', noun: 'admin token', list: 'modgate admin tokens list' },
  webhook: { missing: 'webhook_not_found', noun: 'webhook', list: 'modgate webhooks list' },
};

/**
 * The CliError for an error envelope `{error:{code,message,details}}` (or an answer without one)
 * from the admin API over the data dir `dir`.
 */
export function errorOf(answer: Refusal, dir: string): CliError {
  const envelope = (answer.body as { error?: Envelope } | null)?.error;
  const apiCode = typeof envelope?.code === 'string' ? envelope.code : `http_${answer.status}`;
  const text =
    typeof envelope?.message === 'string' ? envelope.message : `the daemon answered ${answer.status}`;
  const message = `${text}${detailText(text, envelope?.details)}`;
  const resource = resourceOf(envelope?.details?.resource);
  const id = envelope?.details?.id;
  if (apiCode === 'not_found' && resource !== null && typeof id === 'string') {
    const { missing, noun, list } = RESOURCES[resource];
    return new CliError(`no ${noun} with id ${id} in ${dir} (see \`${list}\`)`, EXIT_OPERATIONAL, missing);
  }
  if (apiCode === 'conflict' && resource !== null) {
    // A revoked or rolled key, a full registry, a webhook whose key is gone: said as the CLI's
    // other errors are, lower case, with the way out when there is one.
    const wayOut = resource === 'webhook' && typeof id === 'string' ? ` (modgate webhooks remove ${id})` : '';
    return new CliError(`${clause(text)}${wayOut}`, EXIT_OPERATIONAL, 'conflict');
  }
  if (apiCode === 'premium_required') {
    return new PremiumRequiredError(
      `premium_required: ${clause(text)}; enable it with \`modgate plan set --data-dir ${dir} --premium on\``,
    );
  }
  if (USAGE_CODES.has(apiCode)) return new UsageError(message);
  return new CliError(message, EXIT_OPERATIONAL, apiCode);
}

function resourceOf(value: unknown): AdminResource | null {
  return typeof value === 'string' && Object.hasOwn(RESOURCES, value) ? (value as AdminResource) : null;
}

/** The API's sentence as a clause of the CLI's one-line error: `Key x …; roll that key.` → `key x …; roll that key`. */
function clause(sentence: string): string {
  return `${sentence.charAt(0).toLowerCase()}${sentence.slice(1)}`.replace(/\.$/, '');
}

/**
 * What a validation error's details (`{errors: [{in, path, message}]}`) add to its message: the
 * field messages the message does not already hold, else nothing.
 */
function detailText(message: string, details: unknown): string {
  const errors = (details as { errors?: unknown } | null | undefined)?.errors;
  if (!Array.isArray(errors)) return '';
  const missing = errors
    .map((error: { path?: unknown; message?: unknown }) =>
      typeof error.message === 'string'
        ? `${typeof error.path === 'string' ? `${error.path}: ` : ''}${error.message}`
        : '',
    )
    .filter((text) => text !== '' && !message.includes(text.slice(text.indexOf(': ') + 2)))
    .slice(0, 10);
  return missing.length === 0 ? '' : ` (${missing.join('; ').slice(0, 500)})`;
}
