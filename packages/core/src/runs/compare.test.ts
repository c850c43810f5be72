import { describe, expect, it } from 'vitest';
import { InputError } from '../errors';
import { type LoadedRun, compareRuns, holmAdjust, mcnemarExact, meanOfValues } from '../index';
import { bcaInterval, chiSquare1Sf, clusterIndex, forEachClusterResample, jackknifeClusters } from '../inference';
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

/** Items with clusters: `clusters[i]` is item i's cluster. */
const clusteredScores = (values: number[], clusters: string[]): RunItem[] =>
  values.map((score, i) => ({ id: `u${i}`, cluster: clusters[i]!, values: { score } }));

describe('compareRuns: clusters', () => {
  // Three clusters of sizes 1, 2, 3: c0 = {u0}, c1 = {u1, u2}, c2 = {u3, u4, u5}. A scores 0 everywhere, B scores d.
  const clusters = ['c0', 'c1', 'c1', 'c2', 'c2', 'c2'];
  const d = [3, 0, 1, 2, 2, 5];
  const a = run('a', clusteredScores([0, 0, 0, 0, 0, 0], clusters), { cluster: { unit: 'dialogue' } });
  const b = run('b', clusteredScores(d, clusters), { cluster: { unit: 'dialogue' } });

  it('names the unit and counts the clusters', () => {
    const c = compareRuns([a, b], meanOfValues('toy'), { resamples: 10, metrics: ['score'] });
    expect(c.unit).toBe('dialogue');
    expect(c.pairs[0]!.unit).toBe('dialogue');
    expect(c.pairs[0]!.clusters).toBe(3);
    expect(c.pairs[0]!.paired).toBe(6);
    expect(c.methods.ci).toMatch(/cluster bootstrap.*dialogues/);
    // Without a manifest unit, the descriptor's, else `cluster`.
    const plain = [run('a', a.items), run('b', b.items)];
    expect(compareRuns(plain, { ...meanOfValues('toy'), cluster: { unit: 'episode' } }, { resamples: 10 }).unit).toBe(
      'episode',
    );
    expect(compareRuns(plain, meanOfValues('toy'), { resamples: 10 }).unit).toBe('cluster');
  });

  it('the cluster bootstrap interval sits at the quantiles of all 27 cluster resamples within Monte Carlo error', () => {
    // B - A on a resample is the mean score of its items: sum of the drawn clusters' sums S = [3, 1, 9] over the sum of
    // their sizes M = [1, 2, 3]. The exact bootstrap distribution: all 3^3 = 27 equally likely ordered draws.
    const S = [3, 1, 9];
    const M = [1, 2, 3];
    const R = 10_000;
    const c = compareRuns([a, b], meanOfValues('toy'), { resamples: R, seed: 5, metrics: ['score'] });
    const m = c.pairs[0]!.metrics[0]!;
    expect(m.delta).toBeCloseTo(13 / 6, 12);
    expect(m.ciMethod).toBe('percentile');
    const stats: number[] = [];
    for (let x = 0; x < 27; x++) {
      const k = [x % 3, Math.floor(x / 3) % 3, Math.floor(x / 9)];
      stats.push(k.reduce((s, j) => s + S[j]!, 0) / k.reduce((s, j) => s + M[j]!, 0));
    }
    const cdf = (q: number, strict: boolean) =>
      stats.filter((t) => (strict ? t < q - 1e-12 : t <= q + 1e-12)).length / stats.length;
    for (const [q, alpha] of [
      [m.ci![0], 0.025],
      [m.ci![1], 0.975],
    ] as const) {
      const tol = 4 * se(alpha, R) + 1 / R;
      expect(cdf(q, false)).toBeGreaterThanOrEqual(alpha - tol);
      expect(cdf(q, true)).toBeLessThanOrEqual(alpha + tol);
    }
    // The smallest resample mean is 1/2 (c1 three times: 3 / 6), the largest 3 (c0 three times): the interval lies
    // within [min, max] of the 27.
    expect(m.ci![0]).toBeGreaterThanOrEqual(Math.min(...stats) - 1e-12);
    expect(m.ci![1]).toBeLessThanOrEqual(Math.max(...stats) + 1e-12);
  });

  it('the randomisation swaps whole clusters: p within Monte Carlo error of the exact p over all 2^3 swaps', () => {
    // Swapping cluster k flips the sign of its sum: d_r = (+-3 +-1 +-9) / 6, observed 13/6. |sum| over the 8 patterns:
    // 13, 11 (-1), 7 (-3), 5 (-3 -1) and their negations: 2 of 8 reach 13 -> exact p = 1/4.
    const R = 10_000;
    const c = compareRuns([a, b], meanOfValues('toy'), { resamples: R, seed: 9, metrics: ['score'] });
    const exact = 2 / 8;
    expect(Math.abs(c.pairs[0]!.metrics[0]!.pRandomization! - exact)).toBeLessThan(4 * se(exact, R) + 1 / R);
    const items = compareRuns([a, b], meanOfValues('toy'), { resamples: R, seed: 9, metrics: ['score'], unit: 'item' });
    // Item-level: |3 +-0 +-1 +-2 +-2 +-5| >= 13 with signs free on 6 values: patterns with sum 13 (all +: 13) or
    // with the 0 flipped (same sum): 2, and their negations: 4 of 64 = 1/16.
    const itemExact = 4 / 64;
    expect(Math.abs(items.pairs[0]!.metrics[0]!.pRandomization! - itemExact)).toBeLessThan(
      4 * se(itemExact, R) + 1 / R,
    );
  });

  it('with one item per cluster, the clustered procedures are the item-level ones', () => {
    const values = [0.2, 0.9, 0.4, 0.4, 1, 0.1, 0.7];
    const other = [0.5, 0.8, 0.9, 0.3, 1, 0.6, 0.2];
    const single = values.map((_, i) => `d${i}`);
    const ra = run('a', clusteredScores(values, single));
    const rb = run('b', clusteredScores(other, single));
    const plainA = run('a', scores(values));
    const plainB = run('b', scores(other));
    const clustered = compareRuns([ra, rb], meanOfValues('toy'), { resamples: 2000, seed: 3 });
    const items = compareRuns([plainA, plainB], meanOfValues('toy'), { resamples: 2000, seed: 3 });
    expect(clustered.pairs[0]!.clusters).toBe(7);
    const pick = (m: (typeof items.pairs)[0]['metrics'][0]) => [m.delta, m.ci, m.pRandomization];
    expect(clustered.pairs[0]!.metrics.map(pick)).toEqual(items.pairs[0]!.metrics.map(pick));
  });

  it('--unit item ignores the clusters: exactly the run without them', () => {
    const plainA = run('a', scores([0, 0, 0, 0, 0, 0]));
    const plainB = run('b', scores(d));
    const withUnitItem = compareRuns([a, b], meanOfValues('toy'), { resamples: 500, seed: 2, unit: 'item' });
    const without = compareRuns([plainA, plainB], meanOfValues('toy'), { resamples: 500, seed: 2 });
    expect(withUnitItem.unit).toBe('item');
    expect(withUnitItem.pairs[0]!.clusters).toBe(6);
    expect(withUnitItem.pairs).toEqual(without.pairs);
    expect(withUnitItem.methods).toEqual(without.methods);
  });

  it('refuses an item placed in different clusters by A and B', () => {
    const moved = run('b', clusteredScores(d, ['c0', 'c1', 'c2', 'c2', 'c2', 'c2']));
    expect(() => compareRuns([a, moved], meanOfValues('toy'), { resamples: 10 })).toThrow(
      /item "u2" is in cluster "c1" in a but in "c2" in b/,
    );
  });
});

describe('compareRuns: the clustered McNemar test beside the item-level one', () => {
  // Four dialogues; A and B correct (1) or not (0) per turn:
  //   d1: A 1 1 1, B 0 0 0 -> b_1 = 3, c_1 = 0      d2: A 1 0, B 0 1 -> b_2 = 1, c_2 = 1
  //   d3: A 0 1, B 1 1 -> b_3 = 0, c_3 = 1          d4: A 1 1 0, B 0 0 0 -> b_4 = 2, c_4 = 0
  // Item-level: b = 6, c = 2, exact p = 2 P[X <= 2], X ~ Bin(8, 1/2) = 2 (1 + 8 + 28) / 256 = 74/256.
  // Clustered: sum (b_k - c_k) = 3 + 0 - 1 + 2 = 4, sum (b_k - c_k)^2 = 9 + 0 + 1 + 4 = 14, X^2 = 16/14 = 8/7.
  const cl = ['d1', 'd1', 'd1', 'd2', 'd2', 'd3', 'd3', 'd4', 'd4', 'd4'];
  const A = [1, 1, 1, 1, 0, 0, 1, 1, 1, 0];
  const B = [0, 0, 0, 0, 1, 1, 1, 0, 0, 0];
  const items = (xs: number[]): RunItem[] =>
    xs.map((x, i) => ({ id: `t${i}`, cluster: cl[i]!, values: { ok: x === 1 } }));
  const bench: RunBenchmark = { ...meanOfValues('toy'), binary: { ok: 'ok' } };
  const runs = [run('a', items(A), { metrics: { ok: { value: null, n: 10 } } }), run('b', items(B))];

  it('matches the hand computation, and Holm uses the clustered p', () => {
    const m = compareRuns(runs, bench, { resamples: 200 }).pairs[0]!.metrics[0]!;
    expect(m.mcnemar).toEqual({ outcome: 'ok', b: 6, c: 2, p: 74 / 256 });
    expect(m.mcnemarClustered!.b).toBe(6);
    expect(m.mcnemarClustered!.c).toBe(2);
    expect(m.mcnemarClustered!.clusters).toBe(4);
    expect(m.mcnemarClustered!.statistic).toBeCloseTo(8 / 7, 15);
    expect(m.mcnemarClustered!.p).toBe(chiSquare1Sf(m.mcnemarClustered!.statistic));
    expect(m.p).toBe(m.mcnemarClustered!.p);
    expect(m.pHolm).toBe(m.p);
  });

  it('is absent at unit item, where p is the exact McNemar p as before', () => {
    const m = compareRuns(runs, bench, { resamples: 200, unit: 'item' }).pairs[0]!.metrics[0]!;
    expect(m.mcnemarClustered).toBeNull();
    expect(m.p).toBe(74 / 256);
  });

  it("with one item per cluster it is McNemar's chi-square (b - c)^2 / (b + c)", () => {
    const single = (xs: number[]): RunItem[] =>
      xs.map((x, i) => ({ id: `t${i}`, cluster: `t${i}`, values: { ok: x === 1 } }));
    const m = compareRuns([run('a', single(A)), run('b', single(B))], bench, { resamples: 100 }).pairs[0]!.metrics[0]!;
    // b = 6, c = 2: (6 - 2)^2 / 8 = 2.
    expect(m.mcnemarClustered!.statistic).toBe(2);
    expect(m.mcnemarClustered!.p).toBe(chiSquare1Sf(2));
  });
});

describe('compareRuns: intervals that contain what they estimate (a Distinct-1 corpus metric)', () => {
  // Distinct-1 = distinct tokens / tokens over the corpus: a resample with replacement repeats some responses, so it
  // repeats their tokens and the ratio shrinks. System A repeats itself, B hardly does: B - A shrinks under resampling,
  // and the percentile interval of B - A lies below the estimate.
  const distinct1 = (biased: boolean): RunBenchmark => ({
    benchmark: 'toy',
    ...(biased ? { biasedUnderResampling: ['Distinct-1'] } : {}),
    recompute(items) {
      const types = new Set<string>();
      let tokens = 0;
      for (const item of items) {
        for (const t of item.detail!.tokens as string[]) {
          types.add(t);
          tokens++;
        }
      }
      return { 'Distinct-1': tokens === 0 ? null : types.size / tokens };
    },
  });
  const responses = (texts: string[]): RunItem[] =>
    texts.map((t, i) => ({ id: `u${i}`, values: {}, detail: { tokens: t.split(' ') } }));
  const n = 20;
  const textsA = Array.from({ length: n }, (_, i) => `a${i} b${i} the ${i % 2 ? `c${i}` : 'the'}`);
  const textsB = Array.from({ length: n }, (_, i) => `x${i} y${i} z${i} ${i % 4 === 0 ? `w${i}` : 'the'}`);
  const metrics = { 'Distinct-1': { value: null, n } };
  const runs = [run('a', responses(textsA), { metrics }), run('b', responses(textsB), { metrics })];

  it('warns when the percentile interval excludes its own estimate', () => {
    const c = compareRuns(runs, distinct1(false), { resamples: 2000, seed: 1 });
    const m = c.pairs[0]!.metrics[0]!;
    // A: 4 n = 80 tokens, types a_i, b_i (40), c_i for odd i (10), "the": 51 -> 51/80; B: x, y, z (60), w_i for
    // i = 0, 4, ..., 16 (5), "the": 66 -> 66/80. B - A = 15/80 = 0.1875.
    expect(m.a).toBe(51 / 80);
    expect(m.b).toBe(66 / 80);
    expect(m.delta).toBeCloseTo(15 / 80, 15);
    expect(m.ciMethod).toBe('percentile');
    expect(m.ci![1]).toBeLessThan(m.delta!);
    expect(m.notes).toHaveLength(1);
    expect(m.notes[0]).toMatch(/percentile interval .* excludes its own estimate 0\.1875/);
    expect(c.notes[0]).toMatch(/^a \(0\) -> b \(1\), Distinct-1: the percentile interval/);
  });

  it('declared biased under resampling: BCa, which refuses an interval the resamples cannot place', () => {
    const c = compareRuns(runs, distinct1(true), { resamples: 2000, seed: 1 });
    const m = c.pairs[0]!.metrics[0]!;
    expect(m.ciMethod).toBe('refused');
    expect(m.ci).toBeNull();
    expect(m.notes[0]).toMatch(/no interval: the benchmark declares Distinct-1 biased under resampling/);
    expect(c.methods.bca).toMatch(/BCa/);
  });

  it('the BCa interval is bcaInterval over the cluster bootstrap and the leave-one-cluster-out jackknife', () => {
    // A milder case: both systems repeat themselves alike, so the bias of B - A largely cancels and BCa exists.
    // Items nest in 8 clusters; the interval is rebuilt here from the same draws (seeded) and compared.
    const cl = Array.from({ length: 24 }, (_, i) => `d${i % 8}`);
    const texts = (p: string) =>
      Array.from({ length: 24 }, (_, i) => `${p}${i} ${p}${i % 5} the ${i % 3 ? `${p}x${i % 7}` : 'the'}`);
    const itemsOf = (p: string) => responses(texts(p)).map((item, i) => ({ ...item, cluster: cl[i]! }));
    const pair = [
      run('a', itemsOf('a'), { metrics }),
      run(
        'b',
        itemsOf('b').map((item, i) => (i % 4 ? item : { ...item, detail: { tokens: ['the', 'the'] } })),
        { metrics },
      ),
    ];
    const bench = distinct1(true);
    const R = 1000;
    const c = compareRuns(pair, bench, { resamples: R, seed: 4 });
    const m = c.pairs[0]!.metrics[0]!;
    expect(m.ciMethod).toBe('BCa');
    const pooled = [...pair[0]!.items, ...pair[1]!.items];
    const nItems = pair[0]!.items.length;
    const diff = (idx: Uint32Array) => {
      const at = (offset: number) => bench.recompute(Array.from(idx, (i) => pooled[i + offset]!))['Distinct-1']!;
      return at(nItems) - at(0);
    };
    const clusters = clusterIndex(pair[0]!.items.map((i) => i.cluster));
    const boot: number[] = [];
    forEachClusterResample(clusters, R, 4, (idx) => boot.push(diff(idx)));
    const expected = bcaInterval(m.delta!, boot, jackknifeClusters(clusters, diff))!;
    expect(m.ci![0]).toBeCloseTo(expected.lower, 12);
    expect(m.ci![1]).toBeCloseTo(expected.upper, 12);
    expect(m.ci![0]).toBeLessThanOrEqual(m.delta!);
    expect(m.ci![1]).toBeGreaterThanOrEqual(m.delta!);
  });
});
