import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compareRuns, readRun, startRun } from '@eval/core';
import { runItemSchema } from '@eval/core/schemas';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeWithReferenceData, referencePath } from '../../../test-support/reference-data';
import { evaluateOutputFiles, evaluateOutputs, readOutputFiles } from './internal/evaluate';
import type { JudgeMethod } from './internal/methods';
import { readOutputEntries } from './internal/recorded';
import {
  llmJudgeRunItems,
  llmJudgeRunMetrics,
  llmJudgeRunSetup,
  llmJudgeRunVariant,
  recompute,
  runBenchmark,
} from './runs';

const SLICE = referencePath('llm-judge/slice');
const expected = (name: string) => JSON.parse(readFileSync(join(SLICE, name), 'utf8'));
/** Items as they come back from items.jsonl. */
const viaJson = <T>(x: T): T => JSON.parse(JSON.stringify(x));

describeWithReferenceData('llm-judge/slice')('llm-judge run items: recompute reproduces the reference figures', () => {
  it('Ours (expected_ours.json): TSA, rule TSA, coherence, GPT-JGA, rule JGA (fixed and the reference +1)', async () => {
    const m = expected('expected_ours.json').metrics_percent;
    const files = [join(SLICE, 'ours_acc_outputs.json'), join(SLICE, 'ours_comp_outputs.json')];
    const e = await evaluateOutputFiles('ours', files);
    const items = viaJson(llmJudgeRunItems(e));
    for (const item of items) runItemSchema.parse(item);
    expect(items).toHaveLength(42);
    expect(runBenchmark.recompute(items, llmJudgeRunVariant('ours'))).toStrictEqual({
      TSA: m.TSA_gpt,
      'TSA M21': m.TSA_rule_mwz21,
      'TSA M24': m.TSA_rule_mwz24,
      'coherence M21': m.coherence_mwz21,
      'coherence M24': m.coherence_mwz24,
      JGA: m['GPT_JGA_repo(already-before-turn)'],
      'JGA M21': m.JGA_rule_mwz21_fixed,
      'JGA M24': m.JGA_rule_mwz24_fixed,
    });
    const buggy = await evaluateOutputFiles('ours', files, { ruleJga: 'reference' });
    const variant = llmJudgeRunVariant('ours', { ruleJga: 'reference' });
    expect(variant).toBe('ours;ruleJga=reference');
    const r = runBenchmark.recompute(viaJson(llmJudgeRunItems(buggy)), variant);
    expect(r['JGA M21']).toBe(m.JGA_rule_mwz21_repo_buggy_plus1);
    expect(r['JGA M24']).toBe(m.JGA_rule_mwz24_repo_buggy_plus1);
    // the run's metrics (from the native evaluation) are the same figures
    expect(Object.fromEntries(Object.entries(llmJudgeRunMetrics(e)).map(([k, x]) => [k, x.value]))).toStrictEqual(
      runBenchmark.recompute(items, 'ours'),
    );
    expect(recompute(items, 'ours')).toStrictEqual(runBenchmark.recompute(items, 'ours'));
    // percent points with two decimals, as the reference prints them (`{:.2f}`); each turn in its dialogue's cluster
    for (const metric of Object.values(llmJudgeRunMetrics(e))) expect(metric).toMatchObject({ unit: '%', digits: 2 });
    for (const item of items) expect(item.cluster).toBe(item.group);
    expect(new Set(items.map((i) => i.cluster)).size).toBe(new Set(e.records.map((r) => r.dialogueId)).size);
    // the turns where judge and RULE-M24 disagree are the reference's incoherent flags
    expect(
      items
        .filter((i) => i.values.ruleM24 !== i.values.judge)
        .map((i) => i.id)
        .sort(),
    ).toEqual([...expected('expected_ours.json').incoherent_with_mwz24_flags].sort());
  });

  for (const [method, file, exp] of [
    ['direct', 'direct_outputs.json', 'expected_direct.json'],
    ['cot', 'cot_outputs.json', 'expected_cot.json'],
  ] as const) {
    it(`${method} (${exp}): every slice metric the reference gives`, async () => {
      const m = expected(exp).metrics_percent;
      const e = await evaluateOutputFiles(method, [join(SLICE, file)]);
      const r = runBenchmark.recompute(viaJson(llmJudgeRunItems(e)), llmJudgeRunVariant(method));
      expect(r.TSA).toBe(m.TSA_gpt);
      expect(r['TSA M21']).toBe(m.TSA_rule_mwz21_single_step_calc);
      expect(r['TSA M24']).toBe(m.TSA_rule_mwz24_single_step_calc);
      expect(r['coherence M21']).toBe(m.coherence_mwz21);
      expect(r['coherence M24']).toBe(m.coherence_mwz24);
      expect(r.JGA).toBe(m['GPT_JGA_repo(already-before-turn)']);
      // rule JGA is not in the single-step expectations: it equals the native evaluation's
      expect(r['JGA M21']).toBe(e.metrics.ruleJgaMwz21);
      expect(r['JGA M24']).toBe(e.metrics.ruleJgaMwz24);
    });
  }

  it('after-turn GPT-JGA: the spec values (specs/llm-judge.md, "Parity targets")', async () => {
    const ours = await evaluateOutputFiles(
      'ours',
      [join(SLICE, 'ours_acc_outputs.json'), join(SLICE, 'ours_comp_outputs.json')],
      { gptJga: 'after-turn' },
    );
    const items = llmJudgeRunItems(ours, { gptJga: 'after-turn' });
    expect(runBenchmark.recompute(items, llmJudgeRunVariant('ours', { gptJga: 'after-turn' })).JGA).toBe(
      40.476190476190474,
    );
  });

  it('a failed call is an errored item: out of TSA/JGA, in the rule-JGA denominator as the reference divides', async () => {
    const outputs = await readOutputEntries(join(SLICE, 'direct_outputs.json'));
    const broken = outputs.map((o, i) => (i === 5 ? { ...o, output: '' } : o));
    const e = evaluateOutputs('direct', { outputs: broken });
    expect(e.summary.skippedTurns).toBe(1);
    const items = viaJson(llmJudgeRunItems(e, { outputs: { outputs: broken } }));
    const failed = items.filter((i) => i.error);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.id).toBe(outputs[5]!.record.flag);
    expect(failed[0]!.values).toEqual({});
    const native = Object.fromEntries(Object.entries(llmJudgeRunMetrics(e)).map(([k, x]) => [k, x.value]));
    expect(runBenchmark.recompute(items, 'direct')).toStrictEqual(native);
    expect(llmJudgeRunMetrics(e).TSA!.n).toBe(41);
    expect(llmJudgeRunMetrics(e)['JGA M21']!.n).toBe(42);
  });

  it('detail: context, states, the judge output and the disagreement', async () => {
    const outputs = await readOutputEntries(join(SLICE, 'direct_outputs.json'));
    const e = evaluateOutputs('direct', { outputs });
    const items = llmJudgeRunItems(e, { outputs: { outputs } });
    const item = items.find((i) => i.id === 'MUL1350.json-5')!;
    expect(item.group).toBe('MUL1350.json');
    const context = item.detail!.context as Array<{ speaker: string; text: string }>;
    expect(context.at(-1)).toEqual({
      speaker: 'user',
      text: outputs.find((o) => o.record.flag === 'MUL1350.json-5')!.record.user,
    });
    // turn 5: five earlier exchanges and this one, less the empty system utterance before the first user turn
    expect(context).toHaveLength(2 * 6 - 1);
    expect(context[0]!.speaker).toBe('user');
    expect(item.detail!.explanation).toBe(outputs.find((o) => o.record.flag === 'MUL1350.json-5')!.output);
    expect(item.detail!.disagree).toBe(item.values.ruleM21 !== item.values.judge);
  });
});

describeWithReferenceData('llm-judge/slice')('llm-judge runBenchmark.prepare (resampling fast path)', () => {
  it('equals recompute on the gathered items, repetitions included', async () => {
    const e = await evaluateOutputFiles('ours', [
      join(SLICE, 'ours_acc_outputs.json'),
      join(SLICE, 'ours_comp_outputs.json'),
    ]);
    const items = llmJudgeRunItems(e);
    for (const variant of ['ours', 'ours;ruleJga=reference']) {
      const at = runBenchmark.prepare!(items, variant);
      const indices = [0, 0, 3, 7, 7, 7, 20, 41, 12];
      expect(at(indices)).toStrictEqual(
        runBenchmark.recompute(
          indices.map((i) => items[i]!),
          variant,
        ),
      );
      expect(at(items.map((_, i) => i))).toStrictEqual(runBenchmark.recompute(items, variant));
    }
  });
});

describeWithReferenceData('llm-judge/slice')(
  'llm-judge run items kept by location (runDir) and runBenchmark.itemDetails',
  () => {
    const BULKY = ['context', 'predictedState', 'gold', 'goldM24', 'explanation'];
    const methods = [
      ['direct', ['direct_outputs.json']],
      ['cot', ['cot_outputs.json']],
      ['ours', ['ours_acc_outputs.json', 'ours_comp_outputs.json']],
    ] as const;
    let runDir: string;
    beforeEach(() => {
      runDir = mkdtempSync(join(tmpdir(), 'llm-judge-loc-'));
    });
    afterEach(() => rmSync(runDir, { recursive: true, force: true }));

    /** The method's slice outputs copied into the run directory (as `llm-judge run --out` writes them), read back. */
    async function copied(method: JudgeMethod, names: readonly string[]) {
      const files = names.map((n) => join(runDir, n));
      names.forEach((n, i) => copyFileSync(join(SLICE, n), files[i]!));
      return { files, outputs: await readOutputFiles(method, files) };
    }

    for (const [method, names] of methods) {
      it(`${method}: the items keep values and the small detail, and the turn's place instead of the bulky fields; itemDetails gives back exactly the embedded detail`, async () => {
        const { outputs } = await copied(method, names);
        const e = evaluateOutputs(method, outputs);
        const embedded = viaJson(llmJudgeRunItems(e, { outputs }));
        const located = viaJson(llmJudgeRunItems(e, { outputs, runDir }));
        expect(located.map(({ detail: _, ...rest }) => rest)).toStrictEqual(
          embedded.map(({ detail: _, ...rest }) => rest),
        );
        expect(runBenchmark.recompute(located, method)).toStrictEqual(runBenchmark.recompute(embedded, method));
        const lists = 'outputs' in outputs ? [outputs.outputs] : [outputs.accuracy, outputs.completeness];
        for (const [k, item] of located.entries()) {
          runItemSchema.parse(item);
          for (const key of BULKY) expect(item.detail).not.toHaveProperty(key);
          // relative to the run directory: the files are inside it; each entry at its index is the item's turn
          const source = item.detail!.source as Array<{ file: string; index: number }>;
          expect(source.map((s) => s.file)).toEqual(names);
          source.forEach((s, i) => expect(lists[i]![s.index]!.record.flag).toBe(item.id));
          const {
            context: _c,
            predictedState: _p,
            gold: _g,
            goldM24: _m,
            explanation: _x,
            ...small
          } = embedded[k]!.detail!;
          expect({ ...item.detail, source: undefined }).toStrictEqual({ ...small, source: undefined });
        }
        expect(
          embedded.some(
            (i) => typeof i.detail!.explanation === 'string' && (i.detail!.context as unknown[]).length > 0,
          ),
        ).toBe(true);
        const filled = await runBenchmark.itemDetails!(located, runDir);
        expect(viaJson(filled)).toStrictEqual(embedded);
        // the key order of the detail too (the report shows the fields in it)
        expect(filled.map((i) => Object.keys(i.detail!))).toEqual(embedded.map((i) => Object.keys(i.detail!)));
      });
    }

    it('files outside the run directory are kept absolute and resolved from anywhere', async () => {
      const files = [join(SLICE, 'direct_outputs.json')];
      const outputs = await readOutputFiles('direct', files);
      const e = evaluateOutputs('direct', outputs);
      const located = viaJson(llmJudgeRunItems(e, { outputs, runDir }));
      expect((located[0]!.detail!.source as Array<{ file: string }>)[0]!.file).toBe(resolve(files[0]!));
      expect(viaJson(await runBenchmark.itemDetails!(located, runDir))).toStrictEqual(
        viaJson(llmJudgeRunItems(e, { outputs })),
      );
    });

    it('without a run directory, or outputs without their files, the detail is embedded as before', async () => {
      const outputs = await readOutputEntries(join(SLICE, 'direct_outputs.json'));
      const e = evaluateOutputs('direct', { outputs });
      const items = llmJudgeRunItems(e, { outputs: { outputs }, runDir });
      expect(
        items.every(
          (i) =>
            i.detail!.source === undefined &&
            Array.isArray(i.detail!.context) &&
            typeof i.detail!.explanation === 'string',
        ),
      ).toBe(true);
      expect(await runBenchmark.itemDetails!(items, runDir)).toStrictEqual(items);
    });

    it('a file that is gone, unreadable or changed leaves the items it located as recorded, and never throws', async () => {
      const { files, outputs } = await copied('ours', ['ours_acc_outputs.json', 'ours_comp_outputs.json']);
      const e = evaluateOutputs('ours', outputs);
      const embedded = viaJson(llmJudgeRunItems(e, { outputs }));
      const located = viaJson(llmJudgeRunItems(e, { outputs, runDir }));

      rmSync(files[0]!);
      expect(await runBenchmark.itemDetails!(located, runDir)).toStrictEqual(located);
      writeFileSync(files[0]!, '[["not an entry"');
      expect(await runBenchmark.itemDetails!(located, runDir)).toStrictEqual(located);

      // the completeness file rewritten with two entries swapped: those two turns stay as recorded, the others fill in
      copyFileSync(join(SLICE, 'ours_acc_outputs.json'), files[0]!);
      const comp = JSON.parse(readFileSync(join(SLICE, 'ours_comp_outputs.json'), 'utf8')) as unknown[][];
      [comp[3], comp[4]] = [comp[4]!, comp[3]!];
      // and another turn's predicted label changed in place (same flag at the same index)
      const changed = comp[10]![0] as { flag: string; predict_turn_label: Record<string, string> };
      changed.predict_turn_label = { ...changed.predict_turn_label, 'hotel-area': 'nowhere' };
      writeFileSync(files[1]!, JSON.stringify(comp));
      const moved = new Set([
        (comp[3]![0] as { flag: string }).flag,
        (comp[4]![0] as { flag: string }).flag,
        changed.flag,
      ]);
      const filled = await runBenchmark.itemDetails!(located, runDir);
      filled.forEach((item, k) => expect(item).toStrictEqual(moved.has(item.id) ? located[k] : embedded[k]));
      expect(filled.filter((i) => i.detail!.source !== undefined)).toHaveLength(3);
    });
  },
);

describeWithReferenceData('llm-judge/slice')('README "Runs" example', () => {
  it('keeps two checkpoints as runs (items by location), compares them, and the report reads the detail back', async () => {
    const root = mkdtempSync(join(tmpdir(), 'llm-judge-readme-'));
    try {
      async function keep(dir: string, file: string, system: string) {
        const outputs = await readOutputFiles('direct', [file]);
        const evaluation = evaluateOutputs('direct', outputs);
        const { benchmark, variant, options } = llmJudgeRunSetup('direct');
        const run = await startRun(dir, { benchmark, variant, options, system });
        await run.addInput('outputs', file);
        run.addArtifact(file, 'llm-dst-eval-output');
        await run.finish({
          items: llmJudgeRunItems(evaluation, { outputs, runDir: dir }),
          metrics: llmJudgeRunMetrics(evaluation),
        });
      }
      // two "checkpoints": the slice's Direct and CoT outputs (both single-step, scored alike)
      for (const [ckpt, name] of [
        ['ckpt-1000', 'direct_outputs.json'],
        ['ckpt-2000', 'cot_outputs.json'],
      ] as const) {
        mkdirSync(join(root, ckpt));
        copyFileSync(join(SLICE, name), join(root, ckpt, 'direct_outputs.json'));
        await keep(join(root, 'runs', ckpt), join(root, ckpt, 'direct_outputs.json'), ckpt);
      }
      const a = await readRun(join(root, 'runs', 'ckpt-1000'));
      const b = await readRun(join(root, 'runs', 'ckpt-2000'));
      const cmp = compareRuns([a, b], runBenchmark, { resamples: 100, seed: 0 });
      const tsa = cmp.pairs[0]!.metrics.find((m) => m.name === 'TSA')!;
      expect(tsa.delta).toBe(
        expected('expected_cot.json').metrics_percent.TSA_gpt -
          expected('expected_direct.json').metrics_percent.TSA_gpt,
      );
      expect((a.items[0]!.detail!.source as Array<{ file: string }>)[0]!.file).toBe(
        resolve(root, 'ckpt-1000', 'direct_outputs.json'),
      );
      const filled = await runBenchmark.itemDetails!(a.items, a.dir);
      expect(
        filled.every(
          (i) =>
            Array.isArray(i.detail!.context) &&
            typeof i.detail!.explanation === 'string' &&
            i.detail!.source === undefined,
        ),
      ).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
