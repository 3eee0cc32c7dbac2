/** The in-process request and response the pipeline works on; node:http is only an adapter. */
export interface ApiRequest {
  method: string;
  /** Path and query as received, e.g. `/v1/players?limit=10`. */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The client address the IP allowlist and per-IP limit see. */
  remoteAddress: string;
  /**
   * Reads the body, failing with 413 past `limit` bytes. Lazy, so a request refused before the
   * body stage (no key, wrong scope) never has its body buffered.
   */
  readBody(limit: number): Promise<Buffer>;
  /** True when the request announces a body (Content-Length > 0 or Transfer-Encoding). */
  hasBody: boolean;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: ResponseBody | null;
  /**
   * A long-lived body written after the head (the SSE event stream): the adapter hands it a sink
   * once the headers are sent, and closes it on shutdown. `body` is null when this is set.
   */
  stream?: ResponseStream;
}

/**
 * A body produced over time. Either `start` is called once, or `abandon` when the response is
 * never sent (the client left first); `close` asks it to end (shutdown); `revoke` ends it with a
 * final `event: error` message carrying `envelope`, the error envelope's JSON (the key or access
 * it was opened with no longer holds).
 */
export interface ResponseStream {
  start(sink: StreamSink): void;
  abandon(): void;
  close(reason: 'shutdown'): void;
  revoke(envelope: string): void;
}

/** Where a ResponseStream writes: the socket, or a buffer in in-process tests. */
export interface StreamSink {
  write(text: string): void;
  /** Bytes written and not yet taken by the client. */
  bufferedBytes(): number;
  /** Ends the response; a client that has not read the rest within `graceMs` is cut. */
  end(graceMs: number): void;
  /** Called once when the response is over, whoever ended it. */
  onClose(listener: () => void): void;
  /** Called each time what was buffered has been handed to the client (backpressure). */
  onDrain(listener: () => void): void;
}

/**
 * A response body: bytes, or the JSON text of an answer that is serialized for one response and
 * sent once (a no-store read). node:http writes a text body in the same write as the head; a
 * Buffer body would first be a copy of the text, then a second chunk of a gathered write.
 */
export type ResponseBody = Buffer | string;

/** The body's length in bytes (Content-Length). */
export function bodyByteLength(body: ResponseBody): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}

export function bodyBytes(body: ResponseBody): Buffer {
  return typeof body === 'string' ? Buffer.from(body) : body;
}

export function bodyText(body: ResponseBody): string {
  return typeof body === 'string' ? body : body.toString('utf8');
}

/** Builds an ApiRequest from plain values: tests and the demo use it to call the core. */
export function makeRequest(init: {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  remoteAddress?: string;
}): ApiRequest {
  const body = init.body === undefined ? null : Buffer.from(init.body);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;
  return {
    method: init.method ?? 'GET',
    url: init.url,
    headers,
    remoteAddress: init.remoteAddress ?? '127.0.0.1',
    hasBody: body !== null && body.length > 0,
    readBody: async (limit) => {
      if (body === null) return Buffer.alloc(0);
      if (body.length > limit) throw new PayloadTooLarge(limit);
      return body;
    },
  };
}

export class PayloadTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`body exceeds ${limit} bytes`);
    this.name = 'PayloadTooLarge';
  }
}

/**
 * The client went away before its request was read: it closed the connection (`aborted`, logged
 * and audited as 499) or did not send the body in time (`timeout`, 408, already answered by the
 * listener). Neither is a daemon fault.
 */
export class ClientGone extends Error {
  constructor(readonly reason: 'aborted' | 'timeout') {
    super(
      reason === 'timeout' ? 'the request body did not arrive in time' : 'the client closed the connection',
    );
    this.name = 'ClientGone';
  }

  get status(): number {
    return this.reason === 'timeout' ? 408 : 499;
  }
}
