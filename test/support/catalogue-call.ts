/**
 * Calls a simulator handler the way the bridge and the daemon reach it: the arguments parsed by
 * the op catalogue's schema on the way in, the result by its schema on the way out. The handler
 * tests of mod-sim/handlers/ build their `call` from it.
 */
import { OPS, OpError, type OpArgs, type OpName, type OpResult } from '../../protocol/ops/index.ts';

type Handlers<N extends OpName> = Record<N, unknown>;

export function catalogueCaller<N extends OpName>(
  handlers: Handlers<N>,
): <M extends N>(name: M, args: OpArgs<M>, opId?: string) => Promise<OpResult<M>> {
  return async (name, args, opId) => {
    const op = OPS[name];
    const handler = handlers[name] as (args: unknown, ctx: unknown) => unknown;
    const ctx = { opId, signal: new AbortController().signal, applied: () => {} };
    // As the bridge does (PROTOCOL §6.2): arguments the schema refuses are the op error `invalid`.
    const parsed = op.args.safeParse(args);
    if (!parsed.success) throw new OpError('invalid', parsed.error.issues[0]?.message ?? 'invalid arguments');
    return op.result.parse(await handler(parsed.data, ctx)) as OpResult<typeof name>;
  };
}
