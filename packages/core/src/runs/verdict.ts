import type { MetricComparison, PairComparison, RunComparison } from './compare';
import { type MetricFormat, formatMetricDifference } from './format';
import type { RunMetric } from './schema';

/** What one paired unit is called in a verdict, per benchmark (items, when the benchmark is not listed). */
const UNIT_NOUNS: Record<string, string> = { multiwoz: 'dialogues', 'llm-judge': 'turns' };

/** Options of {@link verdictSentence}. */
export interface VerdictOptions {
  /** How the metric is written (its `unit` and `digits` from `run.json`); the difference is shown on that scale. */
  format?: MetricFormat;
  /** What the paired units are called (`dialogues`); default by benchmark, else `items`. */
  unitNoun?: string;
}

/**
 * How a sentence names the two runs: by system; two runs of one system by their variants (`slice (cot)`), or by
 * position (`sys [1]`, `sys [2]`) when those are the same too.
 */
export function runNames(comparison: RunComparison, pair: PairComparison): [string, string] {
  const a = comparison.runs[pair.a];
  const b = comparison.runs[pair.b];
  const sa = a?.system || 'A';
  const sb = b?.system || 'B';
  if (sa !== sb) return [sa, sb];
  if (a && b && a.variant !== b.variant) return [`${sa} (${a.variant})`, `${sb} (${b.variant})`];
  return [`${sa} [${pair.a + 1}]`, `${sb} [${pair.b + 1}]`];
}

function pText(p: number): string {
  if (p < 0.001) return 'p < 0.001';
  return `p = ${p < 0.1 ? p.toFixed(3) : p.toFixed(2)}`;
}

/** The word after a difference: percentage points for `%` and `ratio`, BLEU for BLEU, nothing for a plain number. */
function unitWord(format: MetricFormat): string {
  if (format.unit === '%' || format.unit === 'ratio') return ' points';
  if (format.unit === 'BLEU') return ' BLEU';
  return '';
}

/**
 * One sentence that states the outcome of one metric of one pair, as a paper writes it:
 * `mars beats augpt on Success by 17.5 points (95% CI 14.2 to 20.8; paired, 1,000 dialogues; p < 0.001, McNemar)`,
 * or `mars scores 1.2 points higher than augpt on Inform; the difference is not significant (...)`. Significant means
 * the pair's p-value (McNemar's for a binary metric — the clustered McNemar's where items nest in clusters — else
 * the randomisation p) is below 1 - confidence. The interval is
 * the paired bootstrap interval of the difference, oriented as the sentence reads (winner minus loser). Higher is
 * taken as better. `dialeval compare` and `dialeval report` print the same sentences.
 */
export function verdictSentence(
  comparison: RunComparison,
  pair: PairComparison,
  metric: MetricComparison,
  options: VerdictOptions = {},
): string {
  const format = options.format ?? {};
  const [nameA, nameB] = runNames(comparison, pair);
  const noun = options.unitNoun ?? UNIT_NOUNS[comparison.benchmark] ?? 'items';
  const conf = `${Math.round(comparison.confidence * 100)}% CI`;
  // with clusters, `p` is the clustered test's (what Holm adjusts), and the units are counted as clusters of items
  const clustered = pair.unit !== undefined && pair.unit !== 'item';
  const test =
    metric.mcnemarClustered && clustered ? 'clustered McNemar' : metric.mcnemar ? 'McNemar' : 'randomisation';
  const units = clustered
    ? `${pair.paired.toLocaleString('en-US')} ${noun} in ${pair.clusters.toLocaleString('en-US')} ${pair.unit}s`
    : `${pair.paired.toLocaleString('en-US')} ${noun}`;
  const d = metric.delta;
  // oriented so that the first-named system minus the second is shown (a positive difference when one wins)
  const flip = d !== null && d < 0;
  const [first, second] = flip ? [nameA, nameB] : [nameB, nameA];
  const size = d === null ? '' : formatMetricDifference(Math.abs(d), format).replace(/^\+/, '');
  const ci = metric.ci
    ? (flip ? [-metric.ci[1], -metric.ci[0]] : metric.ci)
        .map((x) => formatMetricDifference(x, format).replace(/^\+/, ''))
        .join(' to ')
    : 'no interval';
  const facts = [
    `${conf} ${ci}`,
    `paired, ${units}`,
    ...(metric.p === null ? [] : [`${pText(metric.p)}, ${test}`]),
  ].join('; ');
  if (d === null) return `${nameB} vs ${nameA} on ${metric.name}: no difference could be computed (${facts})`;
  if (/^0(\.0*)?$/.test(size)) return `${nameB} and ${nameA} score the same on ${metric.name} (${facts})`;
  const significant = metric.p !== null && metric.p < 1 - comparison.confidence;
  if (significant) return `${first} beats ${second} on ${metric.name} by ${size}${unitWord(format)} (${facts})`;
  return `${first} scores ${size}${unitWord(format)} higher than ${second} on ${metric.name}; the difference is not significant (${facts})`;
}

/**
 * The verdict of every headline metric of every pair, in the order of `comparison.pairs` and their metrics.
 * `metrics` are the first run's `run.json` metrics: each one's unit and digits. Breakdown figures (with `part`) and
 * metrics without a difference (no value in either run) get no sentence.
 */
export function verdictSentences(
  comparison: RunComparison,
  metrics: Record<string, Pick<RunMetric, 'unit' | 'digits' | 'part'> | undefined> = {},
  options: Omit<VerdictOptions, 'format'> = {},
): string[] {
  return comparison.pairs.flatMap((pair) =>
    pair.metrics
      .filter((m) => metrics[m.name]?.part === undefined && m.delta !== null)
      .map((m) => {
        const declared = metrics[m.name];
        const format: MetricFormat = { unit: declared?.unit, digits: declared?.digits };
        return verdictSentence(comparison, pair, m, { ...options, format });
      }),
  );
}
