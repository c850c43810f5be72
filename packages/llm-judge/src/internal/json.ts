import { parsePythonJson, pythonJsonDumps } from '@eval/core/python';
import { PyDict, PyOpaque, PySet, PyTuple, type PyValue } from './python';

/**
 * Python's `json.loads` (`parsePythonJson` of `@eval/core`) into this package's value model: objects become
 * insertion-ordered {@link PyDict}s (duplicate keys keep the last value at the first position), numbers are JS numbers.
 * Syntax errors are `PythonJsonError`s (from `@eval/core`) with Python's message and position.
 */
export function parseJsonPy(text: string): PyValue {
  return parsePythonJson(text, { ints: 'number', objects: pairsToDict }) as PyValue;
}

function pairsToDict(pairs: Array<[string, unknown]>): PyDict {
  const d = new PyDict();
  for (const [k, v] of pairs) d.set(k, v as PyValue);
  return d;
}

/**
 * Serialises to JSON in `JSON.stringify`'s layout (`indent` 0: compact, `,` and `:`; otherwise `indent` spaces per
 * level), keeping the insertion order of `Map`s and {@link PyDict}s (plain objects keep JavaScript's order), non-ASCII
 * text as is, `NaN`/`Infinity` as Python writes them and numbers as Python does (integral -> int, else float repr).
 * Tuples and sets become arrays, other values their `toJSON()` or own properties.
 */
export function stringifyJson(value: unknown, indent = 0): string {
  return pythonJsonDumps(value, {
    indent: indent > 0 ? indent : undefined,
    separators: indent > 0 ? [',', ': '] : [',', ':'],
    ensureAscii: false,
    numbers: 'guess',
    default: toJsonable,
  });
}

function toJsonable(v: unknown): unknown {
  if (v instanceof PyTuple || v instanceof PySet) return v.items;
  if (v instanceof PyOpaque) return v.text;
  if (v instanceof PyDict) return new Map(v.items());
  if (typeof v !== 'object' || v === null) return null; // functions, symbols: as JSON.stringify in a list
  const toJSON = (v as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON === 'function') return toJSON.call(v);
  return Object.fromEntries(Object.entries(v));
}
