/**
 * A Server-Sent Events client on a real socket, the way a bot reads GET /v1/events: it parses
 * `id:` / `event:` / `data:` messages as they arrive, and can stop reading (to play a slow
 * reader) or hang up (to resume later with Last-Event-ID).
 */
import { request, type IncomingMessage } from 'node:http';

export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

export interface SseClient {
  status: number;
  headers: IncomingMessage['headers'];
  /** Every message so far (comments excluded), in order. */
  messages: SseMessage[];
  /** Comment lines seen (`: heartbeat`). */
  comments: string[];
  /** Called with each message as it is parsed (benchmarks time arrivals with it). */
  onMessage: ((message: SseMessage) => void) | null;
  /** Resolves with the first message (from `from` on) that matches, or rejects after `timeoutMs`. */
  next(match: (message: SseMessage) => boolean, timeoutMs?: number, from?: number): Promise<SseMessage>;
  /** The body text when the answer was not a stream (an error envelope). */
  text(): Promise<string>;
  /** Resolves once the server has ended the response. */
  ended: Promise<void>;
  pause(): void;
  resume(): void;
  close(): void;
}

export function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      const messages: SseMessage[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      let raw = '';
      const ended = new Promise<void>((done) => res.once('close', done));
      res.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const message = parse(buffer.slice(0, end), comments);
          if (message) {
            messages.push(message);
            client.onMessage?.(message);
          }
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
        for (const wake of waiters) wake();
      });
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        comments,
        onMessage: null,
        ended,
        next: (match, timeoutMs = 5_000, from = 0) =>
          new Promise((found, fail) => {
            const check = () => {
              const hit = messages.slice(from).find(match);
              if (!hit) return false;
              waiters.delete(check);
              clearTimeout(timer);
              found(hit);
              return true;
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`no matching SSE message within ${timeoutMs} ms`));
            }, timeoutMs);
            if (!check()) waiters.add(check);
          }),
        text: async () => {
          await ended;
          return raw;
        },
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      };
      resolve(client);
    });
    req.on('error', reject);
    req.end();
  });
}

function parse(block: string, comments: string[]): SseMessage | null {
  const message: SseMessage = { id: null, event: 'message', data: '' };
  let fields = 0;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'id') message.id = value;
    else if (name === 'event') message.event = value;
    else if (name === 'data') message.data = message.data === '' ? value : `${message.data}\n${value}`;
    else continue;
    fields += 1;
  }
  return fields > 0 && (message.data !== '' || message.id !== null) ? message : null;
}
