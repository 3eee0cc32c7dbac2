/**
 * Calling the mod for a handler (docs/pipeline.md, "Where each stage lives", the row "handler →
 * mod link op"): its `call`, `read` and `page`, with the per-op deadlines, the op metric, the
 * read-through cache (read-cache.ts), cursor-bound pages (cursor.ts) and op ids that make a
 * retried write apply once. A link failure leaves here as an ApiError (link-errors.ts).
 */
import { randomBytes } from 'node:crypto';
import { OPS, type OpArgs, type OpName } from '../../../protocol/ops/index.ts';
import { LinkCallError, type ModLinkServer } from '../../../protocol/link-server.ts';
import type { DaemonMetrics } from '../../metrics/metrics.ts';
import type { ApiKeyRecord } from '../../store/keys-file.ts';
import type { Snapshot } from '../../store/data-dir.ts';
import type { CursorCodec } from '../cursor.ts';
import type {
  AnyRoute,
  CallOptions,
  ListFilters,
  ListOp,
  PageOf,
  PageOptions,
  RouteContext,
  RouteServices,
  WriteActorInput,
} from '../define-route.ts';
import { keyActor } from '../define-route.ts';
import type { ReadCache } from '../read-cache.ts';
import type { Representations } from '../representations.ts';
import type { ReadRecord } from './response-memo.ts';
import type { ValidInput } from './input.ts';
import { toApiError } from '../link-errors.ts';
import type { ApiRequest } from '../types.ts';

export type ModLink = Pick<ModLinkServer, 'call' | 'peer'>;

/**
 * Told of a mutating op's successful answer before the handler gets it, and awaited: group mode
 * keeps a moderation write in its outbox (a local fsync) before the client hears it was made, so a
 * crash right after the answer loses nothing (docs/group.md). Must not reject.
 */
export type AfterWrite = (op: OpName, args: unknown, result: unknown) => Promise<void>;

type Read = RouteContext<unknown, unknown, unknown>['read'];

export interface ModCallsOptions {
  link: ModLink;
  /** Per-op deadlines overriding the op catalogue's. */
  opDeadlines: Partial<Record<OpName, number>>;
  metrics: DaemonMetrics;
  readCache: ReadCache;
  representations: Representations;
  cursors: CursorCodec;
  services: RouteServices;
  afterWrite?: AfterWrite;
}

export class ModCalls {
  /** Replaced whole by a reload (PipelineSettings.opDeadlines). */
  opDeadlines: Partial<Record<OpName, number>>;
  readonly #link: ModLink;
  readonly #metrics: DaemonMetrics;
  readonly #readCache: ReadCache;
  readonly #representations: Representations;
  readonly #cursors: CursorCodec;
  readonly #services: RouteServices;
  readonly #afterWrite: AfterWrite | undefined;

  constructor(options: ModCallsOptions) {
    this.opDeadlines = options.opDeadlines;
    this.#link = options.link;
    this.#metrics = options.metrics;
    this.#readCache = options.readCache;
    this.#representations = options.representations;
    this.#cursors = options.cursors;
    this.#services = options.services;
    this.#afterWrite = options.afterWrite;
  }

  /**
   * What the route's handler is given for one request: its input, and its `call`, `read` and
   * `page`. Each mutating op gets its own op id, `<base>.<n>`, the same on every retry of the
   * request, so the game applies it once. `record` notes what the answer was built from, for
   * the response memo (response-memo.ts); null when the answer will not be memoized.
   */
  context(
    route: AnyRoute,
    input: ValidInput,
    key: ApiKeyRecord,
    headers: ApiRequest['headers'],
    requestId: string,
    snapshot: Snapshot,
    keyedBase: string | null,
    record: ReadRecord | null,
    actor: WriteActorInput = keyActor(key),
  ): RouteContext<unknown, unknown, unknown> {
    let writes = 0;
    let opIdBase = keyedBase;
    const call = <N extends OpName>(op: N, args: OpArgs<N>, callOptions?: CallOptions) => {
      if (!OPS[op].mutates || callOptions?.opId !== undefined) return this.#callMod(op, args, callOptions);
      opIdBase ??= randomBytes(16).toString('base64url');
      return this.#callMod(op, args, { ...callOptions, opId: `${opIdBase}.${writes++}` });
    };
    const direct = <N extends OpName>(op: N, args: OpArgs<N>, callOptions?: CallOptions) => {
      record?.called();
      return call(op, args, callOptions);
    };
    const read = async <N extends OpName>(op: N, args: OpArgs<N>, tags: readonly string[] = []) => {
      if (route.cache.kind === 'no-store') return direct(op, args);
      const cacheKey = `${op} ${JSON.stringify(args)}`;
      const value = await this.#readCache.get(cacheKey, route.cache.maxAgeSec * 1000, tags, async () =>
        this.#representations.freeze(await call(op, args)),
      );
      record?.read(cacheKey, value);
      return value;
    };
    return {
      ...input,
      key,
      actor,
      requestId,
      headers,
      call: direct,
      read,
      page: (op, filters, pageOptions) =>
        this.#page(read, { keyId: key.id, route: route.operationId, filters }, op, pageOptions, record),
      invalidate: (tags) => this.#readCache.invalidate(tags),
      server: {
        serverId: snapshot.identity.serverId,
        name: snapshot.identity.name,
        modVersion: this.#link.peer?.modVersion ?? null,
      },
      services: this.#services,
    };
  }

  async #callMod<N extends OpName>(op: N, args: OpArgs<N>, callOptions?: CallOptions) {
    const started = performance.now();
    let outcome = 'ok';
    try {
      const deadlineMs = callOptions?.deadlineMs ?? this.opDeadlines[op];
      const result = await this.#link.call(
        op,
        args,
        deadlineMs === undefined ? callOptions : { ...callOptions, deadlineMs },
      );
      if (this.#afterWrite && OPS[op].mutates) await this.#afterWrite(op, args, result);
      return result;
    } catch (error) {
      outcome = opOutcome(error);
      throw toApiError(error);
    } finally {
      this.#metrics.modOp(op, outcome, (performance.now() - started) / 1000);
    }
  }

  async #page<N extends ListOp>(
    read: Read,
    scope: { keyId: string; route: string; filters: ListFilters<N> },
    op: N,
    { cursor, limit, tags }: PageOptions,
    record: ReadRecord | null,
  ): Promise<PageOf<N>> {
    const cursors = this.#cursors;
    const after = cursor === undefined ? null : cursors.decode(scope, cursor);
    const args = { ...scope.filters, after, limit } as OpArgs<N>;
    const result = (await read(op, args, tags)) as { data: unknown[]; next: string | null; total?: number };
    // Built once per cached page, key and route: the cursor is bound to all three.
    const envelope = this.#representations.derive(result, `${scope.keyId} ${scope.route}`, () => {
      const built: Record<string, unknown> = {
        data: result.data,
        has_more: result.next !== null,
        next_cursor: result.next === null ? null : cursors.encode(scope, result.next),
      };
      if (result.total !== undefined) built['total'] = result.total;
      return built;
    }) as PageOf<N>;
    record?.returned(envelope);
    return envelope;
  }
}

/** The op metric's outcome: a link failure's kind, or the code the mod answered with. */
function opOutcome(error: unknown): string {
  if (!(error instanceof LinkCallError)) return 'error';
  return error.kind === 'remote' ? (error.opError?.code ?? 'internal') : error.kind;
}
