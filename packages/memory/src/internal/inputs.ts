/**
 * Judge inputs, built exactly as HaluMem's `process_user` builds them (spec §4), and the judge prompts rendered from
 * them with Python `str.format` semantics.
 */
import { InputError } from '@eval/core';
import {
  EVALUATION_PROMPT_FOR_MEMORY_ACCURACY,
  EVALUATION_PROMPT_FOR_MEMORY_INTEGRITY,
  EVALUATION_PROMPT_FOR_QUESTION,
  EVALUATION_PROMPT_FOR_UPDATE_MEMORY,
} from './judge-prompts.generated';
import { pyStrip, pyTruthy } from '@eval/core/python';
import { pyFormat, pyStr } from './python';
import type { ArtifactMemoryPoint, ArtifactQuestion, ArtifactSession, RunArtifactUser } from './schema';

export type JudgeKind = 'integrity' | 'accuracy' | 'update' | 'question';

/**
 * How golden memory points are routed between the integrity and the update judge.
 * - `reference` (default): HaluMem's rule, `is_update == "True" and memories_from_system` non-empty → update judge,
 *   everything else (including update points the system returned no search results for) → integrity judge.
 * - `corrected`: every update point (`is_update` "True"/"true"/true with non-empty `original_memories`, the points the
 *   adapters search for) → update judge; one with no search results is recorded as "Omission" without an LLM call
 *   (the analogue of the reference's "empty extraction → integrity 0" shortcut). Other points → integrity judge.
 */
export type Routing = 'reference' | 'corrected';

export interface BuildOptions {
  routing?: Routing;
}

interface InputBase {
  /** Stable id within the user, e.g. `integrity/s0/m3` (session enumerate index, position in its list). */
  id: string;
  /** The record the judge fields are appended to (a deep copy of the point/question plus `uuid`, `ssession_id`). */
  record: Record<string, unknown>;
}

export interface IntegrityInput extends InputBase {
  kind: 'integrity';
  /** `"\n".join(extracted_memories)` of the session. */
  memories: string;
  /** `memories.strip() == ""`: the reference stores score 0 without an LLM call. */
  emptyExtraction: boolean;
}

export interface AccuracyInput extends InputBase {
  kind: 'accuracy';
  dialogue: string;
  goldenMemories: string;
}

export interface UpdateInput extends InputBase {
  kind: 'update';
  /** Only with `routing: 'corrected'`: no search results, recorded as "Omission" without a call. */
  emptyRetrieval: boolean;
}

export interface QuestionInput extends InputBase {
  kind: 'question';
}

export type JudgeInput = IntegrityInput | AccuracyInput | UpdateInput | QuestionInput;

export interface JudgeInputs {
  uuid: string;
  userName: string;
  integrity: IntegrityInput[];
  accuracy: AccuracyInput[];
  update: UpdateInput[];
  question: QuestionInput[];
  /** Sessions skipped as HaluMem-Long generated-QA distractor sessions. */
  skippedSessions: number;
}

/** Counts in the shape of the project's `rendered_prompt_examples.json`. */
export function judgeInputCounts(inputs: JudgeInputs): {
  integrity_inputs: number;
  integrity_inputs_skipped_empty_extracted: number;
  accuracy_inputs: number;
  update_inputs: number;
  qa_inputs: number;
} {
  return {
    integrity_inputs: inputs.integrity.length,
    integrity_inputs_skipped_empty_extracted: inputs.integrity.filter((i) => i.emptyExtraction).length,
    accuracy_inputs: inputs.accuracy.length,
    update_inputs: inputs.update.length,
    qa_inputs: inputs.question.length,
  };
}

/**
 * The dialogue string shown to the accuracy judge: `[timestamp]role: content` per turn, "\n"-joined, with an empty
 * line after every assistant turn.
 */
export function renderDialogue(dialogue: ReadonlyArray<{ role: string; content: string; timestamp?: string }>): string {
  const lines: string[] = [];
  for (const turn of dialogue) {
    lines.push(`[${pyStr(turn.timestamp)}]${pyStr(turn.role)}: ${pyStr(turn.content)}`);
    if (turn.role === 'assistant') lines.push('');
  }
  return lines.join('\n');
}

/** The golden memories shown to the accuracy judge: the session's non-interference points, "\n"-joined. */
export function renderGoldenMemories(
  points: ReadonlyArray<Pick<ArtifactMemoryPoint, 'memory_content' | 'memory_source'>>,
): string {
  return points
    .filter((m) => m.memory_source !== 'interference')
    .map((m) => m.memory_content)
    .join('\n');
}

function isUpdateFlag(value: unknown): boolean {
  return value === true || value === 'True' || value === 'true';
}

/** Whether the point goes to the update judge under `routing`. */
export function routesToUpdate(point: ArtifactMemoryPoint, routing: Routing = 'reference'): boolean {
  if (routing === 'reference') return point.is_update === 'True' && pyTruthy(point.memories_from_system ?? []);
  return isUpdateFlag(point.is_update) && (point.original_memories?.length ?? 0) > 0;
}

function deepCopy<T>(value: T): T {
  return structuredClone(value);
}

/** True for the HaluMem-Long distractor sessions the judges skip (`session.get('is_generated_qa_session', False)`). */
export function isGeneratedQaSession(session: unknown): boolean {
  return pyTruthy((session as Record<string, unknown>)?.is_generated_qa_session);
}

/**
 * Builds the four judge inputs of one user as `process_user` does: sessions by enumerate index (`ssession_id`,
 * distractor sessions skipped but still counted), golden points routed to the integrity or update judge, one accuracy
 * input per extracted memory, one QA input per question.
 */
export function buildJudgeInputs(user: RunArtifactUser, options: BuildOptions = {}): JudgeInputs {
  const routing = options.routing ?? 'reference';
  const out: JudgeInputs = {
    uuid: user.uuid,
    userName: user.user_name,
    integrity: [],
    accuracy: [],
    update: [],
    question: [],
    skippedSessions: 0,
  };
  user.sessions.forEach((raw, sid) => {
    if (isGeneratedQaSession(raw)) {
      out.skippedSessions++;
      return;
    }
    const session = raw as ArtifactSession;
    const golden = session.memory_points;
    const extracted = session.extracted_memories;
    const memories = extracted.join('\n');
    const emptyExtraction = pyStrip(memories) === '';
    golden.forEach((m, j) => {
      const record = { ...deepCopy(m), uuid: user.uuid, ssession_id: sid } as Record<string, unknown>;
      if (routesToUpdate(m, routing)) {
        const emptyRetrieval = !pyTruthy(m.memories_from_system ?? []);
        out.update.push({ kind: 'update', id: `update/s${sid}/m${j}`, record, emptyRetrieval });
      } else {
        out.integrity.push({ kind: 'integrity', id: `integrity/s${sid}/m${j}`, record, memories, emptyExtraction });
      }
    });
    const dialogue = renderDialogue(session.dialogue);
    const goldenMemories = renderGoldenMemories(golden);
    extracted.forEach((mem, j) => {
      out.accuracy.push({
        kind: 'accuracy',
        id: `accuracy/s${sid}/e${j}`,
        record: { uuid: user.uuid, ssession_id: sid, memory_content: mem },
        dialogue,
        goldenMemories,
      });
    });
    if (session.questions !== undefined) {
      session.questions.forEach((qa, j) => {
        const record = { ...deepCopy(qa), uuid: user.uuid, ssession_id: sid } as Record<string, unknown>;
        out.question.push({ kind: 'question', id: `question/s${sid}/q${j}`, record });
      });
    }
  });
  return out;
}

/** Renders the integrity prompt (`memories`, `expected_memory_point`). */
export function integrityPrompt(memories: string, expectedMemoryPoint: string): string {
  return pyFormat(EVALUATION_PROMPT_FOR_MEMORY_INTEGRITY, { memories, expected_memory_point: expectedMemoryPoint });
}

/** Renders the accuracy prompt (`dialogue`, `golden_memories`, `candidate_memory`). */
export function accuracyPrompt(dialogue: string, goldenMemories: string, candidateMemory: string): string {
  return pyFormat(EVALUATION_PROMPT_FOR_MEMORY_ACCURACY, {
    dialogue,
    golden_memories: goldenMemories,
    candidate_memory: candidateMemory,
  });
}

/** Renders the update prompt (`memories`, `updated_memory`, `original_memory`). */
export function updatePrompt(memories: string, updatedMemory: string, originalMemory: string): string {
  return pyFormat(EVALUATION_PROMPT_FOR_UPDATE_MEMORY, {
    memories,
    updated_memory: updatedMemory,
    original_memory: originalMemory,
  });
}

/** Renders the question-answering prompt (`question`, `reference_answer`, `key_memory_points`, `response`). */
export function questionPrompt(
  question: string,
  referenceAnswer: string,
  keyMemoryPoints: string,
  response: unknown,
): string {
  return pyFormat(EVALUATION_PROMPT_FOR_QUESTION, {
    question,
    reference_answer: referenceAnswer,
    key_memory_points: keyMemoryPoints,
    response,
  });
}

function stringList(record: Record<string, unknown>, key: string, input: JudgeInput): string[] {
  const value = record[key];
  if (value === undefined && key === 'memories_from_system') return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new InputError(`expected a list of strings (the reference would fail on "\\n".join)`, {
      record: `${record.uuid}:${input.id}`,
      field: [key],
    });
  }
  return value as string[];
}

/** The prompt the judge is sent for `input` (exactly the reference's string). */
export function renderJudgePrompt(input: JudgeInput): string {
  const r = input.record;
  switch (input.kind) {
    case 'integrity':
      return integrityPrompt(input.memories, r.memory_content as string);
    case 'accuracy':
      return accuracyPrompt(input.dialogue, input.goldenMemories, r.memory_content as string);
    case 'update':
      return updatePrompt(
        stringList(r, 'memories_from_system', input).join('\n'),
        r.memory_content as string,
        stringList(r, 'original_memories', input).join('\n'),
      );
    case 'question': {
      const q = r as unknown as ArtifactQuestion;
      return questionPrompt(
        q.question,
        q.answer,
        q.evidence.map((e) => e.memory_content).join('\n'),
        q.system_response,
      );
    }
  }
}
