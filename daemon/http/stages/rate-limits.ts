/**
 * The two rate-limit stages (docs/pipeline.md): the edge limit per client address before
 * anything else under it, the per-key limit once the key is authorized. Each counts the request
 * and puts the RateLimit headers on whatever the answer turns out to be. A reload replaces a
 * limiter only when its policy changed, so an unchanged one keeps its counts.
 */
import type { DaemonMetrics, RateLimitLayer } from '../../metrics/metrics.ts';
import { ApiError } from '../api-error.ts';
import type { Exchange } from '../exchange.ts';
import {
  type RateLimitPolicy,
  RateLimiter,
  type RateLimitVerdict,
  rateLimitHeaders,
} from '../rate-limiter.ts';

export class RateLimits {
  #key: RateLimiter;
  #edge: RateLimiter;
  readonly #now: () => number;
  readonly #metrics: DaemonMetrics;

  constructor(
    policies: { key: RateLimitPolicy; edge: RateLimitPolicy },
    now: () => number,
    metrics: DaemonMetrics,
  ) {
    this.#key = new RateLimiter(policies.key, now);
    this.#edge = new RateLimiter(policies.edge, now);
    this.#now = now;
    this.#metrics = metrics;
  }

  /** The edge limit: per client address (edgeSubject), before authentication. */
  edge(subject: string, exchange: Exchange): void {
    this.#take(this.#edge, subject, exchange, 'edge');
  }

  /** The per-key limit. */
  key(keyId: string, exchange: Exchange): void {
    this.#take(this.#key, keyId, exchange, 'key');
  }

  /**
   * Once the key is known, the RateLimit headers describe its own limit ("per API key"), also on
   * a 403 before the per-key stage, which spends none of it (docs/pipeline.md).
   */
  showKey(keyId: string, exchange: Exchange): void {
    Object.assign(exchange.headers, rateLimitHeaders(this.#key.peek(keyId)));
  }

  reconfigure(policies: { key?: RateLimitPolicy | undefined; edge?: RateLimitPolicy | undefined }): void {
    if (policies.key && !same(policies.key, this.#key.policy))
      this.#key = new RateLimiter(policies.key, this.#now);
    if (policies.edge && !same(policies.edge, this.#edge.policy))
      this.#edge = new RateLimiter(policies.edge, this.#now);
  }

  /** Counts the request, puts the RateLimit headers on whatever the response turns out to be. */
  #take(limiter: RateLimiter, subject: string, exchange: Exchange, layer: RateLimitLayer): void {
    const verdict: RateLimitVerdict = limiter.take(subject);
    Object.assign(exchange.headers, rateLimitHeaders(verdict));
    if (!verdict.allowed) {
      this.#metrics.rateLimited(layer);
      throw new ApiError('rate_limited', `Rate limit reached; retry in ${verdict.resetSec} s.`, {
        headers: { 'retry-after': String(verdict.resetSec) },
      });
    }
  }
}

function same(a: RateLimitPolicy, b: RateLimitPolicy): boolean {
  return a.limit === b.limit && a.windowSec === b.windowSec;
}
