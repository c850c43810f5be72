/**
 * The run record of a CGT evaluation (spec `runs.md` §§ 1-3): one item per group, whose values are the group's mean
 * and final P/R/F1 and DSC, and the function that recomputes the macro figures from any subset of groups exactly as
 * {@link evaluateSetting} computes them.
 */
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import {
  type RunBenchmark,
  type RunItem,
  type RunMetric,
  type RunResource,
  getResourceSet,
  resourceFileListSha256,
  sha256Hex,
} from '@eval/core';
import { type CgaVariant, cgaFileName } from './common-ground';
import type { InvalidPredictionMode } from './data';
import type { CgtEvaluation, GroupResult, ResolvedCgtOptions, SettingResult } from './evaluate';
import type { Weights } from './normalize';
import { formatReferenceOutput } from './report';

export const CGT_BENCHMARK = 'cgt';

/** The per-group values of an item, in `values`. */
export const CGT_ITEM_VALUES = [
  'mean_p',
  'mean_r',
  'mean_f1',
  'mean_dsc',
  'final_p',
  'final_r',
  'final_f1',
  'final_dsc',
] as const;
export type CgtItemValue = (typeof CGT_ITEM_VALUES)[number];

/** Where the gold common ground came from: the lists embedded in the prediction files, or replayed CGA annotations. */
export type CgtGoldSource = 'embedded' | `cga-${CgaVariant}`;

/** Everything beyond the evaluation options that changes a CGT number. */
export interface CgtVariantInput {
  /** Default `embedded`. */
  gold?: CgtGoldSource;
  /** Default `error`. */
  invalidPrediction?: InvalidPredictionMode;
}

/**
 * The variant of a CGT run: DSC mode, mean mode, PRF1 counting, empty-group handling, gold source and
 * invalid-prediction handling, e.g. `dsc=strict,mean=exact,prf1=reference,empty-group=error,gold=embedded,invalid=error`.
 * Runs compare only within a variant.
 */
export function cgtVariant(
  options: Pick<ResolvedCgtOptions, 'dsc' | 'mean' | 'prf1' | 'emptyGroup'>,
  input: CgtVariantInput = {},
): string {
  return [
    `dsc=${options.dsc}`,
    `mean=${options.mean}`,
    `prf1=${options.prf1}`,
    `empty-group=${options.emptyGroup}`,
    `gold=${input.gold ?? 'embedded'}`,
    `invalid=${input.invalidPrediction ?? 'error'}`,
  ].join(',');
}

/** `Group_01` for group `1` (as the CGA annotation files name them); other ids unchanged. */
export function cgtItemId(groupId: string): string {
  return /^\d+$/.test(groupId) ? `Group_${groupId.padStart(2, '0')}` : groupId;
}

const plain = (w: Weights) => Object.fromEntries(w);

/** A group's item values (DSC in `mode`). */
function groupValues(g: GroupResult, mode: ResolvedCgtOptions['dsc']): Record<CgtItemValue, number | null> {
  const dsc = g.dsc[mode];
  return {
    mean_p: g.prf1.mean?.p ?? null,
    mean_r: g.prf1.mean?.r ?? null,
    mean_f1: g.prf1.mean?.f1 ?? null,
    mean_dsc: dsc.mean,
    final_p: g.prf1.final?.p ?? null,
    final_r: g.prf1.final?.r ?? null,
    final_f1: g.prf1.final?.f1 ?? null,
    final_dsc: dsc.final,
  };
}

function groupItem(g: GroupResult, mode: ResolvedCgtOptions['dsc']): RunItem {
  const dsc = g.dsc[mode];
  const values = groupValues(g, mode);
  const dscAt = new Map(dsc.rows.map((r) => [r.row, r.dsc]));
  const id = cgtItemId(g.id);
  return {
    id,
    // a group's statements are scored accumulatively: the group is the unit a resample draws
    cluster: id,
    values,
    detail: {
      // accumulative over the accepted statements (rows); `step` is the row's 0-based position in the group
      curve: g.prf1.rows.map((r) => ({
        step: r.row,
        key: g.keys[r.row],
        p: r.p,
        r: r.r,
        f1: r.f1,
        dsc: dscAt.get(r.row) ?? null,
      })),
      rows: g.keys.map((key, i) => ({ step: i, key, gold: plain(g.gold[i]!), pred: plain(g.pred[i]!) })),
      nRows: g.nRows,
      invalidPredictions: g.invalidPredictions,
      ...(g.file ? { file: g.file } : {}),
      ...(dsc.mean === null || g.prf1.mean === null ? { skipped: 'no scored row' } : {}),
    },
  };
}

/**
 * The items of a setting, one per group in the setting's order, id `Group_01` ... (`cluster`: the same group). Values: `mean_p`, `mean_r`,
 * `mean_f1`, `mean_dsc`, `final_p`, `final_r`, `final_f1`, `final_dsc` (DSC in the setting's mode; null for a group
 * without any scored row, left out of the macro means). Detail: `curve` (per scored row: `step` = row index, `key`
 * = the ACCEPT end time, accumulative `p`, `r`, `f1` and cumulative `dsc`), `rows` (`step`, `key`, `gold`, `pred`
 * per statement), `nRows`, `invalidPredictions`, `file`, `skipped`.
 */
export function cgtRunItems(result: SettingResult): RunItem[] {
  return result.groups.map((g) => groupItem(g, result.options.dsc));
}

/** `sum(xs) / len(xs)` over the non-null values, left to right: the reference's macro mean (null when none). */
function macro(values: ReadonlyArray<unknown>): { value: number | null; n: number } {
  let s = 0;
  let n = 0;
  for (const v of values) {
    if (typeof v !== 'number') continue;
    s += v;
    n++;
  }
  return { value: n === 0 ? null : s / n, n };
}

const macroName = (k: CgtItemValue) => `macro_${k}`;

/**
 * The resampling fast path ({@link RunBenchmark.prepare}): the items' values as columns, once; the returned function
 * gives the macro figures of a multiset of items given by positions, summed in the order of `indices`.
 * {@link recompute} is this function on all items in order.
 */
export function prepareCgt(
  items: ReadonlyArray<RunItem>,
): (indices: ArrayLike<number>) => Record<string, number | null> {
  const columns = CGT_ITEM_VALUES.map((k) => ({
    name: macroName(k),
    values: Float64Array.from(items, (i) => {
      const v = i.values[k];
      return typeof v === 'number' ? v : Number.NaN;
    }),
  }));
  return (indices) => {
    const out: Record<string, number | null> = {};
    for (const { name, values } of columns) {
      let s = 0;
      let n = 0;
      for (let j = 0; j < indices.length; j++) {
        const v = values[indices[j]!]!;
        if (v !== v) continue;
        s += v;
        n++;
      }
      out[name] = n === 0 ? null : s / n;
    }
    return out;
  };
}

/**
 * The macro figures over groups from items, exactly as {@link evaluateSetting}: `macro_mean_p`, `macro_mean_r`,
 * `macro_mean_f1`, `macro_mean_dsc` (the reference's `sum(group_means) / len(group_means)`, in item order), and the
 * same over the groups' final values (`macro_final_*`). Items with `error` and null values count into nothing.
 */
export function recompute(items: ReadonlyArray<RunItem>): Record<string, number | null> {
  const ok = items.filter((i) => i.error === undefined);
  return prepareCgt(ok)(Uint32Array.from(ok, (_, i) => i));
}

/** P, R, F1 and DSC are 0-1 ratios, shown in percent with one decimal as the reference prints them (`round(x * 100, 1)`). */
const RATIO = { unit: 'ratio', digits: 1 } as const;

/**
 * The headline metrics of a setting for `run.json`: the native macro means (`macro_mean_f1`, `macro_mean_dsc`,
 * `macro_mean_p`, `macro_mean_r`; F1 and DSC with the native bootstrap interval over groups when it was computed)
 * and the macro means of the groups' final values. `n` = groups in the mean.
 */
export function cgtRunMetrics(result: SettingResult): Record<string, RunMetric> {
  // the items' values, without their detail (the statements), which the metrics do not need
  const values = result.groups.map((g) => groupValues(g, result.options.dsc));
  const count = (k: CgtItemValue) => macro(values.map((v) => v[k])).n;
  const ciOf = (k: 'f1' | 'dsc'): Pick<RunMetric, 'ci' | 'ciMethod'> => {
    const c = result.bootstrap?.[k];
    if (!c) return {};
    return {
      ci: [c.lower, c.upper],
      ciMethod: `percentile bootstrap over groups (${c.samples} resamples, seed ${c.seed}, ${Math.round(c.confidence * 100)}%)`,
    };
  };
  const out: Record<string, RunMetric> = {
    macro_mean_f1: { value: result.macro.f1, n: count('mean_f1'), ...RATIO, ...ciOf('f1') },
    macro_mean_dsc: { value: result.macro.dsc, n: count('mean_dsc'), ...RATIO, ...ciOf('dsc') },
    macro_mean_p: { value: result.macro.p, n: count('mean_p'), ...RATIO },
    macro_mean_r: { value: result.macro.r, n: count('mean_r'), ...RATIO },
  };
  for (const k of ['final_p', 'final_r', 'final_f1', 'final_dsc'] as const) {
    const m = macro(values.map((v) => v[k]));
    out[macroName(k)] = { value: m.value, n: m.n, ...RATIO };
  }
  return out;
}

/** `compare`'s entry point for CGT runs (`(await import('@eval/cgt')).runBenchmark`). CGT has no binary per-group outcome. */
export const runBenchmark: RunBenchmark = {
  benchmark: CGT_BENCHMARK,
  package: '@eval/cgt',
  cluster: { unit: 'group' },
  recompute: (items) => recompute(items),
  prepare: (items) => prepareCgt(items),
  binary: {},
};

/** Everything the run record of one setting holds, for a caller that writes it (`startRun`, the CLI's `--run`). */
export interface CgtRunRecord {
  benchmark: typeof CGT_BENCHMARK;
  variant: string;
  /** The setting's name: the run's default system name. */
  system: string;
  /** Every option that changes a number, defaults included. */
  options: Record<string, unknown>;
  /** The group files read (inputs of role `predictions`). */
  predictions: string[];
  /** The replayed CGA annotations (source, pinned commit of a fetched set, sha256 of the files), when replayed. */
  resource?: RunResource;
  items: RunItem[];
  metrics: Record<string, RunMetric>;
  /** The reference script's stdout for this setting (the native artifact, format `cgt-printout`). */
  referenceOutput: string;
}

/**
 * The run record of one setting of an {@link evaluateCgt} evaluation: variant, options, the prediction files, the
 * replayed annotations as a resource, one item per group, the macro metrics and the reference's printout.
 */
export async function cgtRun(evaluation: CgtEvaluation, setting: SettingResult): Promise<CgtRunRecord> {
  const o = setting.options;
  const gold = evaluation.gold;
  const goldSource: CgtGoldSource = gold ? `cga-${gold.variant}` : 'embedded';
  const invalidPrediction = evaluation.invalidPrediction;
  const referenceOutput = formatReferenceOutput(setting);
  return {
    benchmark: CGT_BENCHMARK,
    variant: cgtVariant(o, { gold: goldSource, invalidPrediction }),
    system: setting.name,
    options: {
      dsc: o.dsc,
      mean: o.mean,
      prf1: o.prf1,
      emptyGroup: o.emptyGroup,
      invalidPrediction,
      gold: goldSource,
      bootstrap: o.bootstrap
        ? { samples: o.bootstrap.samples, seed: o.bootstrap.seed, confidence: o.bootstrap.confidence }
        : false,
    },
    predictions: setting.groups.flatMap((g) => (g.file ? [g.file] : [])),
    ...(gold ? { resource: await cgaResource(setting, gold) } : {}),
    items: cgtRunItems(setting),
    metrics: cgtRunMetrics(setting),
    referenceOutput: referenceOutput.endsWith('\n') ? referenceOutput : `${referenceOutput}\n`,
  };
}

/** The CGA files replayed for a setting as a run resource: sha256 of their sorted `path sha256` list. */
async function cgaResource(s: SettingResult, gold: NonNullable<CgtEvaluation['gold']>): Promise<RunResource> {
  const files = await Promise.all(
    s.groups.map(async (g) => {
      const file = join(gold.cgaDir, cgaFileName(g.id));
      return { path: relative(gold.dir, file).split(sep).join('/'), sha256: sha256Hex(await readFile(file)) };
    }),
  );
  const source = gold.source ?? 'directory';
  return {
    name: 'cgt',
    ...(source === 'cache' ? { commit: getResourceSet('cgt').commit } : {}),
    sha256: resourceFileListSha256(files),
    source,
  };
}
