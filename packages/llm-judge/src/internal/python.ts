/**
 * This package's binding of `@eval/core/python`: the reference's values come from `json.loads`/`eval` read without
 * the int/float distinction, so integral numbers print as ints (`numbers: 'guess'`). Everything else is core's.
 */
import {
  type PythonReprOptions,
  pythonFormat as corePythonFormat,
  pythonRepr as corePythonRepr,
} from '@eval/core/python';

export {
  FormatError,
  parseFormatString,
  evalPythonLiteral,
  PythonEvalError,
  type PythonLiteralOptions,
  PyLiteralDict as PyDict,
  PyOpaque,
  PySet,
  PyTuple,
  PyTypeError,
  type PyLiteral as PyValue,
  pythonTypeName as typeName,
  pythonHashKey as hashKey,
  literalToPlain as toPlain,
  pyDictFrom,
} from '@eval/core/python';

const GUESS: PythonReprOptions = { numbers: 'guess' };

/** Python 3 `repr()` with integral numbers below 1e16 as ints (`@eval/core/python`'s `pythonRepr`, `'guess'`). */
export function pythonRepr(value: unknown): string {
  return corePythonRepr(value, GUESS);
}

/** Python's `template.format(**fields)` (`@eval/core/python`'s `pythonFormat`, numbers as in {@link pythonRepr}). */
export function pythonFormat(template: string, fields: Record<string, unknown>): string {
  return corePythonFormat(template, fields, GUESS);
}
