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
  body: Buffer | null;
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
