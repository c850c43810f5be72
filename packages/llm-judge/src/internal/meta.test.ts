import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { itWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import { evaluateOutputFiles } from './evaluate';
import { humanCheck, readHumanJudgements } from './meta';

const SLICE = referencePath('llm-judge/slice');

describe('human-check meta-evaluation', () => {
  it('the paper formula, kappa and the confusion table (hand-derived example)', () => {
    // N = 10 turns t0..t9. RULE-M24 judges t0 and t2 wrong (0), the rest right (1).
    // Judge J differs from RULE-M24 on t0, t1, t2 (D = 3): J = 1, 0, 1 there.
    // Humans annotated t0 (1), t1 (1), t5 (1): D ∩ A = {t0, t1}; J agrees with humans on t0 only.
    // accuracy(J) = (10 - 3 + 1) / 10 * 100 = 80.
    // RULE-M24 on the annotated turns: t0 (0 vs 1), t1 (1 vs 1), t5 (1 vs 1): 2 agreements,
    // accuracy(RULE-M24) = (10 - 3 + 2) / 10 * 100 = 90.
    const turns = Array.from({ length: 10 }, (_, i) => ({
      flag: `D.json-${i}`,
      ruleMwz24: (i === 0 || i === 2 ? 0 : 1) as 0 | 1,
    }));
    const judge = turns.map((t, i) => ({ ...t, judge: (i < 3 ? 1 - t.ruleMwz24 : t.ruleMwz24) as 0 | 1 }));
    const human = new Map<string, 0 | 1>([
      ['D.json-0', 1],
      ['D.json-1', 1],
      ['D.json-5', 1],
    ]);
    const r = humanCheck({ turns: 10, human, judges: [{ name: 'J', turns: judge }], rule: turns });
    const [j, rule] = r.rows;
    expect(j!.accuracy).toBe(80);
    expect(j!.disagreements).toBe(3);
    expect(j!.annotatedDisagreements).toBe(2);
    expect(j!.agreeWithHuman).toBe(1);
    // annotated pairs (judge, human): t0 (1, 1), t1 (0, 1), t5 (1, 1)
    expect(j!.confusion).toEqual({ bothRight: 2, judgeRightHumanWrong: 0, judgeWrongHumanRight: 1, bothWrong: 0 });
    // observed agreement 2/3 equals chance agreement (humans always 1; judge 1 in 2/3): kappa 0
    expect(j!.kappa).toBe(0);
    expect(rule!.name).toBe('RULE-M24');
    expect(rule!.accuracy).toBe(90);
    expect(rule!.confusion).toEqual({ bothRight: 2, judgeRightHumanWrong: 0, judgeWrongHumanRight: 1, bothWrong: 0 });
    expect(r.unknownFlags).toEqual([]);
  });

  itWithReferenceData('llm-judge/slice')(
    'on the slice: Ours differs from RULE-M24 on its 6 incoherent turns; annotating them reproduces the formula',
    async () => {
      const ours = await evaluateOutputFiles('ours', [
        join(SLICE, 'ours_acc_outputs.json'),
        join(SLICE, 'ours_comp_outputs.json'),
      ]);
      const d = ours.incoherent.mwz24;
      expect(d.length).toBe(6);
      // humans side with the judge on the first 4 of them, with the rule on the last 2
      const human = new Map<string, 0 | 1>(
        d.map((flag, i) => [
          flag,
          (i < 4
            ? ours.turns.find((t) => t.flag === flag)!.judge
            : ours.turns.find((t) => t.flag === flag)!.ruleMwz24!) as 0 | 1,
        ]),
      );
      const r = humanCheck({ turns: 42, human, judges: [{ name: 'Ours', turns: ours.turns }], rule: ours.turns });
      expect(r.rows[0]!.accuracy).toBe(((42 - 6 + 4) / 42) * 100);
      expect(r.rows[1]!.accuracy).toBe(((42 - 6 + 2) / 42) * 100);
    },
  );

  it('reads manual_eval.json (list), {flag: label} objects and JSONL; bad labels are errors', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-judge-meta-'));
    try {
      await writeFile(
        join(dir, 'a.json'),
        JSON.stringify([
          { flag: 'A.json-1', judgement_gpt: 0, manual_eval: 1 },
          { flag: 'A.json-2', manual_eval: 0 },
        ]),
      );
      await writeFile(join(dir, 'b.json'), JSON.stringify({ 'A.json-1': 1, 'A.json-2': 0 }));
      await writeFile(join(dir, 'c.jsonl'), '{"flag": "A.json-1", "human": 1}\n{"flag": "A.json-2", "human": 0}\n');
      await writeFile(join(dir, 'd.json'), JSON.stringify([{ flag: 'A.json-1', manual_eval: 2 }]));
      for (const f of ['a.json', 'b.json', 'c.jsonl']) {
        expect([...(await readHumanJudgements(join(dir, f)))]).toEqual([
          ['A.json-1', 1],
          ['A.json-2', 0],
        ]);
      }
      await expect(readHumanJudgements(join(dir, 'd.json'))).rejects.toThrow(
        /d\.json, record 0, field manual_eval: expected a human judgement 0 or 1/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
