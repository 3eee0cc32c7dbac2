/**
 * Maps a failed mod call to the API error a client sees (docs/errors.md, "From the mod link").
 * A fault on the link never hangs a request: every kind ends here with a definite status.
 */
import { LinkCallError } from '../../protocol/link-server.ts';
import { ApiError } from './api-error.ts';

export const DEFAULT_RETRY_AFTER_SEC = 5;

export function toApiError(error: unknown): unknown {
  if (!(error instanceof LinkCallError)) return error;
  switch (error.kind) {
    case 'not_connected':
      return unavailable('The game server is not connected.');
    case 'link_lost':
      return unavailable(
        error.applied
          ? 'The game server applied the change, then the connection was lost before it answered.'
          : 'The connection to the game server was lost before it answered.',
        DEFAULT_RETRY_AFTER_SEC,
        appliedDetails(error),
      );
    case 'timeout':
      return new ApiError(
        'gateway_timeout',
        error.applied
          ? 'The game server applied the change but did not finish answering in time.'
          : undefined,
        appliedDetails(error) ? { details: appliedDetails(error) } : {},
      );
    case 'bad_result':
      return new ApiError('internal', 'The game server sent an answer modgate could not understand.', {
        status: 502,
      });
    case 'remote':
      return fromOpError(error.opError ?? { code: 'internal', message: 'unknown mod error' });
  }
}

function unavailable(
  message: string,
  retryAfterSec = DEFAULT_RETRY_AFTER_SEC,
  details?: Record<string, unknown>,
): ApiError {
  return new ApiError('server_unavailable', message, {
    headers: { 'retry-after': String(retryAfterSec) },
    ...(details ? { details } : {}),
  });
}

/** docs/players.md#a-503-or-504-after-a-write-that-applied: a 503/504 after a write the game reported committed (PROTOCOL §6.5). */
function appliedDetails(error: LinkCallError): Record<string, unknown> | undefined {
  return error.applied ? { mutation_applied: true } : undefined;
}

function fromOpError(op: { code: string; message: string; details?: Record<string, unknown> }): ApiError {
  const retryAfter = retryAfterOf(op.details);
  switch (op.code) {
    case 'not_found':
      return new ApiError('not_found', op.message);
    case 'conflict':
      return new ApiError('conflict', op.message);
    case 'invalid':
      return new ApiError('validation_error', 'The game server rejected the request.', {
        details: { mod_message: op.message },
      });
    case 'unavailable':
      return unavailable(op.message, retryAfter);
    case 'rate_limited':
      return new ApiError('rate_limited', op.message, { headers: { 'retry-after': String(retryAfter) } });
    case 'unsupported':
      return new ApiError('not_found', "The game server's mod does not support this operation.");
    default:
      return new ApiError('internal', 'The game server failed to carry out the request.', { status: 502 });
  }
}

function retryAfterOf(details: Record<string, unknown> | undefined): number {
  const value = details?.['retry_after_sec'];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : DEFAULT_RETRY_AFTER_SEC;
}
