import { join } from 'node:path';
import { PyInt, type PyValue, pythonFloatRepr, pythonJsonDumps } from '@eval/core/python';
import { describe, expect, it } from 'vitest';
import { groupFromRows, readSettingDir } from './data';
import { evaluateGroup, evaluateSetting, printedLines, resolveOptions } from './evaluate';
import { bankDice, bankDiceTrace } from './internal/original-dsc';
import { REFERENCE, formatReferenceOutput, formatReport, settingToPy } from './report';
import { HAS_CGT, PREDICTIONS, describeCgt, expected, itCgt } from './test/shared';

const exp = HAS_CGT ? expected() : undefined!;
const empty = () => new Map<string, string>();

describe('empty groups (the reference crashes on statistics.mean([]))', () => {
  const blank = groupFromRows(
    [
      { gold: {}, pred: {} },
      { gold: {}, pred: {} },
    ],
    '4',
  );
  const scored = groupFromRows([{ gold: { red: '10' }, pred: { red: '10' } }], '1');

  it('are an input error by default, naming the group', () => {
    expect(() => evaluateGroup({ ...blank, file: 'p_group_4.json' })).toThrow(/p_group_4\.json: no PRF1 row is scored/);
    expect(() => evaluateSetting([scored, { ...blank, rows: [] }])).toThrow(/group 4: no PRF1 row is scored/);
  });

  it("emptyGroup: 'skip' leaves them out of the macro mean and the printed lines", () => {
    const r = evaluateSetting([scored, blank], { emptyGroup: 'skip' });
    expect(r.skippedGroups).toEqual(['4']);
    expect(r.groupMeanDsc).toEqual([1, null]);
    expect(r.groupMeanF1).toEqual([{ value: 1, int: false }, null]);
    expect(r.macro.f1).toBe(1);
    expect(r.printed).toEqual({ dsc: '1.0', f1: '1.0', dscLatex: '100.0', macroDsc: '1.0' });
  });

  it('a group whose lenient DSC is empty only fails when lenient is the selected mode', () => {
    // gold {} and a true prediction: PRF1 (1,1,1), strict DSC 0.0, lenient drops the prediction (row skipped)
    const g = groupFromRows([{ gold: {}, pred: { red: '10' } }]);
    expect(evaluateGroup(g).dsc.lenient.mean).toBeNull();
    expect(() => evaluateGroup(g, { dsc: 'lenient' })).toThrow(/no lenient DSC row is scored/);
  });
});

describe('evaluateSetting', () => {
  itCgt('mode lenient: macro and printed lines over the lenient group means', async () => {
    const s = await readSettingDir(join(PREDICTIONS, 'dp-gpt4o'));
    const r = evaluateSetting(s, { dsc: 'lenient', bootstrap: false });
    const lenientMeans = Object.values(exp.settings['dp-gpt4o']!.groups).map((g) => g.mean_dsc_lenient);
    expect(r.groupMeanDsc).toEqual(lenientMeans);
    let sum = 0;
    for (const x of lenientMeans) sum += x;
    expect(r.macro.dsc).toBe(sum / lenientMeans.length);
    expect(r.printed).toEqual(
      printedLines(
        lenientMeans,
        r.groupMeanF1.map((x) => x!),
      ),
    );
    expect(r.bootstrap).toBeUndefined();
  });

  itCgt('bootstrap over groups: seeded, reproducible, around the macro estimate', async () => {
    const s = await readSettingDir(join(PREDICTIONS, 'text-gpt3.5'));
    const a = evaluateSetting(s, { bootstrap: { samples: 500, seed: 7 } });
    const b = evaluateSetting(s, { bootstrap: { samples: 500, seed: 7 } });
    const c = evaluateSetting(s, { bootstrap: { samples: 500, seed: 8 } });
    expect(a.bootstrap).toEqual(b.bootstrap);
    expect(a.bootstrap!.f1).not.toEqual(c.bootstrap!.f1);
    for (const [ci, macro] of [
      [a.bootstrap!.f1, a.macro.f1!],
      [a.bootstrap!.dsc, a.macro.dsc!],
    ] as const) {
      expect(ci.estimate).toBe(macro);
      expect(ci.lower).toBeLessThanOrEqual(macro);
      expect(ci.upper).toBeGreaterThanOrEqual(macro);
      expect(ci.upper).toBeGreaterThan(ci.lower);
      expect(ci).toMatchObject({ samples: 500, seed: 7, confidence: 0.95 });
    }
  });

  it('counts answers scored as {} under invalidPrediction: empty', () => {
    const g = groupFromRows([{ gold: { red: '10' }, pred: {} }]);
    g.rows[0]!.invalid = { reason: 'not_json', message: 'x' };
    expect(evaluateSetting([g]).invalidPredictions).toBe(1);
  });

  it('rejects unknown option values', () => {
    expect(() => resolveOptions({ dsc: 'loose' as never })).toThrow(/option dsc must be one of strict, lenient/);
    expect(resolveOptions()).toEqual({
      dsc: 'strict',
      mean: 'exact',
      prf1: 'reference',
      emptyGroup: 'error',
      bootstrap: { samples: 1000, seed: 0, confidence: 0.95 },
    });
  });
});

describeCgt('the reference printout', () => {
  it('reproduces the full stdout of eval_cgqa_output.py (from the values of expected.json)', async () => {
    for (const name of ['dp-gpt4o', 'text-gpt3.5']) {
      const want = exp.settings[name]!;
      const r = evaluateSetting(await readSettingDir(join(PREDICTIONS, name)), { bootstrap: false });
      const text = formatReferenceOutput(r);
      const lines: string[] = [];
      Object.values(want.groups).forEach((g, gi) => {
        // print(p) of each normalised prediction dict
        for (const p of g.pred_normalized)
          lines.push(
            `{${Object.entries(p)
              .map(([k, v]) => `'${k}': '${v}'`)
              .join(', ')}}`,
          );
        lines.push(`(${pythonFloatRepr(g.mean_dsc_strict)}, [${g.dsc_strict_rows.map(pythonFloatRepr).join(', ')}])`);
        // Python ints print bare; which rows are ints is checked byte for byte against expected.json in parity.test.ts
        const ours = r.groups[gi]!.prf1;
        const f1 = (x: number, int: boolean) => (int ? String(x) : pythonFloatRepr(x));
        lines.push(
          `(${f1(g.mean_f1, ours.mean!.int)}, [${g.prf1_rows.map((x, j) => f1(x.f1, ours.rows[j]!.int)).join(', ')}])`,
        );
        lines.push('='.repeat(36));
      });
      lines.push(
        want.printed_dsc_line,
        want.printed_f1_line,
        want.printed_dsc_latex,
        pythonFloatRepr(want.macro_mean_dsc_strict),
      );
      expect(text).toBe(`${lines.join('\n')}\n`);
    }
  });

  it('prints Python ints where every row is the int triple (text-gpt3.5 group 4)', async () => {
    const r = evaluateSetting(await readSettingDir(join(PREDICTIONS, 'text-gpt3.5')), { bootstrap: false });
    const blocks = formatReferenceOutput(r).split(`${'='.repeat(36)}\n`);
    expect(blocks[3]!.trimEnd().split('\n')).toEqual([
      "{'red': '10', 'blue': '30'}",
      "{'red': '10', 'blue': '30'}",
      '(0.0, [0.0, 0.0])',
      '(0, [0, 0])',
    ]);
  });
});

describe('formatReport', () => {
  itCgt('adds extras (file, row keys, P/R macro, bootstrap, counts) after the expected.json fields', async () => {
    const r = evaluateSetting(await readSettingDir(join(PREDICTIONS, 'dp-gpt4o')), { bootstrap: { samples: 100 } });
    const parsed = JSON.parse(formatReport([r], { extras: true }));
    const s = parsed.settings['dp-gpt4o'];
    expect(Object.keys(s).slice(0, 8)).toEqual(Object.keys(exp.settings['dp-gpt4o']!));
    expect(s.groups['1'].row_keys).toEqual(['98.088', '104.58', '132.0', '150.56', '185.12', '269.27']);
    expect(s.printed_macro_dsc).toBe('0.503672627787518');
    expect(s.bootstrap.macro_mean_f1.estimate).toBe(exp.settings['dp-gpt4o']!.macro_mean_f1);
    expect(s.invalid_predictions).toBe(0);
    expect(parsed.options).toEqual({ dsc: 'strict', mean: 'exact', prf1: 'reference', empty_group: 'error' });
  });

  itCgt('without extras: exactly the keys of the reference layout', async () => {
    const r = evaluateSetting(await readSettingDir(join(PREDICTIONS, 'dp-gpt4o')));
    const parsed = JSON.parse(formatReport([r]));
    expect(Object.keys(parsed)).toEqual(['reference', 'settings']);
    expect(parsed.settings['dp-gpt4o']).toEqual(exp.settings['dp-gpt4o']);
  });

  itCgt(
    'is json.dumps of the whole layout, whatever the indent, extras and meta (each setting serialised once and reused)',
    async () => {
      const rs = [
        evaluateSetting(await readSettingDir(join(PREDICTIONS, 'dp-gpt4o')), { bootstrap: { samples: 50 } }),
        evaluateSetting(await readSettingDir(join(PREDICTIONS, 'vision-4o-mini'))),
      ];
      const whole = (settings: typeof rs, extras: boolean, indent: number, meta?: Record<string, PyValue>) => {
        const top = new Map<string, PyValue>([['reference', REFERENCE]]);
        if (extras) for (const [k, v] of Object.entries(meta ?? {})) top.set(k, v);
        if (extras && !meta?.options)
          top.set(
            'options',
            new Map<string, PyValue>([
              ['dsc', 'strict'],
              ['mean', 'exact'],
              ['prf1', 'reference'],
              ['empty_group', 'error'],
            ]),
          );
        top.set('settings', new Map(settings.map((r) => [r.name, settingToPy(r, extras)])));
        return pythonJsonDumps(top, { indent });
      };
      const meta = {
        options: new Map<string, PyValue>([
          ['dsc', 'strict'],
          ['gold', 'é'],
        ]),
        note: 'x',
      };
      // twice each: the second call serialises nothing anew
      for (let pass = 0; pass < 2; pass++) {
        for (const indent of [0, 1, 2]) {
          for (const extras of [false, true]) {
            expect(formatReport(rs, { extras, indent, meta })).toBe(whole(rs, extras, indent, meta));
            expect(formatReport([rs[1]!], { extras, indent })).toBe(whole([rs[1]!], extras, indent));
          }
        }
      }
      expect(formatReport([])).toBe(whole([], false, 1));
    },
  );

  it('python-style number tokens', () => {
    expect(pythonJsonDumps(new Map([['x', [new PyInt(0), 0, 1]]]) as never)).toBe('{"x": [0, 0.0, 1.0]}');
  });
});

describe('original CGT paper DSC (spec section 7, separate metric)', () => {
  it('2J/(1+J) of the banks; two empty banks score 0', () => {
    // A = {a, b}, B = {b, c}: J = 1/3 → 2(1/3)/(4/3) = 0.5 (= Dice 2·1/4)
    expect(bankDice(['a', 'b'], ['b', 'c'])).toBe((2 * (1 / 3)) / (1 + 1 / 3));
    expect(bankDice(['a'], ['a'])).toBe(1);
    expect(bankDice([], [])).toBe(0);
    expect(bankDice(['a'], [])).toBe(0);
  });

  it('no accumulation across moves; the mean is np.mean', () => {
    const t = bankDiceTrace([
      { predicted: ['red=10'], truth: ['red=10'] },
      { predicted: [], truth: ['red=10'] },
    ]);
    expect(t).toEqual({ scores: [1, 0], mean: 0.5 });
  });
});

describe('evaluateGroup rows skipped at the start', () => {
  it('row indexes of scored rows stay the positions in the group', () => {
    const g = groupFromRows([
      { gold: {}, pred: {} },
      { gold: { red: '10' }, pred: { red: '10' } },
    ]);
    const r = evaluateGroup(g);
    expect(r.prf1.rows.map((x) => x.row)).toEqual([1]);
    expect(r.dsc.strict.rows).toEqual([{ row: 1, dsc: 1 }]);
    expect(r.gold[0]).toEqual(empty());
  });
});
