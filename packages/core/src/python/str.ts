/**
 * Python `str` semantics (CPython 3.11) that JavaScript does not share: Unicode whitespace as Python defines it
 * (`str.isspace`, `re` `\s`, `split()`, `strip()`), `str.isdigit`, `int(str)`, `str.zfill`, code-point length and
 * slicing. Checked against `cpython-cases.json` (see `scripts/record-cpython.py`).
 */
import { EvalError } from '../errors';
import { pythonStrRepr } from './json';

/**
 * Body of a regex character class matching Python's whitespace (`str.isspace()`, and `\s` of `re` on str patterns):
 * unlike JavaScript's `\s` it includes U+001C..U+001F and U+0085 and excludes U+FEFF.
 */
export const PY_WHITESPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/** {@link PY_WHITESPACE} restricted to ASCII (the same characters for ASCII-only text, where a regex need not use `u`). */
export const PY_WHITESPACE_ASCII = '\\t\\n\\v\\f\\r\\x1c-\\x20';

const WS_RUN = new RegExp(`[${PY_WHITESPACE}]+`, 'gu');
const LEADING_WS = new RegExp(`^[${PY_WHITESPACE}]+`, 'u');
const TRAILING_WS = new RegExp(`[${PY_WHITESPACE}]+$`, 'u');
const IS_WS = new RegExp(`^[${PY_WHITESPACE}]$`, 'u');
/** Only printable ASCII and plain spaces: the common case, where Python and JavaScript whitespace agree on " ". */
const NOT_SIMPLE = /[^\x21-\x7e ]/;

/**
 * Python `str.strip()`: without `chars`, strips Python whitespace (`str.isspace`, incl. U+001C..U+001F and U+0085,
 * not U+FEFF); with `chars`, `str.strip(chars)` strips any of those characters (by UTF-16 code unit).
 */
export function pyStrip(s: string, chars?: string): string {
  if (chars !== undefined) {
    let start = 0;
    let end = s.length;
    while (start < end && chars.includes(s[start]!)) start++;
    while (end > start && chars.includes(s[end - 1]!)) end--;
    return s.slice(start, end);
  }
  if (!NOT_SIMPLE.test(s)) {
    let a = 0;
    let b = s.length;
    while (a < b && s.charCodeAt(a) === 32) a++;
    while (b > a && s.charCodeAt(b - 1) === 32) b--;
    return a === 0 && b === s.length ? s : s.slice(a, b);
  }
  return pyRstrip(s.replace(LEADING_WS, ''));
}

/** Python `str.rstrip()` (no argument): trailing Python whitespace removed. */
export function pyRstrip(s: string): string {
  if (!NOT_SIMPLE.test(s)) {
    let b = s.length;
    while (b > 0 && s.charCodeAt(b - 1) === 32) b--;
    return b === s.length ? s : s.slice(0, b);
  }
  return s.replace(TRAILING_WS, '');
}

/** Python `str.split()` (no argument, CPython `split_whitespace`): splits on runs of Python whitespace, no empty strings. */
export function pySplit(s: string): string[] {
  if (!NOT_SIMPLE.test(s)) {
    const out: string[] = [];
    let start = -1;
    for (let i = 0; i < s.length; i++) {
      if (s.charCodeAt(i) === 32) {
        if (start >= 0) {
          out.push(s.slice(start, i));
          start = -1;
        }
      } else if (start < 0) start = i;
    }
    if (start >= 0) out.push(s.slice(start));
    return out;
  }
  const t = pyStrip(s);
  return t === '' ? [] : t.split(WS_RUN);
}

/** Replaces every run of Python whitespace with `repl`: `re.sub(r"\s+", repl, s)` on a str pattern. */
export function pyCollapseWhitespace(s: string, repl = ' '): string {
  if (!NOT_SIMPLE.test(s))
    return repl === ' ' ? (s.includes('  ') ? s.replace(/ {2,}/g, ' ') : s) : s.replace(/ +/g, repl);
  return s.replace(WS_RUN, repl);
}

/** Python `str.isspace()`: non-empty and every code point is whitespace (Unicode White_Space as CPython's `Py_UNICODE_ISSPACE`). */
export function pyIsSpace(s: string): boolean {
  if (s.length === 0) return false;
  for (const ch of s) if (!IS_WS.test(ch)) return false;
  return true;
}

/** True when every character is ASCII (fast paths: all shipped data is ASCII). */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Number of code points (Python `len`). */
export function pyLen(s: string): number {
  if (isAscii(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Code points of `s` as separate strings (Python `list(s)`; indexing by code point). */
export function codePointsOf(s: string): string[] {
  return Array.from(s);
}

/** Python `s[start:end]` by code point, with non-negative indices (`end` may exceed the length). */
export function pySlice(s: string, start: number, end?: number): string {
  if (isAscii(s)) return s.slice(start, end);
  return Array.from(s).slice(start, end).join('');
}

// Characters for which Python's str.isdigit() is true but str.isdecimal() is false (Numeric_Type=Digit), from
// Python 3.11 (Unicode 14.0): superscripts, subscripts, circled digits, ...
const DIGIT_NOT_DECIMAL: ReadonlyArray<readonly [number, number]> = [
  [0xb2, 0xb3],
  [0xb9, 0xb9],
  [0x1369, 0x1371],
  [0x19da, 0x19da],
  [0x2070, 0x2070],
  [0x2074, 0x2079],
  [0x2080, 0x2089],
  [0x2460, 0x2468],
  [0x2474, 0x247c],
  [0x2488, 0x2490],
  [0x24ea, 0x24ea],
  [0x24f5, 0x24fd],
  [0x24ff, 0x24ff],
  [0x2776, 0x277e],
  [0x2780, 0x2788],
  [0x278a, 0x2792],
  [0x10a40, 0x10a43],
  [0x10e60, 0x10e68],
  [0x11052, 0x1105a],
  [0x1f100, 0x1f10a],
];

const DECIMAL = /^\p{Nd}$/u;

function isDecimalCp(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 0x80) return c >= 0x30 && c <= 0x39;
  return DECIMAL.test(ch);
}

/** Python `str.isdigit()`: non-empty and every code point is a digit (decimal digits, superscripts, ...). */
export function pyIsDigit(s: string): boolean {
  if (s.length === 0) return false;
  for (const ch of s) {
    if (isDecimalCp(ch)) continue;
    const cp = ch.codePointAt(0)!;
    if (!DIGIT_NOT_DECIMAL.some(([lo, hi]) => cp >= lo && cp <= hi)) return false;
  }
  return true;
}

/** Value of a decimal digit (any script): Unicode guarantees runs of ten consecutive code points from 0 to 9. */
function decimalValue(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x80) return cp - 0x30;
  let start = cp;
  while (start > 0 && DECIMAL.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** Python's `ValueError` from `int(s)` (the message is CPython's: `invalid literal for int() with base 10: 'x'`). */
export class PythonValueError extends EvalError {
  constructor(message: string) {
    super('python_value_error', message);
    this.name = 'PythonValueError';
  }
}

const INT_WS = '\\t\\n\\v\\f\\r\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const INT_LEADING_WS = new RegExp(`^[${INT_WS}]+`, 'u');
const INT_TRAILING_WS = new RegExp(`[${INT_WS}]+$`, 'u');

/**
 * Python `int(s)` for a str, base 10 (CPython `PyLong_FromUnicodeObject`): surrounding whitespace, one sign, decimal digits of any script and single
 * underscores between digits; anything else raises (here {@link PythonValueError}).
 */
export function pyInt(s: string): bigint {
  // int() trims Python whitespace except U+001C..U+001F (ASCII characters that its parser does not skip).
  const t = s.replace(INT_LEADING_WS, '').replace(INT_TRAILING_WS, '');
  let i = 0;
  let negative = false;
  const cps = Array.from(t);
  if (cps[0] === '+' || cps[0] === '-') {
    negative = cps[0] === '-';
    i = 1;
  }
  let digits = '';
  let prevUnderscore = true; // no leading underscore
  for (; i < cps.length; i++) {
    const ch = cps[i]!;
    if (ch === '_') {
      if (prevUnderscore) throw new PythonValueError(`invalid literal for int() with base 10: ${pythonStrRepr(s)}`);
      prevUnderscore = true;
      continue;
    }
    if (!isDecimalCp(ch)) throw new PythonValueError(`invalid literal for int() with base 10: ${pythonStrRepr(s)}`);
    digits += String(decimalValue(ch));
    prevUnderscore = false;
  }
  if (digits === '' || prevUnderscore)
    throw new PythonValueError(`invalid literal for int() with base 10: ${pythonStrRepr(s)}`);
  const v = BigInt(digits);
  return negative ? -v : v;
}

/** {@link pyInt} as a JS number, for small values such as time fields (a fast path for plain ASCII digits). */
export function pyIntNumber(s: string): number {
  if (s.length > 0 && s.length <= 15 && /^[0-9]+$/.test(s)) return Number(s);
  const v = pyInt(s);
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new PythonValueError(`integer out of the supported range: ${pythonStrRepr(s)}`);
  }
  return Number(v);
}

/** Python `str.replace(old, new)`: every occurrence, no replacement patterns; an empty `old` inserts `new` between code points. */
export function pyReplace(s: string, old: string, replacement: string): string {
  if (old === '') return [replacement, ...Array.from(s).flatMap((ch) => [ch, replacement])].join('');
  return s.split(old).join(replacement);
}

/** Python `str.zfill(width)`: left-pads with zeros after an optional leading sign, in code points. */
export function pyZfill(s: string, width: number): string {
  const n = pyLen(s);
  if (n >= width) return s;
  const pad = '0'.repeat(width - n);
  if (s.startsWith('+') || s.startsWith('-')) return s[0] + pad + s.slice(1);
  return pad + s;
}
