import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { itWithReferenceData, referencePath } from '../../../test-support/reference-data';
import {
  bootstrapMeanCI,
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
