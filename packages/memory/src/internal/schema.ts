/**
 * zod schemas of the HaluMem dataset (HaluMem-Medium / -Long JSONL, one user per line), of the run artifact a memory
 * system produces (HaluMem's `<frame>_eval_results.jsonl`) and of judged records / result files.
 *
 * All objects are "loose": unknown keys (adapter extras, dataset fields this package does not read) pass through.
 * Readers validate with these schemas but keep the original objects, so records keep every field in its original
 * order, as the reference's `copy.deepcopy` does.
 */
import { z } from 'zod';
import { pyTruthy } from '@eval/core/python';

export const MEMORY_TYPES = ['Event Memory', 'Persona Memory', 'Relationship Memory'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const MEMORY_SOURCES = ['system', 'secondary', 'interference', 'primary'] as const;

export const QUESTION_TYPES = [
  'Basic Fact Recall',
  'Multi-hop Inference',
  'Dynamic Update',
  'Memory Boundary',
  'Generalization & Application',
  'Memory Conflict',
] as const;

export const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;

export const UPDATE_LABELS = ['Correct', 'Hallucination', 'Omission', 'Other'] as const;
export const QA_LABELS = ['Correct', 'Hallucination', 'Omission'] as const;

// ---------------------------------------------------------------------------------------------------------------
// Dataset
// ---------------------------------------------------------------------------------------------------------------

export const turnSchema = z.looseObject({
  role: z.string(),
  content: z.string(),
  timestamp: z.string(),
  dialogue_turn: z.number().int().optional(),
});
export type Turn = z.output<typeof turnSchema>;

/**
 * A dataset turn. HaluMem-Long's inserted unrelated QA turns only get a timestamp when a neighbouring turn has one
 * (`stage6_3_final_result_long.py`), so it is optional here (a run artifact's judged sessions need it).
 */
export const datasetTurnSchema = turnSchema.extend({ timestamp: z.string().optional() });
export type DatasetTurn = z.output<typeof datasetTurnSchema>;

export const evidenceSchema = z.looseObject({
  memory_content: z.string(),
  memory_type: z.string().optional(),
});
export type Evidence = z.output<typeof evidenceSchema>;

/**
 * A memory point. `is_update` is a STRING ("True"/"False") in HaluMem; booleans are accepted but, as in the reference,
 * only the string "True" routes a point to the update judge (unless `routing: 'corrected'`).
 */
export const memoryPointSchema = z.looseObject({
  index: z.number().int().optional(),
  memory_content: z.string(),
  memory_type: z.string(),
  memory_source: z.string(),
  is_update: z.union([z.string(), z.boolean()]),
  original_memories: z.array(z.string()).optional(),
  timestamp: z.string().optional(),
  importance: z.number(),
});
export type MemoryPoint = z.output<typeof memoryPointSchema>;

/** The dataset's memory point, with HaluMem's closed vocabularies enforced. */
export const datasetMemoryPointSchema = memoryPointSchema.extend({
  memory_type: z.enum(MEMORY_TYPES),
  memory_source: z.enum(MEMORY_SOURCES),
  is_update: z.union([z.enum(['True', 'False']), z.boolean()]),
  original_memories: z.array(z.string()),
});

export const questionSchema = z.looseObject({
  question: z.string(),
  answer: z.string(),
  evidence: z.array(evidenceSchema),
  difficulty: z.string().optional(),
  question_type: z.string().optional(),
});
export type Question = z.output<typeof questionSchema>;

export const datasetQuestionSchema = questionSchema.extend({
  difficulty: z.enum(DIFFICULTIES),
  question_type: z.enum(QUESTION_TYPES),
});

export const datasetSessionSchema = z.looseObject({
  // null for a HaluMem-Long distractor session whose neighbours had no times
  start_time: z.string().nullable().optional(),
  end_time: z.string().nullable().optional(),
  memory_points: z.array(datasetMemoryPointSchema),
  dialogue: z.array(datasetTurnSchema),
  questions: z.array(datasetQuestionSchema).optional(),
  is_generated_qa_session: z.boolean().optional(),
  session_id: z.union([z.string(), z.number()]).optional(),
});
export type DatasetSession = z.output<typeof datasetSessionSchema>;

export const datasetUserSchema = z.looseObject({
  uuid: z.string(),
  persona_info: z.string(),
  sessions: z.array(datasetSessionSchema),
});
export type DatasetUser = z.output<typeof datasetUserSchema>;

/** The persona name, as the HaluMem adapters take it: `r'Name:\s*(.*?); Gender:'`. */
export function personaName(personaInfo: string): string | undefined {
  const m = /Name:\s*([\s\S]*?); Gender:/.exec(personaInfo);
  return m ? m[1] : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Run artifact (input of the judges)
// ---------------------------------------------------------------------------------------------------------------

/** A memory point in the run artifact: update points carry the system's top search results. */
export const artifactMemoryPointSchema = memoryPointSchema.extend({
  memories_from_system: z.array(z.string()).optional(),
});
export type ArtifactMemoryPoint = z.output<typeof artifactMemoryPointSchema>;

/** A question in the run artifact: the system's answer and the context it answered from. */
export const artifactQuestionSchema = questionSchema.extend({
  system_response: z.string().nullable(),
  context: z.string().nullable().optional(),
  search_duration_ms: z.number().optional(),
  response_duration_ms: z.number().optional(),
});
export type ArtifactQuestion = z.output<typeof artifactQuestionSchema>;

export const artifactSessionSchema = z.looseObject({
  memory_points: z.array(artifactMemoryPointSchema),
  dialogue: z.array(turnSchema),
  extracted_memories: z.array(z.string()),
  add_dialogue_duration_ms: z.number().optional(),
  questions: z.array(artifactQuestionSchema).optional(),
});
export type ArtifactSession = z.output<typeof artifactSessionSchema>;

/** A HaluMem-Long distractor session: only its add time is recorded; it is never judged. */
export const artifactGeneratedQaSessionSchema = z.looseObject({
  is_generated_qa_session: z.literal(true),
  add_dialogue_duration_ms: z.number().optional(),
});

/**
 * A session is skipped by the judges when `is_generated_qa_session` is truthy (Python truthiness, as
 * `session.get('is_generated_qa_session', False)`); otherwise it must be a full session.
 */
export const artifactAnySessionSchema = z.unknown().superRefine((value, ctx) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: 'expected a session object' });
    return;
  }
  if (pyTruthy((value as Record<string, unknown>).is_generated_qa_session)) {
    const duration = (value as Record<string, unknown>).add_dialogue_duration_ms;
    if (duration !== undefined && typeof duration !== 'number') {
      ctx.addIssue({ code: 'custom', path: ['add_dialogue_duration_ms'], message: 'expected a number' });
    }
    return;
  }
  const r = artifactSessionSchema.safeParse(value);
  if (!r.success)
    for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
});

export const runArtifactUserSchema = z.looseObject({
  uuid: z.string(),
  user_name: z.string(),
  sessions: z.array(artifactAnySessionSchema),
});
/** One line of a run artifact. Sessions are either {@link ArtifactSession}s or generated-QA distractor sessions. */
export interface RunArtifactUser {
  uuid: string;
  user_name: string;
  sessions: Array<ArtifactSession | (Record<string, unknown> & { is_generated_qa_session: unknown })>;
  [extra: string]: unknown;
}

// ---------------------------------------------------------------------------------------------------------------
// Judged records and result files
// ---------------------------------------------------------------------------------------------------------------

/** Fields every judged record may carry besides its own. */
export interface RecordCommon {
  uuid?: string;
  ssession_id?: number;
  /** Set by the aggregation, as the reference does. */
  is_valid?: boolean;
  [field: string]: unknown;
}

/** Integrity record: the golden point's fields, `uuid`, `ssession_id`, then `memory_integrity_score` (null = failed). */
export const integrityRecordSchema = z.looseObject({
  memory_source: z.string(),
  memory_type: z.string(),
  importance: z.number(),
  memory_integrity_score: z.number().nullable(),
});
export interface IntegrityRecord extends RecordCommon {
  memory_content?: string;
  memory_source: string;
  memory_type: string;
  importance: number;
  memory_integrity_score: number | null;
}

/** Accuracy record: `{uuid, ssession_id, memory_content, memory_accuracy_score, is_included_in_golden_memories}`. */
export const accuracyRecordSchema = z.looseObject({
  memory_accuracy_score: z.number().nullable(),
  is_included_in_golden_memories: z.unknown(),
});
export interface AccuracyRecord extends RecordCommon {
  memory_content?: string;
  memory_accuracy_score: number | null;
  /** Kept raw, as the judge wrote it: only the strings "true"/"True" count as included. */
  is_included_in_golden_memories: unknown;
}

/** Update record: the golden update point's fields, `uuid`, `ssession_id`, then `memory_update_type` (raw judge label). */
export const updateRecordSchema = z.looseObject({
  memory_type: z.string().optional(),
  importance: z.number().optional(),
  memory_update_type: z.unknown(),
});
export interface UpdateRecord extends RecordCommon {
  memory_content?: string;
  memory_type?: string;
  importance?: number;
  /** The judge's raw label: valid when one of {@link UPDATE_LABELS}. */
  memory_update_type: unknown;
}

/** QA record: the question's fields, `uuid`, `ssession_id`, then `result_type` (raw judge label). */
export const qaRecordSchema = z.looseObject({
  question_type: z.string().optional(),
  difficulty: z.string().optional(),
  result_type: z.unknown(),
});
export interface QaRecord extends RecordCommon {
  question?: string;
  answer?: string;
  question_type?: string;
  difficulty?: string;
  /** The judge's raw label: valid when one of {@link QA_LABELS}. */
  result_type: unknown;
}

/** The four record lists of one user (HaluMem's `tmp2/<uuid>.json`) or of a pooled result file. */
export const evalRecordsSchema = z.looseObject({
  memory_integrity_records: z.array(integrityRecordSchema).optional(),
  memory_accuracy_records: z.array(accuracyRecordSchema).optional(),
  memory_update_records: z.array(updateRecordSchema).optional(),
  question_answering_records: z.array(qaRecordSchema).optional(),
});

export interface EvalRecords {
  memory_integrity_records: IntegrityRecord[];
  memory_accuracy_records: AccuracyRecord[];
  memory_update_records: UpdateRecord[];
  question_answering_records: QaRecord[];
}

export const RECORD_KEYS = [
  'memory_integrity_records',
  'memory_accuracy_records',
  'memory_update_records',
  'question_answering_records',
] as const;
