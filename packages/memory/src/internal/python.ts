/**
 * The HaluMem reference's conventions on top of `@eval/core/python`: values read by `JSON.parse` (integral numbers
 * are ints), `int()` of a JSON value as a result, truthiness, `str.format` errors as `EvalError`s and the
 * `json.dump(..., indent=4)` number typing of its result files.
 */
import { EvalError, pythonJsonDumps as coreJsonDumps, pythonStr } from '@eval/core';
import {
  FormatError,
  PY_WHITESPACE,
  PythonValueError,
  pyInt as corePyInt,
  pyStrip,
  pythonFormat,
} from '@eval/core/python';

/** Python's whitespace and `str.strip()`: `@eval/core/python`'s (re-exported for this package's public API). */
export { PY_WHITESPACE, pyStrip };

/** Python truthiness of a JSON value: `None`, `False`, `0`, `""`, `[]` and `{}` are false. */
export function pyTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value as object).length > 0;
  return true;
}

/**
 * Python `str()` of a JSON value: strings as is, `None`/`True`/`False`, lists and dicts by `repr`. Integral numbers
 * print as ints, as JSON numbers read by `JSON.parse` lost the int/float distinction (`'guess'` in `@eval/core`).
 */
export function pyStr(value: unknown): string {
  return pythonStr(value, { numbers: 'guess' });
}

/**
 * Python `str.format(**fields)` (`@eval/core/python`'s `pythonFormat`, numbers as in {@link pyStr}). A missing field
 * or a stray brace throws an `EvalError` (`template_error`) with Python's message.
 */
export function pyFormat(template: string, fields: Record<string, unknown>): string {
  try {
    return pythonFormat(template, fields, { numbers: 'guess' });
  } catch (error) {
    if (error instanceof FormatError) throw new EvalError('template_error', error.message);
    throw error;
  }
}

/** Result of {@link pyInt}: the integer, or why Python's `int()` would raise. */
export type PyIntResult = { ok: true; value: number } | { ok: false; error: string };

/**
 * Python's `int(x)` applied to a JSON value: ints pass, floats truncate toward zero, booleans give 1/0,
 * strings convert as `@eval/core/python`'s `pyInt` (CPython `int(str)`: Unicode decimal digits, one sign, single
 * underscores between digits, surrounding whitespace except U+001C..U+001F); anything else (`"2.0"`, `"2|1|0"`, `None`, lists, dicts) raises.
 */
export function pyInt(value: unknown): PyIntResult {
  if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, error: `cannot convert float ${value} to integer` };
    const t = Math.trunc(value);
    return { ok: true, value: t === 0 ? 0 : t };
  }
  if (typeof value === 'string') {
    try {
      const n = Number(corePyInt(value));
      return { ok: true, value: n === 0 ? 0 : n };
    } catch (error) {
      if (error instanceof PythonValueError) return { ok: false, error: error.message };
      throw error;
    }
  }
  const type = value === null || value === undefined ? 'NoneType' : Array.isArray(value) ? 'list' : 'dict';
  return { ok: false, error: `int() argument must be a string, a bytes-like object or a real number, not '${type}'` };
}

/**
 * `json.dumps(value, ensure_ascii=False, indent=4)` as the reference writes its results: numbers are written as Python
 * ints when integral (below 1e16), except under the keys in `floatKeys` (and for non-integral values), which are
 * written with Python's float `repr` (`0.0`, `110.25`, `1e-05`).
 */
export function pythonJsonDumps(
  value: unknown,
  options: { indent?: number; floatKeys?: ReadonlySet<string> } = {},
): string {
  const floatKeys = options.floatKeys ?? new Set<string>();
  return coreJsonDumps(value, {
    indent: options.indent ?? 4,
    ensureAscii: false,
    numbers: (x, path) => {
      const key = path[path.length - 1];
      return (typeof key === 'string' && floatKeys.has(key)) || Math.abs(x) >= 1e16 ? 'float' : 'int';
    },
  });
}
