import { InputError, PyFloat, PythonJsonError, parsePythonJson, pythonJsonDumps } from '@eval/core';

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
 * {@link InputError}s naming the file, line and column.
 */
export function parsePyJson(text: string, file?: string): unknown {
  try {
    return parsePythonJson(text, { ints: 'number', objects: 'object', bom: 'skip' });
  } catch (error) {
    if (!(error instanceof PythonJsonError)) throw error;
    throw new InputError(`invalid JSON (${describeError(error, text)} at line ${error.lineno} column ${error.colno})`, {
      file,
      code: 'invalid_json',
      cause: error,
    });
  }
}

function describeError(error: PythonJsonError, text: string): string {
  if (error.msg === 'Extra data') return 'unexpected data after the JSON value';
  if (error.msg === 'Expecting value') {
    return error.position < text.length ? `unexpected character ${JSON.stringify(text[error.position])}` : 'unexpected end of input';
  }
  return error.msg.charAt(0).toLowerCase() + error.msg.slice(1);
}
