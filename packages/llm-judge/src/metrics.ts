import type { IntegrationResult, TurnJudgement } from './internal/integrate';
import type { SlotValues, TurnRecord } from './internal/records';

/**
 * How the rule TSA compares turn labels (quirk 9): `two-step` (`analyze.py`: spaces removed from values,
 * predicted `none` deletions of absent slots dropped) or `single-step` (`calc_new_turn_level.py`: exact).
 */
export type RuleNormalization = 'two-step' | 'single-step';

export interface MetricOptions {
  /** `method` (default): each method its own normalisation; or force one. */
  ruleNormalization?: 'method' | RuleNormalization;
  /** Quirk 7: `before-turn` (default, the reference's snapshot) or `after-turn`. */
  gptJga?: 'before-turn' | 'after-turn';
  /**
   * Quirk 8: `fixed` (default: `count / turns`) or `reference` (counters start at 1: `(count + 1) / turns`,
   * what the reference prints).
   */
  ruleJga?: 'fixed' | 'reference';
}

/** Percentages (`count / n * 100`, float64) over a set of turns; `null` when undefined (no turns, no MWZ2.4 labels). */
export interface JudgeMetrics {
  /** Emitted (judged) turns: the denominator of every metric but rule JGA. */
  turns: number;
  /** Every turn of the input (rule JGA's denominator, as in the reference). */
  totalTurns: number;
  tsaGpt: number | null;
  tsaRuleMwz21: number | null;
  tsaRuleMwz24: number | null;
  coherenceMwz21: number | null;
  coherenceMwz24: number | null;
  gptJga: number | null;
  ruleJgaMwz21: number | null;
  ruleJgaMwz24: number | null;
}

/** An emitted turn with its rule judgements. */
export interface JudgedTurn extends TurnJudgement {
  /** Exact-match judgement against the MultiWOZ 2.1 / 2.4 turn label (`null` without 2.4 labels). */
  ruleMwz21: 0 | 1;
  ruleMwz24: 0 | 1 | null;
}

/** `get_turn_label`: slots new or changed since the previous state (deletions ignored). */
export function ruleTurnLabel(previous: SlotValues, current: SlotValues): SlotValues {
  const out: SlotValues = new Map();
  for (const [k, v] of current) if (!previous.has(k) || previous.get(k) !== v) out.set(k, v);
  return out;
}

function labelSet(label: SlotValues, squeeze: boolean): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of label) out.add(`${k}==${squeeze ? v.replaceAll(' ', '') : v}`);
  return out;
}

function predictedSet(record: TurnRecord, normalization: RuleNormalization): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of record.predictTurnLabel) {
    if (normalization === 'two-step') {
      if (v === 'none' && !record.predict.has(k)) continue;
      out.add(`${k}==${v.replaceAll(' ', '')}`);
    } else out.add(`${k}==${v}`);
  }
  return out;
}

const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));

const hasEqualsInKey = (label: SlotValues): boolean => {
  for (const k of label.keys()) if (k.includes('=')) return true;
  return false;
};

/** Whether the predicted state equals a ground-truth state as exact `slot==value` sets (rule JGA). */
export function stateMatches(predict: SlotValues, truth: SlotValues): boolean {
  // the same entries give the same `slot==value` strings: compared without building them
  if (predict.size === truth.size) {
    let same = true;
    for (const [k, v] of predict) {
      if (truth.get(k) !== v) {
        same = false;
        break;
      }
    }
    if (same) return true;
  }
  // other entries: other strings, as each string is one entry's (the slot ends at its first `=`), unless a slot name
  // holds `=` (`a=` with `b` and `a` with `=b` both give `a===b`): then the strings are compared
  if (hasEqualsInKey(predict) || hasEqualsInKey(truth))
    return sameSet(labelSet(predict, false), labelSet(truth, false));
  return false;
}

/**
 * Rule judgements of a sequence of turns (in dialogue order): the predicted turn label against the turn label
 * derived from consecutive ground-truth states (the previous state resets at each new dialogue and advances
 * only over the turns given, as the reference's loop over emitted turns does).
 */
export function ruleJudgements(
  records: readonly TurnRecord[],
  normalization: RuleNormalization,
): Array<{ mwz21: 0 | 1; mwz24: 0 | 1 | null }> {
  const out: Array<{ mwz21: 0 | 1; mwz24: 0 | 1 | null }> = [];
  let dialogue: string | undefined;
  let prev21: SlotValues = new Map();
  let prev24: SlotValues = new Map();
  const squeeze = normalization === 'two-step';
  for (const r of records) {
    if (r.dialogueId !== dialogue) {
      dialogue = r.dialogueId;
      prev21 = new Map();
      prev24 = new Map();
    }
    const pred = predictedSet(r, normalization);
    const m21 = sameSet(pred, labelSet(ruleTurnLabel(prev21, r.groundTruth), squeeze)) ? 1 : 0;
    let m24: 0 | 1 | null = null;
    if (r.groundTruthM24) {
      m24 = sameSet(pred, labelSet(ruleTurnLabel(prev24, r.groundTruthM24), squeeze)) ? 1 : 0;
      prev24 = r.groundTruthM24;
    }
    prev21 = r.groundTruth;
    out.push({ mwz21: m21, mwz24: m24 });
  }
  return out;
}

export function percent(count: number, n: number): number | null {
  return n === 0 ? null : (count / n) * 100;
}

/** Attaches rule judgements to emitted turns. */
export function judgeTurns(turns: readonly TurnJudgement[], normalization: RuleNormalization): JudgedTurn[] {
  const rules = ruleJudgements(
    turns.map((t) => t.record),
    normalization,
  );
  return turns.map((t, i) => ({ ...t, ruleMwz21: rules[i]!.mwz21, ruleMwz24: rules[i]!.mwz24 }));
}

/** A turn's rule joint match: its predicted state equals the ground truth exactly (rule JGA), MultiWOZ 2.1 and 2.4. */
export interface RuleJoint {
  mwz21: boolean;
  /** Null without MultiWOZ 2.4 labels. */
  mwz24: boolean | null;
}

/** The rule joint match of a turn ({@link stateMatches} against each ground truth it has). */
export function ruleJointOf(r: TurnRecord): RuleJoint {
  return {
    mwz21: stateMatches(r.predict, r.groundTruth),
    mwz24: r.groundTruthM24 ? stateMatches(r.predict, r.groundTruthM24) : null,
  };
}

/**
 * The metrics of a set of judged turns (§6.1): TSA (GPT), rule TSA, coherence, GPT-JGA, and rule JGA over
 * `allTurns` (turns not emitted count in its denominator but never as matches, as in `parser.py`).
 */
export function computeMetrics(
  turns: readonly JudgedTurn[],
  allTurns: readonly TurnRecord[],
  options: MetricOptions = {},
): JudgeMetrics {
  return metricsOf(turns, allTurns, options);
}

/**
 * {@link computeMetrics}, with the rule joint matches of `allTurns` when they are known (`joints[i]` of `allTurns[i]`,
 * null for a turn not emitted): an evaluation works them out once for its metrics, its per-dialogue metrics and its items.
 */
export function metricsOf(
  turns: readonly JudgedTurn[],
  allTurns: readonly TurnRecord[],
  options: MetricOptions,
  joints?: ReadonlyArray<RuleJoint | null>,
): JudgeMetrics {
  const n = turns.length;
  const hasM24 = turns.length > 0 ? turns.every((t) => t.ruleMwz24 !== null) : allTurns.every((r) => r.groundTruthM24);
  const sum = (f: (t: JudgedTurn) => boolean) => turns.reduce((s, t) => s + (f(t) ? 1 : 0), 0);
  const afterTurn = options.gptJga === 'after-turn';
  const emitted = new Set(turns.map((t) => t.flag));
  let jga21 = 0;
  let jga24 = 0;
  const allHaveM24 = allTurns.every((r) => r.groundTruthM24);
  for (let i = 0; i < allTurns.length; i++) {
    const r = allTurns[i]!;
    if (!emitted.has(r.flag)) continue;
    const joint = joints?.[i] ?? ruleJointOf(r);
    if (joint.mwz21) jga21++;
    if (joint.mwz24) jga24++;
  }
  const offset = options.ruleJga === 'reference' ? 1 : 0;
  return {
    turns: n,
    totalTurns: allTurns.length,
    tsaGpt: percent(
      sum((t) => t.judge === 1),
      n,
    ),
    tsaRuleMwz21: percent(
      sum((t) => t.ruleMwz21 === 1),
      n,
    ),
    tsaRuleMwz24: hasM24
      ? percent(
          sum((t) => t.ruleMwz24 === 1),
          n,
        )
      : null,
    coherenceMwz21: percent(
      sum((t) => t.ruleMwz21 === t.judge),
      n,
    ),
    coherenceMwz24: hasM24
      ? percent(
          sum((t) => t.ruleMwz24 === t.judge),
          n,
        )
      : null,
    gptJga: percent(
      sum((t) => {
        const s = afterTurn ? t.after : t.before;
        return s.incorrect.length === 0 && s.missed.length === 0;
      }),
      n,
    ),
    ruleJgaMwz21: percent(jga21 + offset, allTurns.length),
    ruleJgaMwz24: allHaveM24 ? percent(jga24 + offset, allTurns.length) : null,
  };
}

/** The normalisation a method's own rule metrics use. */
export function methodNormalization(
  kind: IntegrationResult['kind'],
  option: MetricOptions['ruleNormalization'] = 'method',
): RuleNormalization {
  return option === 'method' ? kind : option;
}

/** Rule-only metrics of a record set (no LLM output): RULE-M21/M24 TSA in both normalisations and rule JGA. */
export interface RuleMetrics {
  turns: number;
  tsa: Record<RuleNormalization, { mwz21: number | null; mwz24: number | null }>;
  ruleJga: { mwz21: number | null; mwz24: number | null };
}

/** RULE-M21/M24 over every turn of `records` (§6.2): each turn judged by exact match, all turns emitted. */
export function ruleMetrics(records: readonly TurnRecord[], options: Pick<MetricOptions, 'ruleJga'> = {}): RuleMetrics {
  const n = records.length;
  const hasM24 = records.every((r) => r.groundTruthM24);
  const tsa = {} as RuleMetrics['tsa'];
  for (const norm of ['two-step', 'single-step'] as const) {
    const j = ruleJudgements(records, norm);
    tsa[norm] = {
      mwz21: percent(j.filter((x) => x.mwz21 === 1).length, n),
      mwz24: hasM24 ? percent(j.filter((x) => x.mwz24 === 1).length, n) : null,
    };
  }
  const offset = options.ruleJga === 'reference' ? 1 : 0;
  const jga21 = records.filter((r) => stateMatches(r.predict, r.groundTruth)).length;
  const jga24 = records.filter((r) => r.groundTruthM24 && stateMatches(r.predict, r.groundTruthM24)).length;
  return {
    turns: n,
    tsa,
    ruleJga: { mwz21: percent(jga21 + offset, n), mwz24: hasM24 ? percent(jga24 + offset, n) : null },
  };
}
