/**
 * The panel's one way to the admin API (docs/admin.md): same-origin fetches that carry the
 * session cookie, JSON in and out, and the error envelope turned into an `ApiFailure` with its
 * stable code. The panel holds no token: after sign-in the HttpOnly cookie is its credential.
 */

/**
 * A non-2xx answer: the envelope's code, message and details (a validation_error's per-field
 * `errors`), or `network` when nothing answered. `retryAfter` is the answer's `Retry-After` in
 * seconds, when it has one (a 429 from a game cooldown, a 503).
 */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

/** The collection envelope every admin list answers with. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const ADMIN = '/admin/v1';

/**
 * Calls `method path` under /admin/v1; resolves with the parsed body (undefined for 204). A POST
 * carries an `Idempotency-Key` (`writeKey`), so a write the user sends again after it went
 * unanswered never applies twice.
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const sent = body === undefined ? null : JSON.stringify(body);
  const write = method === 'POST' && path !== '/session' ? `${path} ${sent ?? ''}` : undefined;
  if (write !== undefined) headers['idempotency-key'] = writeKey(write);
  let response: Response;
  try {
    response = await fetch(`${ADMIN}${path}`, { method, headers, credentials: 'same-origin', body: sent });
  } catch (error) {
    throw new ApiFailure(0, 'network', `The daemon did not answer (${String(error)}).`);
  }
  // Answered: the daemon settled it, or (a 5xx, a 429) stored nothing, so the same key may go again.
  if (write !== undefined && unanswered?.write === write && response.status < 500 && response.status !== 429)
    unanswered = undefined;
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed = parseJson(text);
  if (!response.ok) {
    const failure = failureOf(response.status, parsed, response.headers.get('retry-after'));
    if (response.status === 401 && path !== '/session') dispatchEvent(new SessionEnded(failure.message));
    throw failure;
  }
  return parsed as T;
}

/**
 * The write (path and body) last sent whose outcome the panel does not know, and its key: no
 * answer came (a network error), or one that the daemon does not keep (docs/idempotency.md: a 5xx
 * or a 429). The same write sent again, the user retrying that submission, reuses the key, so the
 * daemon replays or completes the first attempt instead of applying it twice; any other write, or
 * the same one once it was answered, gets a new key: a new submission is a new operation.
 */
let unanswered: { write: string; key: string } | undefined;

function writeKey(write: string): string {
  if (unanswered?.write !== write) {
    // getRandomValues, not randomUUID: the panel may be served over plain http off loopback, not a
    // secure context, where randomUUID does not exist.
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    const key = `panel-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
    unanswered = { write, key };
  }
  return unanswered.key;
}

/**
 * Dispatched on the window when a call other than the sign-in's own is answered 401: the session
 * ended (signed out elsewhere, expired, its token revoked, the daemon's sessions gone with a
 * restart). The shell goes back to sign-in saying why and keeps the page the user was on.
 */
export class SessionEnded extends Event {
  static readonly type = 'modgate-session-ended';
  constructor(readonly reason: string) {
    super(SessionEnded.type);
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function failureOf(status: number, body: unknown, retryAfter: string | null): ApiFailure {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)
    ?.error;
  const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  const seconds = retryAfter === null ? undefined : Number(retryAfter);
  const wait = seconds !== undefined && Number.isInteger(seconds) && seconds >= 0 ? seconds : undefined;
  return new ApiFailure(status, code, message, error?.details, wait);
}

/** `?a=1&b=2` from the defined, non-empty values; '' when none. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** A message for the user from whatever was thrown. */
export function describe(error: unknown): string {
  if (error instanceof ApiFailure) return `${error.message} (${error.code})`;
  return String(error);
}
