import { describe, expect, it } from 'vitest';
import { InputError } from '../errors';
import { type LoadedRun, compareRuns, holmAdjust, mcnemarExact, meanOfValues } from '../index';
import type { RunBenchmark, RunItem, RunManifest } from './schema';

/** An in-memory run (what `readRun` returns) of the third-party benchmark `toy`. */
function run(dir: string, items: RunItem[], extra: Partial<RunManifest> = {}): LoadedRun {
  const failed = items.filter((i) => i.error !== undefined).length;
  const manifest: RunManifest = {
    schemaVersion: 1,
    id: dir,
    benchmark: 'toy',
    variant: 'v1',
    system: dir,
    createdAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    status: failed > 0 ? 'partial' : 'complete',
    tool: { packages: {}, node: 'v20', platform: 'linux-x64' },
    command: [],
    inputs: [],
    resources: [],
    options: {},
    metrics: { score: { value: null, n: items.length }, correct: { value: null, n: items.length } },
    counts: { items: items.length, evaluated: items.length - failed, failed, skipped: 0 },
    failures: [],
    artifacts: [],
    ...extra,
  };
  return { dir, manifest, items };
}

const scores = (values: number[]): RunItem[] => values.map((score, i) => ({ id: `u${i}`, values: { score } }));
const outcomes = (values: Array<0 | 1>): RunItem[] =>
  values.map((v, i) => ({ id: `u${i}`, values: { correct: v === 1 } }));

/** Standard error of a Monte Carlo proportion p estimated from R draws. */
const se = (p: number, R: number) => Math.sqrt((p * (1 - p)) / R);

describe('mcnemarExact (spec section 4)', () => {
  it('matches hand-computed binomial tails', () => {
    // b=1, c=5: n=6, P[X<=1] = (C(6,0) + C(6,1)) / 2^6 = 7/64, p = 2 * 7/64 = 14/64
    expect(mcnemarExact(1, 5)).toBe(14 / 64);
    expect(mcnemarExact(5, 1)).toBe(14 / 64);
    // b=2, c=8: n=10, P[X<=2] = (1 + 10 + 45) / 1024 = 56/1024, p = 112/1024
    expect(mcnemarExact(2, 8)).toBe(112 / 1024);
    // b=0, c=4: n=4, P[X<=0] = 1/16, p = 2/16
    expect(mcnemarExact(0, 4)).toBe(2 / 16);
    // b=3, c=3: n=6, P[X<=3] = (1 + 6 + 15 + 20) / 64 = 42/64, 2 * 42/64 > 1 -> p = 1
    expect(mcnemarExact(3, 3)).toBe(1);
    // n = 0: p = 1 by definition
    expect(mcnemarExact(0, 0)).toBe(1);
    // b=0, c=103: p = 2 / 2^103 = 2^-102 (exact: no underflow, no cancellation)
    expect(mcnemarExact(0, 103)).toBe(2 ** -102);
  });

  it('refuses counts that are not non-negative integers', () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(/non-negative integer/);
    expect(() => mcnemarExact(1.5, 2)).toThrow(/non-negative integer/);
  });
});

describe('holmAdjust', () => {
  it('reproduces the textbook step-down example', () => {
    // p = [0.01, 0.04, 0.03, 0.005], m = 4. Sorted: 0.005, 0.01, 0.03, 0.04.
    // 4 * 0.005 = 0.02; 3 * 0.01 = 0.03; 2 * 0.03 = 0.06; 1 * 0.04 = 0.04 -> max(0.06, 0.04) = 0.06 (monotone).
    const adjusted = holmAdjust([0.01, 0.04, 0.03, 0.005]);
    const expected = [0.03, 0.06, 0.06, 0.02];
    adjusted.forEach((p, i) => expect(p).toBeCloseTo(expected[i]!, 15));
  });

  it('caps at 1 and keeps NaN in place', () => {
    // m = 3 (NaN counts): sorted non-NaN 0.2, 0.6: 3 * 0.2 = 0.6; 2 * 0.6 = 1.2 -> 1
    const adjusted = holmAdjust([0.6, Number.NaN, 0.2]);
    expect(adjusted[0]).toBe(1);
    expect(adjusted[1]).toBeNaN();
    expect(adjusted[2]).toBeCloseTo(0.6, 15);
  });
});

describe('compareRuns: paired bootstrap against the enumerated distribution', () => {
  it('the percentile interval of B - A sits at the exact 2.5% and 97.5% quantiles within Monte Carlo error', () => {
    // 5 paired units, A scores 0, B scores d_i: B - A of the mean on a resample is the mean of the resampled d_i.
    // The exact bootstrap distribution: all 5^5 = 3125 equally likely ordered resamples, enumerated below.
    const d = [0, 1, 2, 5, 9];
    const a = run('a', scores([0, 0, 0, 0, 0]));
    const b = run('b', scores(d));
    const R = 10_000;
    const c = compareRuns([a, b], meanOfValues('toy'), { resamples: R, seed: 7, metrics: ['score'] });
    const m = c.pairs[0]!.metrics[0]!;
    expect(m.delta).toBeCloseTo((0 + 1 + 2 + 5 + 9) / 5, 12); // 17/5 = 3.4
    const sums: number[] = [];
    for (let x = 0; x < 5 ** 5; x++) {
      let s = 0;
      for (let k = 0, y = x; k < 5; k++, y = Math.floor(y / 5)) s += d[y % 5]!;
      sums.push(s);
    }
    const cdf = (q: number, strict: boolean) =>
      sums.filter((s) => (strict ? s / 5 < q - 1e-12 : s / 5 <= q + 1e-12)).length / sums.length;
    // The sample quantile at level alpha has F(q) >= alpha and F(q-) <= alpha, up to the Monte Carlo error of the
    // empirical CDF (4 binomial standard errors) plus one draw.
    for (const [q, alpha] of [
      [m.ci![0], 0.025],
      [m.ci![1], 0.975],
    ] as const) {
      const tol = 4 * se(alpha, R) + 1 / R;
      expect(cdf(q, false)).toBeGreaterThanOrEqual(alpha - tol);
      expect(cdf(q, true)).toBeLessThanOrEqual(alpha + tol);
    }
  });
});

describe('compareRuns: approximate randomisation against all swaps', () => {
  it('p is within Monte Carlo error of the exact permutation p over all 2^3 swaps', () => {
    // A = [0, 0.2, 0.5], B = [1, 0.5, 0.3]: per-unit B - A = [1, 0.3, -0.2], d = mean = 1.1/3.
    // Swapping unit i flips the sign of its difference; |sum| over the 8 sign patterns:
    //   +1 +0.3 -0.2 = 1.1 (>= 1.1), +1 +0.3 +0.2 = 1.5 (>=), +1 -0.3 -0.2 = 0.5, +1 -0.3 +0.2 = 0.9,
    //   and the 4 negations (same magnitudes) -> 4 of 8 reach |d|: exact p = 4/8 = 0.5 (ties at 1.1 count).
    const a = run('a', scores([0, 0.2, 0.5]));
    const b = run('b', scores([1, 0.5, 0.3]));
    const R = 10_000;
    const c = compareRuns([a, b], meanOfValues('toy'), { resamples: R, seed: 3 });
    const m = c.pairs[0]!.metrics.find((x) => x.name === 'score')!;
    expect(m.delta).toBeCloseTo(1.1 / 3, 12);
    const exact = 4 / 8;
    // Monte Carlo: p_hat = (1 + count) / (R + 1), count ~ Binomial(R, exact).
    expect(Math.abs(m.pRandomization! - exact)).toBeLessThan(4 * se(exact, R) + 1 / R);
  });

  it('a system compared with itself has d = 0 and p = 1, interval [0, 0]', () => {
    const a = run('a', scores([0.1, 0.7, 0.4, 0.9]));
    const c = compareRuns([a, run('b', scores([0.1, 0.7, 0.4, 0.9]))], meanOfValues('toy'), { resamples: 200 });
    const m = c.pairs[0]!.metrics[0]!;
    expect([m.delta, m.pRandomization, m.ci]).toEqual([0, 1, [0, 0]]);
  });
});

describe('compareRuns: binary outcomes, pairing, partial runs', () => {
  const aItems = outcomes([1, 1, 1, 0, 0, 1, 0, 1]);
  // B differs on u1 (1 -> 0), u3 and u4 (0 -> 1), and u6 (0 -> 1); u7 failed in B; u8 only in B.
  const bItems: RunItem[] = [
    ...outcomes([1, 0, 1, 1, 1, 1, 1]),
    { id: 'u7', values: {}, error: 'timeout' },
    { id: 'u8', values: { correct: true } },
  ];

  it('McNemar, flipped ids, unpaired ids and the partial flag', () => {
    const c = compareRuns([run('a', aItems), run('b', bItems)], meanOfValues('toy'), { resamples: 500, seed: 1 });
    expect(c.partial).toBe(true);
    expect(c.runs.map((r) => r.partial)).toEqual([false, true]);
    const pair = c.pairs[0]!;
    expect(pair.paired).toBe(7);
    expect(pair.unpaired).toEqual({ count: 2, onlyA: [], onlyB: ['u8'], failedA: [], failedB: ['u7'] });
    const m = pair.metrics.find((x) => x.name === 'correct')!;
    // paired units u0..u6: A = 1,1,1,0,0,1,0 (4/7), B = 1,0,1,1,1,1,1 (6/7)
    expect(m.a).toBeCloseTo(4 / 7, 15);
    expect(m.b).toBeCloseTo(6 / 7, 15);
    expect(m.flipped).toEqual({ oneToZero: ['u1'], zeroToOne: ['u3', 'u4', 'u6'] });
    // b = 1, c = 3: n = 4, P[X<=1] = (1 + 4)/16, p = 10/16
    expect(m.mcnemar).toEqual({ outcome: 'correct', b: 1, c: 3, p: 10 / 16 });
    expect(m.p).toBe(10 / 16);
    // one metric with a p-value (score has no values: null) -> Holm leaves it unchanged
    expect(m.pHolm).toBe(10 / 16);
  });

  it('a declared binary map takes precedence over inference; an empty map turns McNemar off', () => {
    const bench: RunBenchmark = { ...meanOfValues('toy'), binary: {} };
    const c = compareRuns([run('a', aItems), run('b', bItems)], bench, { resamples: 100 });
    const m = c.pairs[0]!.metrics.find((x) => x.name === 'correct')!;
    expect(m.mcnemar).toBeNull();
    expect(m.p).toBe(m.pRandomization);
  });

  it('is reproducible for a seed, and the prepare fast path gives the same figures as recompute', () => {
    const a = run('a', scores([0.3, 0.9, 0.1, 0.5, 0.7, 0.2]));
    const b = run('b', scores([0.4, 0.8, 0.6, 0.5, 0.9, 0.1]));
    const fast = meanOfValues('toy');
    const slow: RunBenchmark = { benchmark: 'toy', recompute: fast.recompute };
    const one = compareRuns([a, b], fast, { resamples: 300, seed: 11 });
    expect(compareRuns([a, b], fast, { resamples: 300, seed: 11 })).toEqual(one);
    expect(compareRuns([a, b], slow, { resamples: 300, seed: 11 })).toEqual(one);
    expect(one.resamples).toBe(300);
    expect(one.seed).toBe(11);
  });

  it('reports progress up to 2 R rounds per pair', () => {
    const runs = ['a', 'b', 'c'].map((x, i) => run(x, scores([i, i + 1, 2 * i])));
    const calls: Array<[number, number]> = [];
    compareRuns(runs, meanOfValues('toy'), { resamples: 600, onProgress: (done, total) => calls.push([done, total]) });
    expect(calls.at(-1)).toEqual([2400, 2400]); // 2 pairs x (600 bootstrap + 600 randomisation rounds)
    expect(calls.every(([done], i) => i === 0 || done >= calls[i - 1]![0])).toBe(true);
  });

  it('every run against the first, or all pairs', () => {
    const runs = ['a', 'b', 'c'].map((x, i) => run(x, scores([i, i + 1, 2 * i])));
    expect(compareRuns(runs, meanOfValues('toy'), { resamples: 50 }).pairs.map((p) => [p.a, p.b])).toEqual([
      [0, 1],
      [0, 2],
    ]);
    expect(
      compareRuns(runs, meanOfValues('toy'), { resamples: 50, allPairs: true }).pairs.map((p) => [p.a, p.b]),
    ).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
  });
});

describe('compareRuns refuses what cannot be compared', () => {
  const a = run('a', scores([1, 2]));
  it('different benchmarks (naming run.json and the field), unless forced', () => {
    const b = run('b', scores([1, 3]), { benchmark: 'other' });
    const error = (() => {
      try {
        compareRuns([a, b], meanOfValues('toy'));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).code).toBe('input_mismatch');
    expect((error as InputError).file).toBe('b/run.json');
    expect((error as InputError).field).toEqual(['benchmark']);
    expect((error as Error).message).toMatch(/different benchmarks.*"other" vs "toy"/);
    const forced = compareRuns([a, b], meanOfValues('toy'), { force: true, resamples: 10 });
    expect(forced.forced).toEqual(['benchmark: "other" in b vs "toy" of the recompute function']);
  });

  it('different variants', () => {
    const b = run('b', scores([1, 3]), { variant: 'v2' });
    expect(() => compareRuns([a, b], meanOfValues('toy'))).toThrow(/different variants.*"v2" vs "v1"/);
  });

  it('no common item, an unknown metric, fewer than two runs', () => {
    const b: LoadedRun = run('b', [{ id: 'other', values: { score: 1 } }]);
    expect(() => compareRuns([a, b], meanOfValues('toy'))).toThrow(/no item evaluated in both/);
    expect(() => compareRuns([a, run('c', scores([1, 1]))], meanOfValues('toy'), { metrics: ['bleu'] })).toThrow(
      /unknown metric "bleu"/,
    );
    expect(() => compareRuns([a], meanOfValues('toy'))).toThrow(/at least two runs/);
  });
});
