/**
 * `@eval/core/python`: Python semantics in one place, each function reproducing one CPython 3.11 behaviour and
 * checked against recorded CPython outputs (`cpython-cases.json`, written by `scripts/record-cpython.py`).
 *
 * - `str` methods: {@link pyStrip}, {@link pySplit}, {@link pyIsSpace}, {@link pyIsDigit}, {@link pyLen},
 *   {@link pySlice}, {@link pyZfill}, `int()` ({@link pyInt}), Python whitespace ({@link PY_WHITESPACE});
 * - `str.format`: {@link pythonFormat};
 * - `repr`/`str`: {@link pythonRepr}, {@link pythonStr}, {@link pythonStrRepr}, {@link pythonFloatRepr};
 * - `json.loads`/`json.dumps`: {@link parsePythonJson}, {@link pythonJsonDumps};
 * - `ast.literal_eval`: {@link evalPythonLiteral} with its value model ({@link PyLiteralDict}, {@link PyTuple}, ...);
 * - `round`: {@link pythonRound}; `statistics.mean`: {@link pythonMean} (`exactMean` of `@eval/core`);
 * - `random`: {@link PythonRandom} (Mersenne Twister, `seed`, `random`, `choice`, `sample`, `shuffle`, `randint`);
 * - built-ins on JSON values: truthiness ({@link pyTruthy}), `int()` ({@link pyIntOfJson}).
 */
import { exactMean } from '../stats';

export * from './number';
export * from './json';
export * from './str';
export * from './format';
export * from './value';
export * from './literal';
export * from './random';
export * from './json-value';

/** Python's `statistics.mean` of floats/ints: exact rational sum, one correct rounding (the same function as `exactMean`). */
export const pythonMean: (values: ArrayLike<number>) => number = exactMean;
