/**
 * Calls a simulator handler the way the bridge and the daemon reach it: the arguments parsed by
 * the op catalogue's schema on the way in, the result by its schema on the way out. The handler
 * tests of mod-sim/handlers/ build their `call` from it.
 */
import { OPS, type OpArgs, type OpName, type OpResult } from '../../protocol/ops/index.ts';

type Handlers<N extends OpName> = Record<N, unknown>;

export function catalogueCaller<N extends OpName>(
  handlers: Handlers<N>,
): <M extends N>(name: M, args: OpArgs<M>, opId?: string) => Promise<OpResult<M>> {
  return async (name, args, opId) => {
    const op = OPS[name];
    const handler = handlers[name] as (args: unknown, ctx: unknown) => unknown;
    const ctx = { opId, signal: new AbortController().signal, applied: () => {} };
    return op.result.parse(await handler(op.args.parse(args), ctx)) as OpResult<typeof name>;
  };
}
