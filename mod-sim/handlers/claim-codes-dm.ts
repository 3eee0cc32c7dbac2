/**
 * The game's direct-message queue for claim codes (docs/packs.md#claim-code-status;
 * mods 2.0.47 and later). Minting a code for a linked recipient queues a message
 * carrying the code (`delivery_status: pending`); the queue's worker later sends it (`sent`, with
 * the message's ids in `dm`) or gives up (`failed`).
 *
 * The worker's rules (docs/packs.md): it sends to the recipient's social id as linked when the
 * message goes out; a recipient unlinked meanwhile, or a code revoked meanwhile, is `failed`.
 * The simulator runs the worker every DM_QUEUE_INTERVAL_MS of wall time (`startDmQueue`); tests
 * turn that off and call `processDmQueue` when they choose.
 */
import type { ClaimCode, World } from '../world/index.ts';
import type { GameFaults } from './packs-deliver.ts';
import { nowOf } from './players-common.ts';

export const DM_QUEUE_INTERVAL_MS = 1_000;

export type DmStatus = 'queued' | 'target_not_linked' | 'not_requested' | 'failed';

/**
 * Asks for the code's direct message as it is minted, setting its `delivery_status`; answers the
 * mint's `dm_status`:
 *
 * | code | mod | dm_status | delivery_status |
 * | --- | --- | --- | --- |
 * | public (no recipient) | any | not_requested | unknown |
 * | recipient not linked | any | target_not_linked | target_not_linked |
 * | recipient linked | before 2.0.47 (sent untracked) | queued | unknown |
 * | recipient linked, queue full or refusing | 2.0.47+ | failed | failed |
 * | recipient linked | 2.0.47+ | queued | pending |
 */
export function requestDm(world: World, code: ClaimCode, faults: GameFaults): DmStatus {
  const shop = world.shop;
  if (code.target === null) return set(code, 'unknown', 'not_requested');
  if (code.target.social_id === null) return set(code, 'target_not_linked', 'target_not_linked');
  if (!world.features.claimCodeDmQueue) return set(code, 'unknown', 'queued');
  if (shop.pendingDms.size >= shop.dmQueueCapacity || faults.fails('claim_codes.dm')) {
    return set(code, 'failed', 'failed');
  }
  shop.pendingDms.add(code.code);
  return set(code, 'pending', 'queued');
}

function set(code: ClaimCode, delivery: ClaimCode['delivery_status'], answer: DmStatus): DmStatus {
  code.delivery_status = delivery;
  return answer;
}

/** Sends or fails every queued message; returns how many it settled. */
export function processDmQueue(world: World): number {
  const shop = world.shop;
  const now = nowOf(world);
  let settled = 0;
  for (const text of [...shop.pendingDms]) {
    shop.pendingDms.delete(text);
    const code = shop.claimCode(text);
    if (code === undefined || code.delivery_status !== 'pending') continue;
    const socialId = code.target?.social_id ?? null;
    if (socialId === null || code.status === 'revoked') {
      code.delivery_status = 'failed';
    } else {
      code.delivery_status = 'sent';
      code.dm = { channel_id: snowflake(world.openedAt, hashOf(socialId)), message_id: nextMessageId(now) };
    }
    settled += 1;
  }
  return settled;
}

/** Runs the worker every `intervalMs` (0: never); the timer never keeps the process alive. */
export function startDmQueue(world: World, intervalMs = DM_QUEUE_INTERVAL_MS): { stop(): void } {
  if (intervalMs <= 0) return { stop: () => {} };
  const timer = setInterval(() => processDmQueue(world), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** The chat platform's epoch (2015-01-01T00:00:00Z): snowflakes count milliseconds from it. */
const CHAT_EPOCH_MS = 1_420_070_400_000n;
let messages = 0;

/** A snowflake: milliseconds since the chat epoch, shifted 22 bits, then a 22-bit sequence. */
function snowflake(ms: number, sequence: number): string {
  return String(((BigInt(ms) - CHAT_EPOCH_MS) << 22n) | BigInt(sequence & 0x3f_ffff));
}

function nextMessageId(ms: number): string {
  messages = (messages + 1) & 0x3f_ffff;
  return snowflake(ms, messages);
}

/** The direct-message channel with a recipient is stable: derived from their social id. */
function hashOf(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash >>> 0;
}
