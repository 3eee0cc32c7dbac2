/**
 * What counts as a finding in an answer (docs/fuzzing.md):
 *
 * - no `X-Request-Id` header, on any answer;
 * - an error status (4xx, 5xx) whose body is not exactly the envelope
 *   `{"error":{"code","message","request_id"[,"details"]}}` with `request_id` equal to the header
 *   (a HEAD answer has no body to check);
 * - any 5xx, except the two the spec gives a daemon with a mod link: 503 `server_unavailable`
 *   (the mod is not linked, or its catalogue is not built yet) and 504 `gateway_timeout` (an op
 *   outlived its deadline). Those are counted and shown, not failed: the harness keeps its mod
 *   linked, so a run full of them says something is wrong without it being the daemon's crash.
 *   A 500 or 502 `internal` is always a finding: an input reached code that threw.
 * - an answer that is not HTTP/1.1 the reader can frame.
 */
import type { Response } from './response-reader.ts';

const TOLERATED_5XX: Readonly<Record<number, string>> = { 503: 'server_unavailable', 504: 'gateway_timeout' };
const ENVELOPE_KEYS = new Set(['code', 'message', 'request_id', 'details']);

/** Why this answer is a finding, or null. */
export function problemWith(response: Response, method: string): string | null {
  const requestId = response.headers['x-request-id'];
  if (!requestId) return `${response.status} without X-Request-Id`;
  if (response.status < 400) return null;
  // A HEAD answer has no body: its envelope cannot be checked, its status still can.
  const envelope = method === 'HEAD' ? null : envelopeOf(response.body);
  if (typeof envelope === 'string') return `${response.status} without the error envelope: ${envelope}`;
  if (envelope && envelope.request_id !== requestId) {
    return `${response.status} whose error.request_id is not its X-Request-Id`;
  }
  if (response.status >= 500) {
    const tolerated = TOLERATED_5XX[response.status];
    if (tolerated === undefined || (envelope && envelope.code !== tolerated)) {
      return `${response.status} ${envelope?.code ?? ''}`.trim();
    }
  }
  return null;
}

/** Whether a 5xx is one of the tolerated two (counted in the summary). */
export function isTolerated5xx(status: number): boolean {
  return TOLERATED_5XX[status] !== undefined;
}

function envelopeOf(body: Buffer): { code: string; request_id: string } | string {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return `body is not JSON: ${JSON.stringify(body.subarray(0, 80).toString('latin1'))}`;
  }
  if (typeof value !== 'object' || value === null || Object.keys(value).join() !== 'error')
    return 'no single "error" key';
  const error = (value as { error: Record<string, unknown> }).error;
  if (typeof error !== 'object' || error === null) return '"error" is not an object';
  if (
    typeof error['code'] !== 'string' ||
    typeof error['message'] !== 'string' ||
    typeof error['request_id'] !== 'string'
  ) {
    return 'error.code, error.message or error.request_id missing';
  }
  const extra = Object.keys(error).filter((key) => !ENVELOPE_KEYS.has(key));
  if (extra.length > 0) return `unknown keys in error: ${extra.join(', ')}`;
  return { code: error['code'], request_id: error['request_id'] };
}
