import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { itWithReferenceData, referencePath } from '../../../test-support/reference-data';
import {
  bootstrapMeanCI,
  forEachResample,
  percentile,
  cohenKappa,
  exactMean,
  fsum,
  harmonicMean,
  numpySum,
  fleissKappa,
  pairedBootstrap,
  prf,
  ratingTable,
  ratioToDouble,
} from './stats';
import {
  bcaInterval,
  chiSquare1Sf,
  clusterIndex,
  clusteredMcnemar,
  coincidenceMatrix,
  erfc,
  forEachClusterResample,
  jackknifeClusters,
  krippendorffAlpha,
  normalCdf,
  normalQuantile,
} from './inference';

const CGT_EXPECTED = referencePath('cgt/expected.json');
const itWithCgt = itWithReferenceData('cgt/expected.json');

describe('exactMean (Python statistics.mean)', () => {
  itWithCgt('reproduces every group mean of the CGT reference output bit for bit', () => {
    const expected = JSON.parse(readFileSync(CGT_EXPECTED, 'utf8'));
    let checked = 0;
    let naiveDiffers = 0;
    for (const setting of Object.values<any>(expected.settings)) {
      for (const group of Object.values<any>(setting.groups)) {
        for (const key of ['p', 'r', 'f1'] as const) {
          const rows: number[] = group.prf1_rows.map((r: any) => r[key]);
          if (rows.length === 0) continue;
          expect(exactMean(rows)).toBe(group[`mean_${key}`]);
          const naive = rows.reduce((a, b) => a + b, 0) / rows.length;
          if (naive !== group[`mean_${key}`]) naiveDiffers++;
          checked++;
        }
        const dsc: number[] = group.dsc_strict_rows.map((r: any) => r.dsc ?? r.value ?? r);
        if (dsc.length > 0 && typeof dsc[0] === 'number') {
          expect(exactMean(dsc)).toBe(group.mean_dsc_strict);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
    // The spec's point: naive summation differs from the reference in some of these means.
    expect(naiveDiffers).toBeGreaterThan(0);
  });

  itWithCgt('matches the spec example (dp-gpt4o group 1 mean_f1)', () => {
    const expected = JSON.parse(readFileSync(CGT_EXPECTED, 'utf8'));
    const rows: number[] = expected.settings['dp-gpt4o'].groups['1'].prf1_rows.map((r: any) => r.f1);
    expect(exactMean(rows)).toBe(0.8465608465608465);
  });

  it('rounds once: mean of [0.1, 0.2, 0.3] is 0.2 (naive gives 0.20000000000000004)', () => {
    // 0.1 + 0.2 + 0.3 as exact binary rationals sums to 0.6000000000000000055..., /3 rounds to 0.2.
    expect(exactMean([0.1, 0.2, 0.3])).toBe(0.2);
    expect((0.1 + 0.2 + 0.3) / 3).toBe(0.20000000000000004);
  });

  it('throws on empty data as Python raises StatisticsError', () => {
    expect(() => exactMean([])).toThrow(/at least one/);
  });

  it('fsum is correctly rounded (math.fsum([0.1]*10) == 1.0)', () => {
    expect(fsum(new Array(10).fill(0.1))).toBe(1);
    expect(fsum([1e100, 1, -1e100])).toBe(1);
  });

  it('ratioToDouble rounds ties to even', () => {
    // 2^53 + 1 is a tie between 2^53 and 2^53 + 2: even mantissa wins.
    expect(ratioToDouble(2n ** 53n + 1n, 1n)).toBe(2 ** 53);
    expect(ratioToDouble(2n ** 53n + 3n, 1n)).toBe(2 ** 53 + 4);
    expect(ratioToDouble(1n, 3n)).toBe(1 / 3);
    expect(ratioToDouble(-7n, 2n)).toBe(-3.5);
    expect(ratioToDouble(1n, 2n ** 1074n)).toBe(5e-324);
  });

  it('harmonic mean as statistics.harmonic_mean', () => {
    // 3 / (1/1 + 1/2 + 1/4) = 3 / 1.75 = 12/7
    expect(harmonicMean([1, 2, 4])).toBe(12 / 7);
    expect(harmonicMean([0, 5])).toBe(0);
  });
});

describe('prf', () => {
  it('computes precision, recall, F1 from counts', () => {
    // tp=3, fp=1, fn=2: P = 3/4, R = 3/5, F1 = 2PR/(P+R) = 0.9/1.35 = 2/3
    const r = prf({ tp: 3, fp: 1, fn: 2 });
    expect(r.precision).toBe(0.75);
    expect(r.recall).toBe(0.6);
    expect(r.f1).toBeCloseTo(2 / 3, 15);
    expect(prf({ tp: 0, fp: 0, fn: 0 })).toEqual({ precision: 0, recall: 0, f1: 0 });
  });
});

describe('cohenKappa (scikit-learn cohen_kappa_score)', () => {
  it('hand-derived 2x2 case', () => {
    // y1 = [T,T,F,F], y2 = [T,F,F,F]: cm (rows y1, cols y2, labels [false,true]) = [[2,0],[1,1]]
    // po = 3/4; sum0 (col sums) = [3,1], sum1 (row sums) = [2,2]; pe = (3*2 + 1*2)/16 = 1/2
    // kappa = 1 - (1/4)/(1/2) = 0.5
    expect(cohenKappa([true, true, false, false], [true, false, false, false])).toBe(0.5);
  });

  it('is NaN when both raters use one single label (0/0)', () => {
    expect(cohenKappa(['yes', 'yes'], ['yes', 'yes'])).toBeNaN();
  });

  it('is 0 when one rater is constant and the other is not', () => {
    // cm = [[0,0],[1,1]] over [a,b] with y1 all b: po = 1/2, pe = (1*2 + 1*0... ) -> kappa 0
    expect(cohenKappa(['b', 'b'], ['a', 'b'])).toBe(0);
  });

  it('numpySum uses pairwise blocks of 8 like numpy', () => {
    const xs = [1e16, 1, 1, 1, 1, 1, 1, 1, 1];
    // numpy: r[0..7] = xs[0..7]; res = ((1e16+1)+(1+1)) + ((1+1)+(1+1)) then + xs[8]
    const r = [1e16 + 1 + (1 + 1), 1 + 1 + (1 + 1)];
    expect(numpySum(xs)).toBe(r[0]! + r[1]! + 1);
  });
});

describe('fleissKappa', () => {
  it('the textbook example (Fleiss 1971, as on Wikipedia: 10 subjects, 14 raters, 5 categories): kappa 0.210', () => {
    const table = [
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ];
    // Hand derivation. n = 14 ratings per subject, N n = 140 ratings.
    // Column sums 20, 28, 39, 21, 32: P_e = (400 + 784 + 1521 + 441 + 1024) / 140^2 = 4170 / 19600.
    // Row sums of squares minus 14: 182, 46, 56, 80, 60, 84, 44, 32, 52, 52 (total 688), each over 14 x 13 = 182:
    // P = 688 / (10 x 182) = 688 / 1820.
    // kappa = (688/1820 - 4170/19600) / (1 - 4170/19600) = 0.20993...; the textbook prints 0.210.
    const expected = (688 / 1820 - 4170 / 19600) / (1 - 4170 / 19600);
    expect(fleissKappa(table)).toBeCloseTo(expected, 14);
    expect(fleissKappa(table).toFixed(3)).toBe('0.210');
  });

  it('perfect agreement is 1; one category everywhere is NaN (0 / 0); unequal rating counts are refused', () => {
    // two subjects, 3 ratings each, always unanimous but in different categories: P = 1, P_e = 1/2 -> 1
    expect(
      fleissKappa([
        [3, 0],
        [0, 3],
      ]),
    ).toBe(1);
    expect(
      fleissKappa([
        [3, 0],
        [3, 0],
      ]),
    ).toBeNaN();
    expect(() =>
      fleissKappa([
        [3, 0],
        [1, 1],
      ]),
    ).toThrow(/subject 1 has 2 ratings/);
  });

  it('ratingTable counts labels per subject over the sorted union of labels', () => {
    expect(
      ratingTable([
        ['b', 'a', 'b'],
        ['a', 'a', 'a'],
      ]),
    ).toEqual({
      categories: ['a', 'b'],
      table: [
        [1, 2],
        [3, 0],
      ],
    });
  });
});

describe('bootstrap', () => {
  it('is deterministic for a seed and brackets the estimate', () => {
    const values = Array.from({ length: 50 }, (_, i) => (i % 5) / 4);
    const a = bootstrapMeanCI(values, { seed: 7, samples: 500 });
    const b = bootstrapMeanCI(values, { seed: 7, samples: 500 });
    expect(a).toEqual(b);
    expect(a.lower).toBeLessThanOrEqual(a.estimate);
    expect(a.upper).toBeGreaterThanOrEqual(a.estimate);
    expect(a.estimate).toBe(values.reduce((s, x) => s + x, 0) / values.length);
  });

  it('paired bootstrap finds a clearly better system', () => {
    const a = Array.from({ length: 40 }, () => 1);
    const b = Array.from({ length: 40 }, (_, i) => (i % 2 ? 1 : 0));
    const mean = (xs: number[]) => (idx: Uint32Array) => {
      let s = 0;
      for (const i of idx) s += xs[i]!;
      return s / idx.length;
    };
    const r = pairedBootstrap(40, mean(a), mean(b), { seed: 1, samples: 300 });
    expect(r.difference).toBe(0.5);
    expect(r.pValue).toBe(0);
  });
});

describe('normal and chi-square tails', () => {
  it('erfc, Phi and Phi^-1 match the tabled values (Abramowitz & Stegun 7.1, 26.2)', () => {
    // erfc(1) = 0.157299207050285130659, erfc(3) = 2.20904969985854413727e-5, erfc(0.5) = 0.479500122186953462317
    expect(erfc(1)).toBeCloseTo(0.15729920705028513, 15);
    expect(erfc(3) / 2.209049699858544e-5).toBeCloseTo(1, 13);
    expect(erfc(0.5)).toBeCloseTo(0.4795001221869535, 15);
    expect(erfc(-1)).toBeCloseTo(2 - 0.15729920705028513, 15);
    // Phi^-1(0.975) = 1.95996398454005423552, Phi^-1(0.5) = 0
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 14);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(normalQuantile(1)).toBe(Number.POSITIVE_INFINITY);
    // The chi-square(1) 5% critical value is 1.959963984540054^2 = 3.841458820694124.
    expect(chiSquare1Sf(1.959963984540054 ** 2)).toBeCloseTo(0.05, 14);
    expect(chiSquare1Sf(0)).toBe(1);
  });

  it('Phi(Phi^-1(p)) = p across the three regions of AS 241 (central, intermediate, far tail)', () => {
    for (const p of [1e-300, 1e-20, 1e-12, 1e-6, 0.001, 0.02, 0.0749, 0.0751, 0.3, 0.5, 0.7, 0.9, 0.975, 0.999]) {
      expect(normalCdf(normalQuantile(p)) / p).toBeCloseTo(1, 12);
    }
  });
});

describe('clustered resampling', () => {
  it('groups items by cluster in order of first appearance; an item without a cluster is its own', () => {
    const clusters = clusterIndex(['d1', 'd2', 'd1', undefined, 'd2', 'd3']);
    expect(clusters.map((c) => Array.from(c))).toEqual([[0, 2], [1, 4], [3], [5]]);
  });

  it('with one item per cluster it draws exactly what the item bootstrap draws', () => {
    const n = 7;
    const singletons = clusterIndex(Array.from({ length: n }, (_, i) => `c${i}`));
    const items: number[][] = [];
    const clustered: number[][] = [];
    forEachResample(n, 50, 11, (idx) => items.push(Array.from(idx)));
    forEachClusterResample(singletons, 50, 11, (idx) => clustered.push(Array.from(idx)));
    expect(clustered).toEqual(items);
  });

  it('draws whole clusters: every resample is a union of complete clusters, in draw order', () => {
    // Clusters {0, 1}, {2}, {3, 4, 5}: the cluster draws are forEachResample over 3 units.
    const clusters = clusterIndex(['a', 'a', 'b', 'c', 'c', 'c']);
    const draws: number[][] = [];
    forEachResample(3, 20, 5, (idx) => draws.push(Array.from(idx)));
    let s = 0;
    forEachClusterResample(clusters, 20, 5, (idx) => {
      const expected = draws[s++]!.flatMap((k) => Array.from(clusters[k]!));
      expect(Array.from(idx)).toEqual(expected);
    });
    expect(s).toBe(20);
  });

  it('the jackknife leaves one cluster out at a time', () => {
    const clusters = clusterIndex(['a', 'b', 'a', 'c']);
    const left = jackknifeClusters(clusters, (idx) => Number(Array.from(idx).join('')));
    // Without a = {0, 2}: 1, 3 -> 13; without b = {1}: 0, 2, 3 -> 23 (leading 0 dropped); without c = {3}: 0, 1, 2 -> 12.
    expect(left).toEqual([13, 23, 12]);
  });
});

describe('bcaInterval (Efron & Tibshirani 1993, ch. 14)', () => {
  const values = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100

  it('is the percentile interval when z0 = 0 and a = 0', () => {
    // Estimate 50.5: 50 of 100 values below -> p0 = 0.5, z0 = 0. Jackknife symmetric about its mean -> a = 0.
    // Levels Phi(0 + (0 -+ 1.96) / 1) = 0.025, 0.975: the percentile interval.
    const bca = bcaInterval(50.5, values, [1, 2, 3], 0.95)!;
    expect(bca.z0).toBe(0);
    expect(bca.acceleration).toBe(0);
    expect(bca.levels[0]).toBeCloseTo(0.025, 14);
    expect(bca.levels[1]).toBeCloseTo(0.975, 14);
    expect(bca.lower).toBeCloseTo(percentile(values, 0.025), 10);
    expect(bca.upper).toBeCloseTo(percentile(values, 0.975), 10);
  });

  it('shifts the levels by the bias correction and the acceleration', () => {
    // 1..1000, estimate 400.5: 400 values below -> z0 = Phi^-1(0.4). Jackknife [0, 0, 3]: mean 1, deviations
    // mean - t = 1, 1, -2, sum d^3 = 1 + 1 - 8 = -6, sum d^2 = 6, a = -6 / (6 * 6^1.5) = -6^-1.5.
    const many = Array.from({ length: 1000 }, (_, i) => i + 1);
    const bca = bcaInterval(400.5, many, [0, 0, 3], 0.95)!;
    const z0 = normalQuantile(0.4);
    const a = -(6 ** -1.5);
    expect(bca.z0).toBe(z0);
    expect(bca.acceleration).toBeCloseTo(a, 15);
    const level = (z: number) => normalCdf(z0 + (z0 + z) / (1 - a * (z0 + z)));
    expect(bca.levels[0]).toBeCloseTo(level(-1.959963984540054), 12);
    expect(bca.levels[1]).toBeCloseTo(level(1.959963984540054), 12);
    expect(bca.lower).toBeCloseTo(percentile(many, bca.levels[0]), 10);
    expect(bca.upper).toBeCloseTo(percentile(many, bca.levels[1]), 10);
    // z0 < 0 and a < 0 move both levels down: the interval moves towards the estimate.
    expect(bca.levels[1]).toBeLessThan(0.975);
    // The same shift on 100 values puts the lower level below 1/100: no resample can place that end.
    expect(bcaInterval(40.5, values, [0, 0, 3], 0.95)).toBeNull();
  });

  it('counts ties half and refuses when every value lies on one side of the estimate', () => {
    // 1..100, estimate 50: 49 below, 1 tie -> p0 = (49 + 1/2) / 100 = 0.495.
    expect(bcaInterval(50, values, [1, 2, 3])!.z0).toBe(normalQuantile(0.495));
    expect(bcaInterval(0.5, values, [1, 2, 3])).toBeNull();
    expect(bcaInterval(101, values, [1, 2, 3])).toBeNull();
    expect(bcaInterval(1, [], [1, 2])).toBeNull();
  });
});

describe('clusteredMcnemar (Durkalski et al. 2003)', () => {
  it('matches a hand computation', () => {
    // (b_k, c_k) = (3, 0), (1, 1), (0, 1), (2, 0): sum (b_k - c_k) = 3 + 0 - 1 + 2 = 4, sum (b_k - c_k)^2 = 9 + 0 + 1 + 4
    // = 14, X^2 = 16 / 14 = 8 / 7; p = P[chi2_1 >= 8/7] = 2 (1 - Phi(sqrt(8/7))) = 2 (1 - Phi(1.06905)) = 2 (1 - 0.857475) = 0.28505.
    const r = clusteredMcnemar([3, 1, 0, 2], [0, 1, 1, 0]);
    expect(r.b).toBe(6);
    expect(r.c).toBe(2);
    expect(r.clusters).toBe(4);
    expect(r.statistic).toBeCloseTo(8 / 7, 15);
    expect(r.p).toBeCloseTo(2 * (1 - normalCdf(Math.sqrt(8 / 7))), 14);
    expect(r.p).toBeCloseTo(0.28505, 4);
  });

  it("is McNemar's chi-square (b - c)^2 / (b + c) when every cluster holds one item", () => {
    // 5 items A 1 & B 0, 2 items A 0 & B 1, 3 concordant: b = 5, c = 2, X^2 = 9 / 7.
    const b = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
    const c = [0, 0, 0, 0, 0, 1, 1, 0, 0, 0];
    const r = clusteredMcnemar(b, c);
    expect(r.statistic).toBeCloseTo(9 / 7, 15);
    expect(r.p).toBe(chiSquare1Sf(r.statistic));
  });

  it('gives p = 1 without discordant clusters and refuses bad counts', () => {
    expect(clusteredMcnemar([1, 0], [1, 0]).p).toBe(1);
    expect(() => clusteredMcnemar([1], [0.5])).toThrow(/non-negative integers/);
    expect(() => clusteredMcnemar([1], [])).toThrow(/1 b counts but 0 c counts/);
  });
});

describe("krippendorffAlpha (Krippendorff 2011, 'Computing Krippendorff's Alpha-Reliability')", () => {
  it('binary data, two observers, no missing values (section A): alpha = 0.095', () => {
    // Units 1-10: observer A 0 1 0 0 0 0 0 0 1 0, observer B 1 1 1 0 0 1 0 0 0 0.
    // Coincidences: o00 = 10, o01 = o10 = 4, o11 = 2; n0 = 14, n1 = 6, n = 20.
    // alpha = 1 - (n - 1) o01 / (n0 n1) = 1 - 19 * 4 / (14 * 6) = 1 - 76 / 84 = 2 / 21 = 0.0952.
    const a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0];
    const b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0];
    const units = a.map((x, i) => [x, b[i]!]);
    const { coincidences } = coincidenceMatrix(units);
    expect(coincidences).toEqual([10, 4, 4, 2]);
    expect(krippendorffAlpha(units, 'nominal')).toBeCloseTo(2 / 21, 15);
  });

  // Section C: four observers, twelve units, values 1-5, missing data (. = null).
  //   unit:  1  2  3  4  5  6  7  8  9 10 11 12
  //   A:     1  2  3  3  2  1  4  1  2  .  .  .
  //   B:     1  2  3  3  2  2  4  1  2  5  .  3
  //   C:     .  3  3  3  2  3  4  2  2  5  1  .
  //   D:     1  2  3  3  2  4  4  1  2  5  1  .
  // Coincidences (each ordered pair of a unit's m_u values adds 1 / (m_u - 1); unit 12 has one value: not pairable):
  //   o11 = 3 (u1) + 2 (u8) + 2 (u11) = 7; o22 = 2 (u2) + 4 (u5) + 4 (u9) = 10; o33 = 4 + 4 = 8; o44 = 4; o55 = 3;
  //   o12 = 1/3 (u6) + 1 (u8) = 4/3; o23 = 1 (u2) + 1/3 (u6) = 4/3; o13 = o14 = o24 = o34 = 1/3 (u6); symmetric.
  //   n1 = 9, n2 = 13, n3 = 10, n4 = 5, n5 = 3, n = 40.
  const N = null;
  const sectionC = [
    [1, 1, N, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [N, 5, 5, 5],
    [N, N, 1, 1],
    [N, N, 3, N],
  ];

  it('the coincidence matrix of section C', () => {
    const { values, coincidences } = coincidenceMatrix(sectionC);
    expect(values).toEqual([1, 2, 3, 4, 5]);
    const third = 1 / 3;
    const expected = [
      [7, 4 / 3, third, third, 0],
      [4 / 3, 10, 4 / 3, third, 0],
      [third, 4 / 3, 8, third, 0],
      [third, third, third, 4, 0],
      [0, 0, 0, 0, 3],
    ].flat();
    coincidences.forEach((o, i) => expect(o).toBeCloseTo(expected[i]!, 14));
  });

  it('nominal alpha = 0.743', () => {
    // alpha = 1 - (n - 1) (n - sum o_cc) / (n^2 - sum n_c^2) = 1 - 39 (40 - 32) / (1600 - 384) = 1 - 312 / 1216.
    expect(krippendorffAlpha(sectionC, 'nominal')).toBeCloseTo(1 - 312 / 1216, 14);
    expect(krippendorffAlpha(sectionC, 'nominal')).toBeCloseTo(0.743, 3);
  });

  it('interval alpha = 0.849', () => {
    // sum o_ck (c - k)^2 = 2 (4/3 * 1 + 1/3 * 4 + 1/3 * 9 + 4/3 * 1 + 1/3 * 4 + 1/3 * 1) = 52/3;
    // sum n_c n_k (c - k)^2 = 2 (117 + 360 + 405 + 432 + 130 + 260 + 351 + 50 + 120 + 15) = 4480;
    // alpha = 1 - 39 * (52/3) / 4480 = 1 - 676 / 4480.
    expect(krippendorffAlpha(sectionC, 'interval')).toBeCloseTo(1 - 676 / 4480, 14);
    expect(krippendorffAlpha(sectionC, 'interval')).toBeCloseTo(0.849, 3);
  });

  it('ordinal alpha = 0.815', () => {
    // d_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2 with n = 9, 13, 10, 5, 3:
    //   d12 = (22 - 11)^2 = 121, d13 = (32 - 9.5)^2 = 506.25, d14 = (37 - 7)^2 = 900, d15 = (40 - 6)^2 = 1156,
    //   d23 = (23 - 11.5)^2 = 132.25, d24 = (28 - 9)^2 = 361, d25 = (31 - 8)^2 = 529, d34 = (15 - 7.5)^2 = 56.25,
    //   d35 = (18 - 6.5)^2 = 132.25, d45 = (8 - 4)^2 = 16.
    // sum o_ck d_ck = 2 (4/3 121 + 1/3 506.25 + 1/3 900 + 4/3 132.25 + 1/3 361 + 1/3 56.25) = 2 * 2836.5 / 3 = 1891;
    // sum n_c n_k d_ck = 2 (14157 + 45562.5 + 40500 + 31212 + 17192.5 + 23465 + 20631 + 2812.5 + 3967.5 + 240) = 399480;
    // alpha = 1 - 39 * 1891 / 399480 = 1 - 73749 / 399480.
    expect(krippendorffAlpha(sectionC, 'ordinal')).toBeCloseTo(1 - 73749 / 399480, 14);
    expect(krippendorffAlpha(sectionC, 'ordinal')).toBeCloseTo(0.815, 3);
  });

  it('a HaluMem-like 0/1/2 score: ordinal and nominal differ as derived by hand', () => {
    // Two judges, four units: (0, 0), (1, 2), (2, 2), (0, 1). Coincidences (m_u = 2, weight 1):
    // o00 = 2, o12 = o21 = 1, o22 = 2, o01 = o10 = 1, o11 = 0; n0 = 3, n1 = 2, n2 = 3, n = 8.
    // Nominal: alpha = 1 - 7 (8 - 4) / (64 - 22) = 1 - 28 / 42 = 1/3.
    // Ordinal: d01 = (3 + 2 - 2.5)^2 = 6.25, d12 = (2 + 3 - 2.5)^2 = 6.25, d02 = (8 - 3)^2 = 25;
    //   sum o d = 2 (1 * 6.25 + 1 * 6.25) = 25; sum n n d = 2 (3 * 2 * 6.25 + 2 * 3 * 6.25 + 3 * 3 * 25) = 600;
    //   alpha = 1 - 7 * 25 / 600 = 1 - 175 / 600 = 17/24.
    const units = [
      [0, 0],
      [1, 2],
      [2, 2],
      [0, 1],
    ];
    expect(krippendorffAlpha(units, 'nominal')).toBeCloseTo(1 / 3, 15);
    expect(krippendorffAlpha(units, 'ordinal')).toBeCloseTo(17 / 24, 15);
  });

  it('is NaN without pairable values or without variation', () => {
    expect(
      krippendorffAlpha([
        [1, null],
        [null, 2],
      ]),
    ).toBeNaN();
    expect(
      krippendorffAlpha([
        [1, 1],
        [1, 1],
      ]),
    ).toBeNaN();
  });
});
