import { type BootstrapOptions, type ConfidenceInterval, InputError, bootstrapCI } from '@eval/core';
import { pythonFloatRepr, pythonRound } from '@eval/core/python';
import type { CgaVariant } from './common-ground';
import {
  type CgtGroup,
  type CgtSetting,
  type InvalidPredictionMode,
  type ReadGroupOptions,
  cgaDirFor,
  readPredictions,
  withReplayedGold,
} from './data';
import {
  type DscMode,
  type DscRow,
  type MeanMode,
  type Prf1,
  type Prf1Row,
  type Prf1Variant,
  type Series,
  accumulativePrf1,
  cumulativeDsc,
} from './metrics';
import type { Weights } from './normalize';

/** What to do with a group in which no row is scored (every row has empty gold and prediction so far). */
export type EmptyGroupMode = 'error' | 'skip';

export interface CgtOptions {
  /** DSC used for the macro score and the printed lines: `strict` (reference default) or `lenient`. Both are always computed per group. */
  dsc?: DscMode;
  /** `exact` (default): Python's `statistics.mean`, bit for bit; `naive`: `sum / n` (differs in the last bit). */
  mean?: MeanMode;
  /** `reference` (default) or `standard` PRF1 counting (a non-reference extension). */
  prf1?: Prf1Variant;
  /**
   * `error` (default): a group without any scored row is an {@link InputError} (the reference crashes on
   * `statistics.mean([])`); `skip`: its mean is `null` and it is left out of the macro mean.
   */
  emptyGroup?: EmptyGroupMode;
  /** Bootstrap over groups for the macro scores (default 1000 samples, seed 0, 95 %); `false` to skip. */
  bootstrap?: BootstrapOptions | false;
}

export type ResolvedCgtOptions = Required<Omit<CgtOptions, 'bootstrap'>> & {
  bootstrap: Required<BootstrapOptions> | false;
};

export function resolveOptions(options: CgtOptions = {}): ResolvedCgtOptions {
  const pick = <T extends string>(name: string, value: T | undefined, allowed: readonly T[], fallback: T): T => {
    const v = value ?? fallback;
    if (!allowed.includes(v))
      throw new InputError(`option ${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
    return v;
  };
  return {
    dsc: pick('dsc', options.dsc, ['strict', 'lenient'] as const, 'strict'),
    mean: pick('mean', options.mean, ['exact', 'naive'] as const, 'exact'),
    prf1: pick('prf1', options.prf1, ['reference', 'standard'] as const, 'reference'),
    emptyGroup: pick('emptyGroup', options.emptyGroup, ['error', 'skip'] as const, 'error'),
    bootstrap:
      options.bootstrap === false
        ? false
        : {
            samples: options.bootstrap?.samples ?? 1000,
            seed: options.bootstrap?.seed ?? 0,
            confidence: options.bootstrap?.confidence ?? 0.95,
          },
  };
}

export interface GroupResult {
  id: string;
  file?: string;
  /** Number of rows in the group (scored or not). */
  nRows: number;
  /** Row keys (ACCEPT end times) in order. */
  keys: string[];
  gold: Weights[];
  pred: Weights[];
  /** Rows whose answer was not a JSON object and was scored as `{}`. */
  invalidPredictions: number;
  prf1: Series<Prf1Row, Prf1>;
  dsc: Record<DscMode, Series<DscRow, number>>;
}

function emptyGroupError(group: CgtGroup, what: string): InputError {
  return new InputError(
    `no ${what} row is scored (every row has empty gold and prediction so far; the reference crashes on statistics.mean([])); use emptyGroup: 'skip' / --empty-group skip to leave the group out`,
    { file: group.file ?? `group ${group.id}`, code: 'input_empty_group' },
  );
}

/** Scores one group: accumulative PRF1 and cumulative DSC (strict and lenient), with means and finals. */
export function evaluateGroup(group: CgtGroup, options: CgtOptions = {}): GroupResult {
  const opts = resolveOptions(options);
  const prf1 = accumulativePrf1(group.rows, { mean: opts.mean, variant: opts.prf1 });
  const strict = cumulativeDsc(group.rows, { mode: 'strict', mean: opts.mean });
  const lenient = cumulativeDsc(group.rows, { mode: 'lenient', mean: opts.mean });
  if (opts.emptyGroup === 'error') {
    if (prf1.mean === null) throw emptyGroupError(group, 'PRF1');
    if ((opts.dsc === 'strict' ? strict : lenient).mean === null) throw emptyGroupError(group, `${opts.dsc} DSC`);
  }
  return {
    id: group.id,
    file: group.file,
    nRows: group.rows.length,
    keys: group.rows.map((r) => r.key),
    gold: group.rows.map((r) => r.gold),
    pred: group.rows.map((r) => r.pred),
    invalidPredictions: group.rows.filter((r) => r.invalid).length,
    prf1,
    dsc: { strict, lenient },
  };
}

/** A group-level mean as the reference holds it: a float, or a Python int (printed without `.0`). */
export interface PyNumber {
  value: number;
  int: boolean;
}

/** The four lines the reference prints after the groups (`eval_cgqa_output.py` `__main__`). */
export interface PrintedLines {
  /** `"\t".join(str(round(x, 3)) for x in group_mean_dsc)` */
  dsc: string;
  /** `"\t".join(str(round(x, 3)) for x in group_mean_f1)` */
  f1: string;
  /** `" & ".join(str(round(x * 100, 1)) for x in group_mean_dsc)` */
  dscLatex: string;
  /** `print(sum(group_mean_dsc) / len(group_mean_dsc))` */
  macroDsc: string;
}

export interface SettingResult {
  name: string;
  options: ResolvedCgtOptions;
  groups: GroupResult[];
  /** Per group (aligned with `groups`): mean DSC in the selected mode; null for a skipped group. */
  groupMeanDsc: Array<number | null>;
  /** Per group: mean F1 (int or float as in the reference); null for a skipped group. */
  groupMeanF1: Array<PyNumber | null>;
  /** Per group: mean precision and recall (not printed by the reference). */
  groupMeanP: Array<PyNumber | null>;
  groupMeanR: Array<PyNumber | null>;
  /** Macro means over the scored groups: `sum(means) / len(means)`, always floats; null when no group is scored. */
  macro: { dsc: number | null; f1: number | null; p: number | null; r: number | null };
  /** The reference's printed summary lines (over the scored groups). */
  printed: PrintedLines;
  /** Bootstrap confidence intervals over groups for the macro scores (beyond the reference). */
  bootstrap?: { dsc: ConfidenceInterval; f1: ConfidenceInterval };
  /** Answers scored as `{}` because they were not JSON objects (`invalidPrediction: 'empty'`). */
  invalidPredictions: number;
  /** Ids of groups left out of a macro mean (`emptyGroup: 'skip'`). */
  skippedGroups: string[];
}

function macroOf(values: ReadonlyArray<number | null>): number | null {
  const kept = values.filter((v): v is number => v !== null);
  if (kept.length === 0) return null;
  let s = 0;
  for (const v of kept) s += v;
  return s / kept.length;
}

/** Python `str(round(x, nd))` of a float or int. */
export function pyRoundStr(x: PyNumber, ndigits: number): string {
  return x.int ? String(x.value) : pythonFloatRepr(pythonRound(x.value, ndigits));
}

/** Python `repr` of a float or int. */
export function pyNumberRepr(x: PyNumber): string {
  return x.int ? String(x.value) : pythonFloatRepr(x.value);
}

/** Formats the reference's printed lines from group means (floats for DSC; F1 means may be ints). */
export function printedLines(groupMeanDsc: readonly number[], groupMeanF1: readonly PyNumber[]): PrintedLines {
  const dsc = groupMeanDsc.map((value) => ({ value, int: false }));
  let sum = 0;
  for (const x of groupMeanDsc) sum += x;
  return {
    dsc: dsc.map((x) => pyRoundStr(x, 3)).join('\t'),
    f1: groupMeanF1.map((x) => pyRoundStr(x, 3)).join('\t'),
    dscLatex: groupMeanDsc.map((x) => pythonFloatRepr(pythonRound(x * 100, 1))).join(' & '),
    macroDsc: groupMeanDsc.length === 0 ? '' : pythonFloatRepr(sum / groupMeanDsc.length),
  };
}

/**
 * Scores a setting: every group ({@link evaluateGroup}), the macro means over groups, the reference's printed lines
 * and a seeded bootstrap confidence interval over groups.
 */
export function evaluateSetting(setting: CgtSetting | readonly CgtGroup[], options: CgtOptions = {}): SettingResult {
  const opts = resolveOptions(options);
  const { name, groups } = Array.isArray(setting)
    ? { name: 'setting', groups: setting as readonly CgtGroup[] }
    : (setting as CgtSetting);
  const results = groups.map((g) => evaluateGroup(g, opts));
  const groupMeanDsc = results.map((g) => g.dsc[opts.dsc].mean);
  const asPy = (g: GroupResult, k: 'p' | 'r' | 'f1'): PyNumber | null =>
    g.prf1.mean ? { value: g.prf1.mean[k], int: g.prf1.mean.int } : null;
  const groupMeanF1 = results.map((g) => asPy(g, 'f1'));
  const groupMeanP = results.map((g) => asPy(g, 'p'));
  const groupMeanR = results.map((g) => asPy(g, 'r'));
  const values = (xs: Array<PyNumber | null>) => xs.map((x) => (x ? x.value : null));
  const skippedGroups = results.filter((_g, i) => groupMeanDsc[i] === null || groupMeanF1[i] === null).map((g) => g.id);
  const keptDsc = groupMeanDsc.filter((x): x is number => x !== null);
  const keptF1 = groupMeanF1.filter((x): x is PyNumber => x !== null);
  const result: SettingResult = {
    name,
    options: opts,
    groups: results,
    groupMeanDsc,
    groupMeanF1,
    groupMeanP,
    groupMeanR,
    macro: {
      dsc: macroOf(groupMeanDsc),
      f1: macroOf(values(groupMeanF1)),
      p: macroOf(values(groupMeanP)),
      r: macroOf(values(groupMeanR)),
    },
    printed: printedLines(keptDsc, keptF1),
    invalidPredictions: results.reduce((s, g) => s + g.invalidPredictions, 0),
    skippedGroups,
  };
  if (opts.bootstrap && keptDsc.length > 0 && keptF1.length > 0) {
    const ci = (xs: readonly number[]) =>
      bootstrapCI(
        xs.length,
        (idx) => {
          let s = 0;
          for (let i = 0; i < idx.length; i++) s += xs[idx[i]!]!;
          return s / idx.length;
        },
        opts.bootstrap || undefined,
      );
    result.bootstrap = { dsc: ci(keptDsc), f1: ci(keptF1.map((x) => x.value)) };
  }
  return result;
}

/** Where the gold common ground of {@link evaluateCgt} comes from when it is replayed from CGA annotations. */
export interface CgtGoldOptions {
  /** The `cgt` resource set (with `cga_originals/`, `cga_new/`) or a folder of `Group_NN_CGA.csv` files. */
  dir: string;
  /** Default `originals`. */
  variant?: CgaVariant;
  /** How `dir` was found, for the run record: given as an option, from the environment, or the fetched set. */
  source?: 'option' | 'env' | 'cache';
}

export interface EvaluateCgtOptions extends CgtOptions {
  /** An answer that is not a JSON object: `error` (default, as the reference) or `empty` (scored as `{}`). */
  invalidPrediction?: InvalidPredictionMode;
  /** Replay the gold from CGA annotations instead of the gold lists embedded in the prediction files. */
  gold?: CgtGoldOptions;
  /** Called with each group file's path and bytes as read (a run record hashes them). */
  onRead?: ReadGroupOptions['onRead'];
}

/** What {@link evaluateCgt} read and computed: one result per setting, and what the numbers depend on. */
export interface CgtEvaluation {
  /** The predictions path as given. */
  input: string;
  settings: SettingResult[];
  invalidPrediction: InvalidPredictionMode;
  /** Set when the gold was replayed: the resource folder, the CGA folder read, the variant and how it was found. */
  gold?: { dir: string; cgaDir: string; variant: CgaVariant; source?: CgtGoldOptions['source'] };
}

/**
 * Reads the predictions at `input` (a setting folder, a folder of setting folders, or one group file), replays the
 * gold from CGA annotations when `gold` is given, and scores every setting ({@link evaluateSetting}).
 */
export async function evaluateCgt(input: string, options: EvaluateCgtOptions = {}): Promise<CgtEvaluation> {
  const { invalidPrediction = 'error', gold, onRead, ...cgt } = options;
  const settings = await readPredictions(input, { invalidPrediction, ...(onRead ? { onRead } : {}) });
  let replayed: CgtEvaluation['gold'];
  if (gold) {
    const variant = gold.variant ?? 'originals';
    const cgaDir = await cgaDirFor(gold.dir, variant);
    for (const s of settings) s.groups = await withReplayedGold(s.groups, cgaDir);
    replayed = { dir: gold.dir, cgaDir, variant, ...(gold.source ? { source: gold.source } : {}) };
  }
  return {
    input,
    settings: settings.map((s) => evaluateSetting(s, cgt)),
    invalidPrediction,
    ...(replayed ? { gold: replayed } : {}),
  };
}
