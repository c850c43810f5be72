import { isPyDict, parsePythonJson, pythonStr, PY_WHITESPACE } from '@eval/core/python';

/** Color → weight, both as strings, in insertion order (e.g. `red → "10"`). */
export type Weights = Map<string, string>;

/** Anything that can be read as {@link Weights}: a `Map`, a plain object or `[key, value]` pairs. */
export type WeightsInput =
  | ReadonlyMap<string, string>
  | Readonly<Record<string, string>>
  | Iterable<readonly [string, string]>;

/** Copies a {@link WeightsInput} into a fresh {@link Weights} map. */
export function toWeights(input: WeightsInput): Weights {
  if (input instanceof Map) return new Map(input);
  if (typeof (input as Iterable<unknown>)[Symbol.iterator] === 'function') {
    return new Map(input as Iterable<readonly [string, string]>);
  }
  return new Map(Object.entries(input as Record<string, string>));
}

/** `_|\s|block` of a Python `str` pattern: `\s` is every character for which `str.isspace()` is true. */
const KEY_SPLIT = new RegExp(`_|[${PY_WHITESPACE}]|block`);

/**
 * The reference's key normalisation, `re.split(r"_|\s|block", k)[0].lower()`: the text before the first `_`,
 * whitespace character or lowercase `block`, lowercased. `"Yellow Block"` → `yellow`, `"RedBlock"` → `redblock`,
 * `"dark blue"` → `dark`, `"block red"` → `""`.
 */
export function normalizeKey(key: string): string {
  const at = key.search(KEY_SPLIT);
  return (at < 0 ? key : key.slice(0, at)).toLowerCase();
}

/** Why a prediction text could not be read as the answer's JSON object. */
export type InvalidPredictionReason = 'not_json' | 'not_object' | 'not_text';

export type ParsedPrediction =
  | { ok: true; weights: Weights }
  | { ok: false; reason: InvalidPredictionReason; message: string };

/**
 * Parses one answer as the reference does: `json.loads(text)`, then `{norm(k): str(v)}` in key order (a later key
 * that normalises to the same color overwrites the value, keeping the first position). Values are rendered with
 * Python's `str()` (`10` → `"10"`, `10.0` → `"10.0"`, `true` → `"True"`, lists and dicts as Python reprs).
 * A text that is not JSON, or JSON that is not an object, is reported as invalid (the reference crashes later).
 */
export function parsePrediction(text: string | null | undefined): ParsedPrediction {
  if (typeof text !== 'string') return { ok: false, reason: 'not_text', message: 'the answer text is null' };
  let value;
  try {
    value = parsePythonJson(text);
  } catch (error) {
    return { ok: false, reason: 'not_json', message: `the answer is not JSON (${(error as Error).message})` };
  }
  if (!isPyDict(value)) {
    const kind =
      value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'string' ? 'a string' : 'a scalar';
    return { ok: false, reason: 'not_object', message: `the answer is JSON but ${kind}, not an object` };
  }
  const weights: Weights = new Map();
  for (const [k, v] of value) weights.set(normalizeKey(k), pythonStr(v));
  return { ok: true, weights };
}

/**
 * Reads a recorded `gold` list (`["blue=10", "red=10"]`) as the reference does: `{s.split("=")[0]: s.split("=")[1]}`.
 * Returns the index of the first item without `=` (the reference raises `IndexError` on it) instead of weights.
 */
export function parseGoldList(items: readonly string[]): { ok: true; weights: Weights } | { ok: false; index: number } {
  const weights: Weights = new Map();
  for (let i = 0; i < items.length; i++) {
    const parts = items[i]!.split('=');
    if (parts.length < 2) return { ok: false, index: i };
    weights.set(parts[0]!, parts[1]!);
  }
  return { ok: true, weights };
}
