import { onAbort } from './abort';
import type { RateLimitInfo } from './rate-headers';

/**
 * Pacing to the endpoint's quota. Two token buckets mirror the provider's: requests per minute and tokens per minute,
 * each refilled continuously at limit / 60 s. Their limits come from `--rpm` / `--tpm` (stated) and from the
 * `x-ratelimit-limit-*` headers (learned; the lower wins); their levels follow the `x-ratelimit-remaining-*` headers
 * (our level never stays above what the endpoint reports). A call is admitted when both buckets hold its cost (one
 * request; its estimated tokens), so calls in flight follow from the quota rather than from a fixed number.
 * A 429 with `retry-after` holds every call until then. An endpoint that sends no header at all is probed: its 429s
 * set and halve a request rate (multiplicative decrease), every success raises it a little (additive increase per
 * call), so the rate settles under the quota.
 */

/** Pace slightly under the stated or learned rate: timers fire late, the endpoint's clock is not ours. */
const SAFETY = 0.98;
/** Arrival jitter the buckets leave room for (see `Bucket.waitFor`). */
const JITTER_MS = 750;
/** In-flight calls at first when nothing is known about the endpoint's limits, and the most the probe allows. */
const UNKNOWN_CONCURRENCY = 32;
const UNKNOWN_CONCURRENCY_MAX = 64;
/** In-flight cap once a quota is known (the buckets decide). */
const PACED_CONCURRENCY = 1024;
/** Probed rate: at most one decrease per this long (one burst of 429s counts once). */
const PROBE_COOLDOWN_MS = 1000;
/** Probed rate: requests per second added per answered call (10% a second at any rate). */
const PROBE_STEP = 0.1;
const PROBE_MIN_RATE = 0.05;
/** Calls admitted in the window before a first 429 can set a probed rate. */
const PROBE_MIN_SAMPLE = 4;
/** Probed rate: factor of a decrease after the first (which halves the rate sustained until then). */
const PROBE_DECREASE = 0.5;
/** Admissions counted over this window: the first probe halves the rate that met the first 429. */
const RATE_WINDOW_MS = 2000;

class Bucket {
  /** Units per minute. */
  limit: number;
  capacity: number;
  level: number;
  private at: number;

  constructor(limit: number, capacity: number, level: number, now: number) {
    this.limit = limit;
    this.capacity = capacity;
    this.level = Math.min(level, capacity);
    this.at = now;
  }

  private get perMs(): number {
    return (this.limit * SAFETY) / 60_000;
  }

  /** Gives back (or takes) the difference between what a request was charged and what the endpoint charged. */
  settle(delta: number, now: number): void {
    this.refill(now);
    this.level = Math.min(this.capacity, this.level + delta);
  }

  refill(now: number): void {
    if (now > this.at) this.level = Math.min(this.capacity, this.level + (now - this.at) * this.perMs);
    this.at = now;
  }

  /**
   * Ms until `n` units are available, plus what refills in JITTER_MS: a request that reaches the endpoint a little
   * later than another sent after it (connection set-up, a busy event loop) still finds its units there. The reserve
   * only shifts the level; it costs JITTER_MS once per run, not throughput. A cost above the capacity waits for a
   * full bucket.
   */
  waitFor(n: number, now: number): number {
    this.refill(now);
    // The reserve stays well under a full bucket: waiting near the capacity would lose what refills above it.
    const reserve = Math.max(0, Math.min(this.perMs * JITTER_MS, (this.capacity - n) / 2));
    const need = Math.min(n + reserve, this.capacity);
    return this.level >= need ? 0 : Math.ceil((need - this.level) / this.perMs);
  }

  take(n: number): void {
    this.level -= n;
  }

  /** The endpoint reports `remaining`: never believe we have more than that. */
  sync(remaining: number, now: number): void {
    this.refill(now);
    if (remaining < this.level) this.level = remaining;
  }
}

export interface PacerOptions {
  /** Requests per minute the user states (`--rpm`). */
  rpm?: number;
  /** Tokens per minute the user states (`--tpm`). */
  tpm?: number;
  /** A fixed most calls in flight (`--concurrency`); default: follows from the quota. */
  concurrency?: number;
  now?: () => number;
}

/** What the pacer learned and did, for the run summary. */
export interface PacingReport {
  /** Requests per minute paced to (stated or learned), if any. */
  rpm?: number;
  /** Tokens per minute paced to (stated or learned), if any. */
  tpm?: number;
  /** Where the limits came from. */
  source: 'stated' | 'headers' | 'stated+headers' | 'probed' | 'none';
  /** The probed rate in requests per minute, when the endpoint sent 429s without headers. */
  probedRpm?: number;
  /** Requests the endpoint answered with 429 (or 503 asking to retry later). */
  rateLimited: number;
  /** Wall time (ms) during which calls waited for the quota. */
  waitedMs: number;
  /** Estimated prompt tokens are scaled by this to match the endpoint's own count (learned from usage). */
  tokenScale: number;
}

/** A call admitted by the pacer: released exactly once. */
export interface PacerTicket {
  readonly tokens: number;
  readonly promptTokens: number;
  readonly exact: boolean;
  /** Tokens reserved beyond the prompt (`max_tokens`), as the endpoint charges them. */
  readonly reserve: number;
  /** When it was admitted: a 429 of a call admitted before the last decrease does not decrease again. */
  readonly at: number;
}

interface Waiter {
  tokens: number;
  promptTokens: number;
  reserve: number;
  exact: boolean;
  resolve: (t: PacerTicket) => void;
  reject: (e: unknown) => void;
  unsubscribe?: () => void;
}

export class Pacer {
  private readonly stated: { rpm?: number; tpm?: number };
  private readonly fixedConcurrency?: number;
  private readonly now: () => number;
  private requests?: Bucket;
  private tokens?: Bucket;
  private fromHeaders = false;
  /** Requests per second found by probing (no headers); undefined until the first headerless 429. */
  private probeRate?: number;
  private probe?: Bucket;
  private lastDecrease = -Infinity;
  private pausedUntil = 0;
  private concurrencyCap: number;
  private inFlight = 0;
  private readonly queue: Waiter[] = [];
  private timer?: NodeJS.Timeout;
  private blockedSince?: number;
  private waited = 0;
  private rateLimited = 0;
  /** The endpoint's prompt count over ours, for the tokenizer's counts and for the rough ones. */
  /**
   * Estimated prompt tokens -> the endpoint's count, per kind of estimate: the mean ratio and its variance (moving
   * averages). A request is charged at the mean plus two standard deviations, so that prompts the estimate counts low
   * do not overdraw a bucket paced to the last token; the margin shrinks as the estimate proves steady.
   */
  private readonly scales = {
    exact: { value: 1, variance: 0, learned: false },
    rough: { value: 1, variance: 0, learned: false },
  };
  private admissions: number[] = [];
  /** Lowest and highest in-flight cap (summary). */
  minCap: number;
  maxCap: number;

  constructor(options: PacerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.stated = { rpm: options.rpm, tpm: options.tpm };
    this.fixedConcurrency = options.concurrency;
    const t = this.now();
    // A stated quota holds from the first call; its burst is unknown, so start from ten seconds' worth.
    if (options.rpm) this.requests = new Bucket(options.rpm, options.rpm / 6, Math.max(1, options.rpm / 60), t);
    if (options.tpm) this.tokens = new Bucket(options.tpm, options.tpm / 6, options.tpm / 60, t);
    this.concurrencyCap =
      options.concurrency ?? (this.requests || this.tokens ? PACED_CONCURRENCY : UNKNOWN_CONCURRENCY);
    this.minCap = this.concurrencyCap;
    this.maxCap = this.concurrencyCap;
  }

  /**
   * Tokens the endpoint will count for a request of `promptTokens` prompt tokens and `reserve` more: the tokenizer's
   * count (`exact`), or a rough estimate from the characters while it loads, each scaled to the endpoint's own count
   * as learned from the usage it reports.
   */
  cost(promptTokens: number, reserve: number, exact = true): number {
    const scale = this.scales[exact ? 'exact' : 'rough'];
    return Math.ceil(promptTokens * (scale.value + 2 * Math.sqrt(scale.variance))) + reserve;
  }

  /** Whether a token limit is known (stated or learned): only then is a request's prompt worth counting. */
  get countsTokens(): boolean {
    return this.tokens !== undefined;
  }

  get limit(): number {
    return this.concurrencyCap;
  }

  /** Waits until a request costing `tokens` fits both buckets (FIFO), then counts it in flight. */
  acquire(tokens: number, promptTokens: number, signal?: AbortSignal, exact = true, reserve = 0): Promise<PacerTicket> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    return new Promise<PacerTicket>((resolve, reject) => {
      const waiter: Waiter = { tokens, promptTokens, exact, reserve, resolve, reject };
      if (signal) {
        waiter.unsubscribe = onAbort(signal, () => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(signal.reason ?? new Error('aborted'));
          this.drain();
        });
      }
      this.queue.push(waiter);
      this.drain();
    });
  }

  /** A call ended without an answer that tells anything about the quota (connection error, 5xx, abort). */
  release(_ticket: PacerTicket): void {
    this.inFlight--;
    this.drain();
  }

  /** A call was answered: learn from its headers and usage, probe upwards, and let the next one go. */
  onSuccess(ticket: PacerTicket, info: RateLimitInfo, usage?: { promptTokens: number }): void {
    const now = this.now();
    // The endpoint's own count settles what the estimate charged (before the headers, which only ever lower the level).
    if (usage && ticket.tokens > 0 && usage.promptTokens > 0)
      this.tokens?.settle(ticket.tokens - (usage.promptTokens + ticket.reserve), now);
    this.learn(info, now);
    if (usage && ticket.promptTokens > 0 && usage.promptTokens > 0) {
      // The endpoint's own prompt count (another tokenizer, hidden tokens): follow it smoothly.
      const scale = this.scales[ticket.exact ? 'exact' : 'rough'];
      const ratio = usage.promptTokens / ticket.promptTokens;
      if (!scale.learned) {
        scale.value = ratio;
        // until the spread is seen, a tenth of the ratio
        scale.variance = (0.1 * ratio) ** 2;
      } else {
        const deviation = ratio - scale.value;
        scale.value += 0.1 * deviation;
        scale.variance = 0.9 * (scale.variance + 0.1 * deviation * deviation);
      }
      scale.learned = true;
    }
    if (this.probeRate !== undefined && this.probe) {
      this.probeRate += PROBE_STEP;
      this.probe.limit = this.probeRate * 60;
      this.probe.capacity = Math.max(1, this.probeRate);
    }
    if (
      this.fixedConcurrency === undefined &&
      !this.requests &&
      !this.tokens &&
      this.probeRate === undefined &&
      this.queue.length > 0 &&
      this.inFlight >= this.concurrencyCap &&
      this.concurrencyCap < UNKNOWN_CONCURRENCY_MAX
    ) {
      // Nothing limits the rate yet and calls queue behind the cap: probe upwards.
      this.setCap(this.concurrencyCap + 1);
    }
    this.inFlight--;
    this.drain();
  }

  /**
   * The endpoint answered 429 (or 503 with retry-after): count it, learn what its headers say, hold every call
   * until its `retry-after`, and, when it sent no header at all, lower the probed rate.
   */
  onRateLimited(ticket: PacerTicket, info: RateLimitInfo): void {
    const now = this.now();
    this.rateLimited++;
    const headers = this.learn(info, now);
    if (info.retryAfterMs !== undefined) this.pausedUntil = Math.max(this.pausedUntil, now + info.retryAfterMs);
    if (!headers && info.retryAfterMs === undefined) {
      // The answer says nothing about which bucket is empty: take both as empty.
      this.requests?.sync(0, now);
      this.tokens?.sync(0, now);
      if (
        !this.requests &&
        !this.tokens &&
        ticket.at > this.lastDecrease &&
        now - this.lastDecrease >= PROBE_COOLDOWN_MS
      ) {
        this.lastDecrease = now;
        const offered = this.recentRate(now);
        // Too few calls to tell a rate: the wait (retry-after or backoff) has to do.
        if (this.probeRate === undefined && this.recentCount(now) < PROBE_MIN_SAMPLE) {
          this.released();
          return;
        }
        this.probeRate = Math.max(
          PROBE_MIN_RATE,
          this.probeRate === undefined ? offered * PROBE_DECREASE : this.probeRate * PROBE_DECREASE,
        );
        this.probe ??= new Bucket(this.probeRate * 60, Math.max(1, this.probeRate), 0, now);
        this.probe.limit = this.probeRate * 60;
        this.probe.capacity = Math.max(1, this.probeRate);
        this.probe.sync(0, now);
        if (this.fixedConcurrency === undefined) this.setCap(PACED_CONCURRENCY);
      }
    }
    this.released();
  }

  private released(): void {
    this.inFlight--;
    this.drain();
  }

  report(): PacingReport {
    const now = this.now();
    const waitedMs = this.waited + (this.blockedSince !== undefined ? now - this.blockedSince : 0);
    const stated = this.stated.rpm !== undefined || this.stated.tpm !== undefined;
    const source = stated
      ? this.fromHeaders
        ? 'stated+headers'
        : 'stated'
      : this.fromHeaders
        ? 'headers'
        : this.probeRate !== undefined
          ? 'probed'
          : 'none';
    const out: PacingReport = { source, rateLimited: this.rateLimited, waitedMs, tokenScale: this.scales.exact.value };
    if (this.requests) out.rpm = this.requests.limit;
    if (this.tokens) out.tpm = this.tokens.limit;
    if (this.probeRate !== undefined) out.probedRpm = Math.round(this.probeRate * 60 * 10) / 10;
    return out;
  }

  /** Stops waiting calls (they reject with `reason`). */
  close(reason: unknown): void {
    clearTimeout(this.timer);
    for (const w of this.queue.splice(0)) {
      w.unsubscribe?.();
      w.reject(reason);
    }
  }

  private setCap(n: number): void {
    this.concurrencyCap = n;
    this.minCap = Math.min(this.minCap, n);
    this.maxCap = Math.max(this.maxCap, n);
  }

  private recentCount(now: number): number {
    const from = now - RATE_WINDOW_MS;
    let n = 0;
    for (let i = this.admissions.length - 1; i >= 0 && this.admissions[i]! >= from; i--) n++;
    return n;
  }

  private recentRate(now: number): number {
    const n = this.recentCount(now);
    const first = this.admissions[0];
    const span = first === undefined ? RATE_WINDOW_MS : Math.min(RATE_WINDOW_MS, Math.max(1000, now - first));
    return (n / span) * 1000;
  }

  /** Applies limits and levels from headers; true when they said anything about the quota. */
  private learn(info: RateLimitInfo, now: number): boolean {
    let said = false;
    const apply = (
      current: Bucket | undefined,
      statedLimit: number | undefined,
      limit: number | undefined,
      remaining: number | undefined,
      resetMs: number | undefined,
    ): Bucket | undefined => {
      if (limit === undefined && remaining === undefined) return current;
      said = true;
      const lim = limit !== undefined ? Math.min(limit, statedLimit ?? Infinity) : current?.limit;
      if (lim === undefined || lim <= 0) {
        if (current && remaining !== undefined) current.sync(remaining, now);
        return current;
      }
      // The burst the endpoint allows: `remaining` plus what refills until `reset` (a full minute at most).
      const implied =
        remaining !== undefined && resetMs !== undefined ? remaining + (resetMs * lim) / 60_000 : undefined;
      if (!current) {
        const capacity = implied !== undefined ? Math.min(lim, Math.max(implied, 1)) : lim;
        return new Bucket(lim, capacity, remaining ?? capacity, now);
      }
      current.refill(now);
      if (limit !== undefined && (current.limit !== lim || !this.fromHeaders)) {
        current.limit = lim;
        current.capacity = implied !== undefined ? Math.min(lim, Math.max(implied, 1)) : lim;
      } else if (implied !== undefined && implied > current.capacity) current.capacity = Math.min(lim, implied);
      if (remaining !== undefined) current.sync(remaining, now);
      return current;
    };
    const hadQuota = Boolean(this.requests || this.tokens);
    this.requests = apply(
      this.requests,
      this.stated.rpm,
      info.limitRequests,
      info.remainingRequests,
      info.resetRequestsMs,
    );
    this.tokens = apply(this.tokens, this.stated.tpm, info.limitTokens, info.remainingTokens, info.resetTokensMs);
    if (said) {
      this.fromHeaders = true;
      if (!hadQuota && (this.requests || this.tokens)) {
        // The quota is known now: the buckets pace, probing stops.
        this.probeRate = undefined;
        this.probe = undefined;
        if (this.fixedConcurrency === undefined) this.setCap(PACED_CONCURRENCY);
      }
    }
    return said;
  }

  private drain(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.now();
    while (this.queue.length > 0 && this.inFlight < this.concurrencyCap) {
      const head = this.queue[0]!;
      const wait = Math.max(
        this.pausedUntil - now,
        this.requests?.waitFor(1, now) ?? 0,
        this.tokens?.waitFor(head.tokens, now) ?? 0,
        this.probe?.waitFor(1, now) ?? 0,
      );
      if (wait > 0) {
        this.blockedSince ??= now;
        this.timer = setTimeout(() => this.drain(), wait);
        return;
      }
      this.queue.shift();
      head.unsubscribe?.();
      this.requests?.take(1);
      this.tokens?.take(head.tokens);
      this.probe?.take(1);
      this.inFlight++;
      this.admissions.push(now);
      if (this.admissions.length > 4096) this.admissions = this.admissions.slice(-2048);
      head.resolve({
        tokens: head.tokens,
        promptTokens: head.promptTokens,
        exact: head.exact,
        reserve: head.reserve,
        at: now,
      });
    }
    if (this.blockedSince !== undefined) {
      this.waited += now - this.blockedSince;
      this.blockedSince = undefined;
    }
  }
}
