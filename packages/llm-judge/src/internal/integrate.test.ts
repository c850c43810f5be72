import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateOutputs } from './evaluate';
import { integrateSingleStep, integrateTwoStep } from './integrate';
import type { OutputEntry } from './recorded';
import { readTurnRecords, recordFromJson, type TurnRecordJson } from './records';
import { SKIPPED_ACCURACY_OUTPUT } from './render';

// Small hand-written dialogues; the expected judgements follow the rules of specs/llm-judge.md §5 step by step.
function rec(flag: string, label: Record<string, string>, extra: Partial<TurnRecordJson> = {}) {
  const turn = Number(flag.split('-').pop());
  return recordFromJson({
    flag,
    predict_turn_label: label,
    predict: label,
    ground_truth: label,
    ground_truth_m24: label,
    system: 's',
    user: 'u',
    history: Array.from({ length: 2 * turn }, () => 'x'),
    ...extra,
  });
}
const fence = (o: unknown) => `\`\`\`json\n${JSON.stringify(o)}\n\`\`\``;
const comp = (flag: string, label: Record<string, string>, missed: Record<string, string>, i = 0): OutputEntry => ({
  record: rec(flag, label),
  output: fence({ explanation: '', missed_domain_slot: missed }),
  prompt: 'p',
  index: i,
});
const acc = (flag: string, label: Record<string, string>, incorrect: Record<string, string>, i = 0): OutputEntry =>
  Object.keys(label).length === 0
    ? { record: rec(flag, label), output: SKIPPED_ACCURACY_OUTPUT, prompt: '', index: i }
    : {
        record: rec(flag, label),
        output: JSON.stringify({ explanation: '', incorrect_domain_slot: incorrect }),
        prompt: 'p',
        index: i,
      };

describe('two-step integration rules', () => {
  it('sticky incorrect set, redundant re-prediction, out-of-range numbers, unknown slots, completeness filters', () => {
    const labels: Array<Record<string, string>> = [
      { 'hotel-area': 'east', 'hotel-stars': '4' }, // t0: area judged incorrect -> judge 0; stars correct
      { 'hotel-area': 'west' }, // t1: area is sticky-incorrect: judge 1 (no report) but it never enters correct
      { 'hotel-stars': '4' }, // t2: same value again -> redundant -> judge 0
      { 'hotel-book people': '0' }, // t3: out of range -> judge 0
      { 'hotel-wifi': 'yes' }, // t4: not a schema slot -> judge 0, counted
      {}, // t5: judge reports hotel-stars (already correct) and restaurant-x (not schema) missed -> filtered -> judge 1
      {}, // t6: judge reports hotel-name missed -> judge 0, missed set
    ];
    const missed: Array<Record<string, string>> = [
      {},
      {},
      {},
      {},
      {},
      { 'hotel-stars': '5', 'restaurant-x': 'y' },
      { 'hotel-name': 'a' },
    ];
    const incorrect: Array<Record<string, string>> = [{ 'hotel-area': 'east' }, {}, {}, {}, {}, {}, {}];
    const r = integrateTwoStep({
      completeness: labels.map((l, t) => comp(`H.json-${t}`, l, missed[t]!, t)),
      accuracy: labels.map((l, t) => acc(`H.json-${t}`, l, incorrect[t]!, t)),
    });
    expect(r.turns.map((t) => t.judge)).toEqual([0, 1, 0, 0, 0, 1, 0]);
    expect(r.turns[1]!.after.correct).toEqual(['hotel-stars']);
    expect(r.turns[5]!.missed).toEqual([]);
    expect(r.turns[6]!.missed).toEqual(['hotel-name']);
    // the pre-turn snapshot of t1 already holds the incorrect area; the non-schema name joins the incorrect set (two-step)
    expect(r.turns[1]!.before.incorrect).toEqual(['hotel-area']);
    expect(r.turns[5]!.before.incorrect).toEqual(['hotel-area', 'hotel-wifi']);
    expect(r.unknownSlots).toEqual({ 'hotel-wifi': 1 });
  });

  it('completenessValueAware keeps a "missed" slot whose reported value differs from the tracked one', () => {
    const entries = [comp('V.json-0', { 'hotel-area': 'east' }, {}), comp('V.json-1', {}, { 'hotel-area': 'west' }, 1)];
    const accs = [acc('V.json-0', { 'hotel-area': 'east' }, {}), acc('V.json-1', {}, {}, 1)];
    expect(integrateTwoStep({ completeness: entries, accuracy: accs }).turns[1]!.judge).toBe(1);
    expect(
      integrateTwoStep({ completeness: entries, accuracy: accs }, { completenessValueAware: true }).turns[1]!.missed,
    ).toEqual(['hotel-area']);
  });

  it('parse failures: reference crash -> error naming file/record; skip; judge-wrong', () => {
    const entries = [comp('P.json-0', { 'hotel-area': 'east' }, {}), comp('P.json-1', {}, {}, 1)];
    const accs = [
      { ...acc('P.json-0', { 'hotel-area': 'east' }, {}), output: 'no json here' },
      acc('P.json-1', {}, {}, 1),
    ];
    expect(() => integrateTwoStep({ completeness: entries, accuracy: accs, files: { accuracy: 'acc.json' } })).toThrow(
      /acc\.json, record 0 \(P\.json-0\): the accuracy output cannot be used: .*The reference crashes here/,
    );
    const skip = integrateTwoStep({ completeness: entries, accuracy: accs }, { onParseFailure: 'skip' });
    expect(skip.turns.map((t) => t.flag)).toEqual(['P.json-1']);
    expect(skip.failures).toMatchObject([{ flag: 'P.json-0', stage: 'accuracy', kind: 'parse', action: 'skipped' }]);
    const wrong = integrateTwoStep({ completeness: entries, accuracy: accs }, { onParseFailure: 'judge-wrong' });
    expect(wrong.turns.map((t) => t.judge)).toEqual([0, 1]);
    expect(wrong.turns[0]!.failure).toMatch(/accuracy/);
  });

  it('an unparseable completeness output skips the turn (counted), as the reference does', () => {
    const entries = [
      { ...comp('C.json-0', {}, {}), output: 'I think nothing is missed.' },
      comp('C.json-1', {}, {}, 1),
    ];
    const e = evaluateOutputs('ours', {
      completeness: entries,
      accuracy: [acc('C.json-0', {}, {}), acc('C.json-1', {}, {}, 1)],
    });
    expect(e.summary.parseFailures.completeness).toBe(1);
    expect(e.summary.skippedTurns).toBe(1);
    expect(e.metrics.turns).toBe(1);
    expect(e.metrics.totalTurns).toBe(2);
  });

  it('bad input: missing accuracy entry, missing turn, duplicate flag', () => {
    const c = [comp('M.json-0', {}, {}), comp('M.json-1', {}, {}, 1)];
    expect(() =>
      integrateTwoStep({ completeness: c, accuracy: [acc('M.json-0', {}, {})], files: { accuracy: 'a.json' } }),
    ).toThrow(/a\.json, record "M\.json-1": the accuracy outputs have no entry for M\.json-1/);
    expect(() =>
      integrateTwoStep({
        completeness: [c[1]!],
        accuracy: [acc('M.json-1', {}, {})],
        files: { completeness: 'c.json' },
      }),
    ).toThrow(/dialogue M\.json lacks turn 0/);
    expect(() => integrateTwoStep({ completeness: [c[0]!, c[0]!], accuracy: [acc('M.json-0', {}, {})] })).toThrow(
      /duplicate flag M\.json-0/,
    );
    const a = [acc('M.json-0', {}, {}), acc('M.json-1', {}, {}, 1)];
    expect(() => integrateTwoStep({ completeness: a, accuracy: c, files: { completeness: 'acc.json' } })).toThrow(
      /acc\.json, record 0: .*swapped/,
    );
  });
});

describe('single-step integration rules', () => {
  it('incorrect slots must be schema slots in the turn label; unknown predicted slots do not join the incorrect set', () => {
    const out = (
      flag: string,
      label: Record<string, string>,
      inc: string[],
      missed: Record<string, string>,
      i: number,
    ): OutputEntry => ({
      record: rec(flag, label),
      output: fence({
        incorrect_domain_slot: Object.fromEntries(inc.map((k) => [k, 'v'])),
        missed_domain_slot: missed,
      }),
      prompt: 'p',
      index: i,
    });
    const r = integrateSingleStep({
      outputs: [
        out(
          'S.json-0',
          { 'hotel-area': 'east', 'hotel-wifi': 'yes' },
          ['hotel-area', 'hotel-wifi', 'hotel-name'],
          {},
          0,
        ),
        out('S.json-1', {}, [], {}, 1),
      ],
    });
    expect(r.turns[0]!.incorrect).toEqual(['hotel-area']);
    expect(r.turns[0]!.judge).toBe(0);
    expect(r.turns[1]!.before.incorrect).toEqual(['hotel-area']);
    expect(r.unknownSlots).toEqual({ 'hotel-wifi': 1 });
  });
});

describe('record files: bad input', () => {
  it('turns out of order, split dialogues, bad flags and wrong field types name the file and record', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-judge-rec-'));
    const base = {
      predict_turn_label: {},
      predict: {},
      ground_truth: {},
      system: '',
      user: 'u',
      history: [] as string[],
    };
    const write = async (name: string, recs: unknown[]) => {
      await writeFile(join(dir, name), JSON.stringify(recs));
      return join(dir, name);
    };
    try {
      const h = ['', 'u'];
      await expect(readTurnRecords(await write('a.json', [{ ...base, flag: 'A.json-1', history: h }]))).rejects.toThrow(
        /a\.json, record 0, field flag: turns out of order in dialogue A\.json: expected turn 0, got 1/,
      );
      await expect(
        readTurnRecords(
          await write('b.json', [
            { ...base, flag: 'A.json-0' },
            { ...base, flag: 'B.json-0' },
            { ...base, flag: 'A.json-1', history: h },
          ]),
        ),
      ).rejects.toThrow(/b\.json, record 2, field flag: turns of dialogue A\.json are not consecutive/);
      await expect(readTurnRecords(await write('c.json', [{ ...base, flag: 'A.json' }]))).rejects.toThrow(
        /c\.json, record 0, field flag: flag "A\.json" is not/,
      );
      await expect(
        readTurnRecords(await write('d.json', [{ ...base, flag: 'A.json-0', predict: { 'hotel-area': 3 } }])),
      ).rejects.toThrow(/d\.json, record 0, field predict\["hotel-area"\]: expected a string value, got int/);
      await expect(
        readTurnRecords(await write('e.json', [{ ...base, flag: 'A.json-0', history: ['x'] }])),
      ).rejects.toThrow(/even length/);
      expect(
        (await readTurnRecords(await write('f.json', [{ ...base, flag: 'A.json-1' }]), { requireOrder: false })).length,
      ).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
