import { jsonSyntaxError } from '@eval/core';
import { PyFloat, PythonJsonError, parsePythonJson, pythonJsonDumps } from '@eval/core/python';

/**
 * This package's convention on top of `@eval/core`'s Python JSON: plain JS numbers are Python ints when integral,
 * floats are marked with {@link PyFloat}; files are read into plain objects with plain numbers.
 */
export { PyFloat };

export type PyJsonValue = null | boolean | string | number | PyFloat | PyJsonValue[] | { [key: string]: PyJsonValue };

export interface PyDumpsOptions {
  /** `indent=` of `json.dumps`: pretty-prints with `","` item separators (as Python does when indent is set). */
  indent?: number;
}

/** `json.dumps(value)` (or with `indent`) exactly as CPython writes it; integral plain numbers are ints. */
export function pyDumps(value: PyJsonValue, options: PyDumpsOptions = {}): string {
  return pythonJsonDumps(value, { indent: options.indent, numbers: 'int' });
}

/**
 * Parses JSON as Python's `json.loads` does (also `NaN`, `Infinity`, `-Infinity`; a leading BOM is skipped) into plain
 * objects and numbers. Key order is kept as written, except that JS orders integer-like keys first. Errors are
 * `@eval/core`'s JSON syntax errors (`jsonSyntaxError`): file, line, column and what was expected.
 */
export function parsePyJson(text: string, file?: string): unknown {
  try {
    return parsePythonJson(text, { ints: 'number', objects: 'object', bom: 'skip' });
  } catch (error) {
    if (!(error instanceof PythonJsonError)) throw error;
    throw jsonSyntaxError(error, text, { file });
  }
}
