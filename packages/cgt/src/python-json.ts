import { pythonFloatRepr } from '@eval/core';

/**
 * Python values as `json.loads` produces them, so that `str()` / `repr()` / `json.dumps` can be reproduced exactly:
 * ints ({@link PyInt}, arbitrary precision) stay distinct from floats (JS numbers), and objects keep their key order
 * (a `Map`: JS objects would move integer-like keys to the front).
 */
export type PyValue = null | boolean | string | number | PyInt | PyValue[] | PyDict;
export type PyDict = Map<string, PyValue>;

/** A Python `int`. Floats are plain JS numbers. */
export class PyInt {
  readonly value: bigint;
  constructor(value: bigint | number) {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${value}`);
    this.value = BigInt(value);
  }
  toJSON(): number {
    return Number(this.value);
  }
}

/** Error raised by {@link parsePythonJson}: `position` is the 0-based character offset, as Python's `JSONDecodeError.pos`. */
export class PythonJsonError extends Error {
  readonly position: number;
  constructor(message: string, position: number) {
    super(`${message} (char ${position})`);
    this.name = 'PythonJsonError';
    this.position = position;
  }
}

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER_RE = /(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Parses JSON text the way Python's `json.loads` does: ints and floats stay distinct (`10` vs `10.0`), objects keep
 * their key order with a later duplicate key overwriting the value in the first key's position, `NaN`, `Infinity` and
 * `-Infinity` are accepted, control characters inside strings are rejected.
 */
export function parsePythonJson(text: string): PyValue {
  let i = 0;
  const n = text.length;
  const skipWs = () => {
    while (i < n && WS.has(text[i]!)) i++;
  };
  const fail = (msg: string, at = i): never => {
    throw new PythonJsonError(msg, at);
  };

  const parseString = (): string => {
    // text[i] === '"'
    const start = i;
    i++;
    let out = '';
    for (;;) {
      if (i >= n) fail('Unterminated string starting at', start);
      const c = text[i]!;
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\\') {
        const e = text[i + 1];
        if (e === undefined) fail('Unterminated string starting at', start);
        if (e === 'u') {
          const cu = readHex4(i + 2);
          i += 6;
          // A high surrogate followed by an escaped low surrogate combines into one code point (as Python does).
          if (cu >= 0xd800 && cu <= 0xdbff && text[i] === '\\' && text[i + 1] === 'u') {
            const lo = readHex4(i + 2);
            if (lo >= 0xdc00 && lo <= 0xdfff) {
              out += String.fromCharCode(cu, lo);
              i += 6;
              continue;
            }
          }
          out += String.fromCharCode(cu);
          continue;
        }
        const mapped = ESCAPES[e];
        if (mapped === undefined) fail('Invalid \\escape', i);
        out += mapped;
        i += 2;
        continue;
      }
      if (c.charCodeAt(0) < 0x20) fail('Invalid control character at', i);
      out += c;
      i++;
    }
  };

  const readHex4 = (at: number): number => {
    const h = text.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) fail('Invalid \\uXXXX escape', at - 1);
    return Number.parseInt(h, 16);
  };

  const parseValue = (): PyValue => {
    skipWs();
    if (i >= n) fail('Expecting value');
    const c = text[i]!;
    if (c === '"') return parseString();
    if (c === '{') return parseObject();
    if (c === '[') return parseArray();
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('NaN', i)) {
      i += 3;
      return Number.NaN;
    }
    if (text.startsWith('Infinity', i)) {
      i += 8;
      return Number.POSITIVE_INFINITY;
    }
    if (text.startsWith('-Infinity', i)) {
      i += 9;
      return Number.NEGATIVE_INFINITY;
    }
    NUMBER_RE.lastIndex = i;
    const m = NUMBER_RE.exec(text);
    if (!m) return fail('Expecting value');
    i += m[0].length;
    if (m[2] === undefined && m[3] === undefined) return new PyInt(BigInt(m[1]!));
    return Number(m[0]);
  };

  const parseObject = (): PyDict => {
    const obj: PyDict = new Map();
    i++; // '{'
    skipWs();
    if (text[i] === '}') {
      i++;
      return obj;
    }
    for (;;) {
      skipWs();
      if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
      const key = parseString();
      skipWs();
      if (text[i] !== ':') fail("Expecting ':' delimiter");
      i++;
      obj.set(key, parseValue());
      skipWs();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return obj;
      }
      fail("Expecting ',' delimiter");
    }
  };

  const parseArray = (): PyValue[] => {
    const arr: PyValue[] = [];
    i++; // '['
    skipWs();
    if (text[i] === ']') {
      i++;
      return arr;
    }
    for (;;) {
      arr.push(parseValue());
      skipWs();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return arr;
      }
      fail("Expecting ',' delimiter");
    }
  };

  if (text.charCodeAt(0) === 0xfeff) fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
  const value = parseValue();
  skipWs();
  if (i !== n) fail('Extra data');
  return value;
}

/** True for a Python `dict` value of {@link parsePythonJson}. */
export function isPyDict(value: PyValue): value is PyDict {
  return value instanceof Map;
}

// ---------------------------------------------------------------------------
// str() / repr()
// ---------------------------------------------------------------------------

const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/** Python's `repr(str)`: single quotes unless the text contains `'` and no `"`, Python's escapes. */
export function pythonStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code < 0x7f) out += ch;
    else if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff) out += `\\u${hex(code, 4)}`;
    else if (!NOT_PRINTABLE.test(ch)) out += ch;
    else if (code <= 0xff) out += `\\x${hex(code, 2)}`;
    else if (code <= 0xffff) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return out + quote;
}

/** Python's `repr()` of a {@link PyValue}. */
export function pythonRepr(value: PyValue): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return pythonStrRepr(value);
  if (typeof value === 'number') return pythonFloatRepr(value);
  if (value instanceof PyInt) return value.value.toString();
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `{${[...value].map(([k, v]) => `${pythonStrRepr(k)}: ${pythonRepr(v)}`).join(', ')}}`;
}

/** Python's `str()` of a {@link PyValue}: strings unchanged, everything else as `repr()`. */
export function pythonStr(value: PyValue): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

// ---------------------------------------------------------------------------
// json.dumps
// ---------------------------------------------------------------------------

function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${hex(c, 4)}`;
    else out += ch;
  }
  return `${out}"`;
}

function jsonNumber(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'Infinity';
  if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
  return pythonFloatRepr(x);
}

/**
 * Python's `json.dumps(value, indent=indent)` (default `ensure_ascii=True`, separators `,` and `: `):
 * floats as `repr` (`1.0`), ints bare (`1`). A plain-object input is serialised in its key order.
 */
export function pythonJsonDumps(value: PyValue | Record<string, PyValue>, indent?: number): string {
  const pad = indent === undefined ? undefined : ' '.repeat(indent);
  const write = (v: PyValue | Record<string, PyValue>, level: number): string => {
    if (v === null) return 'null';
    if (v === true) return 'true';
    if (v === false) return 'false';
    if (typeof v === 'string') return jsonString(v);
    if (typeof v === 'number') return jsonNumber(v);
    if (v instanceof PyInt) return v.value.toString();
    const entries: Array<[string | undefined, PyValue]> = Array.isArray(v)
      ? v.map((x) => [undefined, x])
      : v instanceof Map
        ? [...v]
        : Object.entries(v);
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return open + close;
    const items = entries.map(([k, x]) => (k === undefined ? '' : `${jsonString(k)}: `) + write(x, level + 1));
    if (pad === undefined) return open + items.join(', ') + close;
    const inner = `\n${pad.repeat(level + 1)}`;
    return `${open}${inner}${items.join(`,${inner}`)}\n${pad.repeat(level)}${close}`;
  };
  return write(value, 0);
}

/** Converts a {@link PyValue} to plain JSON-like JS values (for schema validation): dicts become objects, ints numbers. */
export function toPlain(value: PyValue): unknown {
  if (value instanceof PyInt) return Number(value.value);
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[k] = toPlain(v);
    return out;
  }
  return value;
}
