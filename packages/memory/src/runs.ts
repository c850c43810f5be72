/**
 * The run record of a HaluMem evaluation (spec `runs.md` sections 1-3): one item per judged unit, the headline
 * figures of `overall_score`, and the {@link runBenchmark} that recomputes them from items.
 */
import type { RunBenchmark, RunItem, RunMetric } from '@eval/core';
import { aggregateEvalResults, type AggregateOptions, type OverallScore } from './metrics';
import type { AccuracyRecord, EvalRecords, IntegrityRecord, QaRecord, UpdateRecord } from './internal/schema';

/** The benchmark's name in run records. */
export const MEMORY_BENCHMARK = 'memory';

/** What changes the numbers of a HaluMem aggregate, besides the judged records themselves. */
export interface MemoryVariantOptions {
  /** Judge routing of `memory judge` (`reference`, the default, or `corrected`). */
  routing?: 'reference' | 'corrected';
  acceptBooleanIncluded?: boolean;
  typeAccuracyExcludesInterference?: boolean;
  /** What an empty category gives when aggregating (`error`, the reference, or `null`); recorded, not in the variant. */
  onEmpty?: 'error' | 'null';
}

/**
 * The variant of a memory run: `halumem`, then every non-default option as `;name` or `;name=value` (sorted).
 * Runs compare only within one variant.
 */
export function memoryRunVariant(options: MemoryVariantOptions = {}): string {
  const parts: string[] = [];
  if (options.acceptBooleanIncluded) parts.push('acceptBooleanIncluded');
  if (options.routing && options.routing !== 'reference') parts.push(`routing=${options.routing}`);
  if (options.typeAccuracyExcludesInterference) parts.push('typeAccuracyExcludesInterference');
  return ['halumem', ...parts].join(';');
}

/**
 * What a run record of a HaluMem evaluation is opened with: the benchmark, its package and cluster unit (the user of a
 * memory point or question), the variant, and the aggregation options that can change a number (defaults included;
 * `routing` when the run judged).
 */
export function memoryRunSetup(options: MemoryVariantOptions = {}): {
  benchmark: string;
  package: string;
  cluster: { unit: string };
  variant: string;
  options: Record<string, unknown>;
} {
  return {
    benchmark: MEMORY_BENCHMARK,
    package: '@eval/memory',
    cluster: { unit: 'user' },
    variant: memoryRunVariant(options),
    options: {
      ...(options.routing ? { routing: options.routing } : {}),
      acceptBooleanIncluded: Boolean(options.acceptBooleanIncluded),
      typeAccuracyExcludesInterference: Boolean(options.typeAccuracyExcludesInterference),
      onEmpty: options.onEmpty ?? 'error',
    },
  };
}

function variantFlags(variant: string | undefined): Set<string> {
  return new Set((variant ?? '').split(';').slice(1));
}

/** Aggregation options of a recompute: an empty category gives null (a resample may have none); markValid off. */
function recomputeOptions(variant: string | undefined): AggregateOptions {
  return {
    onEmptyCategory: 'null',
    markValid: false,
    typeAccuracyExcludesInterference: variantFlags(variant).has('typeAccuracyExcludesInterference'),
  };
}

const UPDATE_LABELS = ['Correct', 'Hallucination', 'Omission', 'Other'] as const;
const QA_LABELS = ['Correct', 'Hallucination', 'Omission'] as const;

function label(raw: unknown, labels: readonly string[]): string | undefined {
  return typeof raw === 'string' && labels.includes(raw) ? raw : undefined;
}

function str(x: unknown): string | undefined {
  return typeof x === 'string' ? x : undefined;
}

/** Unique ids: a repeated id gets `#2`, `#3`, ... in order. */
function uniqueIds(items: RunItem[]): RunItem[] {
  const seen = new Map<string, number>();
  for (const item of items) {
    const n = (seen.get(item.id) ?? 0) + 1;
    seen.set(item.id, n);
    if (n > 1) item.id = `${item.id}#${n}`;
  }
  return items;
}

/** Position counters per `<user>/<session>` so that records without an `index` get a stable one. */
function positions() {
  const counters = new Map<string, number>();
  return (user: string, session: string) => {
    const key = `${user}/${session}`;
    const n = (counters.get(key) ?? 0) + 1;
    counters.set(key, n);
    return n;
  };
}

function where(r: { uuid?: unknown; ssession_id?: unknown }): { user: string; session: string } {
  return {
    user: str(r.uuid) ?? '-',
    session: r.ssession_id === undefined || r.ssession_id === null ? '-' : String(r.ssession_id),
  };
}

/**
 * A judgement HaluMem itself counts as failed (a null score, a label outside its vocabulary: the judge's own unusable
 * answer): the item was evaluated, as the reference evaluates it, so it is no run failure (`error` is kept for items
 * that could not be evaluated); `judged: false` keeps it out of the "(valid)" figures and in the "(all)" ones.
 */
function judgeFailed(item: RunItem, reason: string): void {
  item.values.judged = false;
  item.detail = { ...item.detail, judgeFailure: reason };
}

/**
 * The items of judged HaluMem records, in a stable order: memory points (`memory:<user>/<session>/<index>`), the
 * system's extracted memories judged for accuracy (`extracted:<user>/<session>/<n>`), update points
 * (`update:<user>/<session>/<index>`), questions (`question:<user>/<session>/<n>`); group and cluster = the user
 * (uuid): the judgements of one user's memories are correlated, so resampling draws whole users.
 *
 * A failed judgement (a null score, or a label outside HaluMem's vocabulary) gives an item with `judged: false` and
 * `detail.judgeFailure`. HaluMem's "(all)" figures count such records in their denominators as not correct, its
 * "(valid)" figures leave them out; {@link runBenchmark}'s `recompute` reproduces both from the item kinds, so such an
 * item keeps its kind (id prefix) and, for memory points, `importance` and `interference`.
 */
export function memoryRunItems(
  records: EvalRecords,
  options: Pick<AggregateOptions, 'acceptBooleanIncluded'> = {},
): RunItem[] {
  const items: RunItem[] = [];
  const acceptBoolean = options.acceptBooleanIncluded ?? false;

  const memPos = positions();
  for (const r of records.memory_integrity_records as IntegrityRecord[]) {
    const { user, session } = where(r);
    const n = memPos(user, session);
    const score = r.memory_integrity_score;
    const interference = r.memory_source === 'interference';
    const item: RunItem = {
      id: `memory:${user}/${session}/${typeof r.index === 'number' ? r.index : n}`,
      group: user,
      cluster: user,
      values: {
        integrityScore: score ?? null,
        importance: r.importance,
        interference,
        recalled: interference || score === null || score === undefined ? null : score === 2,
      },
      detail: {
        kind: 'memory',
        memory: r.memory_content,
        memoryType: r.memory_type,
        source: r.memory_source,
        verdict: score ?? null,
        user,
        session,
      },
    };
    if (score === null || score === undefined) judgeFailed(item, 'the integrity judgement failed (no score)');
    items.push(item);
  }

  const extractedPos = positions();
  for (const r of records.memory_accuracy_records as AccuracyRecord[]) {
    const { user, session } = where(r);
    const n = extractedPos(user, session);
    const score = r.memory_accuracy_score;
    const flag = r.is_included_in_golden_memories;
    const included = flag === 'true' || flag === 'True' || (acceptBoolean && flag === true);
    const item: RunItem = {
      id: `extracted:${user}/${session}/${n}`,
      group: user,
      cluster: user,
      values: { accuracyScore: score ?? null, included },
      detail: {
        kind: 'extracted',
        memory: r.memory_content,
        verdict: score ?? null,
        includedInGolden: flag,
        user,
        session,
      },
    };
    if (score === null || score === undefined) judgeFailed(item, 'the accuracy judgement failed (no score)');
    items.push(item);
  }

  const updatePos = positions();
  for (const r of records.memory_update_records as UpdateRecord[]) {
    const { user, session } = where(r);
    const n = updatePos(user, session);
    const verdict = label(r.memory_update_type, UPDATE_LABELS);
    const values: RunItem['values'] = {};
    for (const l of UPDATE_LABELS) values[`update_${l.toLowerCase()}`] = verdict === l;
    values.importance = typeof r.importance === 'number' ? r.importance : null;
    const item: RunItem = {
      id: `update:${user}/${session}/${typeof r.index === 'number' ? r.index : n}`,
      group: user,
      cluster: user,
      values,
      detail: {
        kind: 'update',
        memory: r.memory_content,
        memoryType: r.memory_type,
        ...(r.memories_from_system !== undefined ? { retrieved: r.memories_from_system } : {}),
        verdict: r.memory_update_type ?? null,
        user,
        session,
      },
    };
    if (!verdict)
      judgeFailed(item, `the update judgement failed (label ${JSON.stringify(r.memory_update_type ?? null)})`);
    items.push(item);
  }

  const questionPos = positions();
  for (const r of records.question_answering_records as QaRecord[]) {
    const { user, session } = where(r);
    const n = questionPos(user, session);
    const verdict = label(r.result_type, QA_LABELS);
    const values: RunItem['values'] = {};
    for (const l of QA_LABELS) values[l.toLowerCase()] = verdict === l;
    const item: RunItem = {
      id: `question:${user}/${session}/${n}`,
      group: user,
      cluster: user,
      values,
      detail: {
        kind: 'question',
        question: r.question,
        answer: r.system_response ?? null,
        reference: r.answer,
        ...(typeof r.reasoning === 'string' ? { reasoning: r.reasoning } : {}),
        verdict: r.result_type ?? null,
        questionType: r.question_type,
        difficulty: r.difficulty,
        user,
        session,
      },
    };
    if (!verdict) judgeFailed(item, `the question judgement failed (label ${JSON.stringify(r.result_type ?? null)})`);
    items.push(item);
  }
  return uniqueIds(items);
}

function kindOf(item: RunItem): string {
  const i = item.id.indexOf(':');
  return i < 0 ? '' : item.id.slice(0, i);
}

type RecordList = keyof EvalRecords;
type ItemRecord = { list: RecordList; record: Record<string, unknown> } | undefined;

/** Rebuilds the minimal HaluMem records the aggregate reads from items (the inverse of {@link memoryRunItems}). */
function recordsFromItems(records: ReadonlyArray<ItemRecord>, indices?: ArrayLike<number>): EvalRecords {
  const out: EvalRecords = {
    memory_integrity_records: [],
    memory_accuracy_records: [],
    memory_update_records: [],
    question_answering_records: [],
  };
  const n = indices ? indices.length : records.length;
  for (let i = 0; i < n; i++) {
    const r = records[indices ? indices[i]! : i];
    if (r) (out[r.list] as unknown[]).push(r.record);
  }
  return out;
}

/** An item's minimal HaluMem record and the list it belongs to; undefined for an item of an unknown kind. */
function itemRecord(item: RunItem): ItemRecord {
  const v = item.values;
  const failed = item.error !== undefined || item.values.judged === false;
  const memoryType = item.detail?.memoryType;
  switch (kindOf(item)) {
    case 'memory':
      return {
        list: 'memory_integrity_records',
        record: {
          memory_source: v.interference === true ? 'interference' : 'system',
          memory_type: memoryType as string,
          importance: v.importance as number,
          memory_integrity_score: failed ? null : (v.integrityScore as number),
        },
      };
    case 'extracted':
      return {
        list: 'memory_accuracy_records',
        record: {
          memory_accuracy_score: failed ? null : (v.accuracyScore as number),
          is_included_in_golden_memories: v.included === true ? 'true' : 'false',
        },
      };
    case 'update': {
      const l = failed ? null : (UPDATE_LABELS.find((x) => v[`update_${x.toLowerCase()}`] === true) ?? null);
      return {
        list: 'memory_update_records',
        record: {
          ...(typeof memoryType === 'string' ? { memory_type: memoryType } : {}),
          ...(typeof v.importance === 'number' ? { importance: v.importance } : {}),
          memory_update_type: l,
        },
      };
    }
    case 'question': {
      const l = failed ? null : (QA_LABELS.find((x) => v[x.toLowerCase()] === true) ?? null);
      return { list: 'question_answering_records', record: { result_type: l } };
    }
    default:
      return undefined;
  }
}

/** Every numeric figure of `overall_score` (but `time_consuming`, which items do not carry), as `section.key` names. */
function flatten(overall: OverallScore): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [section, value] of Object.entries(overall)) {
    if (section === 'time_consuming') continue;
    if (value === null || typeof value === 'number') out[section] = value;
    else if (section === 'memory_type_accuracy') {
      for (const [type, t] of Object.entries(value as Record<string, Record<string, number | null>>)) {
        for (const [k, x] of Object.entries(t)) out[`${section}.${type}.${k}`] = x;
      }
    } else for (const [k, x] of Object.entries(value as Record<string, number | null>)) out[`${section}.${k}`] = x;
  }
  return out;
}

/**
 * The headline figures of a HaluMem `overall_score`, named `<section>.<key>` as the reference names them
 * (`memory_integrity.recall(all)`, `question_answering.correct_qa_ratio(valid)`, `memory_extraction_f1`,
 * `memory_type_accuracy.Event Memory.memory_acc`, ...). Ratios carry unit `ratio` (shown as percentages with two
 * decimals, as the HaluMem paper prints them), record counts unit `count`, importance sums two decimals; the figures
 * per memory type are parts of a breakdown (`part: { of: 'memory_acc', by: 'memory type', value: 'Event Memory' }`).
 * `n` is the denominator's record count ((all): every record of the kind, (valid): the validly judged ones).
 */
export function memoryRunMetrics(overall: OverallScore): Record<string, RunMetric> {
  const mi = overall.memory_integrity;
  const ma = overall.memory_accuracy;
  const mu = overall.memory_update;
  const qa = overall.question_answering;
  const nOf = (name: string): number => {
    const valid = name.includes('(valid)');
    if (name.startsWith('memory_integrity.')) return valid ? mi.memory_valid_num : mi.memory_num;
    if (name.startsWith('memory_accuracy.interference'))
      return valid ? ma.interference_memory_valid_num : ma.interference_memory_num;
    if (name.startsWith('memory_accuracy.target')) return valid ? ma.target_memory_valid_num : ma.target_memory_num;
    if (name.startsWith('memory_accuracy.')) return valid ? ma.memory_valid_num : ma.memory_num;
    if (name.startsWith('memory_update.')) return valid ? mu.update_memory_valid_num : mu.update_memory_num;
    if (name.startsWith('question_answering.')) return valid ? qa.qa_valid_num : qa.qa_num;
    if (name.startsWith('memory_type_accuracy.')) {
      const type = name.split('.')[1] as keyof OverallScore['memory_type_accuracy'];
      return overall.memory_type_accuracy[type]?.total_num ?? 0;
    }
    return ma.target_memory_num + mi.memory_num;
  };
  const out: Record<string, RunMetric> = {};
  for (const [name, value] of Object.entries(flatten(overall))) {
    const format = name.endsWith('_num')
      ? { unit: 'count', digits: 0 }
      : name.endsWith('_sum')
        ? { unit: 'importance', digits: 2 }
        : { unit: 'ratio', digits: 2 };
    const [section, type, key] = name.split('.');
    const part =
      section === 'memory_type_accuracy' && type !== undefined && key !== undefined
        ? { part: { of: key, by: 'memory type', value: type } }
        : {};
    out[name] = { value, n: nOf(name), ...format, ...part };
  }
  return out;
}

/**
 * Every figure of {@link memoryRunMetrics} from a run's items (`runBenchmark.recompute`): HaluMem's aggregate over the
 * records the items stand for (an empty category gives null instead of raising).
 */
export function recompute(items: ReadonlyArray<RunItem>, variant?: string): Record<string, number | null> {
  return flatten(aggregateEvalResults(recordsFromItems(items.map(itemRecord)), recomputeOptions(variant)));
}

/**
 * HaluMem for `compare`, `runs` and `report`: `recompute` gives every figure of `overall_score` (but
 * `time_consuming`) from items, exactly as `aggregateEvalResults` computes them from records (an empty category
 * gives null instead of raising). The variant's `typeAccuracyExcludesInterference` is honoured.
 */
export const runBenchmark: RunBenchmark = {
  benchmark: MEMORY_BENCHMARK,
  package: '@eval/memory',
  cluster: { unit: 'user' },
  recompute: (items, variant) => recompute(items, variant),
  /** Builds each item's record once; a resample only gathers them (the aggregate reads them, never changes them). */
  prepare(items, variant) {
    const records = items.map(itemRecord);
    const options = recomputeOptions(variant);
    return (indices) => flatten(aggregateEvalResults(recordsFromItems(records, indices), options));
  },
  binary: {
    'question_answering.correct_qa_ratio(valid)': 'correct',
    'memory_update.correct_update_memory_ratio(valid)': 'update_correct',
    'memory_integrity.recall(valid)': 'recalled',
  },
};
