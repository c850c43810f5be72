/**
 * The few Python semantics the HaluMem reference relies on and a faithful port must reproduce:
 * `str.format`, `str()` of JSON values, `int()`, truthiness and `json.dump(..., indent=4)` number formatting.
 */
import { EvalError, pythonJsonDumps as coreJsonDumps, pythonStr, pythonStrRepr } from '@eval/core';

/** Python's whitespace (`str.isspace`), which differs from JS `\s` (\x1c-\x1f yes, \ufeff no). */
export const PY_WHITESPACE = '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const WS_CLASS = `[${PY_WHITESPACE}]`;
const STRIP_RE = new RegExp(`^${WS_CLASS}+|${WS_CLASS}+$`, 'g');

/** Python `str.strip()` (no argument). */
export function pyStrip(text: string): string {
  return text.replace(STRIP_RE, '');
}

/** Python truthiness of a JSON value: `None`, `False`, `0`, `""`, `[]` and `{}` are false. */
export function pyTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value as object).length > 0;
  return true;
}

/**
 * Python `str()` of a JSON value: strings as is, `None`/`True`/`False`, lists and dicts by `repr`. Integral numbers
 * print as ints, as JSON numbers read by `JSON.parse` lost the int/float distinction (`'guess'` in `@eval/core`).
 */
export function pyStr(value: unknown): string {
  return pythonStr(value, { numbers: 'guess' });
}

/**
 * Python `str.format(**fields)` for templates with named fields only (the HaluMem judge templates):
 * `{{` → `{`, `}}` → `}`, `{name}` → `str(fields[name])`. A missing field or a stray brace throws, as Python does.
 */
export function pyFormat(template: string, fields: Record<string, unknown>): string {
  let out = '';
  let i = 0;
  const n = template.length;
  while (i < n) {
    const c = template[i]!;
    if (c === '{') {
      if (template[i + 1] === '{') {
        out += '{';
        i += 2;
        continue;
      }
      const end = template.indexOf('}', i + 1);
      if (end < 0) throw new EvalError('template_error', "Single '{' encountered in format string");
      const name = template.slice(i + 1, end);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        throw new EvalError('template_error', `unsupported replacement field {${name}} (only plain names are supported)`);
      }
      if (!Object.prototype.hasOwnProperty.call(fields, name)) throw new EvalError('template_error', `KeyError: '${name}'`);
      out += pyStr(fields[name]);
      i = end + 1;
      continue;
    }
    if (c === '}') {
      if (template[i + 1] === '}') {
        out += '}';
        i += 2;
        continue;
      }
      throw new EvalError('template_error', "Single '}' encountered in format string");
    }
    out += c;
    i++;
  }
  return out;
}

const INT_STRING_RE = /^[+-]?\p{Nd}+(?:_\p{Nd}+)*$/u;
const ND_RE = /^\p{Nd}$/u;

function digitValue(ch: string): number {
  // Unicode decimal digits come in contiguous runs 0..9: the value is the offset from the run's start, mod 10.
  let cp = ch.codePointAt(0)!;
  const start = cp;
  while (cp > 0 && ND_RE.test(String.fromCodePoint(cp - 1))) cp--;
  return (start - cp) % 10;
}

/** Result of {@link pyInt}: the integer, or why Python's `int()` would raise. */
export type PyIntResult = { ok: true; value: number } | { ok: false; error: string };

/**
 * Python's `int(x)` applied to a JSON value: ints pass, floats truncate toward zero, booleans give 1/0,
 * strings of (Unicode) decimal digits with optional sign, surrounding whitespace and single underscores between
 * digits convert; anything else (`"2.0"`, `"2|1|0"`, `None`, lists, dicts) raises.
 */
export function pyInt(value: unknown): PyIntResult {
  if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, error: `cannot convert float ${value} to integer` };
    const t = Math.trunc(value);
    return { ok: true, value: t === 0 ? 0 : t };
  }
  if (typeof value === 'string') {
    const s = pyStrip(value);
    if (!INT_STRING_RE.test(s)) return { ok: false, error: `invalid literal for int() with base 10: ${pythonStrRepr(value)}` };
    let sign = 1;
    let body = s;
    if (body[0] === '+' || body[0] === '-') {
      if (body[0] === '-') sign = -1;
      body = body.slice(1);
    }
    let n = 0;
    for (const ch of body) {
      if (ch === '_') continue;
      n = n * 10 + digitValue(ch);
    }
    return { ok: true, value: n === 0 ? 0 : sign * n };
  }
  const type = value === null || value === undefined ? 'NoneType' : Array.isArray(value) ? 'list' : 'dict';
  return { ok: false, error: `int() argument must be a string, a bytes-like object or a real number, not '${type}'` };
}

/**
 * `json.dumps(value, ensure_ascii=False, indent=4)` as the reference writes its results: numbers are written as Python
 * ints when integral (below 1e16), except under the keys in `floatKeys` (and for non-integral values), which are
 * written with Python's float `repr` (`0.0`, `110.25`, `1e-05`).
 */
export function pythonJsonDumps(value: unknown, options: { indent?: number; floatKeys?: ReadonlySet<string> } = {}): string {
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
