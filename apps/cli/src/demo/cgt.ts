import type { DemoEntry } from './index';

/**
 * A made-up group written for this demo (not from the reference data): four accepted statements of a team weighing
 * blocks, the common ground at each (gold) and a model's raw answer to "which weights do they agree on?".
 */
export const CGT_DEMO_ROWS: ReadonlyArray<{ key: string; gold: string[]; answer: string }> = [
  { key: '15.2', gold: ['red=10'], answer: '{"red": 10}' },
  // "Red Block" and "blue_block" normalise to red / blue; green=20 is true but not yet agreed on.
  { key: '48.75', gold: ['red=10', 'blue=10'], answer: '{"Red Block": 10, "blue_block": 10, "green": 20}' },
  // Nothing new: the accumulated PRF1 keeps the earlier answers, the cumulative DSC does not.
  { key: '73.0', gold: ['red=10', 'blue=10', 'green=20'], answer: '{}' },
  // A wrong purple (an FP, not an FN) and a true but ungrounded yellow (ignored by PRF1).
  { key: '101.4', gold: ['red=10', 'blue=10', 'green=20', 'purple=30'], answer: '{"purple": 40, "yellow": 50}' },
];

const f = (x: number | null | undefined) => (x === null || x === undefined ? '-' : x.toFixed(4));

export const cgtDemo: DemoEntry = {
  name: 'cgt',
  title: 'CGT: common ground tracking (accumulative P/R/F1, cumulative Dice-Sørensen)',
  async run() {
    const { evaluateGroup, parseGoldList, parsePrediction } = await import('@eval/cgt');
    const rows = CGT_DEMO_ROWS.map((r) => {
      const gold = parseGoldList(r.gold);
      const pred = parsePrediction(r.answer);
      if (!gold.ok || !pred.ok) throw new Error(`demo row ${r.key} is malformed`);
      return { key: r.key, gold: gold.weights, pred: pred.weights };
    });
    const result = evaluateGroup({ id: 'demo', rows });
    const { prf1, dsc } = result;
    const lines = [
      `${rows.length} accepted statements; answers parsed and normalised as the reference does ("Red Block" -> red)`,
      `accumulative P/R/F1 per row: ${prf1.rows.map((r) => `(${f(r.p)}, ${f(r.r)}, ${f(r.f1)})`).join(' ')}`,
      `mean P/R/F1  ${f(prf1.mean?.p)} / ${f(prf1.mean?.r)} / ${f(prf1.mean?.f1)}    final ${f(prf1.final?.p)} / ${f(prf1.final?.r)} / ${f(prf1.final?.f1)}`,
      `DSC strict   mean ${f(dsc.strict.mean)}  final ${f(dsc.strict.final)}  rows ${dsc.strict.rows.map((r) => f(r.dsc)).join(' ')}`,
      `DSC lenient  mean ${f(dsc.lenient.mean)}  final ${f(dsc.lenient.final)}  rows ${dsc.lenient.rows.map((r) => f(r.dsc)).join(' ')}`,
    ];
    return {
      lines,
      data: {
        rows: rows.length,
        prf1: { rows: prf1.rows, mean: prf1.mean, final: prf1.final },
        dsc: {
          strict: { rows: dsc.strict.rows.map((r) => r.dsc), mean: dsc.strict.mean, final: dsc.strict.final },
          lenient: { rows: dsc.lenient.rows.map((r) => r.dsc), mean: dsc.lenient.mean, final: dsc.lenient.final },
        },
      },
    };
  },
};
