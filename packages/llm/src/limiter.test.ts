import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AdaptiveLimiter } from './limiter';

describe('AdaptiveLimiter', () => {
  it('never runs more than the limit at once and serves waiters in order', async () => {
    const lim = new AdaptiveLimiter(3);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        await lim.acquire();
        order.push(i);
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        lim.release();
      }),
    );
    expect(peak).toBe(3);
    expect(order).toEqual([...Array(12).keys()]);
    expect(lim.running).toBe(0);
  });

  it('halves the limit on 429 (once per cooldown window) and recovers additively on success', () => {
    const lim = new AdaptiveLimiter(16, { cooldownMs: 1000 });
    lim.onRateLimited(10_000);
    expect(lim.limit).toBe(8);
    lim.onRateLimited(10_500); // same burst: ignored
    expect(lim.limit).toBe(8);
    lim.onRateLimited(11_001);
    expect(lim.limit).toBe(4);
    expect(lim.minReached).toBe(4);
    // +1 after `limit` successes in a row: 4 successes -> 5, 5 more -> 6, ...
    for (let i = 0; i < 4; i++) lim.onSuccess();
    expect(lim.limit).toBe(5);
    for (let i = 0; i < 5 + 6 + 7; i++) lim.onSuccess();
    expect(lim.limit).toBe(8);
    for (let i = 0; i < 1000; i++) lim.onSuccess();
    expect(lim.limit).toBe(16);
    const one = new AdaptiveLimiter(1, { cooldownMs: 0 });
    one.onRateLimited(1);
    one.onRateLimited(2);
    expect(one.limit).toBe(1);
  });

  it('lets a waiter go when its signal aborts', async () => {
    const lim = new AdaptiveLimiter(1);
    await lim.acquire();
    const ac = new AbortController();
    const waiting = lim.acquire(ac.signal);
    expect(lim.waiting).toBe(1);
    ac.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(lim.waiting).toBe(0);
    lim.release();
    await lim.acquire();
    expect(lim.running).toBe(1);
  });

  it('keeps one abort listener on a signal however many waiters share it, and none once they got a slot', async () => {
    const lim = new AdaptiveLimiter(2);
    const ac = new AbortController();
    await lim.acquire(ac.signal);
    await lim.acquire(ac.signal);
    const waiters = Array.from({ length: 50 }, () => lim.acquire(ac.signal));
    expect(lim.waiting).toBe(50);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    for (let i = 0; i < 40; i++) lim.release();
    await Promise.all(waiters.slice(0, 40));
    expect(lim.waiting).toBe(10);
    const rest = waiters.slice(40).map((p) => p.catch((e: Error) => e.message));
    ac.abort(new Error('stop'));
    expect(await Promise.all(rest)).toEqual(Array(10).fill('stop'));
    expect(lim.waiting).toBe(0);
    expect(lim.running).toBe(2);
  });
});
