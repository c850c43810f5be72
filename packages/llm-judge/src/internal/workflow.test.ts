import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import { findJudgeOutputs, readJudgeInput, reportJudgeOutputs } from './workflow';

const SLICE = referencePath('llm-judge/slice');
const expected = (name: string) => JSON.parse(readFileSync(join(SLICE, name), 'utf8'));

describeWithReferenceData('llm-judge/slice')('what `dialeval llm-judge report` does, from code', () => {
  it('findJudgeOutputs finds every method of the slice directory at the reference names, in method order', () => {
    const sources = findJudgeOutputs([SLICE]);
    expect(sources).toEqual([
      { method: 'ours', files: [join(SLICE, 'ours_acc_outputs.json'), join(SLICE, 'ours_comp_outputs.json')] },
      { method: 'direct', files: [join(SLICE, 'direct_outputs.json')] },
      { method: 'cot', files: [join(SLICE, 'cot_outputs.json')] },
    ]);
    expect(() => findJudgeOutputs([SLICE], [`direct=${join(SLICE, 'direct_outputs.json')}`])).toThrow(
      'method direct is given twice',
    );
    expect(() => findJudgeOutputs([], ['ours=only-one.json'])).toThrow(/needs two files/);
  });

  it("reportJudgeOutputs gives each method's figures as the reference does, complete, with one run record each", async () => {
    const report = await reportJudgeOutputs({ sources: findJudgeOutputs([SLICE]) });
    expect(report.partial).toEqual([]);
    const tsa = Object.fromEntries(report.evaluations.map((e) => [e.method, e.metrics.tsaGpt]));
    expect(tsa).toEqual({
      ours: expected('expected_ours.json').metrics_percent.TSA_gpt,
      direct: expected('expected_direct.json').metrics_percent.TSA_gpt,
      cot: expected('expected_cot.json').metrics_percent.TSA_gpt,
    });
    // one run record per method: its metrics are the evaluation's, opened with the method's variant and the package
    expect(report.records.map((r) => r.init.variant)).toEqual(['ours', 'direct', 'cot']);
    expect(report.records[1]!.init).toMatchObject({ package: '@eval/llm-judge', cluster: { unit: 'dialogue' } });
    expect(report.records[1]!.metrics.TSA!.value).toBe(tsa.direct);
    expect(report.records[0]!.inputs.map((i) => i.role)).toEqual(['accuracy-outputs', 'completeness-outputs']);
    // the rule rows come from the first method's turns when no records are given
    expect(report.rules?.turns).toBe(report.evaluations[0]!.records.length);
  });

  it('readJudgeInput refuses input combinations that make no sense, naming the flags', async () => {
    await expect(readJudgeInput({})).rejects.toThrow(/give exactly one input/);
    await expect(readJudgeInput({ records: 'a.json', states: 'b.json' })).rejects.toThrow(/give exactly one input/);
    await expect(readJudgeInput({ rawPredictions: 'p.json' })).rejects.toThrow(/--raw-predictions needs --dialogues/);
    await expect(readJudgeInput({ records: 'a.json', dialogues: 'd.json' })).rejects.toThrow(/used as they are/);
  });
});
