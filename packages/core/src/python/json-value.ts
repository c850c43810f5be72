/**
 * Python built-ins applied to values read from JSON (`json.loads` gives None, bool, int/float, str, list, dict):
 * truthiness (`bool(x)`) and `int(x)` as a result instead of an exception.
 */
import { PythonValueError, pyInt } from './str';

/** Python truthiness of a JSON value: `None`, `False`, `0`, `""`, `[]` and `{}` are false. */
export function pyTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value as object).length > 0;
  return true;
}

/** Result of {@link pyIntOfJson}: the integer, or why Python's `int()` would raise. */
export type PyIntResult = { ok: true; value: number } | { ok: false; error: string };

/**
 * Python's `int(x)` applied to a JSON value: ints pass, floats truncate toward zero, booleans give 1/0, strings
 * convert as {@link pyInt} (CPython `int(str)`: Unicode decimal digits, one sign, single underscores between digits,
 * surrounding whitespace except U+001C..U+001F); anything else (`"2.0"`, `"2|1|0"`, `None`, lists, dicts) raises,
 * given here as `{ ok: false, error }` with Python's message.
 */
export function pyIntOfJson(value: unknown): PyIntResult {
  if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, error: `cannot convert float ${value} to integer` };
    const t = Math.trunc(value);
    return { ok: true, value: t === 0 ? 0 : t };
  }
  if (typeof value === 'string') {
    try {
      const n = Number(pyInt(value));
      return { ok: true, value: n === 0 ? 0 : n };
    } catch (error) {
      if (error instanceof PythonValueError) return { ok: false, error: error.message };
      throw error;
    }
  }
  const type = value === null || value === undefined ? 'NoneType' : Array.isArray(value) ? 'list' : 'dict';
  return { ok: false, error: `int() argument must be a string, a bytes-like object or a real number, not '${type}'` };
}
