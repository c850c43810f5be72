/**
 * The run record of a MultiWOZ evaluation (spec `runs.md` §§ 1-3): one item per dialogue, whose values are what the
 * headline figures are aggregated from, and the function that recomputes those figures from any subset of items
 * exactly as {@link MultiwozEvaluator.evaluate} computes them on the whole set.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ConfidenceInterval,
  type FileDigests,
  type RunBenchmark,
  type RunItem,
  type RunMetric,
  type RunResource,
  getResourceSet,
  resourceFileListSha256,
} from '@eval/core';
import { pythonRound } from '@eval/core/python';
import { DATA_FILES, MULTIWOZ_RESOURCE, resolveMultiwozDataDir } from './internal/data';
import { DB_DOMAINS } from './internal/database';
import type { BeliefState } from './internal/normalize';
import type { MultiwozIntervals } from './internal/report';
import { bleuFromStats } from './metrics/bleu';
import { type DstCounts, dstFromCounts } from './metrics/dst';
import type { DialogueResult, EvaluatorOptions, MultiwozMetrics, MultiwozReport } from './metrics/evaluator';

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

/** Item value names of a goal domain's Inform and Success (present on the dialogues whose goal has the domain). */
function domainKeys(domain: string) {
  return { inform: `inform.${domain}`, success: `success.${domain}` };
}

/** Name of a per-domain figure: `Success (attraction)`. */
function domainMetricName(of: 'Inform' | 'Success', domain: string): string {
  return `${of} (${domain})`;
}

/** The goal domains whose outcomes the items carry, sorted (as mwzeval's output lists them). */
function itemDomains(items: ReadonlyArray<RunItem>): string[] {
  const domains = new Set<string>();
  for (const item of items) {
    for (const key of Object.keys(item.values)) if (key.startsWith('inform.')) domains.add(key.slice(7));
  }
  return [...domains].sort();
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

/** The dialogue's turns as the predictions give them: the response (not normalised) and the state when given. */
function turnsDetail(d: DialogueResult): Array<{ response: string; state?: BeliefState }> {
  return d.predictions.map((t) =>
    t.state === undefined ? { response: t.response } : { response: t.response, state: t.state },
  );
}

function dialogueDetail(d: DialogueResult): Record<string, unknown> {
  const detail: Record<string, unknown> = { turns: turnsDetail(d) };
  if (d.domains) {
    const domains: Record<string, unknown> = {};
    const reasons: Reason[] = [];
    for (const name in d.domains) {
      const o = d.domains[name]!;
      const reason = reasonOf(o.reason);
      if (reason === undefined) {
        // a domain that succeeded: what was asked of it (its goal); the venues and slots are the failures' detail
        domains[name] = { inform: o.inform, success: o.success, requested: o.requested };
      } else {
        if (!reasons.includes(reason)) reasons.push(reason);
        domains[name] = {
          inform: o.inform,
          success: o.success,
          reason,
          explanation: o.reason,
          offered: o.offered,
          requested: o.requested,
          provided: o.provided,
          missing: o.missing,
        };
      }
    }
    detail.domains = domains;
    detail.reasons = reasons;
  }
  return detail;
}

/**
 * The items of a report, one per dialogue in the predictions file's order, id = the dialogue id (`mul0484`).
 * Values: `inform`, `success` (booleans; `success` is false when Inform failed, as the reference counts it), per goal
 * domain `inform.<domain>` and `success.<domain>` (the reference's `match` and `success` of the domain), per BLEU
 * reference set `bleu.<set>.sys_len`, `.ref_len`, `.correct_1..4`, `.total_1..4` (sacreBLEU's sufficient
 * statistics of the dialogue's responses), and `dst.joint` (turns whose state is jointly correct), `dst.turns`,
 * `dst.tp`, `dst.fp`, `dst.fn` when DST scored predicted (or copied gold) states. Values of metrics not evaluated are
 * absent. Detail: `turns` (the system turns in order as the predictions file gives them: `{ response, state? }`, the
 * response not normalised, `state` only when the prediction has one), `domains` (per goal domain: `inform`,
 * `success` (null when Inform failed), `requested` (the goal is these domains with their requested slots); a domain
 * that failed also has its `reason` (`no entity offered`, `wrong entity`, `missing requested slot`), the evaluator's
 * `explanation`, `offered`, `provided` and `missing`) and `reasons` (the dialogue's failing reasons).
 */
export function multiwozRunItems(report: MultiwozReport): RunItem[] {
  return report.details.perDialogue.map((d) => multiwozRunItem(report, d));
}

/**
 * The item of one dialogue of a report (see {@link multiwozRunItems}): to build the items one at a time, e.g.
 * `run.finish({ items: (function* () { for (const d of report.details.perDialogue) yield multiwozRunItem(report, d); })(), ... })`.
 */
export function multiwozRunItem(report: MultiwozReport, d: DialogueResult): RunItem {
  const dstScored = report.dst !== null && report.details.dstSource !== 'missing';
  const values: RunItem['values'] = {};
  if (report.success) {
    values.inform = d.inform === true;
    values.success = d.success === true;
    for (const domain in d.match) {
      if (domain === 'total') continue;
      const k = domainKeys(domain);
      values[k.inform] = d.match[domain] === true;
      values[k.success] = d.successByDomain?.[domain] === true;
    }
  }
  for (const set in d.bleu) {
    const s = d.bleu[set]!;
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
 * Inform and Success rates (percent, one decimal as mwzeval rounds them) of the items at `indices`, from interleaved
 * [inform, success] columns (NaN where an item carries no outcome); undefined when no item at `indices` carries one.
 */
function rateFigures(v: Float64Array, indices: ArrayLike<number>): [number, number] | undefined {
  let rated = 0;
  let informed = 0;
  let succeeded = 0;
  for (let j = 0; j < indices.length; j++) {
    const o = 2 * indices[j]!;
    const x = v[o]!;
    if (x !== x) continue;
    rated++;
    informed += x;
    if (v[o + 1] === 1) succeeded++;
  }
  if (rated === 0) return undefined;
  return [pythonRound((100 * informed) / rated, 1), pythonRound((100 * succeeded) / rated, 1)];
}

/**
 * The resampling fast path ({@link RunBenchmark.prepare}): the items' values as typed columns, once; the returned
 * function recomputes every headline figure on a multiset of items given by positions, summing integer counts only,
 * so the result does not depend on the order of `indices`. {@link recomputeMultiwoz} is this function on all items.
 */
export function prepareMultiwoz(
  items: ReadonlyArray<RunItem>,
): (indices: ArrayLike<number>) => Record<string, number | null> {
  const n = items.length;
  // Per item, interleaved: [inform, success] / the 10 BLEU statistics / the 5 DST counts; NaN where absent.
  const pack = (keys: readonly string[]) => {
    const cols = keys.map((k) => column(items, k));
    const out = new Float64Array(n * keys.length);
    for (let i = 0; i < n; i++) for (let c = 0; c < keys.length; c++) out[i * keys.length + c] = cols[c]![i]!;
    return { values: out, present: cols[0]!.some((x) => x === x) };
  };
  const rates = pack(['inform', 'success']);
  const domains = itemDomains(items).map((domain) => {
    const k = domainKeys(domain);
    return { domain, ...pack([k.inform, k.success]) };
  });
  const bleu = bleuSets(items).map((set) => {
    const k = bleuKeys(set);
    return { name: bleuMetricName(set), ...pack([k.sysLen, k.refLen, ...k.correct, ...k.total]) };
  });
  const dst = pack([DST_KEYS.turns, DST_KEYS.joint, DST_KEYS.tp, DST_KEYS.fp, DST_KEYS.fn]);
  return (indices) => {
    const out: Record<string, number | null> = {};
    const m = indices.length;
    if (rates.present) {
      const r = rateFigures(rates.values, indices);
      if (r) [out.Inform, out.Success] = r;
    }
    for (const dom of domains) {
      const r = rateFigures(dom.values, indices);
      if (r) [out[domainMetricName('Inform', dom.domain)], out[domainMetricName('Success', dom.domain)]] = r;
    }
    for (const b of bleu) {
      if (!b.present) continue;
      const v = b.values;
      let seen = 0;
      let sysLen = 0;
      let refLen = 0;
      let c1 = 0,
        c2 = 0,
        c3 = 0,
        c4 = 0,
        t1 = 0,
        t2 = 0,
        t3 = 0,
        t4 = 0; // n-gram matches and totals, n = 1..4
      for (let j = 0; j < m; j++) {
        const o = 10 * indices[j]!;
        const len = v[o]!;
        if (len !== len) continue;
        seen++;
        sysLen += len;
        refLen += v[o + 1]!;
        c1 += v[o + 2]!;
        c2 += v[o + 3]!;
        c3 += v[o + 4]!;
        c4 += v[o + 5]!;
        t1 += v[o + 6]!;
        t2 += v[o + 7]!;
        t3 += v[o + 8]!;
        t4 += v[o + 9]!;
      }
      if (seen > 0) out[b.name] = bleuFromStats({ sysLen, refLen, correct: [c1, c2, c3, c4], total: [t1, t2, t3, t4] });
    }
    if (dst.present) {
      const v = dst.values;
      const c: DstCounts = { tp: 0, fp: 0, fn: 0, joint: 0, turns: 0 };
      let tracked = 0;
      for (let j = 0; j < m; j++) {
        const o = 5 * indices[j]!;
        const turns = v[o]!;
        if (turns !== turns) continue;
        tracked++;
        c.turns += turns;
        c.joint += v[o + 1]!;
        c.tp += v[o + 2]!;
        c.fp += v[o + 3]!;
        c.fn += v[o + 4]!;
      }
      if (tracked > 0) {
        const r = dstFromCounts(c);
        out.JGA = r.joint_accuracy;
        out['Slot F1'] = r.slot_f1;
        out['Slot Precision'] = r.slot_precision;
        out['Slot Recall'] = r.slot_recall;
      }
    }
    return out;
  };
}

/**
 * Every figure of `run.json` but richness from items, exactly as the evaluator: `Inform` and `Success` (percent of
 * dialogues, rounded to one decimal as mwzeval), `Inform (<domain>)` and `Success (<domain>)` (percent of the
 * dialogues whose goal has the domain, as mwzeval's per-domain figures), `BLEU` (corpus BLEU from the summed sufficient statistics; `BLEU (<set>)` for other
 * reference sets), `JGA`, `Slot F1` (percent), `Slot Precision`, `Slot Recall` (fractions, as mwzeval). Items with
 * `error` count into nothing; a metric whose values no item carries is absent.
 */
export function recomputeMultiwoz(items: ReadonlyArray<RunItem>): Record<string, number | null> {
  const ok = items.filter((i) => i.error === undefined);
  return prepareMultiwoz(ok)(Uint32Array.from(ok, (_, i) => i));
}

/** How the field writes each richness figure (mwzeval's names; `dialeval multiwoz` prints them with these decimals). */
const RICHNESS_FORMAT: Record<string, Pick<RunMetric, 'unit' | 'digits'>> = {
  entropy: { digits: 4 },
  cond_entropy: { digits: 4 },
  avg_lengths: { digits: 2 },
  msttr: { digits: 4 },
  num_unigrams: { unit: 'count' },
  num_bigrams: { unit: 'count' },
  num_trigrams: { unit: 'count' },
};

/**
 * The metrics of a report for `run.json`, taken from the evaluator's own result, each with its unit and decimals:
 * `Inform` and `Success` (`%`, 1 decimal as mwzeval prints them) and per goal domain `Inform (<domain>)` and
 * `Success (<domain>)` (mwzeval's per-domain rates, over the dialogues whose goal has the domain, with
 * `part: { of, by: 'domain', value }`), `BLEU` (per reference set, 2 decimals), `JGA`, `Slot F1` (`%`),
 * `Slot Precision`, `Slot Recall` (`ratio`) — all as {@link recomputeMultiwoz} gives them from the items — and the
 * corpus-level richness figures under their mwzeval names prefixed `richness.` (not recomputable from items:
 * `compare` cannot resample them). DST figures are left out when the predictions had no states (mwzeval's zeros are
 * no measurement).
 */
export function multiwozRunMetrics(
  report: MultiwozReport,
  ci?: { intervals: MultiwozIntervals; samples: number; seed: number; confidence: number },
): Record<string, RunMetric> {
  const n = report.details.dialogues;
  const out: Record<string, RunMetric> = {};
  if (report.success) {
    out.Inform = { value: report.success.inform.total!, n, unit: '%', digits: 1 };
    out.Success = { value: report.success.success.total!, n, unit: '%', digits: 1 };
    const withDomain = new Map<string, number>();
    for (const d of report.details.perDialogue) {
      for (const domain in d.match) if (domain !== 'total') withDomain.set(domain, (withDomain.get(domain) ?? 0) + 1);
    }
    for (const of of ['Inform', 'Success'] as const) {
      const rates = of === 'Inform' ? report.success.inform : report.success.success;
      for (const domain of [...withDomain.keys()].sort()) {
        out[domainMetricName(of, domain)] = {
          value: rates[domain]!,
          n: withDomain.get(domain)!,
          unit: '%',
          digits: 1,
          part: { of, by: 'domain', value: domain },
        };
      }
    }
  }
  for (const [set, score] of Object.entries(report.bleu ?? {}))
    out[bleuMetricName(set)] = { value: score, n, unit: 'BLEU', digits: 2 };
  if (report.dst && report.details.dstSource !== 'missing') {
    out.JGA = { value: report.dst.joint_accuracy, n, unit: '%', digits: 2 };
    out['Slot F1'] = { value: report.dst.slot_f1, n, unit: '%', digits: 2 };
    out['Slot Precision'] = { value: report.dst.slot_precision, n, unit: 'ratio', digits: 2 };
    out['Slot Recall'] = { value: report.dst.slot_recall, n, unit: 'ratio', digits: 2 };
  }
  if (report.richness) {
    for (const [k, v] of Object.entries(report.richness)) out[`richness.${k}`] = { value: v, n, ...RICHNESS_FORMAT[k] };
  }
  if (ci) {
    const ciMethod = `percentile bootstrap over dialogues (${ci.samples} resamples, seed ${ci.seed}, ${Math.round(ci.confidence * 100)}%; Inform/Success unrounded)`;
    const withCi = (name: string, c: ConfidenceInterval | undefined) => {
      if (c && out[name]) out[name] = { ...out[name], ci: [c.lower, c.upper], ciMethod };
    };
    for (const [set, c] of Object.entries(ci.intervals.bleu ?? {})) withCi(bleuMetricName(set), c);
    withCi('Inform', ci.intervals.inform);
    withCi('Success', ci.intervals.success);
  }
  return out;
}

/** What a MultiWOZ run records as its options: everything that can change a number. */
export interface MultiwozRunSettings {
  /** The metrics asked for. */
  metrics: MultiwozMetrics;
  addSlotDomains?: boolean;
  strictDst?: boolean;
  /** The bootstrap settings when intervals were computed. */
  ci?: { samples: number; seed: number; confidence: number };
}

/**
 * The `options` of a run's `run.json`: the metrics, the normalisation and reference sets, the slot-domain and strict-DST
 * options, where states and active domains came from (as the evaluation found them), and the bootstrap settings.
 */
export function multiwozRunOptions(report: MultiwozReport, settings: MultiwozRunSettings): Record<string, unknown> {
  const m = settings.metrics;
  return {
    bleu: Boolean(m.bleu),
    success: Boolean(m.success),
    richness: Boolean(m.richness),
    dst: Boolean(m.dst),
    normalization: report.details.normalization,
    references: Object.keys(report.bleu ?? {}),
    addSlotDomains: Boolean(settings.addSlotDomains),
    strictDst: Boolean(settings.strictDst),
    stateSource: report.details.stateSource ?? null,
    domainSource: report.details.domainSource ?? null,
    dstSource: report.details.dstSource ?? null,
    ci: settings.ci !== undefined,
    ...(settings.ci ?? {}),
  };
}

/**
 * The data files of the resource set that an evaluation read, relative to the data directory, as the loader picks
 * them (the v2022 restaurant database and the v2023 gold states where present and selected).
 */
function dataFilesUsed(dir: string, report: MultiwozReport): string[] {
  const files: string[] = [];
  const v2022 = report.details.normalization === '2022';
  for (const set of Object.keys(report.bleu ?? {})) files.push(DATA_FILES.references(set));
  if (report.success) {
    for (const d of DB_DOMAINS) {
      const v2022Restaurant = d === 'restaurant' && v2022 && existsSync(join(dir, DATA_FILES.databaseRestaurantV2022));
      files.push(v2022Restaurant ? DATA_FILES.databaseRestaurantV2022 : DATA_FILES.database(d));
    }
    files.push(DATA_FILES.goals, DATA_FILES.bookedDomains);
  }
  const { stateSource, dstSource } = report.details;
  if (stateSource === 'gold' || dstSource === 'predicted' || dstSource === 'gold_copied_by_success') {
    const v2023Gold = !v2022 && existsSync(join(dir, DATA_FILES.goldStatesV2023));
    files.push(v2023Gold ? DATA_FILES.goldStatesV2023 : DATA_FILES.goldStates);
  }
  return files;
}

/**
 * The resource set as a run records it: where the data directory came from (`option`: `dir` given, `env`:
 * `DIALEVAL_MULTIWOZ_DIR`, `cache`: the fetched set, with its pinned commit) and the sha256 of the file list of the
 * data files the evaluation read, hashed from the bytes it read (`digests`, fed by the evaluation's `onRead`).
 * Undefined when the evaluation read no data file.
 */
export async function multiwozRunResource(
  report: MultiwozReport,
  options: { dir?: string; digests: FileDigests; env?: NodeJS.ProcessEnv },
): Promise<RunResource | undefined> {
  const set = getResourceSet(MULTIWOZ_RESOURCE);
  const env = options.env ?? process.env;
  const source = options.dir ? 'option' : env[set.envVar] ? 'env' : 'cache';
  const dir = await resolveMultiwozDataDir({ dir: options.dir, env });
  const files = dataFilesUsed(dir, report);
  if (files.length === 0) return undefined;
  const hashed = await Promise.all(
    files.map(async (path) => ({ path, sha256: (await options.digests.get(join(dir, path))).sha256 })),
  );
  return {
    name: MULTIWOZ_RESOURCE,
    ...(source === 'cache' ? { commit: set.commit } : {}),
    sha256: resourceFileListSha256(hashed),
    source,
  };
}

/** `compare`'s entry point for MultiWOZ runs (`(await import('@eval/multiwoz')).runBenchmark`). */
export const runBenchmark: RunBenchmark = {
  benchmark: MULTIWOZ_BENCHMARK,
  package: '@eval/multiwoz',
  recompute: (items) => recomputeMultiwoz(items),
  prepare: (items) => prepareMultiwoz(items),
  binary: { Inform: 'inform', Success: 'success' },
};
