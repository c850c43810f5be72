/**
 * This package's binding of `@eval/core/python` to the HaluMem reference's conventions: values read by `JSON.parse`
 * (integral numbers print as ints), `str.format` errors as `EvalError`s and the `json.dump(..., indent=4)` number
 * typing of its result files. Every Python behaviour itself is core's.
 */
import { EvalError } from '@eval/core';
import { pythonJsonDumps as coreJsonDumps, pythonStr, FormatError, pythonFormat } from '@eval/core/python';

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
