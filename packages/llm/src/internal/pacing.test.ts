import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/helpers';
import { createLlm } from '../llm';
import { defaultUsage, formatRateLimitDuration, startTestServer, type RateLimitOptions } from '../testing/index';
import { quotaCause } from './config-errors';
import { parseDuration, readRateLimits, retryAfterMs } from './rate-headers';

const KEY_ENV = 'EVAL_LLM_PACING_TEST_KEY';

describe('rate-limit headers', () => {
  it("parses OpenAI's durations: 120ms, 1.5s, 6m0s, 1h2m3.5s, bare seconds", () => {
    expect(parseDuration('120ms')).toBe(120);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('6m0s')).toBe(360_000);
    // 1 h + 2 min + 3.5 s = 3,600,000 + 120,000 + 3,500 ms
    expect(parseDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseDuration('20ms')).toBe(20);
    expect(parseDuration('0s')).toBe(0);
    expect(parseDuration('2')).toBe(2000);
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('5 minutes')).toBeUndefined();
  });

  it('reads limits, remaining and resets, and retry-after in its three forms', () => {
    const h = new Headers({
      'x-ratelimit-limit-requests': '500',
      'x-ratelimit-limit-tokens': '30000',
      'x-ratelimit-remaining-requests': '499',
      'x-ratelimit-remaining-tokens': '29000',
      'x-ratelimit-reset-requests': '120ms',
      'x-ratelimit-reset-tokens': '2s',
      'retry-after-ms': '250',
    });
    expect(readRateLimits(h)).toEqual({
      limitRequests: 500,
      limitTokens: 30_000,
      remainingRequests: 499,
      remainingTokens: 29_000,
      resetRequestsMs: 120,
      resetTokensMs: 2000,
      retryAfterMs: 250,
    });
    expect(readRateLimits(new Headers())).toEqual({});
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000);
    // retry-after-ms wins over retry-after
    expect(retryAfterMs({ 'retry-after-ms': '40', 'retry-after': '1' })).toBe(40);
  });

  it('tells a quota no wait restores from a rate limit', () => {
    expect(quotaCause({ code: 'insufficient_quota', message: 'You exceeded your current quota' })).toBe(
      'insufficient-quota',
    );
    expect(
      quotaCause({
        code: 'rate_limit_exceeded',
        message: 'Rate limit reached for gpt-4o on requests per day (RPD): Limit 10000, Used 10000, Requested 1.',
      }),
    ).toBe('daily-limit');
    expect(
      quotaCause({
        code: 'rate_limit_exceeded',
        message: 'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 1500.',
      }),
    ).toBeUndefined();
  });

  it('the scripted server writes durations the parser reads back', () => {
    for (const ms of [0, 120, 999, 1500, 59_000, 360_000, 3_723_500])
      expect(parseDuration(formatRateLimitDuration(ms))).toBe(ms);
  });
});

describe('pacing against a rate-limited server', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    process.env[KEY_ENV] = 'sk-pacing';
  });
  afterEach(() => cleanup());

  async function run(
    rateLimit: RateLimitOptions | undefined,
    n: number,
    content: (i: number) => string,
    maxTokens?: number,
  ) {
    const server = await startTestServer({ ...(rateLimit ? { rateLimit } : {}), latencyMs: [5, 20] });
    const llm = createLlm({
      model: 'test-model',
      baseURL: server.baseURL,
      apiKeyEnv: KEY_ENV,
      // the run without a quota keeps its own cache, so the paced run really calls
      cacheDir: join(dir, rateLimit ? 'paced' : 'own'),
      progress: false,
      ...(maxTokens ? { maxTokens } : {}),
    });
    const started = Date.now();
    const { summary, results } = await llm.runJobs({
      name: 'paced',
      items: Array.from({ length: n }, (_, i) => i),
      id: String,
      run: async (i, { model }) => (await model.chat([{ role: 'user', content: content(i) }])).text,
    });
    const ms = Date.now() - started;
    await llm.close();
    const stats = rateLimit ? server.rateLimitStats() : { admitted: n, admittedTokens: 0, limited: 0 };
    await server.close();
    return { summary, results, ms, stats };
  }

  /** The quota bound: admitted requests / RPM or admitted tokens / TPM, whichever is larger, less the burst. */
  function bound(o: RateLimitOptions, stats: { admitted: number; admittedTokens: number }): number {
    const req = o.rpm ? (Math.max(0, stats.admitted - (o.burst?.requests ?? o.rpm)) / o.rpm) * 60_000 : 0;
    const tok = o.tpm ? (Math.max(0, stats.admittedTokens - (o.burst?.tokens ?? o.tpm)) / o.tpm) * 60_000 : 0;
    return Math.max(req, tok);
  }

  it('RPM-bound: every item answered, within 1.1 x the bound (+ the calls own time, at least 2.5 s), at most 2% 429s', async () => {
    const o: RateLimitOptions = { rpm: 2400, burst: { requests: 10 } };
    // the same calls without a quota: what this machine needs for them, allowed on top of the quota bound
    const own = (await run(undefined, 160, (i) => `question ${i}`)).ms;
    const { summary, ms, stats } = await run(o, 160, (i) => `question ${i}`);
    expect(summary).toMatchObject({ done: 160, failed: 0, notRun: 0 });
    expect(stats.admitted).toBe(160);
    // (160 - 10) requests at 40 per second: 3.75 s
    expect(ms).toBeLessThanOrEqual(1.1 * bound(o, stats) + Math.max(2500, own));
    expect(ms).toBeGreaterThanOrEqual(bound(o, stats) * 0.9);
    expect(stats.limited / (stats.admitted + stats.limited)).toBeLessThanOrEqual(0.02);
    expect(summary.pacing).toMatchObject({ rpm: 2400, source: 'headers', rateLimited: stats.limited });
    expect(summary.pacing!.waitedMs).toBeGreaterThan(0);
  });

  it('TPM-bound (prompt + max_tokens reserved): within 1.1 x the bound (+ the calls own time, at least 2.5 s), at most 2% 429s', async () => {
    const prompt = (i: number) => `${'word '.repeat(200)}${i}`;
    // each request: defaultUsage prompt tokens + 50 reserved
    const cost = defaultUsage([{ role: 'user', content: prompt(10) }], '').promptTokens + 50;
    // 10 requests a second, a burst of 5: (50 - 5) / 10 = 4.5 s
    const o: RateLimitOptions = { rpm: 100_000, tpm: cost * 600, burst: { tokens: cost * 5 } };
    const own = (await run(undefined, 50, prompt, 50)).ms;
    const { summary, ms, stats } = await run(o, 50, prompt, 50);
    expect(summary).toMatchObject({ done: 50, failed: 0, notRun: 0 });
    expect(ms).toBeLessThanOrEqual(1.1 * bound(o, stats) + Math.max(2500, own));
    expect(stats.limited / (stats.admitted + stats.limited)).toBeLessThanOrEqual(0.02);
    expect(summary.pacing?.tpm).toBe(cost * 600);
  });

  it('429s without any header: no item fails, the rate is probed', async () => {
    const o: RateLimitOptions = { rpm: 1200, burst: { requests: 5 }, headers: 'none' };
    const { summary, stats } = await run(o, 60, (i) => `q ${i}`);
    expect(summary).toMatchObject({ done: 60, failed: 0, notRun: 0, failedCalls: 0 });
    expect(stats.admitted).toBe(60);
    expect(stats.limited).toBeGreaterThan(0);
    expect(summary.pacing).toMatchObject({ source: 'probed', rateLimited: stats.limited });
  });

  it('insufficient_quota stops the run at once with its cause', async () => {
    const server = await startTestServer({ rateLimit: { insufficientQuota: true } });
    const llm = createLlm({
      model: 'test-model',
      baseURL: server.baseURL,
      apiKeyEnv: KEY_ENV,
      cacheDir: dir,
      progress: false,
    });
    const error = await llm
      .runJobs({
        name: 'broke',
        items: Array.from({ length: 50 }, (_, i) => i),
        id: String,
        run: async (i, { model }) => (await model.chat([{ role: 'user', content: `q ${i}` }])).text,
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'LlmConfigError', cause: 'insufficient-quota' });
    expect((error as Error).message).toMatch(/no quota left.*Fix: add credit .*EVAL_LLM_PACING_TEST_KEY/);
    // the first contact is alone: one request, not one per item
    expect(server.chatRequests().length).toBe(1);
    expect(llm.summaries()[0]).toMatchObject({ stopped: 'config', done: 0, failed: 0, notRun: 50 });
    await llm.close();
    await server.close();
  });

  it('a deadline stops a run that waits for the quota, finished items kept', async () => {
    const server = await startTestServer({ rateLimit: { rpm: 60, burst: { requests: 2 } } });
    const llm = createLlm({
      model: 'test-model',
      baseURL: server.baseURL,
      apiKeyEnv: KEY_ENV,
      cacheDir: dir,
      progress: false,
      deadlineMs: 1500,
      log: () => {},
    });
    const { summary } = await llm.runJobs({
      name: 'late',
      items: Array.from({ length: 20 }, (_, i) => i),
      id: String,
      run: async (i, { model }) => (await model.chat([{ role: 'user', content: `q ${i}` }])).text,
    });
    // 2 from the burst, then one a second: 2 or 3 done in 1.5 s, the rest not run, none failed
    expect(summary.stopped).toBe('deadline');
    expect(summary.failed).toBe(0);
    expect(summary.done).toBeGreaterThanOrEqual(2);
    expect(summary.done).toBeLessThanOrEqual(4);
    expect(summary.done + summary.notRun).toBe(20);
    await llm.close();
    await server.close();
  });
});
