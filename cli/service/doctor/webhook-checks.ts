/**
 * Doctor, webhooks: webhooks.json loads, and no endpoint is disabled or stuck retrying. An
 * endpoint disabled for failing is a warning with the command that re-enables it (the daemon has
 * logged it at error level when it happened); one the operator disabled is not. An endpoint is named by its id and its URL's origin only: the
 * path may hold a secret (a Discord webhook URL carries its token there), and doctor's output is
 * what operators paste into support threads.
 */
import { OPERATOR_DISABLED } from '../../../daemon/events/webhooks/endpoint-changes.ts';
import { readEndpoints } from '../../../daemon/events/webhooks/endpoint-file.ts';
import { readOutbox } from '../../../daemon/events/webhooks/outbox-journal.ts';
import { endpointView } from '../../../daemon/events/webhooks/views.ts';
import { errorText, fail, ok, warn, type CheckResult } from './check.ts';

export async function checkWebhooks(dir: string): Promise<CheckResult[]> {
  let views;
  try {
    const endpoints = await readEndpoints(dir);
    const { state } = await readOutbox(dir);
    views = endpoints.map((e) => endpointView(e, state.has(e.id) ? state.get(e.id) : undefined));
  } catch (error) {
    return [fail('webhooks', errorText(error), 'fix or restore webhooks.json (docs/events.md, "Webhooks")')];
  }
  if (views.length === 0) return [];
  const results: CheckResult[] = [];
  for (const view of views) {
    // One the operator disabled is as they want it; only a failure's needs a fix.
    if (view.status === 'disabled' && view.disabled_reason === OPERATOR_DISABLED) continue;
    if (view.status === 'disabled') {
      results.push(
        warn(
          'webhooks',
          `${view.id} (${originOf(view.url)}) is disabled since ${view.disabled_at}: ${view.disabled_reason}`,
          `fix the receiver, then: modgate webhooks enable --data-dir ${dir} ${view.id}`,
        ),
      );
    } else if (view.status === 'retrying') {
      results.push(
        warn(
          'webhooks',
          `${view.id} (${originOf(view.url)}) is retrying: ${view.failing_attempts} failed attempts so far`,
          `see why: modgate webhooks deliveries --data-dir ${dir} ${view.id}`,
        ),
      );
    }
  }
  const active = views.filter((view) => view.status === 'active').length;
  if (results.length === 0)
    results.push(ok('webhooks', `${active} endpoint${active === 1 ? '' : 's'} delivering`));
  return results;
}

/** Scheme, host and port: never the path or query, where a receiver's secret may sit. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an unparseable URL';
  }
}
