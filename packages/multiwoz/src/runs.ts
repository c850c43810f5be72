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

/** A column of an item value: the number (booleans as 0/1), NaN where the item does not carry it. */
function column(items: ReadonlyArray<RunItem>, key: string): Float64Array {
  return Float64Array.from(items, (i) => {
    const v = i.values[key];
    return typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : Number.NaN;
  });
}

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
 * The resampling fast path ({@link RunBenchmark.prepare}): the items' values as typed columns, once; the returned
 * function recomputes every headline figure on a multiset of items given by positions, summing integer counts only,
 * so the result does not depend on the order of `indices`. {@link recomputeMultiwoz} is this function on all items.
 */
export function prepareMultiwoz(items: ReadonlyArray<RunItem>): (indices: ArrayLike<number>) => Record<string, number | null> {
  const inform = column(items, 'inform');
  const success = column(items, 'success');
  const bleu = bleuSets(items).map((set) => {
    const k = bleuKeys(set);
    return {
      name: bleuMetricName(set),
      sysLen: column(items, k.sysLen),
      refLen: column(items, k.refLen),
      correct: k.correct.map((c) => column(items, c)),
      total: k.total.map((t) => column(items, t)),
    };
  });
  const dst = {
    joint: column(items, DST_KEYS.joint),
    turns: column(items, DST_KEYS.turns),
    tp: column(items, DST_KEYS.tp),
    fp: column(items, DST_KEYS.fp),
    fn: column(items, DST_KEYS.fn),
  };
  return (indices) => {
    const out: Record<string, number | null> = {};
    const m = indices.length;
    let rated = 0;
    let informed = 0;
    let succeeded = 0;
    for (let j = 0; j < m; j++) {
      const i = indices[j]!;
      const x = inform[i]!;
      if (x !== x) continue;
      rated++;
      informed += x;
      succeeded += success[i]! === 1 ? 1 : 0;
    }
    if (rated > 0) {
      out.Inform = pythonRound((100 * informed) / rated, 1);
      out.Success = pythonRound((100 * succeeded) / rated, 1);
    }
    for (const b of bleu) {
      const stats: BleuStats = { sysLen: 0, refLen: 0, correct: [0, 0, 0, 0], total: [0, 0, 0, 0] };
      const [c1, c2, c3, c4] = b.correct as [Float64Array, Float64Array, Float64Array, Float64Array];
      const [t1, t2, t3, t4] = b.total as [Float64Array, Float64Array, Float64Array, Float64Array];
      let seen = 0;
      for (let j = 0; j < m; j++) {
        const i = indices[j]!;
        const len = b.sysLen[i]!;
        if (len !== len) continue;
        seen++;
        stats.sysLen += len;
        stats.refLen += b.refLen[i]!;
        stats.correct[0] += c1[i]!;
        stats.correct[1] += c2[i]!;
        stats.correct[2] += c3[i]!;
        stats.correct[3] += c4[i]!;
        stats.total[0] += t1[i]!;
        stats.total[1] += t2[i]!;
        stats.total[2] += t3[i]!;
        stats.total[3] += t4[i]!;
      }
      if (seen > 0) out[b.name] = bleuFromStats(stats);
    }
    const c: DstCounts = { tp: 0, fp: 0, fn: 0, joint: 0, turns: 0 };
    let tracked = 0;
    for (let j = 0; j < m; j++) {
      const i = indices[j]!;
      const turns = dst.turns[i]!;
      if (turns !== turns) continue;
      tracked++;
      c.turns += turns;
      c.joint += dst.joint[i]!;
      c.tp += dst.tp[i]!;
      c.fp += dst.fp[i]!;
      c.fn += dst.fn[i]!;
    }
    if (tracked > 0) {
      const r = dstFromCounts(c);
      out.JGA = r.joint_accuracy;
      out['Slot F1'] = r.slot_f1;
      out['Slot Precision'] = r.slot_precision;
      out['Slot Recall'] = r.slot_recall;
    }
    return out;
  };
}

/**
 * Every headline figure from items, exactly as the evaluator: `Inform` and `Success` (percent of dialogues, rounded
 * to one decimal as mwzeval), `BLEU` (corpus BLEU from the summed sufficient statistics; `BLEU (<set>)` for other
 * reference sets), `JGA`, `Slot F1` (percent), `Slot Precision`, `Slot Recall` (fractions, as mwzeval). Items with
 * `error` count into nothing; a metric whose values no item carries is absent.
 */
export function recomputeMultiwoz(items: ReadonlyArray<RunItem>): Record<string, number | null> {
  const ok = items.filter((i) => i.error === undefined);
  return prepareMultiwoz(ok)(Uint32Array.from(ok, (_, i) => i));
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
  prepare: (items) => prepareMultiwoz(items),
  binary: { Inform: 'inform', Success: 'success' },
};
