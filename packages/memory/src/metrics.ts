/**
 * HaluMem's `aggregate_eval_results` (spec §6), exact: a micro-average over all pooled records, `(all)` and `(valid)`
 * variants, extraction F1, update and QA ratios, `memory_type_accuracy`, `time_consuming`, in the reference key order.
 */
import { EvalError, InputError } from '@eval/core';
import { MEMORY_TYPES, type EvalRecords, type MemoryType } from './internal/schema';

export interface AggregateOptions {
  /**
   * Quirk 1. The reference counts an accuracy record as "in the golden memories" only when the flag is the STRING
   * "true"/"True"; a JSON boolean `true` from the judge counts as not included. `true` here also accepts boolean `true`.
   */
  acceptBooleanIncluded?: boolean;
  /**
   * Quirk 3. The reference includes interference points in `memory_type_accuracy` (a score of 2 on an interference
   * point counts as correct). `true` drops them, as HaluMem's README describes the table.
   */
  typeAccuracyExcludesInterference?: boolean;
  /** Quirk 12. An empty denominator: `"error"` (default, the reference raises ZeroDivisionError) or `"null"`. */
  onEmptyCategory?: 'error' | 'null';
  /** Mark records with `is_valid` as the reference does (it mutates them). Default true. */
  markValid?: boolean;
}

export interface MemoryIntegrityScore {
  'recall(all)': number | null;
  'recall(valid)': number | null;
  'weighted_recall(all)': number | null;
  'weighted_recall(valid)': number | null;
  memory_valid_importance_sum: number;
  memory_importance_sum: number;
  memory_valid_num: number;
  memory_num: number;
}

export interface MemoryAccuracyScore {
  'interference_accuracy(all)': number | null;
  'interference_accuracy(valid)': number | null;
  interference_memory_valid_num: number;
  interference_memory_num: number;
  'target_accuracy(all)': number | null;
  'target_accuracy(valid)': number | null;
  target_memory_valid_num: number;
  target_memory_num: number;
  'weighted_accuracy(all)': number | null;
  'weighted_accuracy(valid)': number | null;
  memory_valid_num: number;
  memory_num: number;
}

export interface MemoryUpdateScore {
  'correct_update_memory_ratio(all)': number | null;
  'correct_update_memory_ratio(valid)': number | null;
  'hallucination_update_memory_ratio(all)': number | null;
  'hallucination_update_memory_ratio(valid)': number | null;
  'omission_update_memory_ratio(all)': number | null;
  'omission_update_memory_ratio(valid)': number | null;
  'other_update_memory_ratio(all)': number | null;
  'other_update_memory_ratio(valid)': number | null;
  update_memory_valid_num: number;
  update_memory_num: number;
}

export interface QuestionAnsweringScore {
  'correct_qa_ratio(all)': number | null;
  'correct_qa_ratio(valid)': number | null;
  'hallucination_qa_ratio(all)': number | null;
  'hallucination_qa_ratio(valid)': number | null;
  'omission_qa_ratio(all)': number | null;
  'omission_qa_ratio(valid)': number | null;
  qa_valid_num: number;
  qa_num: number;
}

export interface TypeAccuracy {
  memory_integrity_acc: number | null;
  memory_update_acc: number | null;
  total_num: number;
  memory_acc: number | null;
}

export interface TimeConsuming {
  add_dialogue_duration_time: number;
  search_memory_duration_time: number;
  total_duration_time: number;
}

/** HaluMem's `overall_score`, keys in the reference order. `time_consuming` only when durations were given. */
export interface OverallScore {
  memory_integrity: MemoryIntegrityScore;
  memory_accuracy: MemoryAccuracyScore;
  memory_extraction_f1: number | null;
  memory_update: MemoryUpdateScore;
  question_answering: QuestionAnsweringScore;
  memory_type_accuracy: Record<MemoryType, TypeAccuracy>;
  time_consuming?: TimeConsuming;
}

/** Keys of `overall_score` whose values are Python floats (for writing the reference's JSON byte for byte). */
export const OVERALL_SCORE_FLOAT_KEYS: ReadonlySet<string> = new Set([
  'recall(all)',
  'recall(valid)',
  'weighted_recall(all)',
  'weighted_recall(valid)',
  'memory_valid_importance_sum',
  'memory_importance_sum',
  'interference_accuracy(all)',
  'interference_accuracy(valid)',
  'target_accuracy(all)',
  'target_accuracy(valid)',
  'weighted_accuracy(all)',
  'weighted_accuracy(valid)',
  'memory_extraction_f1',
  'correct_update_memory_ratio(all)',
  'correct_update_memory_ratio(valid)',
  'hallucination_update_memory_ratio(all)',
  'hallucination_update_memory_ratio(valid)',
  'omission_update_memory_ratio(all)',
  'omission_update_memory_ratio(valid)',
  'other_update_memory_ratio(all)',
  'other_update_memory_ratio(valid)',
  'correct_qa_ratio(all)',
  'correct_qa_ratio(valid)',
  'hallucination_qa_ratio(all)',
  'hallucination_qa_ratio(valid)',
  'omission_qa_ratio(all)',
  'omission_qa_ratio(valid)',
  'memory_integrity_acc',
  'memory_update_acc',
  'memory_acc',
  'add_dialogue_duration_time',
  'search_memory_duration_time',
  'total_duration_time',
  // record fields that are floats in HaluMem files
  'importance',
  'search_duration_ms',
  'response_duration_ms',
  'add_dialogue_duration_ms',
]);

/** Python `/` on floats, with the reference's ZeroDivisionError (or null with `onEmptyCategory: "null"`). */
function makeDiv(options: AggregateOptions) {
  return (num: number, den: number, what: string): number | null => {
    if (den === 0) {
      if (options.onEmptyCategory === 'null') return null;
      throw new EvalError(
        'zero_division',
        `ZeroDivisionError: ${what} has an empty denominator (the reference crashes here; pass onEmptyCategory "null" / --on-empty null to emit null)`,
      );
    }
    return num / den;
  };
}

function isIncluded(flag: unknown, acceptBoolean: boolean): boolean {
  return flag === 'true' || flag === 'True' || (acceptBoolean && flag === true);
}

/** Python's `==` between a JSON value and an int (booleans compare as 0/1). */
function pyEqInt(value: unknown, n: number): boolean {
  if (typeof value === 'boolean') return (value ? 1 : 0) === n;
  return value === n;
}

function numeric(value: unknown, where: { list: string; index: number; field: string }): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new InputError(`expected a number, got ${JSON.stringify(value)} (the reference would raise TypeError)`, {
    record: `${where.list}[${where.index}]`,
    field: [where.field],
  });
}

/**
 * Aggregates judged records into HaluMem's `overall_score`. With `timeConsuming` (see {@link computeTimeConsuming}),
 * the result carries `time_consuming` as the reference's does. Records get `is_valid` set unless `markValid: false`.
 */
export function aggregateEvalResults(
  records: EvalRecords,
  options: AggregateOptions & { timeConsuming?: TimeConsuming } = {},
): OverallScore {
  const div = makeDiv(options);
  const mark = options.markValid ?? true;
  const setValid = (item: Record<string, unknown>, v: boolean) => {
    if (mark) item.is_valid = v;
  };

  // Memory integrity (and interference, stored under memory_accuracy).
  let integrityHits = 0;
  let integrityWeighted = 0;
  let integrityValidNum = 0;
  let integrityNum = 0;
  let integrityWeightedValidNum = 0;
  let integrityWeightedNum = 0;
  let interferenceHits = 0;
  let interferenceValidNum = 0;
  let interferenceNum = 0;
  records.memory_integrity_records.forEach((item, index) => {
    setValid(item, true);
    const interference = item.memory_source === 'interference';
    if (!interference) {
      integrityNum += 1;
      integrityWeightedNum += numeric(item.importance, {
        list: 'memory_integrity_records',
        index,
        field: 'importance',
      });
    } else {
      interferenceNum += 1;
    }
    const score = item.memory_integrity_score;
    if (score === null || score === undefined) {
      setValid(item, false);
      return;
    }
    if (!interference) {
      if (pyEqInt(score, 2)) integrityHits += 1;
      integrityWeighted +=
        0.5 *
        numeric(score, { list: 'memory_integrity_records', index, field: 'memory_integrity_score' }) *
        item.importance;
      integrityValidNum += 1;
      integrityWeightedValidNum += item.importance;
    } else {
      if (pyEqInt(score, 0)) interferenceHits += 1;
      interferenceValidNum += 1;
    }
  });

  const memory_integrity: MemoryIntegrityScore = {
    'recall(all)': div(integrityHits, integrityNum, 'recall(all)'),
    'recall(valid)': div(integrityHits, integrityValidNum, 'recall(valid)'),
    'weighted_recall(all)': div(integrityWeighted, integrityWeightedNum, 'weighted_recall(all)'),
    'weighted_recall(valid)': div(integrityWeighted, integrityWeightedValidNum, 'weighted_recall(valid)'),
    memory_valid_importance_sum: integrityWeightedValidNum,
    memory_importance_sum: integrityWeightedNum,
    memory_valid_num: integrityValidNum,
    memory_num: integrityNum,
  };
  const interferenceAll = div(interferenceHits, interferenceNum, 'interference_accuracy(all)');
  const interferenceValid = div(interferenceHits, interferenceValidNum, 'interference_accuracy(valid)');

  // Memory accuracy.
  const acceptBoolean = options.acceptBooleanIncluded ?? false;
  let targetScores = 0;
  let weightedScores = 0;
  let targetValidNum = 0;
  let targetNum = 0;
  let accuracyValidNum = 0;
  let accuracyNum = 0;
  records.memory_accuracy_records.forEach((item, index) => {
    setValid(item, true);
    accuracyNum += 1;
    const included = isIncluded(item.is_included_in_golden_memories, acceptBoolean);
    if (included) targetNum += 1;
    const score = item.memory_accuracy_score;
    if (score === null || score === undefined) {
      setValid(item, false);
      return;
    }
    const s = numeric(score, { list: 'memory_accuracy_records', index, field: 'memory_accuracy_score' });
    if (included) {
      targetScores += 0.5 * s;
      targetValidNum += 1;
    }
    weightedScores += 0.5 * s;
    accuracyValidNum += 1;
  });
  const memory_accuracy: MemoryAccuracyScore = {
    'interference_accuracy(all)': interferenceAll,
    'interference_accuracy(valid)': interferenceValid,
    interference_memory_valid_num: interferenceValidNum,
    interference_memory_num: interferenceNum,
    'target_accuracy(all)': div(targetScores, targetNum, 'target_accuracy(all)'),
    'target_accuracy(valid)': div(targetScores, targetValidNum, 'target_accuracy(valid)'),
    target_memory_valid_num: targetValidNum,
    target_memory_num: targetNum,
    'weighted_accuracy(all)': div(weightedScores, accuracyNum, 'weighted_accuracy(all)'),
    'weighted_accuracy(valid)': div(weightedScores, accuracyValidNum, 'weighted_accuracy(valid)'),
    memory_valid_num: accuracyValidNum,
    memory_num: accuracyNum,
  };

  const p = memory_accuracy['target_accuracy(all)'];
  const r = memory_integrity['recall(all)'];
  const memory_extraction_f1 = p === null || r === null ? null : p + r === 0 ? 0 : (2 * (p * r)) / (p + r);

  // Update and question answering: labelled records; an unknown label makes a record invalid.
  // ("Other" is a valid update label, not a valid QA label.)
  const tally = <L extends string>(items: Array<Record<string, unknown>>, field: string, labels: readonly L[]) => {
    const counts = Object.fromEntries(labels.map((l) => [l, 0])) as Record<L, number>;
    let num = 0;
    let validNum = 0;
    for (const item of items) {
      num += 1;
      const label = item[field];
      const valid = (labels as readonly unknown[]).includes(label);
      setValid(item, valid);
      if (!valid) continue;
      counts[label as L] += 1;
      validNum += 1;
    }
    // Reference key order: for each label, its (all) then its (valid) ratio.
    const ratios = (key: (label: string) => string): Record<string, number | null> => {
      const out: Record<string, number | null> = {};
      for (const l of labels) {
        const name = key(l.toLowerCase());
        out[`${name}(all)`] = div(counts[l], num, `${name}(all)`);
        out[`${name}(valid)`] = div(counts[l], validNum, `${name}(valid)`);
      }
      return out;
    };
    return { num, validNum, ratios };
  };
  const updates = tally(records.memory_update_records, 'memory_update_type', [
    'Correct',
    'Hallucination',
    'Omission',
    'Other',
  ] as const);
  const memory_update = {
    ...updates.ratios((l) => `${l}_update_memory_ratio`),
    update_memory_valid_num: updates.validNum,
    update_memory_num: updates.num,
  } as MemoryUpdateScore;
  const answers = tally(records.question_answering_records, 'result_type', [
    'Correct',
    'Hallucination',
    'Omission',
  ] as const);
  const question_answering = {
    ...answers.ratios((l) => `${l}_qa_ratio`),
    qa_valid_num: answers.validNum,
    qa_num: answers.num,
  } as QuestionAnsweringScore;

  // Memory type accuracy (interference points included unless typeAccuracyExcludesInterference).
  const counts = Object.fromEntries(MEMORY_TYPES.map((t) => [t, { integrity: 0, update: 0, total: 0 }])) as Record<
    string,
    { integrity: number; update: number; total: number }
  >;
  const bucket = (type: unknown, list: string, index: number) => {
    const b = typeof type === 'string' && Object.hasOwn(counts, type) ? counts[type] : undefined;
    if (!b) {
      throw new InputError(
        `unknown memory_type ${JSON.stringify(type)} (expected one of ${MEMORY_TYPES.join(', ')}; the reference raises KeyError)`,
        { record: `${list}[${index}]`, field: ['memory_type'] },
      );
    }
    return b;
  };
  const excludeInterference = options.typeAccuracyExcludesInterference ?? false;
  records.memory_integrity_records.forEach((item, index) => {
    if (!('memory_integrity_score' in item) || !('importance' in item)) return;
    if (excludeInterference && item.memory_source === 'interference') return;
    const b = bucket(item.memory_type, 'memory_integrity_records', index);
    b.integrity += pyEqInt(item.memory_integrity_score, 2) ? 1 : 0;
    b.total += 1;
  });
  records.memory_update_records.forEach((item, index) => {
    if (!('memory_update_type' in item) || !('importance' in item)) return;
    if (excludeInterference && item.memory_source === 'interference') return;
    const b = bucket(item.memory_type, 'memory_update_records', index);
    b.update += item.memory_update_type === 'Correct' ? 1 : 0;
    b.total += 1;
  });
  const memory_type_accuracy = {} as Record<MemoryType, TypeAccuracy>;
  for (const type of MEMORY_TYPES) {
    const c = counts[type]!;
    const integrityAcc = div(c.integrity, c.total, `memory_type_accuracy["${type}"]`);
    const updateAcc = div(c.update, c.total, `memory_type_accuracy["${type}"]`);
    memory_type_accuracy[type] = {
      memory_integrity_acc: integrityAcc,
      memory_update_acc: updateAcc,
      total_num: c.total,
      // the sum of the two quotients, not (a + b) / total
      memory_acc: integrityAcc === null || updateAcc === null ? null : integrityAcc + updateAcc,
    };
  }

  const overall: OverallScore = {
    memory_integrity,
    memory_accuracy,
    memory_extraction_f1,
    memory_update,
    question_answering,
    memory_type_accuracy,
  };
  if (options.timeConsuming) overall.time_consuming = options.timeConsuming;
  return overall;
}

/** Raw duration sums (milliseconds) in file order, for {@link timeConsumingFromSums}. */
export interface DurationSums {
  addDialogueMs: number;
  searchMs: number;
}

/** Adds one artifact user's durations to running sums, in the reference's order. */
export function addDurations(sums: DurationSums, user: { sessions: ReadonlyArray<unknown> }): DurationSums {
  for (const s of user.sessions) {
    const session = s as Record<string, unknown>;
    if ('add_dialogue_duration_ms' in session) sums.addDialogueMs += session.add_dialogue_duration_ms as number;
    if ('questions' in session && Array.isArray(session.questions)) {
      for (const q of session.questions as Array<Record<string, unknown>>) {
        if ('search_duration_ms' in q) sums.searchMs += q.search_duration_ms as number;
      }
    }
  }
  return sums;
}

/** `time_consuming` in minutes: `sum / 1000 / 60` (two divisions, as the reference). */
export function timeConsumingFromSums(sums: DurationSums): TimeConsuming {
  const add = sums.addDialogueMs / 1000 / 60;
  const search = sums.searchMs / 1000 / 60;
  return { add_dialogue_duration_time: add, search_memory_duration_time: search, total_duration_time: add + search };
}

/** `time_consuming` over a list of artifact users (see `computeTimeConsuming` in `./artifact` for files). */
export function timeConsumingOf(users: Iterable<{ sessions: ReadonlyArray<unknown> }>): TimeConsuming {
  const sums: DurationSums = { addDialogueMs: 0, searchMs: 0 };
  for (const u of users) addDurations(sums, u);
  return timeConsumingFromSums(sums);
}

// ---------------------------------------------------------------------------------------------------------------
// Derived breakdowns (spec §6.3; not in evaluation.py)
// ---------------------------------------------------------------------------------------------------------------

export interface QaGroupScore {
  n: number;
  correct: number;
  hallucination: number;
  omission: number;
  invalid: number;
  /** count(result_type == "Correct") / n, as the leaderboard's "Performance Across Question Types". */
  correct_ratio: number;
  hallucination_ratio: number;
  omission_ratio: number;
}

/** QA results grouped by a record field (`question_type` or `difficulty`), groups in first-seen order. */
export function qaBreakdown(
  records: EvalRecords['question_answering_records'],
  field: 'question_type' | 'difficulty',
): Record<string, QaGroupScore> {
  const groups = new Map<string, { n: number; c: number; h: number; o: number }>();
  for (const item of records) {
    const key = typeof item[field] === 'string' ? (item[field] as string) : '(none)';
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { n: 0, c: 0, h: 0, o: 0 }));
    g.n += 1;
    if (item.result_type === 'Correct') g.c += 1;
    else if (item.result_type === 'Hallucination') g.h += 1;
    else if (item.result_type === 'Omission') g.o += 1;
  }
  const out: Record<string, QaGroupScore> = {};
  for (const [key, g] of groups) {
    out[key] = {
      n: g.n,
      correct: g.c,
      hallucination: g.h,
      omission: g.o,
      invalid: g.n - g.c - g.h - g.o,
      correct_ratio: g.c / g.n,
      hallucination_ratio: g.h / g.n,
      omission_ratio: g.o / g.n,
    };
  }
  return out;
}
