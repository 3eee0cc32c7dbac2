/**
 * One delivery attempt: a POST with a timeout, read back bounded, redirects never followed.
 * node:http does not follow redirects at all, so a 3xx is simply a failed attempt (`redirect`).
 * The connect goes only to an address the endpoint's AddressRule allows (address-policy.ts).
 * Never throws: every outcome is a SendResult whose failure is one of a fixed set of classes;
 * the remote's words (body, error text, headers such as Location) never leave this file except
 * as `detail`, which only the operator's debug log sees.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { checkLiteral, guardedLookup, portOf, type AddressRule, type Resolver } from './address-policy.ts';
import { failureOf, type DeliveryFailure } from './delivery-failure.ts';

export interface SendRequest {
  readonly url: URL;
  /** Where this endpoint may connect; `byKey` endpoints get their own connection pool. */
  readonly rule: AddressRule;
  readonly byKey: boolean;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
}

export interface SendResult {
  /** 2xx. */
  readonly ok: boolean;
  readonly status: number | null;
  readonly latencyMs: number;
  /** Why it failed, for the journal and the API; null on success. */
  readonly failure: DeliveryFailure | null;
  /** The underlying error's text, for the operator's debug log only; never the URL. */
  readonly detail: string | null;
  /** The `Retry-After` header in ms, when present. */
  readonly retryAfterMs: number | undefined;
  /** The first maxResponseBytes of the answer, as text. */
  readonly body: string;
}

interface Agents {
  http: HttpAgent;
  https: HttpsAgent;
}

function agents(): Agents {
  return {
    http: new HttpAgent({ keepAlive: true, maxSockets: 2 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 2 }),
  };
}

/**
 * Keep-alive connections per sender; destroy() closes them. A kept socket was connected to a
 * checked address; endpoints registered by keys and by the operator never share one (their rules
 * differ), and resetConnections() drops idle ones when the operator's rule changes.
 */
export class WebhookSender {
  #operator = agents();
  #keys = agents();
  readonly #inFlight = new Set<() => void>();
  readonly #resolve: Resolver;

  constructor(resolve: Resolver) {
    this.#resolve = resolve;
  }

  send(request: SendRequest): Promise<SendResult> {
    const started = performance.now();
    const latency = () => Math.round((performance.now() - started) * 10) / 10;
    const port = portOf(request.url);
    // An IP literal skips `lookup` in node:net: checked here, before any socket exists.
    const refused = checkLiteral(request.url.hostname, port, request.rule);
    if (refused !== null) {
      return Promise.resolve({
        ok: false,
        status: null,
        failure: 'blocked_address',
        detail: refused,
        retryAfterMs: undefined,
        body: '',
        latencyMs: latency(),
      });
    }
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<SendResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#inFlight.delete(abort);
        resolve({ ...result, latencyMs: latency() });
      };
      const failure = (kind: DeliveryFailure, detail: string, status: number | null = null) =>
        finish({ ok: false, status, failure: kind, detail, retryAfterMs: undefined, body: '' });
      const secure = request.url.protocol === 'https:';
      const pool = request.byKey ? this.#keys : this.#operator;
      const req = (secure ? httpsRequest : httpRequest)(request.url, {
        method: 'POST',
        agent: secure ? pool.https : pool.http,
        lookup: guardedLookup(request.rule, port, this.#resolve),
        headers: { ...request.headers, 'content-length': String(request.body.length) },
      });
      const abort = () => {
        req.destroy();
        failure('cancelled', 'the daemon is stopping');
      };
      this.#inFlight.add(abort);
      const timer = setTimeout(() => {
        req.destroy();
        failure('timeout', `no complete answer within ${request.timeoutMs} ms`);
      }, request.timeoutMs);
      req.on('error', (error) => failure(failureOf(error), error.message));
      req.on('response', (response) =>
        readBounded(response, request.maxResponseBytes).then(
          (body) => finish(answer(response, body)),
          (error: Error) =>
            failure('reset', `reading the answer: ${error.message}`, response.statusCode ?? null),
        ),
      );
      req.end(request.body);
    });
  }

  /** Closes the operator's kept connections: the next attempts connect (and check) afresh. */
  resetConnections(): void {
    const old = this.#operator;
    this.#operator = agents();
    old.http.destroy();
    old.https.destroy();
  }

  /** Cancels attempts in flight and closes idle connections. */
  destroy(): void {
    for (const abort of [...this.#inFlight]) abort();
    for (const pool of [this.#operator, this.#keys]) {
      pool.http.destroy();
      pool.https.destroy();
    }
  }
}

function answer(response: IncomingMessage, body: string): Omit<SendResult, 'latencyMs'> {
  const status = response.statusCode ?? 0;
  const ok = status >= 200 && status < 300;
  let failure: DeliveryFailure | null = null;
  if (status >= 300 && status < 400) failure = 'redirect';
  else if (!ok) failure = 'http_status';
  const detail = failure === null ? null : `answered ${status}`;
  return { ok, status, failure, detail, retryAfterMs: retryAfterMs(response.headers['retry-after']), body };
}

/** `Retry-After: <seconds>` (possibly fractional) or an HTTP-date. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Reads at most `limit` bytes, then stops reading and drops the connection. */
function readBounded(response: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      const room = limit - size;
      if (room > 0) chunks.push(chunk.subarray(0, room));
      size += chunk.length;
      if (size > limit) {
        response.destroy();
        resolve(Buffer.concat(chunks).toString('utf8'));
      }
    });
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}
