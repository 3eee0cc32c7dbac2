/**
 * Answers written straight to a socket, for the requests node:http never hands to the pipeline:
 * a request line or header block it cannot parse, headers over its limit, a request that took
 * too long, a CONNECT, a connection over the per-address cap. Each still gets the spec's error
 * envelope with its own `X-Request-Id` and `API-Version` (docs/errors.md "Before routing"), and
 * the connection closes after it.
 *
 * Such a socket may have no `'error'` listener left: node:http removes its own when it hands a
 * socket to `'connect'` or `'upgrade'`. A client that resets the connection while the answer is
 * being written would then raise an unhandled `'error'` and end the daemon, so every raw answer
 * starts by giving the socket an error path (`catchSocketErrors`), and so does every handler of a
 * raw socket (the lint rule `modgate/socket-error-path` in eslint.config.js keeps it so).
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './api-error.ts';
import type { AnyErrorCode } from './error-catalogue.ts';
import { baseHeaders, errorResponse, newRequestId } from './respond.ts';
import { bodyBytes, type ApiResponse } from './types.ts';

export interface RawRefusal {
  requestId: string;
  status: number;
  code: AnyErrorCode;
}

/** What a node:http client error (its `code`) is answered with. */
export function clientErrorAnswer(code: string | undefined): { error: ApiError; reason: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const message = 'The request was not received in time.';
    return { error: new ApiError('validation_error', message, { status: 408 }), reason: 'timeout' };
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    const message = 'The request headers are larger than the limit.';
    return { error: new ApiError('validation_error', message, { status: 431 }), reason: 'headers_too_large' };
  }
  const message = 'The request is not well-formed HTTP/1.1 (request line, URL, headers or framing).';
  return { error: new ApiError('validation_error', message), reason: 'malformed' };
}

/**
 * How long a refused peer has to take its answer before the socket is destroyed: the listener
 * keeps half-open sockets (node:http), so a peer that never closes its side would otherwise
 * hold the socket for ever.
 */
export const REFUSAL_GRACE_MS = 2_000;

/**
 * Gives a raw socket an error path: an error (a reset, a write after the peer left) destroys it
 * instead of reaching the process as an unhandled `'error'` event. The peer is gone either way;
 * there is nobody to tell.
 */
export function catchSocketErrors(socket: Duplex): void {
  if (socket.listeners('error').includes(destroyOnError)) return;
  socket.on('error', destroyOnError);
}

function destroyOnError(this: Duplex): void {
  this.destroy();
}

/** Writes the envelope for `error` and closes the socket; nothing when the peer is gone. */
export function refuseRaw(socket: Duplex, error: ApiError): RawRefusal {
  catchSocketErrors(socket);
  const requestId = newRequestId();
  const response = errorResponse(error, requestId, { ...baseHeaders(requestId), connection: 'close' });
  if (socket.writable) {
    socket.end(serialize(response));
    const grace = setTimeout(() => socket.destroy(), REFUSAL_GRACE_MS);
    grace.unref();
    socket.once('close', () => clearTimeout(grace));
  } else socket.destroy();
  return { requestId, status: error.status, code: error.code };
}

/** An HTTP/1.1 response as bytes: status line, headers, Content-Length, body. */
export function serialize(response: ApiResponse): Buffer {
  const body = response.body === null ? Buffer.alloc(0) : bodyBytes(response.body);
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}`];
  for (const [name, value] of Object.entries(response.headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${body.length}`, '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]);
}
