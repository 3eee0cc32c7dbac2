/**
 * A route's stream as the streaming stage hands it out: it holds a slot of the stream caps
 * (stream-slots.ts) and is watched for access (stream-access.ts) from the moment it is opened
 * until it ends, however it ends: the client leaves, the daemon cuts it, or it is never started.
 */
import type { ApiError } from './api-error.ts';
import { errorResponse } from './respond.ts';
import type { StreamAccess, WatchedStream } from './stream-access.ts';
import { bodyText, type ResponseStream, type StreamSink } from './types.ts';

export interface HeldStreamOptions {
  /** Gives the stream's slot back. */
  release(): void;
  access: StreamAccess;
  /** The request's access checks run again (WatchedStream.recheck). */
  recheck: WatchedStream['recheck'];
  /** The request's id, which the final error envelope carries as a new request's would. */
  requestId: string;
  /** Told when the stream's access is revoked (the log line). */
  revoked?: (error: ApiError) => void;
}

export function holdStream(inner: ResponseStream, options: HeldStreamOptions): ResponseStream {
  let started = false;
  let ended = false;
  /** A revocation that came before the adapter started the stream: delivered at start. */
  let pending: string | null = null;
  let unwatch = () => {};
  const end = () => {
    if (ended) return;
    ended = true;
    unwatch();
    options.release();
  };
  const revoke = (envelope: string) => {
    if (started) inner.revoke(envelope);
    else pending = envelope;
  };
  unwatch = options.access.watch({
    recheck: options.recheck,
    revoke: (error: ApiError) => {
      options.revoked?.(error);
      revoke(envelopeOf(error, options.requestId));
    },
  });
  return {
    start(sink: StreamSink) {
      started = true;
      sink.onClose(end);
      inner.start(sink);
      if (pending !== null) inner.revoke(pending);
    },
    abandon() {
      end();
      inner.abandon();
    },
    close: (reason) => inner.close(reason),
    revoke,
  };
}

/** The error envelope's JSON, as the body of a refused request would hold it. */
function envelopeOf(error: ApiError, requestId: string): string {
  return bodyText(errorResponse(error, requestId, {}).body ?? '');
}
