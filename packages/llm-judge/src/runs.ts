/**
 * The run record of an LLM-DST-EVAL evaluation (spec `runs.md` sections 1-3): one item per turn, the metrics the
 * native `report` prints as headline metrics, and the {@link runBenchmark} that recomputes them from items.
 */
import type { RunBenchmark, RunItem, RunItemValue, RunMetric } from '@eval/core';
import type { EvaluateOptions, MethodEvaluation, MethodOutputs } from './evaluate';
import { percent, stateMatches } from './metrics';
import type { SlotValues } from './records';

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

function variantOptions(variant: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (variant ?? '').split(';').slice(1)) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

const plain = (s: SlotValues | undefined) => (s ? Object.fromEntries(s) : undefined);

/** The judge's raw output text per turn flag (two-step: the accuracy output, a blank line, the completeness output). */
function explanations(outputs: MethodOutputs | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!outputs) return out;
  if ('outputs' in outputs) {
    for (const e of outputs.outputs) out.set(e.record.flag, e.output);
    return out;
  }
  for (const e of outputs.accuracy) out.set(e.record.flag, e.output);
  for (const e of outputs.completeness) {
    const before = out.get(e.record.flag);
    out.set(e.record.flag, before === undefined ? e.output : `${before}\n\n${e.output}`);
  }
  return out;
}

/**
 * The items of an evaluation, one per turn of its input in the reference's order: id = the turn's flag
 * (`MUL0004.json-4`), group = the dialogue. Values: `judge` (the turn judged accurate and complete: TSA),
 * `accurate`, `complete` (the two dimensions), `ruleM21`, `ruleM24` (rule verdicts, null without 2.4 labels),
 * `joint` (the judge's joint correctness under the evaluation's GPT-JGA option: JGA), `jointBefore`, `jointAfter`,
 * `ruleJointM21`, `ruleJointM24` (exact state match: rule JGA). A turn the evaluation left out (failed call,
 * unusable output) carries `error` and no values.
 *
 * `detail`: `context` (the dialogue up to the turn), `predicted` (the turn's predicted slot-values), `predictedState`,
 * `gold` (MultiWOZ 2.1 state), `goldM24`, `explanation` (the judge's output, with `outputs`), `judge`
 * (`{ accurate, complete }`), `incorrect`, `missed`, `rules` (`{ M21, M24 }`), `disagree` (judge vs RULE-M21).
 */
export function llmJudgeRunItems(evaluation: MethodEvaluation, options: { outputs?: MethodOutputs; gptJga?: EvaluateOptions['gptJga'] } = {}): RunItem[] {
  const judged = new Map(evaluation.turns.map((t) => [t.flag, t]));
  const failures = new Map<string, string>();
  for (const f of evaluation.summary.failures) if (!failures.has(f.flag)) failures.set(f.flag, `${f.stage}: ${f.reason}`);
  const texts = explanations(options.outputs);
  const afterTurn = options.gptJga === 'after-turn';
  return evaluation.records.map((r) => {
    // history is [system_0, user_0, system_1, ...]; system_0 (before the user's first utterance) is empty
    const context: Array<{ speaker: string; text: string }> = [...r.history, r.system, r.user]
      .map((text, i) => ({ speaker: i % 2 === 0 ? 'system' : 'user', text }))
      .filter((u, i) => !(i === 0 && u.text === ''));
    const detail: Record<string, unknown> = {
      context,
      predicted: plain(r.predictTurnLabel),
      predictedState: plain(r.predict),
      gold: plain(r.groundTruth),
      ...(r.groundTruthM24 ? { goldM24: plain(r.groundTruthM24) } : {}),
      ...(texts.has(r.flag) ? { explanation: texts.get(r.flag) } : {}),
    };
    const t = judged.get(r.flag);
    if (!t) return { id: r.flag, group: r.dialogueId, values: {}, error: failures.get(r.flag) ?? 'not judged', detail };
    const accurate = t.incorrect.length === 0;
    const complete = t.missed.length === 0;
    const jointBefore = t.before.incorrect.length === 0 && t.before.missed.length === 0;
    const jointAfter = t.after.incorrect.length === 0 && t.after.missed.length === 0;
    const values: Record<string, RunItemValue> = {
      judge: t.judge === 1,
      accurate,
      complete,
      ruleM21: t.ruleMwz21 === 1,
      ruleM24: t.ruleMwz24 === null ? null : t.ruleMwz24 === 1,
      joint: afterTurn ? jointAfter : jointBefore,
      jointBefore,
      jointAfter,
      ruleJointM21: stateMatches(r.predict, r.groundTruth),
      ruleJointM24: r.groundTruthM24 ? stateMatches(r.predict, r.groundTruthM24) : null,
    };
    Object.assign(detail, {
      judge: { accurate, complete },
      incorrect: [...t.incorrect].sort(),
      missed: [...t.missed].sort(),
      rules: { M21: t.ruleMwz21 === 1, ...(t.ruleMwz24 === null ? {} : { M24: t.ruleMwz24 === 1 }) },
      disagree: t.ruleMwz21 !== t.judge,
      ...(t.failure ? { failure: t.failure } : {}),
    });
    return { id: r.flag, group: r.dialogueId, values, detail };
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
 * The headline metrics of an evaluation (percent): `TSA` (the judge's turn-level accuracy), `TSA M21`/`TSA M24`
 * (rule), `coherence M21`/`coherence M24`, `JGA` (GPT-JGA), `JGA M21`/`JGA M24` (rule JGA, over every turn of the
 * input, as the reference divides).
 */
export function llmJudgeRunMetrics(evaluation: MethodEvaluation): Record<string, RunMetric> {
  const out: Record<string, RunMetric> = {};
  for (const [name, key] of NAMES) {
    const n = key.startsWith('ruleJga') ? evaluation.metrics.totalTurns : evaluation.metrics.turns;
    out[name] = { value: evaluation.metrics[key], n, unit: '%' };
  }
  return out;
}

/**
 * llm-judge for `compare`, `runs` and `report`: `recompute` gives every metric of {@link llmJudgeRunMetrics} from
 * items, exactly as `computeMetrics` does. Rule JGA divides by every turn, failed ones included (the reference's
 * denominator: a turn not judged counts as not matching); the variant's `ruleJga=reference` adds the reference's +1.
 */
/** Per-item outcomes of the judged items, as counted by the metrics. */
const COLUMNS = ['judge', 'ruleM21', 'ruleM24', 'cohM21', 'cohM24', 'joint', 'ruleJointM21', 'ruleJointM24', 'noM24', 'noJointM24'] as const;

function itemColumns(v: RunItem['values']): number[] {
  const m24 = v.ruleM24 === null || v.ruleM24 === undefined;
  const jointM24 = v.ruleJointM24 === null || v.ruleJointM24 === undefined;
  return [v.judge === true, v.ruleM21 === true, v.ruleM24 === true, v.ruleM21 === v.judge, v.ruleM24 === v.judge, v.joint === true, v.ruleJointM21 === true, v.ruleJointM24 === true, m24, jointM24].map(Number);
}

/** The metrics from the column sums of `n` judged items; rule JGA divides by `all` (judged and failed). */
function metricsFromSums(sum: number[], n: number, all: number, offset: number): Record<string, number | null> {
  const [judge, ruleM21, ruleM24, cohM21, cohM24, joint, ruleJointM21, ruleJointM24, noM24, noJointM24] = sum as [number, number, number, number, number, number, number, number, number, number];
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
 * llm-judge for `compare`, `runs` and `report`: `recompute` gives every metric of {@link llmJudgeRunMetrics} from
 * items, exactly as `computeMetrics` does. Rule JGA divides by every turn, failed ones included (the reference's
 * denominator: a turn not judged counts as not matching); the variant's `ruleJga=reference` adds the reference's +1.
 * `prepare` counts from per-item columns (no errored items reach it).
 */
export const runBenchmark: RunBenchmark = {
  benchmark: 'llm-judge',
  recompute(items, variant) {
    const sum = COLUMNS.map(() => 0);
    let n = 0;
    for (const item of items) {
      if (item.error !== undefined) continue;
      n++;
      itemColumns(item.values).forEach((x, k) => (sum[k]! += x));
    }
    return metricsFromSums(sum, n, items.length, ruleJgaOffset(variant));
  },
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
};
