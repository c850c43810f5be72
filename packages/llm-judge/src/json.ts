import { PyDict, PyOpaque, PySet, PyTuple, type PyValue } from './pyvalue';

/** A `json.JSONDecodeError`: `position` is the 0-based UTF-16 offset of the problem. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
    this.name = 'JsonSyntaxError';
  }
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER_RE = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;

/**
 * Python's `json.loads` (default, strict): objects become insertion-ordered {@link PyDict}s (JavaScript's
 * `JSON.parse` reorders integer-like keys), `NaN`/`Infinity`/`-Infinity` are accepted, raw control characters
 * inside strings and a leading BOM are rejected, duplicate keys keep the last value at the first position.
 */
export function parseJsonPy(text: string): PyValue {
  let i = 0;
  const n = text.length;
  const skip = () => {
    while (i < n && WS.has(text.charCodeAt(i))) i++;
  };
  const fail = (msg: string, at = i): never => {
    throw new JsonSyntaxError(msg, at);
  };

  const parseString = (): string => {
    // text[i] is the opening quote
    const start = ++i;
    let out = '';
    let chunk = start;
    for (;;) {
      if (i >= n) fail('Unterminated string starting', start - 1);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(chunk, i);
        i++;
        return out;
      }
      if (c < 0x20) fail('Invalid control character');
      if (c === 0x5c) {
        out += text.slice(chunk, i);
        const e = text[i + 1];
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
            const hex = text.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('Invalid \\uXXXX escape', i + 1);
            out += String.fromCharCode(Number.parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            if (e === undefined) fail('Unterminated string starting', start - 1);
            fail('Invalid \\escape', i);
        }
        i += 2;
        chunk = i;
        continue;
      }
      i++;
    }
  };

  const parseValue = (depth: number): PyValue => {
    if (depth > 10_000) fail('nesting too deep');
    skip();
    if (i >= n) fail('Expecting value');
    const c = text[i]!;
    if (c === '"') return parseString();
    if (c === '{') {
      i++;
      const d = new PyDict();
      skip();
      if (text[i] === '}') {
        i++;
        return d;
      }
      for (;;) {
        skip();
        if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
        const key = parseString();
        skip();
        if (text[i] !== ':') fail("Expecting ':' delimiter");
        i++;
        const value = parseValue(depth + 1);
        d.set(key, value);
        skip();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return d;
        }
        fail("Expecting ',' delimiter");
      }
    }
    if (c === '[') {
      i++;
      const arr: PyValue[] = [];
      skip();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        skip();
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
    }
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
      return Number.POSITIVE_INFINITY;
    }
    if (text.startsWith('-Infinity', i)) {
      i += 9;
      return Number.NEGATIVE_INFINITY;
    }
    NUMBER_RE.lastIndex = i;
    const m = NUMBER_RE.exec(text);
    if (m) {
      i += m[0].length;
      return Number(m[0]);
    }
    return fail('Expecting value');
  };

  const value = parseValue(0);
  skip();
  if (i < n) fail('Extra data');
  return value;
}

function stringifyKey(k: PyValue): string {
  if (typeof k === 'string') return k;
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  if (k === null) return 'null';
  if (typeof k === 'number') return String(k);
  throw new TypeError('keys must be str, int, float, bool or None');
}

/**
 * Serialises to JSON keeping the insertion order of `Map`s and {@link PyDict}s (plain objects keep
 * JavaScript's order). `indent` as in `JSON.stringify`. Tuples and sets become arrays.
 */
export function stringifyJson(value: unknown, indent = 0): string {
  const pad = (level: number) => (indent > 0 ? `\n${' '.repeat(indent * level)}` : '');
  const sep = indent > 0 ? ': ' : ':';
  const walk = (v: unknown, level: number): string => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'string') return JSON.stringify(v);
    if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    let entries: Array<[string, unknown]> | undefined;
    let items: unknown[] | undefined;
    if (Array.isArray(v)) items = v;
    else if (v instanceof PyTuple || v instanceof PySet) items = v.items;
    else if (v instanceof PyOpaque) return JSON.stringify(v.text);
    else if (v instanceof PyDict) entries = v.items().map(([k, val]) => [stringifyKey(k), val]);
    else if (v instanceof Map) entries = [...v.entries()].map(([k, val]) => [String(k), val]);
    else if (typeof v === 'object') {
      const toJSON = (v as { toJSON?: () => unknown }).toJSON;
      if (typeof toJSON === 'function') return walk(toJSON.call(v), level);
      entries = Object.entries(v as Record<string, unknown>).filter(([, val]) => val !== undefined);
    } else return 'null';
    if (items) {
      if (items.length === 0) return '[]';
      return `[${items.map((x) => pad(level + 1) + walk(x, level + 1)).join(',')}${pad(level)}]`;
    }
    if (!entries || entries.length === 0) return '{}';
    return `{${entries.map(([k, x]) => `${pad(level + 1)}${JSON.stringify(k)}${sep}${walk(x, level + 1)}`).join(',')}${pad(level)}}`;
  };
  return walk(value, 0);
}
