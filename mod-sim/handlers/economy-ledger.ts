/**
 * `economy.transactions` (docs/economy.md#the-ledger): the world's ledger, newest
 * first, with the spec's filters. `next` is the id of the page's last entry; the ledger finds the
 * position after it in O(1), so a deep page costs what the first one costs (world/ledger.ts).
 */
import { OpError } from '../../protocol/ops/index.ts';
import type { OpResult } from '../../protocol/ops/index.ts';
import type { World } from '../world/index.ts';
import type { ArgsOf } from './players-common.ts';

const ENTRY_ID = /^[1-9][0-9]{0,14}$/;

export function listTransactions(
  world: World,
  args: ArgsOf<'economy.transactions'>,
): OpResult<'economy.transactions'> {
  const { after, limit, ...filter } = args;
  if (after !== null && !ENTRY_ID.test(after)) {
    throw new OpError('invalid', `'${after}' is not a ledger entry id`);
  }
  const page = world.ledger.query({ after: after ?? undefined, limit, filter });
  return { data: page.items, next: page.hasMore ? page.nextAfter : null };
}
