import { pythonJsonDumps, pythonJsonString, pythonRound } from '@eval/core/python';
import { expect, it } from 'vitest';
import { HAS_MULTIWOZ, describeMultiwoz, shared, sharedData, subset21Predictions } from '../../test/helpers';
import { MultiwozEvaluator } from '../metrics/evaluator';
import { bootstrapMultiwoz, compareMultiwoz, formatMwzevalJson } from './report';

const ev = HAS_MULTIWOZ
  ? new MultiwozEvaluator(sharedData('2022', true), { bleu: true, success: true, richness: true })
  : undefined!;
const augpt = HAS_MULTIWOZ ? ev.evaluate(subset21Predictions('augpt')) : undefined!;
const hdsa = HAS_MULTIWOZ ? ev.evaluate(subset21Predictions('hdsa')) : undefined!;

describeMultiwoz("mwzeval's JSON output", () => {
  it('same shape and keys as the reference output, Python number formatting (100.0, integer counts)', () => {
    const text = formatMwzevalJson(augpt);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const expected = shared<Record<string, unknown>>('expected/subset21/augpt.json');
    expect(Object.keys(parsed)).toEqual(['bleu', 'success', 'richness', 'dst']);
    expect(Object.keys(parsed.richness as object).sort()).toEqual(Object.keys(expected.richness as object).sort());
    expect(Object.keys((parsed.success as { inform: object }).inform).sort()).toEqual(
      Object.keys((expected.success as { inform: object }).inform).sort(),
    );
    expect(text).toContain('"attraction": 100.0'); // a Python float
    expect(text).toContain('"num_unigrams": 206'); // a Python int
    expect(text).toContain('"dst": null');
    expect(text).not.toContain('\n'); // json.dump(results, f) without indent
  });

  it('pythonJsonDumps = json.dumps: ensure_ascii escapes, indent layout, float repr', () => {
    expect(pythonJsonString('café "x"\\\n\u007f\u{1f642}')).toBe('"caf\\u00e9 \\"x\\"\\\\\\n\\u007f\\ud83d\\ude42"');
    expect(pythonJsonDumps({ a: [1, 2.5], b: {}, c: [] }, { indent: 2 })).toBe(
      '{\n  "a": [\n    1.0,\n    2.5\n  ],\n  "b": {},\n  "c": []\n}',
    );
    expect(pythonJsonDumps({ a: [1, 1e-7] })).toBe('{"a": [1.0, 1e-07]}');
  });
});

describeMultiwoz('bootstrap confidence intervals and paired comparison', () => {
  it('CIs are seeded, contain the estimate, and the estimates are the report figures', () => {
    const ci = bootstrapMultiwoz(augpt, { samples: 200, seed: 7 });
    expect(ci.bleu!.mwz22!.estimate).toBe(augpt.bleu!.mwz22);
    expect(pythonRound(ci.inform!.estimate, 1)).toBe(augpt.success!.inform.total);
    expect(pythonRound(ci.success!.estimate, 1)).toBe(augpt.success!.success.total);
    for (const c of [ci.bleu!.mwz22!, ci.inform!, ci.success!]) {
      expect(c.lower).toBeLessThanOrEqual(c.estimate);
      expect(c.upper).toBeGreaterThanOrEqual(c.estimate);
    }
    expect(bootstrapMultiwoz(augpt, { samples: 200, seed: 7 })).toEqual(ci);
  });

  it('compares two systems on the same dialogues; a system against itself is never better', () => {
    const same = compareMultiwoz(augpt, augpt, { samples: 100 });
    expect(same.inform!.comparison.difference).toBe(0);
    expect(same.inform!.comparison.pValue).toBe(1);
    const c = compareMultiwoz(augpt, hdsa, { samples: 100, seed: 1 });
    expect(c.dialogues).toBe(21);
    expect(c.bleu!.mwz22!.a).toBe(augpt.bleu!.mwz22);
    expect(c.bleu!.mwz22!.b).toBe(hdsa.bleu!.mwz22);
    expect(c.bleu!.mwz22!.comparison.difference).toBe(augpt.bleu!.mwz22! - hdsa.bleu!.mwz22!);
    expect(pythonRound(c.success!.a, 1)).toBe(augpt.success!.success.total);
    expect(c.success!.comparison.pValue).toBeGreaterThanOrEqual(0);
    expect(c.success!.comparison.pValue).toBeLessThanOrEqual(1);
  });

  it('uses only the dialogues both files contain', () => {
    const part = ev.evaluate(Object.fromEntries(Object.entries(subset21Predictions('hdsa')).slice(0, 10)));
    const c = compareMultiwoz(augpt, part, { samples: 50 });
    expect(c.dialogues).toBe(10);
    expect(c.onlyA).toHaveLength(11);
    expect(c.onlyB).toEqual([]);
  });
});
