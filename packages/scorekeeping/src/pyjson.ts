import { InputError, pythonFloatRepr } from '@eval/core';

/**
 * Python-compatible JSON: a writer that reproduces `json.dumps(obj)` byte for byte (separators `", "`/`": "`,
 * `ensure_ascii`, bare `NaN`, ints `0` vs floats `0.0`) and a reader that accepts the `NaN`/`Infinity` tokens
 * Python writes.
 */

/** A value Python holds as a float: written `1.0`, never `1`. Plain JS numbers are written as ints when integral. */
export class PyFloat {
  constructor(readonly value: number) {}
}

export type PyJsonValue = null | boolean | string | number | PyFloat | PyJsonValue[] | { [key: string]: PyJsonValue };

export interface PyDumpsOptions {
  /** `indent=` of `json.dumps`: pretty-prints with `","` item separators (as Python does when indent is set). */
  indent?: number;
}

function escapeString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c >= 0x20 && c <= 0x7e) out += s[i];
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    // ensure_ascii: every other code unit (control, DEL, non-ASCII; astral characters as their surrogate pair)
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return pythonFloatRepr(x);
}

function numberRepr(x: number): string {
  if (Number.isInteger(x)) return BigInt(x).toString();
  return floatRepr(x);
}

/** `json.dumps(value)` (or with `indent`) exactly as CPython writes it. */
export function pyDumps(value: PyJsonValue, options: PyDumpsOptions = {}): string {
  const indent = options.indent;
  const parts: string[] = [];
  const write = (v: PyJsonValue, level: number): void => {
    if (v === null) parts.push('null');
    else if (v === true) parts.push('true');
    else if (v === false) parts.push('false');
    else if (typeof v === 'string') parts.push(escapeString(v));
    else if (typeof v === 'number') parts.push(numberRepr(v));
    else if (v instanceof PyFloat) parts.push(floatRepr(v.value));
    else if (Array.isArray(v)) {
      if (v.length === 0) {
        parts.push('[]');
        return;
      }
      if (indent === undefined) {
        parts.push('[');
        v.forEach((item, i) => {
          if (i > 0) parts.push(', ');
          write(item, level);
        });
        parts.push(']');
      } else {
        const inner = `\n${' '.repeat(indent * (level + 1))}`;
        parts.push('[');
        v.forEach((item, i) => {
          parts.push(i > 0 ? `,${inner}` : inner);
          write(item, level + 1);
        });
        parts.push(`\n${' '.repeat(indent * level)}]`);
      }
    } else if (typeof v === 'object') {
      const keys = Object.keys(v);
      if (keys.length === 0) {
        parts.push('{}');
        return;
      }
      if (indent === undefined) {
        parts.push('{');
        keys.forEach((k, i) => {
          if (i > 0) parts.push(', ');
          parts.push(escapeString(k), ': ');
          write(v[k]!, level);
        });
        parts.push('}');
      } else {
        const inner = `\n${' '.repeat(indent * (level + 1))}`;
        parts.push('{');
        keys.forEach((k, i) => {
          parts.push(i > 0 ? `,${inner}` : inner, escapeString(k), ': ');
          write(v[k]!, level + 1);
        });
        parts.push(`\n${' '.repeat(indent * level)}}`);
      }
    } else {
      throw new TypeError(`pyDumps: cannot serialise ${typeof v}`);
    }
  };
  write(value, 0);
  return parts.join('');
}

/**
 * Parses JSON as Python's `json.loads` does: also accepts `NaN`, `Infinity` and `-Infinity`. Object key order is
 * kept as written (except that JS orders integer-like keys numerically). Errors name the file, line and column.
 */
export function parsePyJson(text: string, file?: string): unknown {
  let i = 0;
  const n = text.length;
  const fail = (message: string, at = i): never => {
    let line = 1;
    let col = 1;
    for (let k = 0; k < at && k < n; k++) {
      if (text.charCodeAt(k) === 10) {
        line++;
        col = 1;
      } else col++;
    }
    throw new InputError(`invalid JSON (${message} at line ${line} column ${col})`, { file, code: 'invalid_json' });
  };
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const parseString = (): string => {
    // text[i] === '"'
    i++;
    let out = '';
    let start = i;
    while (true) {
      if (i >= n) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c === 0x5c) {
        out += text.slice(start, i);
        const e = text[i + 1];
        i += 2;
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            const hex = text.slice(i, i + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('invalid \\u escape', i - 2);
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            fail('invalid escape', i - 2);
        }
        start = i;
        continue;
      }
      if (c < 0x20) fail('control character in string');
      i++;
    }
  };
  const parseValue = (): unknown => {
    ws();
    if (i >= n) fail('unexpected end of input');
    const c = text[i]!;
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      while (true) {
        ws();
        if (text[i] !== '"') fail('expected a property name');
        const key = parseString();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        const value = parseValue();
        if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
        else obj[key] = value;
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      while (true) {
        arr.push(parseValue());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return parseString();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    if (text.startsWith('NaN', i)) {
      i += 3;
      return Number.NaN;
    }
    if (text.startsWith('Infinity', i)) {
      i += 8;
      return Infinity;
    }
    if (text.startsWith('-Infinity', i)) {
      i += 9;
      return -Infinity;
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail(`unexpected character ${JSON.stringify(c)}`);
    i += m![0].length;
    return Number(m![0]);
  };
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  const value = parseValue();
  ws();
  if (i < n) fail('unexpected data after the JSON value');
  return value;
}
