import {
  type RunBenchmark,
  type RunItem,
  type RunItemValue,
  type RunMetric,
  resolveRunLocation,
  runLocation,
} from '@eval/core';
import type { EvaluateOptions, MethodEvaluation, MethodOutputs } from './internal/evaluate';
import { percent, ruleJointOf } from './metrics';
import { readOutputEntries, type OutputEntry } from './internal/recorded';
import type { SlotValues, TurnRecord } from './internal/records';

/** The benchmark's name in run records. */
export const LLM_JUDGE_BENCHMARK = 'llm-judge';

/** The options of an evaluation that change its numbers, with their defaults (the reference's behaviour). */
const DEFAULTS = {
  onParseFailure: 'reference',
  completenessValueAware: false,
  gptJga: 'before-turn',
  ruleJga: 'fixed',
  ruleNormalization: 'method',
} as const;

/**
 * The variant of an llm-judge run: the method, then every non-default metric option as `;name=value` in a fixed
 * order (`ours`, `direct;gptJga=after-turn;ruleJga=reference`). Runs compare only within one variant.
 */
export function llmJudgeRunVariant(method: string, options: EvaluateOptions = {}): string {
  const parts = [method];
  for (const key of Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>) {
    const value = options[key];
    if (value !== undefined && value !== DEFAULTS[key]) parts.push(`${key}=${String(value)}`);
  }
  return parts.join(';');
}

/**
 * What a run record of an evaluation of `method` is opened with: the benchmark, its package and cluster unit (a turn's
 * dialogue), the variant, and the options that can change a number (defaults included).
 */
export function llmJudgeRunSetup(
  method: string,
  options: EvaluateOptions = {},
): {
  benchmark: string;
  package: string;
  cluster: { unit: string };
  variant: string;
  options: Record<string, unknown>;
} {
  const all: Record<string, unknown> = { method };
  for (const key of Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>) all[key] = options[key] ?? DEFAULTS[key];
  return {
    benchmark: LLM_JUDGE_BENCHMARK,
    package: '@eval/llm-judge',
    cluster: { unit: 'dialogue' },
    variant: llmJudgeRunVariant(method, options),
    options: all,
  };
}

function variantOptions(variant: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (variant ?? '').split(';').slice(1)) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

const plain = (s: SlotValues | undefined) => (s ? Object.fromEntries(s) : undefined);

/**
 * A turn's place in its method's judge-output files (item detail `source`): `file` as `RunWriter.addArtifact` records
 * a path (relative to the run directory, posix separators, when inside it; else absolute), `index` the 0-based entry.
 */
export interface LlmJudgeTurnSource {
  file: string;
  index: number;
}

/** The judge's raw output of a turn from its entries (two-step: the accuracy output, a blank line, the completeness output). */
const explanationOf = (outputs: readonly string[]): string | undefined =>
  outputs.length > 0 ? outputs.join('\n\n') : undefined;

/**
 * The display detail of a turn that its entry in the judge-output files holds: `context` (the dialogue up to the
 * turn), `predicted`, `predictedState`, `gold`, `goldM24`, `explanation`. One function for both paths: items that
 * embed it and {@link runBenchmark}`.itemDetails`, which reads it back from the files.
 */
function turnDetail(r: TurnRecord, explanation: string | undefined): Record<string, unknown> {
  // history is [system_0, user_0, system_1, ...]; system_0 (before the user's first utterance) is empty
  const context: Array<{ speaker: string; text: string }> = [...r.history, r.system, r.user]
    .map((text, i) => ({ speaker: i % 2 === 0 ? 'system' : 'user', text }))
    .filter((u, i) => !(i === 0 && u.text === ''));
  return {
    context,
    predicted: plain(r.predictTurnLabel),
    predictedState: plain(r.predict),
    gold: plain(r.groundTruth),
    ...(r.groundTruthM24 ? { goldM24: plain(r.groundTruthM24) } : {}),
    ...(explanation !== undefined ? { explanation } : {}),
  };
}

/** A turn's entry in one of the method's output lists: `file` = the list's place (accuracy 0, completeness 1; single-step 0). */
interface Placed {
  entry: OutputEntry;
  file: number;
}

/** The method's output lists, in its file order (accuracy, completeness; or the one list). */
const outputLists = (outputs: MethodOutputs): ReadonlyArray<readonly OutputEntry[]> =>
  'outputs' in outputs ? [outputs.outputs] : [outputs.accuracy, outputs.completeness];

/** Each turn flag's entries, one per output list that has it (the last one there), in the method's file order. */
function entriesByFlag(outputs: MethodOutputs | undefined): Map<string, Placed[]> {
  const out = new Map<string, Placed[]>();
  if (!outputs) return out;
  outputLists(outputs).forEach((list, file) => {
    for (const entry of list) {
      const have = out.get(entry.record.flag);
      if (!have) out.set(entry.record.flag, [{ entry, file }]);
      else if (have[have.length - 1]!.file === file) have[have.length - 1] = { entry, file };
      else have.push({ entry, file });
    }
  });
  return out;
}

/** The files of the method's output lists (in {@link outputLists}' order), when every one is known. */
function outputFilesOf(outputs: MethodOutputs): string[] | undefined {
  if ('outputs' in outputs) return outputs.file !== undefined ? [outputs.file] : undefined;
  const { accuracy, completeness } = outputs.files ?? {};
  return accuracy !== undefined && completeness !== undefined ? [accuracy, completeness] : undefined;
}

export interface LlmJudgeRunItemsOptions {
  /** The judge outputs the evaluation was computed from: the items' `explanation` (or their location). */
  outputs?: MethodOutputs;
  gptJga?: EvaluateOptions['gptJga'];
  /**
   * The directory of the run the items are written to. With it, and with the outputs' files known (`files` / `file`
   * of {@link MethodOutputs}, as {@link readOutputFiles} sets them; the entries' `index` their place in those files),
   * each item keeps the turn's location (`detail.source`) instead of its context, states and the judge's output:
   * writing the run stays cheap, and {@link runBenchmark}`.itemDetails` reads the detail back. Without, it is embedded.
   */
  runDir?: string;
}

/**
 * The items of an evaluation, one per turn of its input in the reference's order: id = the turn's flag
 * (`MUL0004.json-4`), group and cluster = the dialogue (turns of a dialogue are correlated). Values: `judge` (the turn judged accurate and complete: TSA),
 * `accurate`, `complete` (the two dimensions), `ruleM21`, `ruleM24` (rule verdicts, null without 2.4 labels),
 * `joint` (the judge's joint correctness under the evaluation's GPT-JGA option: JGA), `jointBefore`, `jointAfter`,
 * `ruleJointM21`, `ruleJointM24` (exact state match: rule JGA). A turn the evaluation left out (failed call,
 * unusable output) carries `error` and no values.
 *
 * `detail`: `context` (the dialogue up to the turn), `predicted` (the turn's predicted slot-values), `predictedState`,
 * `gold` (MultiWOZ 2.1 state), `goldM24`, `explanation` (the judge's output, with `outputs`), `judge`
 * (`{ accurate, complete }`), `incorrect`, `missed`, `rules` (`{ M21, M24 }`), `disagree` (judge vs RULE-M21).
 * With `runDir` (see {@link LlmJudgeRunItemsOptions}), `context`, `predictedState`, `gold`, `goldM24` and
 * `explanation` are replaced by `source`: `[{ file, index }]` ({@link LlmJudgeTurnSource}), the turn's entries in the
 * output files (the one file of a single-step method; the accuracy, then the completeness file of a two-step one).
 */
export function llmJudgeRunItems(evaluation: MethodEvaluation, options: LlmJudgeRunItemsOptions = {}): RunItem[] {
  const judged = new Map(evaluation.turns.map((t) => [t.flag, t]));
  const failures = new Map<string, string>();
  for (const f of evaluation.summary.failures)
    if (!failures.has(f.flag)) failures.set(f.flag, `${f.stage}: ${f.reason}`);
  const entries = entriesByFlag(options.outputs);
  const files = options.outputs && options.runDir !== undefined ? outputFilesOf(options.outputs) : undefined;
  const located = files?.map((f) => runLocation(options.runDir!, f));
  const afterTurn = options.gptJga === 'after-turn';
  return evaluation.records.map((r, i) => {
    const own = entries.get(r.flag);
    const detail: Record<string, unknown> =
      located && own
        ? {
            predicted: plain(r.predictTurnLabel),
            source: own.map((p): LlmJudgeTurnSource => ({ file: located[p.file]!, index: p.entry.index })),
          }
        : turnDetail(r, own ? explanationOf(own.map((p) => p.entry.output)) : undefined);
    const t = judged.get(r.flag);
    if (!t)
      return {
        id: r.flag,
        group: r.dialogueId,
        cluster: r.dialogueId,
        values: {},
        error: failures.get(r.flag) ?? 'not judged',
        detail,
      };
    const accurate = t.incorrect.length === 0;
    const complete = t.missed.length === 0;
    const jointBefore = t.before.incorrect.length === 0 && t.before.missed.length === 0;
    const jointAfter = t.after.incorrect.length === 0 && t.after.missed.length === 0;
    // worked out by the evaluation for its rule JGA (an evaluation built by other means may lack it)
    const joint = evaluation.ruleJoint?.[i] ?? ruleJointOf(r);
    const values: Record<string, RunItemValue> = {
      judge: t.judge === 1,
      accurate,
      complete,
      ruleM21: t.ruleMwz21 === 1,
      ruleM24: t.ruleMwz24 === null ? null : t.ruleMwz24 === 1,
      joint: afterTurn ? jointAfter : jointBefore,
      jointBefore,
      jointAfter,
      ruleJointM21: joint.mwz21,
      ruleJointM24: joint.mwz24,
    };
    // set one by one, in this order: one item per turn, so no temporary objects to copy from
    detail.judge = { accurate, complete };
    detail.incorrect = [...t.incorrect].sort();
    detail.missed = [...t.missed].sort();
    const rules: Record<string, boolean> = { M21: t.ruleMwz21 === 1 };
    if (t.ruleMwz24 !== null) rules.M24 = t.ruleMwz24 === 1;
    detail.rules = rules;
    detail.disagree = t.ruleMwz21 !== t.judge;
    if (t.failure) detail.failure = t.failure;
    return { id: r.flag, group: r.dialogueId, cluster: r.dialogueId, values, detail };
  });
}

/** An item's recorded `detail.source`, when well-formed. */
function sourceOf(detail: RunItem['detail']): LlmJudgeTurnSource[] | undefined {
  const s = detail?.source;
  if (!Array.isArray(s) || s.length === 0 || s.length > 2) return undefined;
  const ok = s.every(
    (x: unknown) =>
      typeof x === 'object' &&
      x !== null &&
      typeof (x as LlmJudgeTurnSource).file === 'string' &&
      Number.isInteger((x as LlmJudgeTurnSource).index) &&
      (x as LlmJudgeTurnSource).index >= 0,
  );
  return ok ? (s as LlmJudgeTurnSource[]) : undefined;
}

/**
 * {@link runBenchmark}`.itemDetails`: fills in the detail of items that keep their turn by location (`detail.source`)
 * from the output files, each read once, with {@link turnDetail} (the detail is the one embedding gives). An item
 * stays as recorded when a file is gone or unreadable, or when the entry at `index` is not its turn (another flag, or
 * another predicted turn label than the item recorded: the file changed).
 */
async function fillItemDetails(items: ReadonlyArray<RunItem>, runDir: string): Promise<RunItem[]> {
  const pathOf = (file: string) => resolveRunLocation(runDir, file);
  const reads = new Map<string, Promise<OutputEntry[] | undefined>>();
  for (const item of items) {
    for (const { file } of sourceOf(item.detail) ?? []) {
      const path = pathOf(file);
      if (!reads.has(path))
        reads.set(
          path,
          readOutputEntries(path).catch(() => undefined),
        );
    }
  }
  if (reads.size === 0) return [...items];
  const files = new Map(await Promise.all([...reads].map(async ([path, read]) => [path, await read] as const)));
  return items.map((item) => {
    const sources = sourceOf(item.detail);
    if (!sources) return item;
    const found: OutputEntry[] = [];
    for (const s of sources) {
      const e = files.get(pathOf(s.file))?.[s.index];
      if (!e || e.record.flag !== item.id) return item;
      found.push(e);
    }
    const record = found[found.length - 1]!.record;
    const { source: _source, ...kept } = item.detail!;
    if ('predicted' in kept && JSON.stringify(kept.predicted) !== JSON.stringify(plain(record.predictTurnLabel)))
      return item;
    return { ...item, detail: { ...turnDetail(record, explanationOf(found.map((e) => e.output))), ...kept } };
  });
}

/** The metric names of a run, as `dialeval llm-judge report` prints them, and the evaluation's field of each. */
const NAMES = [
  ['TSA', 'tsaGpt'],
  ['TSA M21', 'tsaRuleMwz21'],
  ['TSA M24', 'tsaRuleMwz24'],
  ['coherence M21', 'coherenceMwz21'],
  ['coherence M24', 'coherenceMwz24'],
  ['JGA', 'gptJga'],
  ['JGA M21', 'ruleJgaMwz21'],
  ['JGA M24', 'ruleJgaMwz24'],
] as const;

/**
 * The headline metrics of an evaluation, in percent points with two decimals as the reference prints them
 * (`{:.2f}`): `TSA` (the judge's turn-level accuracy), `TSA M21`/`TSA M24` (rule), `coherence M21`/`coherence M24`,
 * `JGA` (GPT-JGA), `JGA M21`/`JGA M24` (rule JGA, over every turn of the input, as the reference divides).
 */
export function llmJudgeRunMetrics(evaluation: MethodEvaluation): Record<string, RunMetric> {
  const out: Record<string, RunMetric> = {};
  for (const [name, key] of NAMES) {
    const n = key.startsWith('ruleJga') ? evaluation.metrics.totalTurns : evaluation.metrics.turns;
    out[name] = { value: evaluation.metrics[key], n, unit: '%', digits: 2 };
  }
  return out;
}

/** Per-item outcomes of the judged items, as counted by the metrics. */
const COLUMNS = [
  'judge',
  'ruleM21',
  'ruleM24',
  'cohM21',
  'cohM24',
  'joint',
  'ruleJointM21',
  'ruleJointM24',
  'noM24',
  'noJointM24',
] as const;

function itemColumns(v: RunItem['values']): number[] {
  const m24 = v.ruleM24 === null || v.ruleM24 === undefined;
  const jointM24 = v.ruleJointM24 === null || v.ruleJointM24 === undefined;
  return [
    v.judge === true,
    v.ruleM21 === true,
    v.ruleM24 === true,
    v.ruleM21 === v.judge,
    v.ruleM24 === v.judge,
    v.joint === true,
    v.ruleJointM21 === true,
    v.ruleJointM24 === true,
    m24,
    jointM24,
  ].map(Number);
}

/** The metrics from the column sums of `n` judged items; rule JGA divides by `all` (judged and failed). */
function metricsFromSums(sum: number[], n: number, all: number, offset: number): Record<string, number | null> {
  const [judge, ruleM21, ruleM24, cohM21, cohM24, joint, ruleJointM21, ruleJointM24, noM24, noJointM24] = sum as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const hasM24 = noM24 === 0;
  return {
    TSA: percent(judge, n),
    'TSA M21': percent(ruleM21, n),
    'TSA M24': hasM24 ? percent(ruleM24, n) : null,
    'coherence M21': percent(cohM21, n),
    'coherence M24': hasM24 ? percent(cohM24, n) : null,
    JGA: percent(joint, n),
    'JGA M21': percent(ruleJointM21 + offset, all),
    'JGA M24': noJointM24 === 0 ? percent(ruleJointM24 + offset, all) : null,
  };
}

const ruleJgaOffset = (variant: string | undefined) => (variantOptions(variant).ruleJga === 'reference' ? 1 : 0);

/**
 * Every metric of {@link llmJudgeRunMetrics} from a run's items (`runBenchmark.recompute`), exactly as the evaluation
 * computes them: items with `error` count into rule JGA's denominator only.
 */
export function recompute(items: ReadonlyArray<RunItem>, variant?: string): Record<string, number | null> {
  const sum = COLUMNS.map(() => 0);
  let n = 0;
  for (const item of items) {
    if (item.error !== undefined) continue;
    n++;
    itemColumns(item.values).forEach((x, k) => (sum[k]! += x));
  }
  return metricsFromSums(sum, n, items.length, ruleJgaOffset(variant));
}

/**
 * llm-judge for `compare`, `runs` and `report`: `recompute` gives every metric of {@link llmJudgeRunMetrics} from
 * items, exactly as `computeMetrics` does. Rule JGA divides by every turn, failed ones included (the reference's
 * denominator: a turn not judged counts as not matching); the variant's `ruleJga=reference` adds the reference's +1.
 * `prepare` counts from per-item columns (no errored items reach it). `itemDetails` (for `dialeval report`) fills in
 * the detail of items written with a location (`detail.source`, see {@link LlmJudgeRunItemsOptions}`.runDir`) from the
 * output files: exactly the detail embedding gives; an item whose file is gone, unreadable or changed stays as recorded.
 */
export const runBenchmark: RunBenchmark = {
  benchmark: LLM_JUDGE_BENCHMARK,
  package: '@eval/llm-judge',
  cluster: { unit: 'dialogue' },
  recompute: (items, variant) => recompute(items, variant),
  prepare(items, variant) {
    const columns = items.map((i) => itemColumns(i.values));
    const offset = ruleJgaOffset(variant);
    return (indices) => {
      const sum = COLUMNS.map(() => 0);
      for (let i = 0; i < indices.length; i++) {
        const c = columns[indices[i]!]!;
        for (let k = 0; k < c.length; k++) sum[k]! += c[k]!;
      }
      return metricsFromSums(sum, indices.length, indices.length, offset);
    };
  },
  binary: { TSA: 'judge', JGA: 'joint', 'TSA M21': 'ruleM21', 'TSA M24': 'ruleM24' },
  itemDetails: (items, runDir) => fillItemDetails(items, runDir),
};
