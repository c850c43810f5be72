import type { CachedResponse, DiskCache } from '../cache';
import { costOf, DEFAULT_PRICES, priceOf, type ModelPrice, type PriceTable } from '../prices';
import type { CanonicalRequest } from '../request';
import type { UsageSummary } from '../types';

/** Counters of one account (the runtime's, or one run's). */
export class Stats {
  calls = 0;
  cacheHits = 0;
  failedCalls = 0;
  retries = 0;
  batchCalls = 0;
  promptTokens = 0;
  completionTokens = 0;
  cachedTokens = 0;
  cost = 0;
  unpricedCalls = 0;

  summary(): UsageSummary {
    return {
      calls: this.calls,
      cacheHits: this.cacheHits,
      failedCalls: this.failedCalls,
      retries: this.retries,
      batchCalls: this.batchCalls,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      cachedTokens: this.cachedTokens,
      totalTokens: this.promptTokens + this.completionTokens,
      cost: this.cost,
      costKnown: this.unpricedCalls === 0,
    };
  }
}

/**
 * Usage and cost: prices, the accounts answers are counted into, and the completion tokens observed per method
 * (in this runtime, else in the cache), which budget reservations, dry runs and pacing expect of a call.
 */
export class Usage {
  prices: PriceTable;
  private readonly observed = new Map<string, { n: number; sum: number }>();
  /** Completion tokens of cached answers by model and method, read once (when first needed). */
  private fromCache: Map<string, { n: number; sum: number }> | undefined;

  constructor(
    extra: PriceTable | undefined,
    private readonly cache: DiskCache,
    private readonly cacheOff: boolean,
    private readonly defaultCompletionTokens: number,
  ) {
    this.prices = { ...DEFAULT_PRICES, ...(extra ?? {}) };
  }

  price(model: string): ModelPrice | undefined {
    return priceOf(model, this.prices);
  }

  observe(label: string, res: CachedResponse): void {
    if (!res.usage) return;
    const o = this.observed.get(label) ?? { n: 0, sum: 0 };
    o.n++;
    o.sum += res.usage.completionTokens;
    this.observed.set(label, o);
  }

  /** Counts an answer into `sinks` (at `factor` of the price: 0.5 for the Batch API); returns its cost. */
  account(
    sinks: Stats[],
    req: CanonicalRequest,
    res: CachedResponse,
    factor: number,
    batch: boolean,
    label: string,
  ): number {
    const usage = res.usage;
    const p = this.price(req.model);
    const cost = usage && p ? costOf(p, usage, factor) : 0;
    for (const s of sinks) {
      if (batch) s.batchCalls++;
      else s.calls++;
      if (usage) {
        s.promptTokens += usage.promptTokens;
        s.completionTokens += usage.completionTokens;
        s.cachedTokens += usage.cachedTokens ?? 0;
      }
      if (p) s.cost += cost;
      else s.unpricedCalls++;
    }
    this.observe(label, res);
    return cost;
  }

  /**
   * Completion tokens a call is expected to produce: its request's max tokens when set; else the mean observed so
   * far for the same method (this runtime, else the cache); else the default.
   */
  expectedCompletionTokens(req: CanonicalRequest, label: string): number {
    if (req.params.max_tokens !== undefined) return req.params.max_tokens;
    return this.meanCompletionTokens(req.model, label) ?? this.defaultCompletionTokens;
  }

  /**
   * Mean completion tokens observed for `label` in this runtime, else in the cache for `label` and `model`, else for
   * any method of this runtime (`undefined`: none seen).
   */
  meanCompletionTokens(model: string, label: string): number | undefined {
    const o = this.observed.get(label);
    if (o && o.n > 0) return o.sum / o.n;
    this.fromCache ??= this.cacheOff ? new Map() : this.cache.completionStats();
    const c = this.fromCache.get(`${model}\u0000${label}`);
    if (c && c.n > 0) return c.sum / c.n;
    let n = 0;
    let sum = 0;
    for (const v of this.observed.values()) {
      n += v.n;
      sum += v.sum;
    }
    return n > 0 ? sum / n : undefined;
  }
}
