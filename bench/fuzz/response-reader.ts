/**
 * HTTP/1.1 responses read back from a raw socket, one after another as pipelining returns them:
 * status line, headers, and a body framed by Content-Length or chunked encoding (or no body, for
 * HEAD, 1xx, 204 and 304). A `text/event-stream` answer ends at its headers: a stream never ends
 * by itself, so the fuzzer closes that connection once it has seen them.
 */

export interface Response {
  status: number;
  /** Names in lower case; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** A stream: the body was not read. */
  streamed: boolean;
}

const HEADER_END = Buffer.from('\r\n\r\n');
/** Longer answers than this are a finding of their own, not something to buffer forever. */
const MAX_HEAD_BYTES = 64 * 1024;

export class ResponseReader {
  #buffer: Buffer = Buffer.alloc(0);
  #pending: { status: number; headers: Record<string, string>; headLength: number } | null = null;
  /** Set when the bytes are not HTTP this reader can frame; nothing more is read then. */
  problem: string | null = null;

  /**
   * Feeds bytes; returns every response now complete. `methods` holds the methods of the
   * requests still unanswered, oldest first; each complete response takes one off.
   */
  push(chunk: Buffer, methods: string[]): Response[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const done: Response[] = [];
    for (;;) {
      if (this.problem) return done;
      const response = this.#next(methods);
      if (!response) return done;
      done.push(response);
      if (response.streamed) return done;
    }
  }

  #next(methods: string[]): Response | null {
    if (!this.#pending) {
      const end = this.#buffer.indexOf(HEADER_END);
      if (end < 0) {
        if (this.#buffer.length > MAX_HEAD_BYTES) this.problem = 'a response head over 64 KiB';
        return null;
      }
      const head = parseHead(this.#buffer.subarray(0, end).toString('latin1'));
      if (typeof head === 'string') {
        this.problem = head;
        return null;
      }
      this.#pending = { ...head, headLength: end + 4 };
    }
    const { status, headers, headLength } = this.#pending;
    if (status >= 100 && status < 200 && status !== 101) {
      this.#consume(headLength);
      this.#pending = null;
      return this.#next(methods); // an interim answer (100 Continue): the real one follows
    }
    if (headers['content-type']?.startsWith('text/event-stream')) {
      return this.#finish(headLength, { status, headers, body: Buffer.alloc(0), streamed: true }, methods);
    }
    const method = methods[0];
    const noBody = method === 'HEAD' || status === 204 || status === 304 || status === 101;
    if (noBody)
      return this.#finish(headLength, { status, headers, body: Buffer.alloc(0), streamed: false }, methods);
    if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
      const body = unchunk(this.#buffer, headLength);
      if (body === 'incomplete') return null;
      if (typeof body === 'string') return ((this.problem = body), null);
      return this.#finish(body.end, { status, headers, body: body.body, streamed: false }, methods);
    }
    const length = Number(headers['content-length'] ?? 0);
    if (!Number.isSafeInteger(length) || length < 0) return ((this.problem = 'a bad Content-Length'), null);
    if (this.#buffer.length < headLength + length) return null;
    const body = Buffer.from(this.#buffer.subarray(headLength, headLength + length));
    return this.#finish(headLength + length, { status, headers, body, streamed: false }, methods);
  }

  #finish(consumed: number, response: Response, methods: string[]): Response {
    this.#consume(consumed);
    this.#pending = null;
    methods.shift();
    return response;
  }

  #consume(length: number): void {
    this.#buffer = this.#buffer.subarray(length);
  }
}

function parseHead(text: string): { status: number; headers: Record<string, string> } | string {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine);
  if (!match) return `a status line that is not HTTP/1.x: ${JSON.stringify(statusLine.slice(0, 80))}`;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return `a header line without a name: ${JSON.stringify(line.slice(0, 80))}`;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status: Number(match[1]), headers };
}

function unchunk(buffer: Buffer, start: number): { body: Buffer; end: number } | 'incomplete' | string {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd < 0) return 'incomplete';
    const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isSafeInteger(size) || size < 0) return 'a bad chunk size';
    if (size === 0) {
      const trailerEnd = buffer.indexOf(HEADER_END, lineEnd);
      if (buffer.subarray(lineEnd, lineEnd + 4).equals(HEADER_END))
        return { body: Buffer.concat(parts), end: lineEnd + 4 };
      if (trailerEnd < 0) return 'incomplete';
      return { body: Buffer.concat(parts), end: trailerEnd + 4 };
    }
    if (buffer.length < lineEnd + 2 + size + 2) return 'incomplete';
    parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
