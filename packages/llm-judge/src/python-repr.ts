import { pythonFloatRepr } from '@eval/core';
import { PyDict, PyOpaque, PySet, PyTuple } from './pyvalue';

// Python's str.isprintable() is false for the categories Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs (except the ASCII space).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/**
 * Python 3 `repr(str)`: single quotes unless the text contains `'` and no `"`; escapes `\\`, the quote,
 * `\n`, `\r`, `\t`; other non-printable characters as `\xNN`, `\uNNNN` or `\UNNNNNNNN`; printable non-ASCII kept.
 */
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
    else if (!NON_PRINTABLE.test(ch)) out += ch;
    else if (code <= 0xff) out += `\\x${hex(code, 2)}`;
    else if (code <= 0xffff) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return out + quote;
}

/**
 * Python 3 `repr()` of JSON-like data: `str`, numbers (integral -> int form, otherwise float repr), booleans
 * (`True`/`False`), `null` (`None`), arrays (lists), `Map`s, {@link PyDict}s and plain objects (dicts, in
 * insertion order), tuples and sets.
 */
export function pythonRepr(value: unknown): string {
  if (typeof value === 'string') return pythonStrRepr(value);
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Object.is(value, -0) && Math.abs(value) < 1e16) return String(value);
    return pythonFloatRepr(value);
  }
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (value instanceof PyTuple) {
    if (value.items.length === 1) return `(${pythonRepr(value.items[0])},)`;
    return `(${value.items.map(pythonRepr).join(', ')})`;
  }
  if (value instanceof PySet) return value.items.length === 0 ? 'set()' : `{${value.items.map(pythonRepr).join(', ')}}`;
  if (value instanceof PyOpaque) return value.text;
  let entries: Array<[unknown, unknown]>;
  if (value instanceof PyDict) entries = value.items();
  else if (value instanceof Map) entries = [...value.entries()];
  else if (typeof value === 'object') entries = Object.entries(value as Record<string, unknown>);
  else throw new TypeError(`pythonRepr: unsupported value of type ${typeof value}`);
  return `{${entries.map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`).join(', ')}}`;
}
