/**
 * Output helpers: mwzeval's JSON (same shape, keys and number formatting as `json.dump(results)` in its
 * evaluate.py), bootstrap confidence intervals and the paired comparison of two systems.
 */
import {
  type BootstrapOptions,
  type ConfidenceInterval,
  type PairedBootstrapResult,
  EvalError,
  bootstrapCI,
  pairedBootstrap,
} from '@eval/core';
import { pythonJsonDumps } from '@eval/core/python';
import { type BleuStats, addBleuStats, bleuFromStats, emptyBleuStats } from '../metrics/bleu';
import type { DialogueResult, MultiwozReport, MwzevalResults } from '../metrics/evaluator';

const INT_RICHNESS = new Set(['num_unigrams', 'num_bigrams', 'num_trigrams']);

/**
 * The reference's result object as Python's `json.dumps` writes it: `{"bleu": ..., "success": ..., "richness": ...,
 * "dst": ...}`, floats in `repr` form (`100.0`), integer counts without `.0`. `indent` as `json.dumps(indent=...)`.
 */
export function formatMwzevalJson(report: MwzevalResults | MultiwozReport, options: { indent?: number } = {}): string {
  const dstMissing = 'details' in report && report.details.dstSource === 'missing';
  const value = { bleu: report.bleu, success: report.success, richness: report.richness, dst: report.dst };
  return pythonJsonDumps(value, {
    indent: options.indent,
    numbers: (_, path) =>
      (path[0] === 'richness' && INT_RICHNESS.has(String(path[1]))) || (path[0] === 'dst' && dstMissing)
        ? 'int'
        : 'float',
  });
}

/** Bootstrap confidence intervals of the dialogue-level figures (resampling dialogues). */
export interface MultiwozIntervals {
  /** Per reference set. */
  bleu?: Record<string, ConfidenceInterval>;
  /** Total Inform in percent (not rounded). */
  inform?: ConfidenceInterval;
  /** Total Success in percent (not rounded). */
  success?: ConfidenceInterval;
}

function bleuStatistic(stats: BleuStats[]): (idx: Uint32Array) => number {
  return (idx) => {
    const total = emptyBleuStats();
    for (let i = 0; i < idx.length; i++) addBleuStats(total, stats[idx[i]!]!);
    return bleuFromStats(total);
  };
}

function rateStatistic(values: Uint8Array): (idx: Uint32Array) => number {
  return (idx) => {
    let k = 0;
    for (let i = 0; i < idx.length; i++) k += values[idx[i]!]!;
    return (100 * k) / idx.length;
  };
}

function flags(results: DialogueResult[], key: 'inform' | 'success'): Uint8Array {
  return Uint8Array.from(results, (r) => (r[key] ? 1 : 0));
}

/**
 * Percentile bootstrap CIs for BLEU (corpus statistics re-summed over resampled dialogues), Inform and Success (share
 * of dialogues), via `@eval/core`'s seeded `bootstrapCI` (default 1000 samples, seed 0, 95%).
 */
export function bootstrapMultiwoz(report: MultiwozReport, options: BootstrapOptions = {}): MultiwozIntervals {
  const results = report.details.perDialogue;
  const n = results.length;
  const out: MultiwozIntervals = {};
  if (report.bleu) {
    out.bleu = {};
    for (const name of Object.keys(report.bleu)) {
      out.bleu[name] = bootstrapCI(n, bleuStatistic(results.map((r) => r.bleu![name]!)), options);
    }
  }
  if (report.success) {
    out.inform = bootstrapCI(n, rateStatistic(flags(results, 'inform')), options);
    out.success = bootstrapCI(n, rateStatistic(flags(results, 'success')), options);
  }
  return out;
}

export interface MetricComparison {
  /** System A's figure on the common dialogues. */
  a: number;
  /** System B's figure on the common dialogues. */
  b: number;
  /** Paired bootstrap: difference A - B, its CI and the share of resamples where A is not better. */
  comparison: PairedBootstrapResult;
}

export interface MultiwozComparison {
  /** Dialogues evaluated by both (the units resampled). */
  dialogues: number;
  /** Dialogues only in A or only in B (left out). */
  onlyA: string[];
  onlyB: string[];
  bleu?: Record<string, MetricComparison>;
  inform?: MetricComparison;
  success?: MetricComparison;
}

/**
 * Paired bootstrap comparison of two systems (Koehn 2004) on the dialogues both evaluated: is A better than B in
 * BLEU, Inform, Success? Both reports must come from the same data and options.
 */
export function compareMultiwoz(
  a: MultiwozReport,
  b: MultiwozReport,
  options: BootstrapOptions = {},
): MultiwozComparison {
  const byIdB = new Map(b.details.perDialogue.map((r) => [r.id, r]));
  const idsA = new Set(a.details.perDialogue.map((r) => r.id));
  const common = a.details.perDialogue.filter((r) => byIdB.has(r.id));
  if (common.length === 0) throw new EvalError('empty_data', 'the two prediction files have no dialogue in common');
  const ra = common;
  const rb = common.map((r) => byIdB.get(r.id)!);
  const n = common.length;
  const out: MultiwozComparison = {
    dialogues: n,
    onlyA: a.details.perDialogue.filter((r) => !byIdB.has(r.id)).map((r) => r.id),
    onlyB: b.details.perDialogue.filter((r) => !idsA.has(r.id)).map((r) => r.id),
  };
  const all = new Uint32Array(n).map((_, i) => i);
  const compare = (fa: (idx: Uint32Array) => number, fb: (idx: Uint32Array) => number): MetricComparison => ({
    a: fa(all),
    b: fb(all),
    comparison: pairedBootstrap(n, fa, fb, options),
  });
  if (a.bleu && b.bleu) {
    out.bleu = {};
    for (const name of Object.keys(a.bleu)) {
      if (!(name in b.bleu)) continue;
      out.bleu[name] = compare(
        bleuStatistic(ra.map((r) => r.bleu![name]!)),
        bleuStatistic(rb.map((r) => r.bleu![name]!)),
      );
    }
  }
  if (a.success && b.success) {
    out.inform = compare(rateStatistic(flags(ra, 'inform')), rateStatistic(flags(rb, 'inform')));
    out.success = compare(rateStatistic(flags(ra, 'success')), rateStatistic(flags(rb, 'success')));
  }
  return out;
}
