/**
 * A webhook receiver on a real loopback socket, the way a bot author writes one: it verifies
 * each request's signature with the `standardwebhooks` package (the specification's own library)
 * and processes each webhook-id once. Tests script its answers per request.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  readonly index: number;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Parsed JSON body, or null when it is not JSON. */
  readonly json: unknown;
  /** The standardwebhooks library accepted the signature (always false without a secret). */
  readonly verified: boolean;
  readonly messageId: string;
}

/** What to answer: a status (and optional headers/body), or `hang` to never answer. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface Receiver {
  readonly url: string;
  /** Every request, in arrival order. */
  readonly requests: ReceivedRequest[];
  /** Requests processed once per webhook-id (answered 2xx, verified, not seen before). */
  readonly processed: ReceivedRequest[];
  secret: string | null;
  answer: (request: ReceivedRequest) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 204 })): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: ReceivedRequest = {
        index: receiver.requests.length,
        path: req.url ?? '/',
        headers: req.headers,
        body,
        json: parseJson(body),
        verified: verify(receiver.secret, body, req.headers),
        messageId: String(req.headers['webhook-id'] ?? ''),
      };
      receiver.requests.push(request);
      const reply = receiver.answer(request);
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      if (reply.status >= 200 && reply.status < 300 && request.verified && !seen.has(request.messageId)) {
        seen.add(request.messageId);
        receiver.processed.push(request);
      }
      res.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    requests: [],
    processed: [],
    secret: null,
    answer,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  return receiver;
}

/** Whether a receiver holding `secret` accepts `request` (a secret rotation's old or new one). */
export function accepts(secret: unknown, request: ReceivedRequest | undefined): boolean {
  return request !== undefined && verify(String(secret), request.body, request.headers);
}

function verify(secret: string | null, body: string, headers: IncomingHttpHeaders): boolean {
  if (secret === null) return false;
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return null;
  }
}
