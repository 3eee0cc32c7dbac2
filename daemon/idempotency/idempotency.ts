/**
 * Idempotency-Key on writes (docs/idempotency.md).
 *
 * A record is keyed by (API key id, method, route, Idempotency-Key) and fingerprinted by the
 * method, the concrete path and the canonical JSON body. The same key and request replays the
 * stored status, headers and body; the same key with another request is 409
 * idempotency_conflict; a duplicate that arrives while the first is in flight waits for it and
 * replays its outcome. Only outcomes the handler produced are stored, and neither a 5xx nor a
 * 429: those may be retried, and then the op id (derived from the record key, so it survives a
 * restart) lets the game apply the change once.
 */
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { ApiError } from '../http/api-error.ts';
import { bodyBytes, type ApiResponse } from '../http/types.ts';
import type { IdempotencyJournal, StoredResponse } from './journal.ts';

/** Response headers that describe the stored result; the rest belong to each request. */
const STORED_HEADERS = ['content-type', 'cache-control', 'etag', 'location'];
export const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentRequest {
  keyId: string;
  method: string;
  /** The route's path template. */
  route: string;
  /** The path as requested (a key reused on another player is another request). */
  path: string;
  body: unknown;
  /** The Idempotency-Key header, if sent. */
  header: string | undefined;
}

export type Admission =
  | { kind: 'replay'; response: ApiResponse }
  | {
      kind: 'run';
      /** The op id base for this request's mutating ops; null: none yet, draw a fresh one if needed. */
      opIdBase: string | null;
      complete(response: ApiResponse): Promise<void>;
      abandon(): void;
    };

export class Idempotency {
  readonly #opIdKey: Buffer;
  readonly #inFlight = new Map<string, { fingerprint: string; outcome: Promise<ApiResponse | null> }>();
  readonly #journal: IdempotencyJournal;
  readonly #now: () => number;

  constructor(journal: IdempotencyJournal, daemonSecret: Uint8Array, now: () => number = Date.now) {
    this.#journal = journal;
    this.#now = now;
    this.#opIdKey = Buffer.from(hkdfSync('sha256', daemonSecret, Buffer.alloc(0), 'modgate/1 op id', 32));
  }

  /** Decides whether the request runs or replays; throws 400 or 409. */
  async admit(request: IdempotentRequest): Promise<Admission> {
    if (request.header === undefined) return unkeyedAdmission();
    if (!KEY_PATTERN.test(request.header)) {
      throw new ApiError('validation_error', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {
        details: {
          errors: [{ in: 'header', path: 'Idempotency-Key', message: '1 to 255 visible ASCII characters' }],
        },
      });
    }
    const id = recordId(request);
    const fingerprint = fingerprintOf(request);
    const stored = this.#journal.get(id);
    if (stored)
      return { kind: 'replay', response: replay(checked(stored.fingerprint, fingerprint, stored.response)) };
    const running = this.#inFlight.get(id);
    if (running) {
      if (running.fingerprint !== fingerprint) throw conflict();
      const outcome = await running.outcome;
      if (outcome) return { kind: 'replay', response: replayResponse(outcome) };
      return this.admit(request); // the first one failed before storing anything: run again
    }
    return this.#run(id, fingerprint);
  }

  #run(id: string, fingerprint: string): Admission {
    let settle!: (response: ApiResponse | null) => void;
    const outcome = new Promise<ApiResponse | null>((resolve) => (settle = resolve));
    this.#inFlight.set(id, { fingerprint, outcome });
    const done = (response: ApiResponse | null) => {
      this.#inFlight.delete(id);
      settle(response);
    };
    return {
      kind: 'run',
      opIdBase: createHmac('sha256', this.#opIdKey).update(id).digest('base64url').slice(0, 22),
      complete: async (response) => {
        try {
          if (storable(response)) {
            await this.#journal.append({ id, fingerprint, at: this.#now(), response: toStored(response) });
          }
        } finally {
          done(storable(response) ? response : null);
        }
      },
      abandon: () => done(null),
    };
  }
}

/** A request without Idempotency-Key: runs as new; a mutating op gets a fresh random op id. */
export function unkeyedAdmission(): Admission {
  return UNKEYED;
}

const UNKEYED: Admission = Object.freeze({
  kind: 'run',
  opIdBase: null,
  complete: async () => {},
  abandon() {},
});

/**
 * An outcome worth replaying: what the handler decided. A 5xx may be retried (the op id makes
 * the retry safe), and a 429 is a refusal for now, not an outcome.
 */
function storable(response: ApiResponse): boolean {
  return response.status < 500 && response.status !== 429;
}

function recordId(request: IdempotentRequest): string {
  return JSON.stringify([request.keyId, request.method, request.route, request.header]);
}

function fingerprintOf(request: IdempotentRequest): string {
  return createHash('sha256')
    .update(JSON.stringify([request.method, request.path, canonical(request.body)]))
    .digest('base64url');
}

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one request. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

function checked(stored: string, given: string, response: StoredResponse): StoredResponse {
  if (stored !== given) throw conflict();
  return response;
}

function conflict(): ApiError {
  return new ApiError(
    'idempotency_conflict',
    'This Idempotency-Key was already used with a different request.',
  );
}

function toStored(response: ApiResponse): StoredResponse {
  const headers = Object.fromEntries(
    STORED_HEADERS.flatMap((name) => (response.headers[name] ? [[name, response.headers[name]]] : [])),
  );
  return {
    status: response.status,
    headers,
    body: response.body ? bodyBytes(response.body).toString('base64') : '',
  };
}

function replay(stored: StoredResponse): ApiResponse {
  return {
    status: stored.status,
    headers: { ...stored.headers, 'idempotent-replayed': 'true' },
    body: stored.body === '' ? null : Buffer.from(stored.body, 'base64'),
  };
}

function replayResponse(response: ApiResponse): ApiResponse {
  return replay(toStored(response));
}
