/**
 * Python's `json.dumps` output format (ensure_ascii, `repr` of floats, `indent`), so that files and printed results
 * are byte-identical to what mwzeval writes.
 */
import { pythonFloatRepr } from '@eval/core';

export interface PyJsonOptions {
  /** `indent=N` (newlines, N spaces per level, `","` and `": "` separators); default: one line, `", "` and `": "`. */
  indent?: number;
  /**
   * Which numbers Python held as `int` (printed without `.0`); every other number is a float (`100.0`).
   * Receives the key path. Default: none (all floats).
   */
  isInt?: (path: ReadonlyArray<string | number>) => boolean;
}

/** A JSON string literal as Python's `json.dumps(s)` (ensure_ascii=True) writes it. */
export function pyJsonString(s: string): string {
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
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

/** `json.dumps(value, indent=...)` of a JSON-like value. */
export function pyJsonDumps(value: unknown, options: PyJsonOptions = {}): string {
  const { indent, isInt } = options;
  const path: Array<string | number> = [];
  const write = (v: unknown, level: number): string => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') {
      if (isInt?.(path) && Number.isInteger(v)) return String(v);
      if (Number.isNaN(v)) return 'NaN';
      if (v === Infinity) return 'Infinity';
      if (v === -Infinity) return '-Infinity';
      return pythonFloatRepr(v);
    }
    if (typeof v === 'string') return pyJsonString(v);
    const nl = indent === undefined ? '' : `\n${' '.repeat(indent * (level + 1))}`;
    const close = indent === undefined ? '' : `\n${' '.repeat(indent * level)}`;
    const sep = indent === undefined ? ', ' : ',';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      const parts = v.map((x, i) => {
        path.push(i);
        const s = write(x, level + 1);
        path.pop();
        return s;
      });
      return `[${nl}${parts.join(sep + nl)}${close}]`;
    }
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{}';
    const parts = entries.map(([k, x]) => {
      path.push(k);
      const s = `${pyJsonString(k)}: ${write(x, level + 1)}`;
      path.pop();
      return s;
    });
    return `{${nl}${parts.join(sep + nl)}${close}}`;
  };
  return write(value, 0);
}
