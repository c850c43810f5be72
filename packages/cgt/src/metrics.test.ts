import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupFromRows } from './data';
import { evaluateGroup } from './evaluate';
import { accumulativePrf1, cumulativeDsc, meanPrf1, prf1 } from './metrics';
import { CGT, describeCgt } from './test/shared';

const w = (o: Record<string, string>) => new Map(Object.entries(o));

describeCgt('the README example (readme_example.json, spec section 9.1)', () => {
  const example = JSON.parse(readFileSync(join(CGT, 'readme_example.json'), 'utf8')) as {
    rows: Array<{ gold: Record<string, string>; pred: Record<string, string> }>;
    expected: {
      prf1_rows: number[][];
      dsc_strict_rows: number[];
      dsc_lenient_rows: number[];
      final_prf1: number[];
      final_dsc: number;
      mean_prf1_computed: number[];
      mean_dsc_computed: number;
    };
    readme_stated: { average_prf1: number[]; average_dsc: number };
  };
  const rows = example.rows.map((r) => ({ gold: w(r.gold), pred: w(r.pred) }));

  it('reproduces every row, the finals and the computed means', () => {
    const p = accumulativePrf1(rows);
    expect(p.rows.map((r) => [r.p, r.r, r.f1])).toEqual(example.expected.prf1_rows);
    p.rows.forEach((r, i) => expect(r.f1).toBe(example.expected.prf1_rows[i]![2]));
    expect([p.final!.p, p.final!.r, p.final!.f1]).toEqual(example.expected.final_prf1);
    expect(p.mean!.p).toBe(example.expected.mean_prf1_computed[0]);
    expect(p.mean!.r).toBe(example.expected.mean_prf1_computed[1]);
    expect(p.mean!.f1).toBe(example.expected.mean_prf1_computed[2]);
    // spec 9.1: the computed values are (0.9, 0.95, 0.9214285714285714) and 0.8117241379310345
    expect(p.mean!.f1).toBe(0.9214285714285714);

    const strict = cumulativeDsc(rows, { mode: 'strict' });
    const lenient = cumulativeDsc(rows, { mode: 'lenient' });
    expect(strict.rows.map((r) => r.dsc)).toEqual(example.expected.dsc_strict_rows);
    expect(lenient.rows.map((r) => r.dsc)).toEqual(example.expected.dsc_lenient_rows);
    expect(strict.final).toBe(example.expected.final_dsc);
    expect(strict.mean).toBe(example.expected.mean_dsc_computed);
    expect(strict.mean).toBe(0.8117241379310345);
  });

  it('the DSC counts behind the rows are 2/2/2, 2/4/2, 5/7/5, 8/11/9, 11/16/13 (|G∩P| / |G| / |P|)', () => {
    // 2*|G∩P| / (|G| + |P|) for each stated count triple
    const counts = [
      [2, 2, 2],
      [2, 4, 2],
      [5, 7, 5],
      [8, 11, 9],
      [11, 16, 13],
    ];
    expect(cumulativeDsc(rows).rows.map((r) => r.dsc)).toEqual(counts.map(([i, g, p]) => (2 * i!) / (g! + p!)));
  });

  it('the README averages are not reproducible from its 5 rows (known inconsistency): PRF1 needs a 6th (1,1,1) row', () => {
    const withExtra = meanPrf1([...accumulativePrf1(rows).rows, { p: 1, r: 1, f1: 1, int: true }]);
    expect([withExtra.p, withExtra.r, withExtra.f1]).toEqual(example.readme_stated.average_prf1);
    expect(cumulativeDsc(rows).mean).not.toBe(example.readme_stated.average_dsc);
  });
});

describe('prf1 (spec section 3.2)', () => {
  it('a wrong value is an FP (not an FN); a true ungrounded prediction is ignored; other extras are FPs', () => {
    // gold red, blue; pred red right, blue wrong, yellow true-but-ungrounded, dark extra
    // TP=1 (red), FP=1 (blue) + 1 (dark) = 2, FN=0 → p = 1/3, r = 1, f1 = 2*(1/3)*1/(1/3+1)
    const r = prf1(w({ red: '10', blue: '10' }), w({ red: '10', blue: '30', yellow: '50', dark: '10' }));
    expect(r).toEqual({ p: 1 / 3, r: 1, f1: (2 * (1 / 3) * 1) / (1 / 3 + 1), int: false });
  });

  it('without a TP: ints (1,1,1) when nothing is wrong, else (0,0,0)', () => {
    expect(prf1(new Map(), w({ red: '10' }))).toEqual({ p: 1, r: 1, f1: 1, int: true });
    expect(prf1(w({ red: '10' }), new Map())).toEqual({ p: 0, r: 0, f1: 0, int: true });
    expect(prf1(w({ red: '10' }), w({ red: '20' }))).toEqual({ p: 0, r: 0, f1: 0, int: true });
  });

  it("variant 'standard': a wrong value is FP and FN, every extra color is an FP", () => {
    // TP=1 (red), FP = 1 (blue wrong) + 2 (yellow, dark) = 3, FN = 1 (blue wrong) → p = 1/4, r = 1/2
    const r = prf1(w({ red: '10', blue: '10' }), w({ red: '10', blue: '30', yellow: '50', dark: '10' }), 'standard');
    expect(r).toEqual({ p: 0.25, r: 0.5, f1: (2 * 0.25 * 0.5) / 0.75, int: false });
  });

  it('accumulates predictions forever: a later {} or partial answer takes nothing back (spec 3.2)', () => {
    const rows = [
      { gold: w({ red: '10' }), pred: w({ red: '10', blue: '20' }) },
      { gold: w({ blue: '10' }), pred: new Map<string, string>() },
    ];
    // row 1: AG = {red:10, blue:10}, AP = {red:10, blue:20} → TP 1, FP 1 (blue wrong) → p = 0.5, r = 1
    const r = accumulativePrf1(rows);
    expect(r.rows[1]).toEqual({ row: 1, p: 0.5, r: 1, f1: (2 * 0.5 * 1) / 1.5, int: false });
  });

  it('skips leading rows where both accumulated dicts are empty; all-int rows give an int mean', () => {
    const rows = [
      { gold: new Map<string, string>(), pred: new Map<string, string>() },
      { gold: w({ red: '10' }), pred: w({ red: '20' }) },
      { gold: w({ red: '10' }), pred: w({ red: '20' }) },
    ];
    const r = accumulativePrf1(rows);
    expect(r.rows.map((x) => x.row)).toEqual([1, 2]);
    expect(r.mean).toEqual({ p: 0, r: 0, f1: 0, int: true });
    // a mean of int rows that is not whole is a float (Python: statistics.mean([1, 0]) == 0.5)
    expect(
      meanPrf1([
        { p: 1, r: 1, f1: 1, int: true },
        { p: 0, r: 0, f1: 0, int: true },
      ]),
    ).toEqual({ p: 0.5, r: 0.5, f1: 0.5, int: false });
    // naive means are Python sum / len: always floats
    expect(meanPrf1([{ p: 0, r: 0, f1: 0, int: true }], 'naive').int).toBe(false);
  });
});

describe('cumulativeDsc (spec section 3.3)', () => {
  it('oracle knowledge: gold {} and pred {red: 10} is PRF1 (1,1,1) but strict DSC 0.0 (spec 9.3)', () => {
    const rows = [{ gold: new Map<string, string>(), pred: w({ red: '10' }) }];
    expect(accumulativePrf1(rows).rows[0]).toMatchObject({ p: 1, r: 1, f1: 1, int: true });
    expect(cumulativeDsc(rows).rows).toEqual([{ row: 0, dsc: 0 }]);
    // lenient drops the true-but-ungrounded prediction: both sets empty, the row is skipped
    expect(cumulativeDsc(rows, { mode: 'lenient' }).rows).toEqual([]);
  });

  it('a prediction only counts in its own row; the gold of every row counts again', () => {
    const rows = [
      { gold: w({ red: '10' }), pred: w({ red: '10' }) },
      { gold: w({ red: '10' }), pred: new Map<string, string>() },
    ];
    // row 0: {0-red=10} vs {0-red=10} → 1.0; row 1: G = {0-red=10, 1-red=10}, P = {0-red=10} → 2*1/3
    expect(cumulativeDsc(rows).rows.map((r) => r.dsc)).toEqual([1, 2 / 3]);
  });

  it('lenient keeps a true prediction that is in the same row gold, and every non-true one', () => {
    const rows = [{ gold: w({ red: '10' }), pred: w({ red: '10', green: '20', purple: '40' }) }];
    // strict: G = 1, P = 3, common 1 → 2/4; lenient drops green=20 (true, not in gold): P = 2 → 2/3
    expect(cumulativeDsc(rows).rows[0]!.dsc).toBe(0.5);
    expect(cumulativeDsc(rows, { mode: 'lenient' }).rows[0]!.dsc).toBe(2 / 3);
  });

  it('a key containing "=" or "-" changes the lenient test exactly as the reference split does', () => {
    // tag "0-red=10-x=5": split("-")[1] is "red=10", a true proposition not in the row gold, so lenient drops it
    const rows = [{ gold: w({ blue: '10' }), pred: w({ blue: '10', 'red=10-x': '5' }) }];
    // strict: G = {0-blue=10}, P = {0-blue=10, 0-red=10-x=5}, common 1 → 2/3; lenient: P = {0-blue=10} → 1.0
    expect(cumulativeDsc(rows).rows[0]!.dsc).toBe(2 / 3);
    expect(cumulativeDsc(rows, { mode: 'lenient' }).rows[0]!.dsc).toBe(1);
  });
});

describe('evaluateGroup on in-memory rows', () => {
  it('matches the metric functions and reports both DSC modes', () => {
    const group = groupFromRows([
      { gold: { red: '10' }, pred: { red: '10' } },
      { gold: { red: '10', blue: '10' }, pred: { blue: '20' } },
    ]);
    const r = evaluateGroup(group);
    expect(r.nRows).toBe(2);
    expect(r.prf1).toEqual(accumulativePrf1(group.rows));
    expect(r.dsc.strict).toEqual(cumulativeDsc(group.rows));
    expect(r.dsc.lenient).toEqual(cumulativeDsc(group.rows, { mode: 'lenient' }));
  });
});
