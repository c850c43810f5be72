import { onAbort } from './abort';

/**
 * Adaptive concurrency limiter (AIMD). At most `limit` calls run at once; `limit` starts at `max`, is halved
 * when the endpoint answers 429 (at most once per `cooldownMs`, so one burst of 429s counts once), and grows
 * by one after every `limit` consecutive successes until it is back at `max`.
 */
export class AdaptiveLimiter {
  readonly max: number;
  private current: number;
  private active = 0;
  private streak = 0;
  private lastDecrease = -Infinity;
  private readonly cooldownMs: number;
  private readonly waiters: Array<{ resolve: () => void; reject: (e: unknown) => void; unsubscribe?: () => void }> = [];
  /** Lowest limit reached so far (reported in summaries). */
  minReached: number;

  constructor(max: number, options: { cooldownMs?: number } = {}) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a positive integer, got ${max}`);
    this.max = max;
    this.current = max;
    this.minReached = max;
    this.cooldownMs = options.cooldownMs ?? 1000;
  }

  get limit(): number {
    return this.current;
  }

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    if (this.active < this.current && this.waiters.length === 0) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: (typeof this.waiters)[number] = { resolve, reject };
      if (signal) {
        waiter.unsubscribe = onAbort(signal, () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal.reason ?? new Error('aborted'));
        });
      }
      this.waiters.push(waiter);
    });
  }

  release(): void {
    this.active--;
    this.drain();
  }

  /** The endpoint said 429: halve the limit (once per cooldown window). */
  onRateLimited(now = Date.now()): void {
    this.streak = 0;
    if (now - this.lastDecrease < this.cooldownMs) return;
    this.lastDecrease = now;
    this.current = Math.max(1, Math.floor(this.current / 2));
    this.minReached = Math.min(this.minReached, this.current);
  }

  /** A call succeeded: additive increase after `limit` successes in a row. */
  onSuccess(): void {
    if (this.current >= this.max) return;
    this.streak++;
    if (this.streak >= this.current) {
      this.streak = 0;
      this.current++;
      this.drain();
    }
  }

  private drain(): void {
    while (this.active < this.current && this.waiters.length > 0) {
      const w = this.waiters.shift()!;
      w.unsubscribe?.();
      this.active++;
      w.resolve();
    }
  }
}
