import { describe, expect, it } from 'vitest';
import type { MetricComparison, PairComparison, RunComparison } from './compare';
import { verdictSentence, verdictSentences } from './verdict';

// Hand-built comparisons: the sentence is checked against the figures it is given (formatting and wording only).
function comparison(metrics: Array<Partial<MetricComparison> & { name: string }>, paired = 1000): RunComparison {
  const run = (system: string) => ({
    dir: system,
    id: system,
    benchmark: 'multiwoz',
    variant: 'v',
    system,
    status: 'complete',
    partial: false,
    items: paired,
    evaluated: paired,
    skipped: 0,
  });
  const pair: PairComparison = {
    a: 0,
    b: 1,
    paired,
    unpaired: { count: 0, onlyA: [], onlyB: [], failedA: [], failedB: [] },
    partial: false,
    unit: 'item',
    clusters: paired,
    notes: [],
    metrics: metrics.map((m) => ({
      a: null,
      b: null,
      delta: null,
      recordedA: null,
      recordedB: null,
      ci: null,
      pRandomization: null,
      mcnemar: null,
      p: null,
      pHolm: null,
      flipped: null,
      ciMethod: 'percentile' as const,
      mcnemarClustered: null,
      notes: [],
      ...m,
    })),
  };
  return {
    partial: false,
    benchmark: 'multiwoz',
    variant: 'v',
    resamples: 1000,
    seed: 0,
    confidence: 0.95,
    unit: 'item',
    notes: [],
    methods: { ci: '', pRandomization: '', mcnemar: '', holm: '' },
    forced: [],
    runs: [run('augpt'), run('mars')],
    pairs: [pair],
  };
}

describe('verdictSentence', () => {
  it('a significant binary difference, in percent points, with McNemar', () => {
    const c = comparison([
      {
        name: 'Success',
        delta: 17.500000000000004,
        ci: [14.199999999999996, 20.80000000000001],
        mcnemar: { outcome: 'success', b: 40, c: 215, p: 1e-12 },
        p: 1e-12,
      },
    ]);
    expect(verdictSentence(c, c.pairs[0]!, c.pairs[0]!.metrics[0]!, { format: { unit: '%' } })).toBe(
      'mars beats augpt on Success by 17.5 points (95% CI 14.2 to 20.8; paired, 1,000 dialogues; p < 0.001, McNemar)',
    );
  });

  it('items nested in clusters: counted as turns in dialogues, the clustered McNemar named', () => {
    const c = comparison([
      {
        name: 'TSA',
        delta: 4.1,
        ci: [1.05, 7.2],
        mcnemar: { outcome: 'tsa', b: 10, c: 40, p: 2e-5 },
        mcnemarClustered: { statistic: 9.8, p: 0.0017, clusters: 100 } as never,
        p: 0.0017,
      },
    ]);
    const pair = { ...c.pairs[0]!, paired: 732, unit: 'dialogue', clusters: 100 };
    // p = 0.0017 < 0.1 -> three decimals; 1.05 -> '1.1' by toFixed(1) of the binary double just above 1.05
    expect(verdictSentence({ ...c, benchmark: 'llm-judge' }, pair, pair.metrics[0]!, { format: { unit: '%' } })).toBe(
      'mars beats augpt on TSA by 4.1 points (95% CI 1.1 to 7.2; paired, 732 turns in 100 dialogues; p = 0.002, clustered McNemar)',
    );
  });

  it('the first run wins: the sentence names it first and turns the interval around', () => {
    const c = comparison([{ name: 'BLEU', delta: -1.234, ci: [-2.5, -0.1], pRandomization: 0.0123, p: 0.0123 }]);
    expect(verdictSentence(c, c.pairs[0]!, c.pairs[0]!.metrics[0]!, { format: { unit: 'BLEU' } })).toBe(
      'augpt beats mars on BLEU by 1.23 BLEU (95% CI 0.10 to 2.50; paired, 1,000 dialogues; p = 0.012, randomisation)',
    );
  });

  it('not significant: says so, with the interval across zero', () => {
    const c = comparison([
      { name: 'Inform', delta: 1.2, ci: [-0.5, 2.9], mcnemar: { outcome: 'inform', b: 10, c: 22, p: 0.21 }, p: 0.21 },
    ]);
    expect(verdictSentence(c, c.pairs[0]!, c.pairs[0]!.metrics[0]!, { format: { unit: '%' } })).toBe(
      'mars scores 1.2 points higher than augpt on Inform; the difference is not significant (95% CI -0.5 to 2.9; paired, 1,000 dialogues; p = 0.21, McNemar)',
    );
  });

  it('a ratio is shown in percent points; equal scores and no figure are said plainly', () => {
    const c = comparison([
      { name: 'TSA', delta: 0.0333, ci: [0.01, 0.06], p: 0.004 },
      { name: 'JGA', delta: 0, ci: [0, 0], p: 1 },
      { name: 'X', delta: null },
    ]);
    const [tsa, jga] = verdictSentences(c, { TSA: { unit: 'ratio' }, JGA: { unit: 'ratio' } }, { unitNoun: 'turns' });
    expect(verdictSentences(c)).toHaveLength(2); // X has no difference: no sentence in the list
    const x = verdictSentence(c, c.pairs[0]!, c.pairs[0]!.metrics[2]!, { unitNoun: 'turns' });
    expect(tsa).toBe(
      'mars beats augpt on TSA by 3.3 points (95% CI 1.0 to 6.0; paired, 1,000 turns; p = 0.004, randomisation)',
    );
    expect(jga).toBe(
      'mars and augpt score the same on JGA (95% CI 0.0 to 0.0; paired, 1,000 turns; p = 1.00, randomisation)',
    );
    expect(x).toBe('mars vs augpt on X: no difference could be computed (95% CI no interval; paired, 1,000 turns)');
  });

  it('two runs of one system are named by their variants, else by position', () => {
    const c = comparison([{ name: 'TSA', delta: 0.1, ci: [0.05, 0.15], p: 0.01 }]);
    c.runs = c.runs.map((r, i) => ({ ...r, system: 'slice', variant: i ? 'cot' : 'direct' }));
    expect(verdictSentences(c, { TSA: { unit: 'ratio' } })[0]).toMatch(
      /^slice \(cot\) beats slice \(direct\) on TSA by 10\.0 points/,
    );
    c.runs = c.runs.map((r) => ({ ...r, variant: 'v' }));
    expect(verdictSentences(c, { TSA: { unit: 'ratio' } })[0]).toMatch(/^slice \[2\] beats slice \[1\] on TSA/);
  });

  it('breakdown figures (with part) get no sentence', () => {
    const c = comparison([
      { name: 'Success', delta: 1, p: 0.5 },
      { name: 'Success (hotel)', delta: 2, p: 0.5 },
    ]);
    const out = verdictSentences(c, {
      Success: { unit: '%' },
      'Success (hotel)': { unit: '%', part: { of: 'Success', by: 'domain', value: 'hotel' } },
    });
    expect(out).toHaveLength(1);
    expect(out[0]).toContain('on Success;');
  });
});
