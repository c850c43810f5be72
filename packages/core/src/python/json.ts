import { pythonFloatRepr } from './number';

/*
 * Python-compatible JSON and repr: CPython 3.11 `json` (`json.loads`/`json.dumps`, `Lib/json`) and `repr()`/`str()`.
 *
 * Value model (what `parsePythonJson` returns by default, and what the writers understand):
 *   None -> null, bool -> boolean, str -> string, float -> number, int -> PyInt (arbitrary precision),
 *   list -> array, dict -> Map<string, ...> (insertion order kept for every key; a JS object would move
 *   integer-like keys to the front).
 * The writers also accept plain objects (dicts in JS key order), `bigint` (int), `PyFloat` (float) and plain
 * numbers, whose Python type is chosen by the `numbers` option (default: float, matching the parser).
 */

/** A Python `int` (arbitrary precision). */
export class PyInt {
  readonly value: bigint;
  constructor(value: bigint | number) {
    if (typeof value === 'number' && !Number.isSafeInteger(value))
      throw new RangeError(`PyInt: not a safe integer: ${value}`);
    this.value = BigInt(value);
  }
  toJSON(): number {
    return Number(this.value);
  }
}

/** A Python `float` held by a JS number: always written as a float (`1.0`), whatever the `numbers` option says. */
export class PyFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/** A Python `dict` as parsed: string keys in insertion order. */
export type PyDict = Map<string, PyValue>;
/** A value as {@link parsePythonJson} returns it with the default options. */
export type PyValue = null | boolean | string | number | PyInt | PyValue[] | PyDict;

/** True for a dict value of {@link parsePythonJson}. */
export function isPyDict(value: unknown): value is PyDict {
  return value instanceof Map;
}

/**
 * How a plain JS number is typed in Python:
 * - `'float'`: always a float (`1.0`) — the parser's model, where ints are {@link PyInt};
 * - `'int'`: integral values are ints (`1`, `-0` -> `0`), others floats — for code that marks floats with {@link PyFloat};
 * - `'guess'`: integral values with `|x| < 1e16` other than `-0` are ints, the rest floats — the best guess for numbers
 *   read without the int/float distinction (e.g. by `JSON.parse`);
 * - a function of the value and its key path (dict keys and list indexes from the root).
 */
export type PyNumberPolicy =
  | 'float'
  | 'int'
  | 'guess'
  | ((value: number, path: ReadonlyArray<string | number>) => 'int' | 'float');

// ---------------------------------------------------------------------------
// json.loads
// ---------------------------------------------------------------------------

/**
 * Python's `json.JSONDecodeError`: `msg` is Python's message, `position` the 0-based UTF-16 offset (`pos`),
 * `lineno`/`colno` 1-based; `message` is formatted as Python's (`Expecting value: line 1 column 1 (char 0)`).
 */
export class PythonJsonError extends Error {
  readonly msg: string;
  readonly position: number;
  readonly lineno: number;
  readonly colno: number;
  constructor(msg: string, text: string, position: number) {
    let lineno = 1;
    let lineStart = 0;
    for (let k = 0; k < position && k < text.length; k++) {
      if (text.charCodeAt(k) === 0x0a) {
        lineno++;
        lineStart = k + 1;
      }
    }
    const colno = position - lineStart + 1;
    super(`${msg}: line ${lineno} column ${colno} (char ${position})`);
    this.name = 'PythonJsonError';
    this.msg = msg;
    this.position = position;
    this.lineno = lineno;
    this.colno = colno;
  }
}

export interface PythonJsonParseOptions {
  /** Ints as {@link PyInt} (default, lossless) or as JS numbers (`'number'`, like `JSON.parse`). */
  ints?: 'pyint' | 'number';
  /**
   * Objects as a `Map` in document order (default), as a plain object (`'object'`; JS moves integer-like keys first;
   * `__proto__` is an ordinary key), or built by a function of the key/value pairs in document order, duplicates
   * included (Python's `object_pairs_hook`).
   */
  objects?: 'map' | 'object' | ((pairs: Array<[string, unknown]>) => unknown);
  /** A leading U+FEFF: an error, as in `json.loads` (default), or skipped (`'skip'`, as reading with `utf-8-sig`). */
  bom?: 'error' | 'skip';
  /**
   * Deepest nesting of lists/dicts accepted (default 1000, about where CPython's recursion limit stops `json.loads`);
   * deeper input throws a {@link PythonJsonError} instead of overflowing the JS stack.
   */
  maxDepth?: number;
  /** `NaN`/`Infinity`/`-Infinity`: accepted as `json.loads` does (default), or rejected as strict JSON (`'reject'`). */
  nonFinite?: 'accept' | 'reject';
}

const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const HEX4_RE = /^[0-9a-fA-F]{4}$/;

/**
 * Parses JSON text as Python's `json.loads` does (CPython 3.11): ints and floats stay distinct (`10` -> `PyInt`,
 * `10.0`/`1e3` -> number), objects keep their key order and a duplicate key keeps its first position with the last
 * value, `NaN`/`Infinity`/`-Infinity` are accepted, raw control characters in strings, trailing commas, leading
 * zeros, single quotes and a BOM are rejected with Python's message and position.
 */
export function parsePythonJson(text: string): PyValue;
export function parsePythonJson(text: string, options: PythonJsonParseOptions): unknown;
export function parsePythonJson(text: string, options: PythonJsonParseOptions = {}): unknown {
  const intsAsNumbers = options.ints === 'number';
  const objects = options.objects ?? 'map';
  const maxDepth = options.maxDepth ?? 1000;
  const constants = options.nonFinite === 'reject' ? CONSTANTS.slice(0, 3) : CONSTANTS;
  const n = text.length;
  let i = 0;
  const fail = (msg: string, at = i): never => {
    throw new PythonJsonError(msg, text, at);
  };
  const skipWs = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else return;
    }
  };
  const readHex4 = (at: number): number => {
    const h = text.slice(at, at + 4);
    if (!HEX4_RE.test(h)) fail('Invalid \\uXXXX escape', at - 1);
    return Number.parseInt(h, 16);
  };

  const parseString = (): string => {
    // text[i] is the opening quote
    const start = i;
    i++;
    let out = '';
    let chunk = i;
    for (;;) {
      if (i >= n) fail('Unterminated string starting at', start);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(chunk, i);
        i++;
        return out;
      }
      if (c === 0x5c) {
        out += text.slice(chunk, i);
        const e = text[i + 1];
        if (e === undefined) fail('Unterminated string starting at', start);
        if (e === 'u') {
          // Surrogate escapes combine into one code point in Python; as UTF-16 the code units are the same.
          out += String.fromCharCode(readHex4(i + 2));
          i += 6;
        } else {
          const mapped = ESCAPES[e!];
          if (mapped === undefined) fail('Invalid \\escape', i);
          out += mapped;
          i += 2;
        }
        chunk = i;
        continue;
      }
      if (c < 0x20) fail('Invalid control character at', i);
      i++;
    }
  };

  const makeObject = (pairs: Array<[string, unknown]>): unknown => {
    if (typeof objects === 'function') return objects(pairs);
    if (objects === 'map') return new Map(pairs);
    const obj: Record<string, unknown> = {};
    for (const [k, v] of pairs) {
      if (k === '__proto__')
        Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
      else obj[k] = v;
    }
    return obj;
  };

  const parseValue = (depth: number): unknown => {
    skipWs();
    if (i >= n) fail('Expecting value');
    const c = text[i]!;
    if (c === '"') return parseString();
    if (c === '{' || c === '[') {
      if (depth >= maxDepth) fail('Maximum nesting depth exceeded');
      i++;
      skipWs();
      if (c === '{') {
        const pairs: Array<[string, unknown]> = [];
        if (text[i] === '}') {
          i++;
          return makeObject(pairs);
        }
        for (;;) {
          if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
          const key = parseString();
          skipWs();
          if (text[i] !== ':') fail("Expecting ':' delimiter");
          i++;
          pairs.push([key, parseValue(depth + 1)]);
          skipWs();
          if (text[i] === '}') {
            i++;
            return makeObject(pairs);
          }
          if (text[i] !== ',') fail("Expecting ',' delimiter");
          i++;
          skipWs();
        }
      }
      const arr: unknown[] = [];
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        skipWs();
        if (text[i] === ']') {
          i++;
          return arr;
        }
        if (text[i] !== ',') fail("Expecting ',' delimiter");
        i++;
      }
    }
    for (const [token, value] of constants) {
      if (text.startsWith(token, i)) {
        i += token.length;
        return value;
      }
    }
    NUMBER_RE.lastIndex = i;
    const m = NUMBER_RE.exec(text);
    if (!m) return fail('Expecting value');
    i += m[0].length;
    if (m[1] === undefined && m[2] === undefined) return intsAsNumbers ? Number(m[0]) : new PyInt(BigInt(m[0]));
    return Number(m[0]);
  };

  if (text.charCodeAt(0) === 0xfeff) {
    if (options.bom !== 'skip') fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    i = 1;
  }
  const value = parseValue(0);
  skipWs();
  if (i !== n) fail('Extra data');
  return value;
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const CONSTANTS: ReadonlyArray<[string, unknown]> = [
  ['null', null],
  ['true', true],
  ['false', false],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['-Infinity', Number.NEGATIVE_INFINITY],
];

// ---------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------

function numberIsInt(x: number, policy: PyNumberPolicy, path: ReadonlyArray<string | number>): boolean {
  if (!Number.isInteger(x)) return false;
  if (policy === 'float') return false;
  if (policy === 'int') return true;
  if (policy === 'guess') return !Object.is(x, -0) && Math.abs(x) < 1e16;
  return policy(x, path) === 'int';
}

/** Python `repr` of an int-valued JS number (`-0` -> `0`, no exponent). */
function intDigits(x: number): string {
  // a safe integer's own digits are exact and carry no exponent (-0 prints as 0)
  return x <= Number.MAX_SAFE_INTEGER && x >= -Number.MAX_SAFE_INTEGER ? String(x) : BigInt(x).toString();
}

// ---------------------------------------------------------------------------
// json.dumps
// ---------------------------------------------------------------------------

export interface PythonJsonDumpsOptions {
  /** `indent=`: `undefined` (None, one line), a number of spaces (0 = newlines without indentation) or a string. */
  indent?: number | string;
  /** `separators=(item, key)`; default `(', ', ': ')`, or `(',', ': ')` when `indent` is set. */
  separators?: readonly [item: string, key: string];
  /** `ensure_ascii=` (default true): every non-ASCII code unit and DEL as `\uXXXX`. */
  ensureAscii?: boolean;
  /** `allow_nan=` (default true): NaN/±Infinity as `NaN`/`Infinity`/`-Infinity`; false throws a RangeError. */
  allowNan?: boolean;
  /** Python type of plain JS numbers (default `'float'`); {@link PyInt}, `bigint` and {@link PyFloat} are fixed. */
  numbers?: PyNumberPolicy;
  /** `default=`: called for a value the writer does not know; its result is written instead (else a TypeError). */
  default?: (value: unknown) => unknown;
  /** `sort_keys=` (default false): dict items sorted by key (str keys by code point, numeric keys by value). */
  sortKeys?: boolean;
}

const ESCAPE_NAMED: Record<number, string> = {
  34: '\\"',
  92: '\\\\',
  10: '\\n',
  13: '\\r',
  9: '\\t',
  8: '\\b',
  12: '\\f',
};

/** Printable ASCII without `"` and `\`: written as it is, with either `ensureAscii`. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function u4(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * A JSON string literal as Python's `json.dumps(s)` writes it. With `ensureAscii` (default) every code unit outside
 * printable ASCII is escaped (astral characters as their surrogate pair); without it only `"`, `\`, C0 controls and
 * lone surrogates are (deviation: Python keeps a lone surrogate and then fails to encode the text as UTF-8; the escape
 * keeps the output valid and lossless).
 */
export function pythonJsonString(s: string, ensureAscii = true): string {
  if (PLAIN_JSON_STRING.test(s)) return `"${s}"`;
  let out = '"';
  let chunk = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (c < 0x7f || !ensureAscii)) {
      if (ensureAscii || c < 0xd800 || c > 0xdfff) continue;
      if (c <= 0xdbff && i + 1 < s.length) {
        const next = s.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          i++;
          continue;
        }
      }
    }
    out += s.slice(chunk, i) + (ESCAPE_NAMED[c] ?? u4(c));
    chunk = i + 1;
  }
  return `${out}${s.slice(chunk)}"`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function pyTypeName(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'object' && v !== null) return v.constructor?.name ?? 'object';
  return typeof v;
}

function numericKey(k: unknown): number | bigint | undefined {
  if (typeof k === 'number' || typeof k === 'bigint') return k;
  if (k instanceof PyInt) return k.value;
  if (k instanceof PyFloat) return k.value;
  if (typeof k === 'boolean') return k ? 1 : 0;
  return undefined;
}

function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/** `sorted(d.items())` of `sort_keys=True`: str keys by code point, numbers by value; mixed kinds are a TypeError. */
function sortedEntries<T>(entries: Array<[unknown, T]>): Array<[unknown, T]> {
  const allStrings = entries.every(([k]) => typeof k === 'string');
  if (allStrings) return [...entries].sort(([a], [b]) => compareCodePoints(a as string, b as string));
  if (entries.every(([k]) => numericKey(k) !== undefined)) {
    return [...entries].sort(([a], [b]) => {
      const x = numericKey(a)!;
      const y = numericKey(b)!;
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }
  throw new TypeError("'<' not supported between the dict's key types (sort_keys=True)");
}

/**
 * Python's `json.dumps(value, ...)`: dicts (`Map`s with str/int/float/bool/None keys, or plain objects whose
 * `undefined` properties are skipped) in their order, lists, `undefined` in a list as `null`, floats as `repr`
 * (`1.0`, `1e-05`), ints bare, Python's escapes and layout. Circular structures throw, as in Python.
 */
export function pythonJsonDumps(value: unknown, options: PythonJsonDumpsOptions = {}): string {
  const { ensureAscii = true, allowNan = true, numbers = 'float' } = options;
  const indent =
    options.indent === undefined
      ? undefined
      : typeof options.indent === 'number'
        ? ' '.repeat(Math.max(0, options.indent))
        : options.indent;
  const [itemSep, keySep] = options.separators ?? (indent === undefined ? [', ', ': '] : [',', ': ']);
  const path: Array<string | number> = [];
  const ancestors = new Set<object>();

  const float = (x: number): string => {
    if (Number.isFinite(x)) return pythonFloatRepr(x);
    if (!allowNan) throw new RangeError(`Out of range float values are not JSON compliant: ${pythonFloatRepr(x)}`);
    return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
  };
  const num = (x: number): string => (numberIsInt(x, numbers, path) ? intDigits(x) : float(x));
  const key = (k: unknown): string => {
    if (typeof k === 'string') return k;
    if (typeof k === 'number') return num(k);
    if (typeof k === 'bigint') return k.toString();
    if (k instanceof PyInt) return k.value.toString();
    if (k instanceof PyFloat) return float(k.value);
    if (typeof k === 'boolean') return k ? 'true' : 'false';
    if (k === null) return 'null';
    throw new TypeError(`keys must be str, int, float, bool or None, not ${pyTypeName(k)}`);
  };

  const write = (v: unknown, level: number, fromDefault = false): string => {
    if (v === null || v === undefined) return 'null';
    if (v === true) return 'true';
    if (v === false) return 'false';
    if (typeof v === 'string') return pythonJsonString(v, ensureAscii);
    if (typeof v === 'number') return num(v);
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof PyInt) return v.value.toString();
    if (v instanceof PyFloat) return float(v.value);
    let entries: Array<[unknown, unknown]> | undefined;
    if (Array.isArray(v)) {
      // a list: written element by element (no intermediate arrays)
      if (v.length === 0) return '[]';
      if (ancestors.has(v)) throw new TypeError('Circular reference detected');
      ancestors.add(v);
      const inner = indent === undefined ? '' : `\n${indent.repeat(level + 1)}`;
      const sep = itemSep + inner;
      let out = `[${inner}`;
      for (let idx = 0; idx < v.length; idx++) {
        path.push(idx);
        out += (idx === 0 ? '' : sep) + write(v[idx], level + 1);
        path.pop();
      }
      ancestors.delete(v);
      return `${out}${indent === undefined ? '' : `\n${indent.repeat(level)}`}]`;
    }
    if (v instanceof Map) entries = options.sortKeys ? sortedEntries([...v]) : [...v];
    else if (isPlainObject(v)) {
      entries = Object.entries(v).filter(([, x]) => x !== undefined);
      if (options.sortKeys) entries = sortedEntries(entries);
    } else if (options.default && !fromDefault) {
      return write(options.default(v), level, true);
    } else {
      throw new TypeError(`Object of type ${pyTypeName(v)} is not JSON serializable`);
    }
    if (entries.length === 0) return '{}';
    const isMap = v instanceof Map;
    if (ancestors.has(v)) throw new TypeError('Circular reference detected');
    ancestors.add(v);
    const inner = indent === undefined ? '' : `\n${indent.repeat(level + 1)}`;
    const sep = itemSep + inner;
    let out = `{${inner}`;
    for (let idx = 0; idx < entries.length; idx++) {
      const [rawKey, x] = entries[idx]!;
      // a Map's keys are converted in order (a bad key fails before later values are written, as in Python)
      const k = isMap ? key(rawKey) : (rawKey as string);
      path.push(k);
      out += (idx === 0 ? '' : sep) + pythonJsonString(k, ensureAscii) + keySep + write(x, level + 1);
      path.pop();
    }
    ancestors.delete(v);
    return `${out}${indent === undefined ? '' : `\n${indent.repeat(level)}`}}`;
  };
  return write(value, 0);
}

// ---------------------------------------------------------------------------
// repr() / str()
// ---------------------------------------------------------------------------

/**
 * Objects with a method under this symbol render themselves in {@link pythonRepr} (Python's `__repr__`); `repr`
 * renders nested values with the caller's options.
 */
export const pythonReprSymbol: unique symbol = Symbol.for('@eval/core.pythonRepr') as never;

export interface PythonReprable {
  [pythonReprSymbol](repr: (value: unknown) => string): string;
}

export interface PythonReprOptions {
  /** Python type of plain JS numbers (default `'float'`); see {@link PyNumberPolicy}. */
  numbers?: PyNumberPolicy;
}

// str.isprintable() is false for Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs (except the ASCII space, handled before).
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Printable ASCII without `'` and `\\`: `repr` puts it in single quotes as it is. */
const PLAIN_STR = /^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/**
 * Python 3's `repr(str)` (CPython 3.11 `unicode_repr`, printable as `str.isprintable`): single quotes unless the text contains `'` and no `"`; `\\`, the quote, `\n`, `\r`, `\t`
 * escaped; other non-printable characters as `\xNN`, `\uNNNN` or `\UNNNNNNNN`; printable non-ASCII kept.
 */
export function pythonStrRepr(s: string): string {
  if (PLAIN_STR.test(s)) return `'${s}'`;
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x20 && code < 0x7f) out += ch === quote || ch === '\\' ? `\\${ch}` : ch;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (code < 0xa0) out += `\\x${hex(code, 2)}`;
    else if (!NOT_PRINTABLE.test(ch)) out += ch;
    else if (code <= 0xff) out += `\\x${hex(code, 2)}`;
    else if (code <= 0xffff) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return out + quote;
}

/**
 * Python's `repr()`: `None`/`True`/`False`, str as {@link pythonStrRepr}, ints ({@link PyInt}, `bigint`) bare, floats
 * ({@link PyFloat}) as `pythonFloatRepr`, plain numbers per `options.numbers`, arrays as lists, `Map`s (any keys) and
 * plain objects as dicts in their order, objects implementing {@link pythonReprSymbol} by themselves.
 * `undefined` renders as `None`.
 */
export function pythonRepr(value: unknown, options: PythonReprOptions = {}): string {
  const numbers = options.numbers ?? 'float';
  const path: Array<string | number> = [];
  const repr = (v: unknown): string => {
    if (v === null || v === undefined) return 'None';
    if (v === true) return 'True';
    if (v === false) return 'False';
    if (typeof v === 'string') return pythonStrRepr(v);
    if (typeof v === 'number') return numberIsInt(v, numbers, path) ? intDigits(v) : pythonFloatRepr(v);
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof PyInt) return v.value.toString();
    if (v instanceof PyFloat) return pythonFloatRepr(v.value);
    if (Array.isArray(v)) {
      let out = '[';
      for (let idx = 0; idx < v.length; idx++) {
        path.push(idx);
        out += (idx === 0 ? '' : ', ') + repr(v[idx]);
        path.pop();
      }
      return `${out}]`;
    }
    if (typeof v === 'object' && pythonReprSymbol in v) return (v as PythonReprable)[pythonReprSymbol](repr);
    let entries: Array<[unknown, unknown]>;
    if (v instanceof Map) entries = [...v];
    else if (isPlainObject(v)) entries = Object.entries(v);
    else throw new TypeError(`pythonRepr: unsupported value of type ${pyTypeName(v)}`);
    let out = '{';
    for (let idx = 0; idx < entries.length; idx++) {
      const [k, x] = entries[idx]!;
      const ks = repr(k);
      path.push(typeof k === 'string' || typeof k === 'number' ? k : ks);
      out += `${idx === 0 ? '' : ', '}${ks}: ${repr(x)}`;
      path.pop();
    }
    return `${out}}`;
  };
  return repr(value);
}

/** Python's `str()`: a string unchanged, anything else as {@link pythonRepr}. */
export function pythonStr(value: unknown, options: PythonReprOptions = {}): string {
  return typeof value === 'string' ? value : pythonRepr(value, options);
}

/** Converts a {@link PyValue} to plain JSON-like JS values (e.g. for schema validation): dicts become objects, ints numbers. */
export function toPlainJson(value: PyValue): unknown {
  if (value instanceof PyInt) return Number(value.value);
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) {
      if (k === '__proto__')
        Object.defineProperty(out, k, { value: toPlainJson(v), enumerable: true, writable: true, configurable: true });
      else out[k] = toPlainJson(v);
    }
    return out;
  }
  return value;
}
