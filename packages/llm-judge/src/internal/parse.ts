import { PythonJsonError } from '@eval/core/python';
import { parseJsonPy } from './json';
import { evalPythonLiteral, PythonEvalError } from './python';
import { PyDict, PySet, PyTuple, type PyValue, typeName } from './python';

/** How an output was parsed (the names used by `parse_cases.json`). */
export type ParsedVia =
  | 'fenced_json_block'
  | 'python_literal_eval'
  | 'fenced_json_block_of_lowercased_text'
  | 'python_eval_lowercased';

/**
 * What the reference does with an output it cannot use: `skip` = the turn is left out ("parsed error"),
 * `crash` = the reference script raises (no result at all).
 */
export type ParseFailureOutcome = 'skip' | 'crash';

export interface ParseFailure {
  ok: false;
  outcome: ParseFailureOutcome;
  reason: string;
  via?: ParsedVia;
}

const FENCE_RE = /```json([\s\S]*?)```/g;

/**
 * `extract_json_from_string`: the LAST ```` ```json ```` fenced block, decoded with `json.loads` semantics.
 * `undefined` when there is no fence or the block is not valid JSON (the reference's `None`).
 */
export function extractJsonFromString(text: string): { value?: PyValue; reason?: string } {
  const blocks = [...text.matchAll(FENCE_RE)];
  if (blocks.length === 0) return { reason: 'no ```json fenced block' };
  const last = blocks[blocks.length - 1]![1]!;
  try {
    return { value: parseJsonPy(last) };
  } catch (error) {
    if (error instanceof PythonJsonError) return { reason: `invalid JSON in the last fenced block (${error.message})` };
    throw error;
  }
}

function tryEval(text: string): { value?: PyValue; reason?: string } {
  try {
    return { value: evalPythonLiteral(text) };
  } catch (error) {
    if (error instanceof PythonEvalError) return { reason: error.message };
    throw error;
  }
}

/** `x[key]` on a parsed output, with the reference's failure (a `TypeError`/`KeyError` crash). */
function getKey(x: PyValue, key: string): { value?: PyValue; reason?: string } {
  if (!(x instanceof PyDict))
    return { reason: `output is a ${typeName(x)}, not an object (TypeError in the reference)` };
  if (!x.has(key)) return { reason: `output has no "${key}" (KeyError in the reference)` };
  return { value: x.get(key) };
}

/** Python `for k in value` over a container: dict keys, list/tuple/set items, string characters. */
function iterate(value: PyValue): PyValue[] | undefined {
  if (value instanceof PyDict) return value.keys();
  if (Array.isArray(value)) return value;
  if (value instanceof PyTuple || value instanceof PySet) return value.items;
  if (typeof value === 'string') return [...value];
  return undefined;
}

export type AccuracyParse =
  | {
      ok: true;
      via: ParsedVia;
      value: PyValue;
      /** The incorrect slots kept: keys of `incorrect_domain_slot` that are in the predicted turn label. */
      incorrect: string[];
    }
  | ParseFailure;

/**
 * Parses a two-step accuracy output (`parser_acc_result.py`): Python `eval` of the raw text first (handles the
 * placeholder dict and bare JSON objects), else the last fenced JSON block; then keeps the keys of
 * `incorrect_domain_slot` found in the predicted turn label (exact, case-sensitive, no schema check, values
 * ignored). Every failure crashes the reference.
 */
export function parseAccuracyOutput(raw: string, predictTurnLabel: ReadonlyMap<string, string>): AccuracyParse {
  let via: ParsedVia = 'python_literal_eval';
  let parsed = tryEval(raw);
  if (parsed.value === undefined) {
    via = 'fenced_json_block';
    const evalReason = parsed.reason;
    parsed = extractJsonFromString(raw);
    if (parsed.value === undefined) {
      return { ok: false, outcome: 'crash', reason: `not a Python literal (${evalReason}) and ${parsed.reason}`, via };
    }
  }
  const g = parsed.value!;
  if (g === null) return { ok: false, outcome: 'crash', reason: 'output is None (TypeError in the reference)', via };
  const slots = getKey(g, 'incorrect_domain_slot');
  if (slots.value === undefined) return { ok: false, outcome: 'crash', reason: slots.reason!, via };
  if (!(slots.value instanceof PyDict)) {
    return {
      ok: false,
      outcome: 'crash',
      reason: `"incorrect_domain_slot" is a ${typeName(slots.value)}, not an object (AttributeError in the reference)`,
      via,
    };
  }
  const incorrect: string[] = [];
  for (const k of slots.value.keys())
    if (typeof k === 'string' && predictTurnLabel.has(k) && !incorrect.includes(k)) incorrect.push(k);
  return { ok: true, via, value: g, incorrect };
}

export type CompletenessParse =
  | {
      ok: true;
      via: ParsedVia;
      value: PyValue;
      /** `missed_domain_slot` as (slot, reported value) pairs, lower-cased, in output order. */
      missed: Array<[PyValue, PyValue]>;
    }
  | ParseFailure;

/**
 * Parses a two-step completeness output (`analyze/parser.py`): the whole text is lower-cased, then the last
 * fenced JSON block is decoded. No block / invalid JSON: the reference skips the turn. A missing or non-object
 * `missed_domain_slot` crashes it.
 */
export function parseCompletenessOutput(raw: string): CompletenessParse {
  const via: ParsedVia = 'fenced_json_block_of_lowercased_text';
  const x = extractJsonFromString(raw.toLowerCase());
  if (x.value === undefined || x.value === null)
    return { ok: false, outcome: 'skip', reason: x.reason ?? 'the fenced block is null', via };
  const missed = getKey(x.value, 'missed_domain_slot');
  if (missed.value === undefined) return { ok: false, outcome: 'crash', reason: missed.reason!, via };
  if (!(missed.value instanceof PyDict)) {
    return {
      ok: false,
      outcome: 'crash',
      reason: `"missed_domain_slot" is a ${typeName(missed.value)}, not an object (AttributeError in the reference)`,
      via,
    };
  }
  return { ok: true, via, value: x.value, missed: missed.value.items() };
}

export type SingleStepParse =
  | {
      ok: true;
      via: ParsedVia;
      value: PyValue;
      /** What iterating `incorrect_domain_slot` yields (dict keys, list items, ...), lower-cased. */
      incorrect: PyValue[];
      missed: Array<[PyValue, PyValue]>;
    }
  | ParseFailure;

/**
 * Parses a single-step output (`turn_level_judge.py`): lower-cased; without a ```` ```json ```` fence it is
 * `eval`ed (failure: the reference uses `{}` and crashes on the missing key); otherwise the last fenced block
 * (invalid: the turn is skipped). `incorrect_domain_slot` is iterated, `missed_domain_slot` must be an object.
 */
export function parseSingleStepOutput(raw: string): SingleStepParse {
  const s = raw.toLowerCase();
  let via: ParsedVia;
  let x: PyValue;
  if (!s.includes('```json')) {
    via = 'python_eval_lowercased';
    const r = tryEval(s);
    if (r.value === undefined)
      return {
        ok: false,
        outcome: 'crash',
        reason: `no fenced block and not a Python literal (${r.reason}); the reference then fails with KeyError`,
        via,
      };
    x = r.value;
  } else {
    via = 'fenced_json_block_of_lowercased_text';
    const r = extractJsonFromString(s);
    if (r.value === undefined || r.value === null)
      return { ok: false, outcome: 'skip', reason: r.reason ?? 'the fenced block is null', via };
    x = r.value;
  }
  if (x === null) return { ok: false, outcome: 'crash', reason: 'output is None (TypeError in the reference)', via };
  const inc = getKey(x, 'incorrect_domain_slot');
  if (inc.value === undefined) return { ok: false, outcome: 'crash', reason: inc.reason!, via };
  const incorrect = iterate(inc.value);
  if (!incorrect)
    return {
      ok: false,
      outcome: 'crash',
      reason: `"incorrect_domain_slot" is a ${typeName(inc.value)} (not iterable: TypeError in the reference)`,
      via,
    };
  const mis = getKey(x, 'missed_domain_slot');
  if (mis.value === undefined) return { ok: false, outcome: 'crash', reason: mis.reason!, via };
  if (!(mis.value instanceof PyDict)) {
    return {
      ok: false,
      outcome: 'crash',
      reason: `"missed_domain_slot" is a ${typeName(mis.value)}, not an object (AttributeError in the reference)`,
      via,
    };
  }
  return { ok: true, via, value: x, incorrect, missed: mis.value.items() };
}
