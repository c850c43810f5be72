/**
 * The reference's JSON extraction (`llm_request_for_json`) and the mapping of judge JSON to stored record fields,
 * including the failure values and Python `int()` semantics (spec §5.2, §5.3).
 */
import { PY_WHITESPACE, pyIntOfJson, pyStrip } from '@eval/core/python';

const WS = `[${PY_WHITESPACE}]*`;
/** Python `re.search(r"```json\s*(\{.*?\})\s*```", content, re.DOTALL)`, with Python's `\s`. */
const FENCED_JSON_RE = new RegExp(`\`\`\`json${WS}(\\{[\\s\\S]*?\\})${WS}\`\`\``);

export class JudgeJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JudgeJsonError';
  }
}

/**
 * Extracts the judge's JSON as the reference does: the FIRST ```` ```json ```` block whose body is a non-greedy
 * `{...}` followed by optional whitespace and the closing fence, then `json.loads`. Throws {@link JudgeJsonError}
 * when there is no block or the JSON is invalid (the reference retries in both cases).
 */
export function extractJudgeJson(content: string | null | undefined): Record<string, unknown> {
  const text = content ?? '';
  const m = FENCED_JSON_RE.exec(text);
  if (!m) throw new JudgeJsonError('No JSON block found in the response');
  let value: unknown;
  try {
    value = JSON.parse(pyStrip(m[1]!));
  } catch (error) {
    throw new JudgeJsonError(`invalid JSON in the fenced block: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new JudgeJsonError('the fenced JSON is not an object');
  }
  return value as Record<string, unknown>;
}

/** The judge fields appended to an integrity record. Failure: `memory_integrity_score: null`. */
export function integrityFields(result: Record<string, unknown> | undefined): {
  memory_integrity_score: number | null;
} {
  if (!result) return { memory_integrity_score: null };
  const score = pyIntOfJson(result.score);
  return { memory_integrity_score: score.ok ? score.value : null };
}

/**
 * The judge fields appended to an accuracy record: `int(accuracy_score)` and `is_included_in_golden_memories` kept
 * raw (default `"false"`). Failure (including an `int()` failure): `null` and `"false"`.
 */
export function accuracyFields(result: Record<string, unknown> | undefined): {
  memory_accuracy_score: number | null;
  is_included_in_golden_memories: unknown;
} {
  if (!result) return { memory_accuracy_score: null, is_included_in_golden_memories: 'false' };
  const score = pyIntOfJson(result.accuracy_score);
  if (!score.ok) return { memory_accuracy_score: null, is_included_in_golden_memories: 'false' };
  const included = Object.hasOwn(result, 'is_included_in_golden_memories')
    ? result.is_included_in_golden_memories
    : 'false';
  return { memory_accuracy_score: score.value, is_included_in_golden_memories: included };
}

/** The judge field appended to an update record: `evaluation_result`, raw. Failure: `null`. */
export function updateFields(result: Record<string, unknown> | undefined): { memory_update_type: unknown } {
  return { memory_update_type: result ? (result.evaluation_result ?? null) : null };
}

/** The judge field appended to a QA record: `evaluation_result`, raw. Failure: `null`. */
export function questionFields(result: Record<string, unknown> | undefined): { result_type: unknown } {
  return { result_type: result ? (result.evaluation_result ?? null) : null };
}
