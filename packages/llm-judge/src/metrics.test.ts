import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeWithReferenceData, referencePath } from '../../../test-support/reference-data';
import { ruleJudgements, ruleMetrics, ruleTurnLabel, stateMatches } from './metrics';
import { recordFromJson, readTurnRecords } from './internal/records';

const PRED = referencePath('llm-judge/predictions');

// specs/llm-judge.md §6.2: rule-only metrics over the 732 sampled turns.
const TABLE = {
  original: [
    70.76502732240438, 73.36065573770492, 69.80874316939891, 72.40437158469946, 33.33333333333333, 35.10928961748634,
    33.19672131147541, 34.97267759562842,
  ],
  da: [
    73.49726775956285, 77.04918032786885, 72.81420765027322, 76.22950819672131, 38.114754098360656, 43.169398907103826,
    37.97814207650273, 43.0327868852459,
  ],
  'da-p': [
    75.0, 80.32786885245902, 73.77049180327869, 78.96174863387978, 38.52459016393443, 47.540983606557376,
    38.3879781420765, 47.404371584699454,
  ],
};

describeWithReferenceData('llm-judge/predictions')('rule-only metrics (spec 6.2)', () => {
  for (const [name, row] of Object.entries(TABLE)) {
    it(`${name}: TSA M21/M24 in both normalisations and rule JGA (+1 and fixed) as exact floats`, async () => {
      const records = await readTurnRecords(join(PRED, `${name}_sampled.json.gz`));
      const fixed = ruleMetrics(records);
      const reference = ruleMetrics(records, { ruleJga: 'reference' });
      expect([
        fixed.tsa['two-step'].mwz21,
        fixed.tsa['two-step'].mwz24,
        fixed.tsa['single-step'].mwz21,
        fixed.tsa['single-step'].mwz24,
        reference.ruleJga.mwz21,
        reference.ruleJga.mwz24,
        fixed.ruleJga.mwz21,
        fixed.ruleJga.mwz24,
      ]).toEqual(row);
    });
  }
});

describe('rule judgements', () => {
  const rec = (
    flag: string,
    label: Record<string, string>,
    predict: Record<string, string>,
    gt: Record<string, string>,
  ) =>
    recordFromJson({
      flag,
      predict_turn_label: label,
      predict,
      ground_truth: gt,
      ground_truth_m24: gt,
      system: '',
      user: '',
      history: flag.endsWith('-0') ? [] : ['', ''],
    });

  it('turn label = new or changed slots since the previous state; deletions ignored', () => {
    const prev = new Map([
      ['a', '1'],
      ['b', '2'],
    ]);
    const cur = new Map([
      ['a', '1'],
      ['b', '3'],
      ['c', '4'],
    ]);
    expect([...ruleTurnLabel(prev, cur)]).toEqual([
      ['b', '3'],
      ['c', '4'],
    ]);
    expect([...ruleTurnLabel(cur, new Map([['a', '1']]))]).toEqual([]);
  });

  it('two-step normalisation squeezes spaces and drops "none" deletions of absent slots; single-step is exact', () => {
    // hand-derived: gold turn label {hotel-name: "a and b"}; predicted "aand b" + a deletion of an absent slot
    const records = [
      rec(
        'D.json-0',
        { 'hotel-name': 'aand b', 'hotel-area': 'none' },
        { 'hotel-name': 'aand b' },
        { 'hotel-name': 'a and b' },
      ),
    ];
    expect(ruleJudgements(records, 'two-step')).toEqual([{ mwz21: 1, mwz24: 1 }]);
    expect(ruleJudgements(records, 'single-step')).toEqual([{ mwz21: 0, mwz24: 0 }]);
  });

  it('the previous state resets at each dialogue', () => {
    const records = [
      rec('A.json-0', { 'hotel-area': 'east' }, { 'hotel-area': 'east' }, { 'hotel-area': 'east' }),
      rec('B.json-0', { 'hotel-area': 'east' }, { 'hotel-area': 'east' }, { 'hotel-area': 'east' }),
    ];
    expect(ruleJudgements(records, 'two-step').map((j) => j.mwz21)).toEqual([1, 1]);
  });
});

describe('stateMatches (rule JGA): the predicted and the true state as sets of `slot==value` strings', () => {
  const m = (o: Record<string, string>) => new Map(Object.entries(o));
  const asSets = (a: Map<string, string>, b: Map<string, string>) => {
    const set = (x: Map<string, string>) => new Set([...x].map(([k, v]) => `${k}==${v}`));
    const sa = set(a);
    const sb = set(b);
    return sa.size === sb.size && [...sa].every((s) => sb.has(s));
  };
  it('equal entries in any order match; a different value, a missing or an extra slot does not', () => {
    const cases: Array<[Record<string, string>, Record<string, string>, boolean]> = [
      [{}, {}, true],
      [{ 'hotel-area': 'north', 'hotel-stars': '4' }, { 'hotel-stars': '4', 'hotel-area': 'north' }, true],
      [{ 'hotel-area': 'north' }, { 'hotel-area': 'north ' }, false],
      [{ 'hotel-area': 'north' }, { 'hotel-area': 'north', 'hotel-stars': '4' }, false],
      [{ 'hotel-area': 'north', 'hotel-stars': '4' }, { 'hotel-area': 'north' }, false],
      [{ 'hotel-area': 'north' }, { 'hotel-stars': 'north' }, false],
    ];
    for (const [a, b, want] of cases) {
      expect(stateMatches(m(a), m(b))).toBe(want);
      expect(asSets(m(a), m(b))).toBe(want);
    }
  });
  it('slot names with "=" compare as the strings do (the reference compares strings, so two different states can match)', () => {
    const a = m({ 'a==b': 'c' });
    const b = m({ a: 'b==c' });
    expect(asSets(a, b)).toBe(true);
    expect(stateMatches(a, b)).toBe(true);
    expect(stateMatches(m({ 'a=': 'x', b: 'y' }), m({ 'a=': 'x', b: 'z' }))).toBe(false);
  });
  it('agrees with the string sets on random states over slot names and values made of "a", "b" and "=" (seeded)', () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const word = () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => 'ab='[Math.floor(next() * 3)]).join('');
    const state = () => {
      const out = new Map<string, string>();
      for (let i = Math.floor(next() * 4); i > 0; i--) out.set(word(), word());
      return out;
    };
    let matches = 0;
    for (let i = 0; i < 20_000; i++) {
      const a = state();
      // half the pairs start from the same state, so that equal and nearly equal states are common
      const b = next() < 0.5 ? new Map(a) : state();
      if (next() < 0.3 && b.size > 0) b.set([...b.keys()][0]!, word());
      const want = asSets(a, b);
      expect(stateMatches(a, b)).toBe(want);
      if (want) matches++;
    }
    expect(matches).toBeGreaterThan(1000);
  });
});
