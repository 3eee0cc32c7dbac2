/** Helpers for the economy route tests: a key with an owner identity, writes, ledger reads. */
import type { LedgerEntry, Player, World } from '../../../mod-sim/world/index.ts';
import type { Stack } from '../../../harness/stack.ts';

/** The identity the economy key's owner gave it: every write is attributed to it. */
export const OWNER = { platform_id: '76561190000000071', social_id: '556677889900112233' };

export interface ErrorBody {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export function errorOf(json: unknown): ErrorBody {
  return (json as { error: ErrorBody }).error;
}

/** Creates a key owned by OWNER with `scopes` (default all), and waits for the daemon to see it. */
export async function ownedKey(stack: Stack, name: string, scopes = 'all'): Promise<string> {
  const { key } = await stack.data.createKey(
    '--name',
    name,
    '--scopes',
    scopes,
    '--owner-platform-id',
    OWNER.platform_id,
    '--owner-social-id',
    OWNER.social_id,
  );
  return key;
}

export function post(stack: Stack, path: string, body: unknown, headers: Record<string, string> = {}) {
  return stack.call(path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export interface LedgerPage {
  data: LedgerEntry[];
  has_more: boolean;
  next_cursor: string | null;
}

/** GET /v1/economy/transactions with `query`; fails the test unless it is a 200. */
export async function ledger(stack: Stack, query: Record<string, string> = {}): Promise<LedgerPage> {
  const res = await stack.call(`/v1/economy/transactions?${new URLSearchParams(query).toString()}`);
  if (res.status !== 200) throw new Error(`ledger read failed: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json as LedgerPage;
}

/** The newest ledger entry, read through the API. */
export async function newestEntry(stack: Stack): Promise<LedgerEntry> {
  return (await ledger(stack, { limit: '1' })).data[0] as LedgerEntry;
}

/** The n-th player matching `test`, in roster order. */
export function pick(world: World, test: (player: Player) => boolean, n = 0): Player {
  const player = world.players.list.values().filter(test)[n];
  if (player === undefined) throw new Error('no such player in the test world');
  return player;
}

export const isOnline = (player: Player) => player.online;
export const isOffline = (player: Player) => !player.online;
