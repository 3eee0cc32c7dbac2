/**
 * One delivery attempt: a POST with a timeout, read back bounded, redirects never followed.
 * node:http does not follow redirects at all, so a 3xx is simply a failed attempt (the message
 * says where it pointed). Never throws: every outcome is a SendResult.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface SendRequest {
  readonly url: URL;
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
  /** Why it failed, for the journal and the log; null on success. */
  readonly error: string | null;
  /** The `Retry-After` header in ms, when present. */
  readonly retryAfterMs: number | undefined;
  /** The first maxResponseBytes of the answer, as text. */
  readonly body: string;
}

/** Keep-alive connections per sender; destroy() closes them. */
export class WebhookSender {
  readonly #http = new HttpAgent({ keepAlive: true, maxSockets: 2 });
  readonly #https = new HttpsAgent({ keepAlive: true, maxSockets: 2 });
  readonly #inFlight = new Set<() => void>();

  send(request: SendRequest): Promise<SendResult> {
    const started = performance.now();
    const latency = () => Math.round((performance.now() - started) * 10) / 10;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<SendResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#inFlight.delete(abort);
        resolve({ ...result, latencyMs: latency() });
      };
      const failure = (error: string, status: number | null = null) =>
        finish({ ok: false, status, error, retryAfterMs: undefined, body: '' });
      const secure = request.url.protocol === 'https:';
      const req = (secure ? httpsRequest : httpRequest)(request.url, {
        method: 'POST',
        agent: secure ? this.#https : this.#http,
        headers: { ...request.headers, 'content-length': String(request.body.length) },
      });
      const abort = () => {
        req.destroy();
        failure('cancelled: the daemon is stopping');
      };
      this.#inFlight.add(abort);
      const timer = setTimeout(() => {
        req.destroy();
        failure(`no complete answer within ${request.timeoutMs} ms`);
      }, request.timeoutMs);
      req.on('error', (error) => failure(error.message));
      req.on('response', (response) =>
        readBounded(response, request.maxResponseBytes).then(
          (body) => finish(answer(response, body)),
          (error: Error) => failure(`reading the answer: ${error.message}`, response.statusCode ?? null),
        ),
      );
      req.end(request.body);
    });
  }

  /** Cancels attempts in flight and closes idle connections. */
  destroy(): void {
    for (const abort of [...this.#inFlight]) abort();
    this.#http.destroy();
    this.#https.destroy();
  }
}

function answer(response: IncomingMessage, body: string): Omit<SendResult, 'latencyMs'> {
  const status = response.statusCode ?? 0;
  const ok = status >= 200 && status < 300;
  let error: string | null = null;
  if (status >= 300 && status < 400) {
    error = `answered ${status} (redirects are not followed; register the final URL), location: ${response.headers.location ?? 'none'}`;
  } else if (!ok) {
    error = `answered ${status}`;
  }
  return { ok, status, error, retryAfterMs: retryAfterMs(response.headers['retry-after']), body };
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
