import { describe, expect, it } from 'vitest';
import { addDstCounts, dstFromCounts, dstTurnCounts, emptyDstCounts } from './dst';

describe('DST (spec § 8), hand-derived', () => {
  it('fuzzy value matching with partial_ratio > 95; missing and extra slots', () => {
    const hyp = { hotel: { area: 'north', name: 'acorn guest house', stars: '4' } };
    const ref = { hotel: { area: 'north', name: 'acorn guest house', type: 'guesthouse' } };
    expect(dstTurnCounts(hyp, ref)).toEqual({ tp: 2, fp: 1, fn: 1, joint: 0, turns: 1 });
    expect(dstTurnCounts(ref, ref)).toEqual({ tp: 3, fp: 0, fn: 0, joint: 1, turns: 1 });
    // partial_ratio("the cambridge belfry", "cambridge belfry") = 100 (substring): counts as a match
    expect(
      dstTurnCounts({ hotel: { name: 'the cambridge belfry' } }, { hotel: { name: 'cambridge belfry' } }).joint,
    ).toBe(1);
    // empty states match (JGA counts them)
    expect(dstTurnCounts({}, {})).toEqual({ tp: 0, fp: 0, fn: 0, joint: 1, turns: 1 });
  });

  it("figures with the reference's +1e-10 denominators (P and R fractions, F1 and JGA percent)", () => {
    const c = addDstCounts(addDstCounts(emptyDstCounts(), { tp: 2, fp: 1, fn: 1, joint: 0, turns: 1 }), {
      tp: 3,
      fp: 0,
      fn: 0,
      joint: 1,
      turns: 1,
    });
    const p = 5 / (5 + 1 + 1e-10);
    const r = 5 / (5 + 1 + 1e-10);
    expect(dstFromCounts(c)).toEqual({
      joint_accuracy: (1 / (2 + 1e-10)) * 100,
      slot_f1: ((2 * p * r) / (p + r + 1e-10)) * 100,
      slot_precision: p,
      slot_recall: r,
    });
  });
});
