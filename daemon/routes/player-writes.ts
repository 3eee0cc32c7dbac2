/**
 * What every player write shares: the optional If-Match precondition
 * against the player's moderation state, and dropping cached player reads afterwards so the
 * caller reads its own write (docs/players.md).
 */
import { ModerationState } from '../../protocol/ops/players.ts';
import { ApiError } from '../http/api-error.ts';
import { ifMatchHits, strongEtag } from '../http/caching.ts';
import { KeyedLock } from '../keyed-lock.ts';
import type { RouteContext } from '../http/define-route.ts';
import type { PlayerRef } from './params.ts';
import { PLAYERS_TAG } from './players.ts';

const locks = new KeyedLock();

/**
 * Runs `write` for the player `ref`. With If-Match, the moderation state's current ETag must
 * match (strong comparison) or the answer is 412 and nothing is sent to the game; the check and
 * the write run under a per-player lock, so no other write through this daemon slips between.
 */
export async function playerWrite<T>(
  ctx: RouteContext<unknown, unknown, unknown>,
  ref: PlayerRef,
  action: PlayerAction,
  write: () => Promise<T>,
): Promise<T> {
  const lockKey = 'platform_id' in ref ? `p:${ref.platform_id}` : `s:${ref.social_id}`;
  return locks.run(lockKey, async () => {
    const ifMatch = ctx.headers['if-match'];
    if (ifMatch !== undefined) await checkIfMatch(ctx, ref, ifMatch);
    try {
      return await write();
    } catch (error) {
      throw withAction(error, action);
    } finally {
      // Even a write that timed out may have applied: never serve a stale read after it.
      ctx.invalidate([PLAYERS_TAG]);
    }
  });
}

/** What `details.action` names on a 503/504 after a player write. */
export type PlayerAction = 'ban' | 'unban' | 'mute' | 'unmute' | 'link' | 'unlink';

/**
 * docs/players.md#a-503-or-504-after-a-write-that-applied: a 503/504 on a moderation write that may have applied carries
 * `details.mutation_applied` and `details.action`, so a client knows what to retry or re-read.
 */
function withAction(error: unknown, action: PlayerAction): unknown {
  if (!(error instanceof ApiError) || error.details?.['mutation_applied'] !== true) return error;
  return new ApiError(error.code, error.message, {
    details: { ...error.details, action },
    headers: error.headers,
    status: error.status,
  });
}

async function checkIfMatch(ctx: RouteContext<unknown, unknown, unknown>, ref: PlayerRef, ifMatch: string) {
  let current: unknown;
  try {
    current = await ctx.call('players.moderation', { ref });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') throw preconditionFailed();
    throw error;
  }
  const etag = strongEtag(Buffer.from(JSON.stringify(ModerationState().parse(current))));
  if (!ifMatchHits(ifMatch, etag)) throw preconditionFailed();
}

function preconditionFailed(): ApiError {
  return new ApiError(
    'precondition_failed',
    "The player's moderation state changed since that ETag; GET it again and retry. Nothing was changed.",
  );
}
