/**
 * The run record of a MultiWOZ evaluation (spec `runs.md` §§ 1-3): one item per dialogue, whose values are what the
 * headline figures are aggregated from, and the function that recomputes those figures from any subset of items
 * exactly as {@link MultiwozEvaluator.evaluate} computes them on the whole set.
 */
import { type RunBenchmark, type RunItem, type RunMetric, pythonRound } from '@eval/core';
import { type BleuStats, bleuFromStats } from './bleu';
import { type DstCounts, dstFromCounts } from './dst';
import type { DialogueResult, EvaluatorOptions, MultiwozReport } from './evaluator';

export const MULTIWOZ_BENCHMARK = 'multiwoz';

/** The default BLEU reference set; its figure is the headline `BLEU` (other sets: `BLEU (<set>)`). */
const DEFAULT_REFERENCES = 'mwz22';

/** Headline metric name of corpus BLEU against a reference set. */
export function bleuMetricName(set: string): string {
  return set === DEFAULT_REFERENCES ? 'BLEU' : `BLEU (${set})`;
}

/** Item value names of a reference set's BLEU sufficient statistics. */
function bleuKeys(set: string) {
  const p = `bleu.${set}.`;
  return {
    sysLen: `${p}sys_len`,
    refLen: `${p}ref_len`,
    correct: [1, 2, 3, 4].map((n) => `${p}correct_${n}`),
    total: [1, 2, 3, 4].map((n) => `${p}total_${n}`),
  };
}

const DST_KEYS = { joint: 'dst.joint', turns: 'dst.turns', tp: 'dst.tp', fp: 'dst.fp', fn: 'dst.fn' } as const;

/**
 * The variant of a MultiWOZ run: the mwzeval version whose normalisation is reproduced, and `+slot-domains` when
 * active domains come from the responses' placeholders (both change numbers). Runs compare only within a variant.
 */
export function multiwozVariant(options: Pick<EvaluatorOptions, 'normalization' | 'addSlotDomains'> = {}): string {
  return `mwzeval-${options.normalization ?? '2022'}${options.addSlotDomains ? '+slot-domains' : ''}`;
}

type Reason = 'no entity offered' | 'wrong entity' | 'missing requested slot';

/** The short reason of a domain's failure, from the evaluator's human-readable one. */
function reasonOf(text: string | undefined): Reason | undefined {
  if (text === undefined) return undefined;
  if (text.startsWith('offered venues not matching')) return 'wrong entity';
  if (text.startsWith('requested slot')) return 'missing requested slot';
  return 'no entity offered';
}

function dialogueDetail(d: DialogueResult): Record<string, unknown> {
  const detail: Record<string, unknown> = { turns: d.turns };
  if (d.domains) {
    const domains: Record<string, unknown> = {};
    const reasons: Reason[] = [];
    const requestable: Record<string, string[]> = {};
    for (const [name, o] of Object.entries(d.domains)) {
      const reason = reasonOf(o.reason);
      if (reason && !reasons.includes(reason)) reasons.push(reason);
      requestable[name] = o.requested;
      domains[name] = {
        inform: o.inform,
        success: o.success,
        ...(reason ? { reason, explanation: o.reason } : {}),
        offered: o.offered,
        requested: o.requested,
        provided: o.provided,
        missing: o.missing,
      };
    }
    detail.domains = domains;
    detail.reasons = reasons;
    detail.goal = { domains: Object.keys(d.domains), requestable };
  }
  return detail;
}

/**
 * The items of a report, one per dialogue in the predictions file's order, id = the dialogue id (`mul0484`).
 * Values: `inform`, `success` (booleans; `success` is false when Inform failed, as the reference counts it), per BLEU
 * reference set `bleu.<set>.sys_len`, `.ref_len`, `.correct_1..4`, `.total_1..4` (sacreBLEU's sufficient
 * statistics of the dialogue's responses), and `dst.joint` (turns whose state is jointly correct), `dst.turns`,
 * `dst.tp`, `dst.fp`, `dst.fn` when DST scored predicted (or copied gold) states. Values of metrics not evaluated are
 * absent. Detail: `turns`, `domains` (per goal domain: `inform`, `success` (null when Inform failed), `reason` (`no
 * entity offered`, `wrong entity`, `missing requested slot`) with the evaluator's `explanation`, `offered`,
 * `requested`, `provided`, `missing`), `reasons` (the dialogue's failing reasons) and `goal` (`domains`,
 * `requestable` per domain).
 */
export function multiwozRunItems(report: MultiwozReport): RunItem[] {
  const dstScored = report.dst !== null && report.details.dstSource !== 'missing';
  return report.details.perDialogue.map((d) => {
    const values: RunItem['values'] = {};
    if (report.success) {
      values.inform = d.inform === true;
      values.success = d.success === true;
    }
    for (const [set, s] of Object.entries(d.bleu ?? {})) {
      const k = bleuKeys(set);
      values[k.sysLen] = s.sysLen;
      values[k.refLen] = s.refLen;
      for (let n = 0; n < 4; n++) {
        values[k.correct[n]!] = s.correct[n]!;
        values[k.total[n]!] = s.total[n]!;
      }
    }
    if (dstScored && d.dst) {
      values[DST_KEYS.joint] = d.dst.joint;
      values[DST_KEYS.turns] = d.dst.turns;
      values[DST_KEYS.tp] = d.dst.tp;
      values[DST_KEYS.fp] = d.dst.fp;
      values[DST_KEYS.fn] = d.dst.fn;
    }
    return { id: d.id, values, detail: dialogueDetail(d) };
  });
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** The BLEU reference sets whose statistics the items carry, in first-seen order. */
function bleuSets(items: ReadonlyArray<RunItem>): string[] {
  const sets: string[] = [];
  for (const item of items) {
    for (const key of Object.keys(item.values)) {
      const m = /^bleu\.(.+)\.sys_len$/.exec(key);
      if (m && !sets.includes(m[1]!)) sets.push(m[1]!);
    }
  }
  return sets;
}

/**
 * Every headline figure from items, exactly as the evaluator: `Inform` and `Success` (percent of dialogues, rounded
 * to one decimal as mwzeval), `BLEU` (corpus BLEU from the summed sufficient statistics; `BLEU (<set>)` for other
 * reference sets), `JGA`, `Slot F1` (percent), `Slot Precision`, `Slot Recall` (fractions, as mwzeval). Items with
 * `error` count into nothing; a metric whose values no item carries is absent.
 */
export function recomputeMultiwoz(items: ReadonlyArray<RunItem>): Record<string, number | null> {
  const ok = items.filter((i) => i.error === undefined);
  const out: Record<string, number | null> = {};
  const rated = ok.filter((i) => typeof i.values.inform === 'boolean');
  if (rated.length > 0) {
    let inform = 0;
    let success = 0;
    for (const i of rated) {
      if (i.values.inform === true) inform++;
      if (i.values.success === true) success++;
    }
    out.Inform = pythonRound((100 * inform) / rated.length, 1);
    out.Success = pythonRound((100 * success) / rated.length, 1);
  }
  for (const set of bleuSets(ok)) {
    const k = bleuKeys(set);
    const stats: BleuStats = { sysLen: 0, refLen: 0, correct: [0, 0, 0, 0], total: [0, 0, 0, 0] };
    for (const i of ok) {
      const v = i.values;
      if (typeof v[k.sysLen] !== 'number') continue;
      stats.sysLen += num(v[k.sysLen]);
      stats.refLen += num(v[k.refLen]);
      for (let n = 0; n < 4; n++) {
        stats.correct[n]! += num(v[k.correct[n]!]);
        stats.total[n]! += num(v[k.total[n]!]);
      }
    }
    out[bleuMetricName(set)] = bleuFromStats(stats);
  }
  const tracked = ok.filter((i) => typeof i.values[DST_KEYS.turns] === 'number');
  if (tracked.length > 0) {
    const c: DstCounts = { tp: 0, fp: 0, fn: 0, joint: 0, turns: 0 };
    for (const i of tracked) {
      const v = i.values;
      c.joint += num(v[DST_KEYS.joint]);
      c.turns += num(v[DST_KEYS.turns]);
      c.tp += num(v[DST_KEYS.tp]);
      c.fp += num(v[DST_KEYS.fp]);
      c.fn += num(v[DST_KEYS.fn]);
    }
    const dst = dstFromCounts(c);
    out.JGA = dst.joint_accuracy;
    out['Slot F1'] = dst.slot_f1;
    out['Slot Precision'] = dst.slot_precision;
    out['Slot Recall'] = dst.slot_recall;
  }
  return out;
}

/**
 * The headline metrics of a report for `run.json`, taken from the evaluator's own result: `Inform`, `Success`,
 * `BLEU` (per reference set), `JGA`, `Slot F1`, `Slot Precision`, `Slot Recall` (as {@link recomputeMultiwoz}), and
 * the corpus-level richness figures under their mwzeval names prefixed `richness.` (not recomputable from items:
 * `compare` cannot resample them). DST figures are left out when the predictions had no states (mwzeval's zeros are
 * no measurement).
 */
export function multiwozRunMetrics(report: MultiwozReport): Record<string, RunMetric> {
  const n = report.details.dialogues;
  const out: Record<string, RunMetric> = {};
  if (report.success) {
    out.Inform = { value: report.success.inform.total!, n, unit: '%' };
    out.Success = { value: report.success.success.total!, n, unit: '%' };
  }
  for (const [set, score] of Object.entries(report.bleu ?? {})) out[bleuMetricName(set)] = { value: score, n, unit: 'BLEU' };
  if (report.dst && report.details.dstSource !== 'missing') {
    out.JGA = { value: report.dst.joint_accuracy, n, unit: '%' };
    out['Slot F1'] = { value: report.dst.slot_f1, n, unit: '%' };
    out['Slot Precision'] = { value: report.dst.slot_precision, n, unit: 'ratio' };
    out['Slot Recall'] = { value: report.dst.slot_recall, n, unit: 'ratio' };
  }
  if (report.richness) {
    for (const [k, v] of Object.entries(report.richness)) out[`richness.${k}`] = { value: v, n };
  }
  return out;
}

/** `compare`'s entry point for MultiWOZ runs (`(await import('@eval/multiwoz')).runBenchmark`). */
export const runBenchmark: RunBenchmark = {
  benchmark: MULTIWOZ_BENCHMARK,
  recompute: (items) => recomputeMultiwoz(items),
  binary: { Inform: 'inform', Success: 'success' },
};
