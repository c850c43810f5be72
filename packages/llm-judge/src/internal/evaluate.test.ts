import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import { evaluateOutputFiles, type MethodEvaluation } from './evaluate';

const SLICE = referencePath('llm-judge/slice');
const expected = (name: string) => JSON.parse(readFileSync(join(SLICE, name), 'utf8'));
const sorted = (xs: readonly string[]) => [...xs].sort();

function perTurn(e: MethodEvaluation, incorrectKey: string) {
  return e.turns.map((t) => ({
    flag: t.flag,
    [incorrectKey]: sorted(t.incorrect),
    missed_after_filter: sorted(t.missed),
    gpt_turn_judge: t.judge,
    already_before_turn: {
      incorrect: sorted(t.before.incorrect),
      missed: sorted(t.before.missed),
      correct_slots: sorted(t.before.correct),
    },
  }));
}

function sortedExpected(rows: any[]) {
  return rows.map((r) => {
    const out: any = {};
    for (const [k, v] of Object.entries(r)) out[k] = Array.isArray(v) ? sorted(v as string[]) : v;
    out.already_before_turn = Object.fromEntries(
      Object.entries(r.already_before_turn).map(([k, v]) => [k, sorted(v as string[])]),
    );
    return out;
  });
}

describeWithReferenceData('llm-judge/slice')(
  're-aggregating the recorded slice outputs reproduces the expected results',
  () => {
    it('Ours (two-step): every per-turn judgement, already-set and slice metric', async () => {
      const exp = expected('expected_ours.json');
      const files = [join(SLICE, 'ours_acc_outputs.json'), join(SLICE, 'ours_comp_outputs.json')];
      const fixed = await evaluateOutputFiles('ours', files);
      expect(perTurn(fixed, 'incorrect_after_acc_filter')).toEqual(sortedExpected(exp.per_turn));
      expect(fixed.turns.length).toBe(exp.turns);
      const m = exp.metrics_percent;
      expect(fixed.metrics.tsaGpt).toBe(m.TSA_gpt);
      expect(fixed.metrics.tsaRuleMwz21).toBe(m.TSA_rule_mwz21);
      expect(fixed.metrics.tsaRuleMwz24).toBe(m.TSA_rule_mwz24);
      expect(fixed.metrics.coherenceMwz21).toBe(m.coherence_mwz21);
      expect(fixed.metrics.coherenceMwz24).toBe(m.coherence_mwz24);
      expect(fixed.metrics.gptJga).toBe(m['GPT_JGA_repo(already-before-turn)']);
      expect(fixed.metrics.ruleJgaMwz21).toBe(m.JGA_rule_mwz21_fixed);
      expect(fixed.metrics.ruleJgaMwz24).toBe(m.JGA_rule_mwz24_fixed);
      const buggy = await evaluateOutputFiles('ours', files, { ruleJga: 'reference' });
      expect(buggy.metrics.ruleJgaMwz21).toBe(m.JGA_rule_mwz21_repo_buggy_plus1);
      expect(buggy.metrics.ruleJgaMwz24).toBe(m.JGA_rule_mwz24_repo_buggy_plus1);
      expect(fixed.incoherent.mwz24).toEqual(exp.incoherent_with_mwz24_flags);
      expect(fixed.summary.skippedTurns).toBe(0);
    });

    for (const [method, file, exp] of [
      ['direct', 'direct_outputs.json', 'expected_direct.json'],
      ['cot', 'cot_outputs.json', 'expected_cot.json'],
    ] as const) {
      it(`${method} (single-step): every per-turn judgement, already-set and slice metric`, async () => {
        const e = expected(exp);
        const r = await evaluateOutputFiles(method, [join(SLICE, file)]);
        expect(perTurn(r, 'incorrect_after_filter')).toEqual(sortedExpected(e.per_turn));
        const m = e.metrics_percent;
        expect(r.metrics.tsaGpt).toBe(m.TSA_gpt);
        expect(r.metrics.tsaRuleMwz21).toBe(m.TSA_rule_mwz21_single_step_calc);
        expect(r.metrics.tsaRuleMwz24).toBe(m.TSA_rule_mwz24_single_step_calc);
        expect(r.metrics.coherenceMwz21).toBe(m.coherence_mwz21);
        expect(r.metrics.coherenceMwz24).toBe(m.coherence_mwz24);
        expect(r.metrics.gptJga).toBe(m['GPT_JGA_repo(already-before-turn)']);
        expect(r.incoherent.mwz24).toEqual(e.incoherent_with_mwz24_flags);
      });
    }

    // The after-turn GPT-JGA values are the spec's derivation on the slice (specs/llm-judge.md, "Parity targets").
    it('the after-turn GPT-JGA option gives the spec values', async () => {
      const ours = await evaluateOutputFiles(
        'ours',
        [join(SLICE, 'ours_acc_outputs.json'), join(SLICE, 'ours_comp_outputs.json')],
        { gptJga: 'after-turn' },
      );
      const direct = await evaluateOutputFiles('direct', [join(SLICE, 'direct_outputs.json')], {
        gptJga: 'after-turn',
      });
      const cot = await evaluateOutputFiles('cot', [join(SLICE, 'cot_outputs.json')], { gptJga: 'after-turn' });
      expect(ours.metrics.gptJga).toBe(40.476190476190474);
      expect(direct.metrics.gptJga).toBe(33.33333333333333);
      expect(cot.metrics.gptJga).toBe(30.952380952380953);
    });
  },
);
