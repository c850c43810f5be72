import { pythonRepr } from './pyvalue';

/** A Python `str.format` error (`ValueError`, `KeyError`, `IndexError`), or a feature this port does not support. */
export class FormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FormatError';
  }
}

interface Piece {
  literal: string;
  field?: { name: string; conversion?: 'r' | 's' | 'a' };
}

/** Splits a `str.format` template into literal text and replacement fields (`{{`/`}}` are literal braces). */
export function parseFormatString(template: string): Piece[] {
  const pieces: Piece[] = [];
  let literal = '';
  let i = 0;
  const n = template.length;
  while (i < n) {
    const c = template[i]!;
    if (c === '}') {
      if (template[i + 1] === '}') {
        literal += '}';
        i += 2;
        continue;
      }
      throw new FormatError("Single '}' encountered in format string");
    }
    if (c !== '{') {
      literal += c;
      i++;
      continue;
    }
    if (template[i + 1] === '{') {
      literal += '{';
      i += 2;
      continue;
    }
    // replacement field: find the matching '}' (a format spec may nest one level of braces)
    let depth = 1;
    let j = i + 1;
    while (j < n && depth > 0) {
      if (template[j] === '{') depth++;
      else if (template[j] === '}') depth--;
      if (depth > 0) j++;
    }
    if (depth > 0) throw new FormatError(template.indexOf('}', i) < 0 ? "Single '{' encountered in format string" : "expected '}' before end of string");
    const body = template.slice(i + 1, j);
    const m = /^([^!:]*)(?:!([^:]*))?(?::([\s\S]*))?$/.exec(body)!;
    const name = m[1]!;
    const conversion = m[2];
    const spec = m[3];
    if (conversion !== undefined && !['r', 's', 'a'].includes(conversion)) {
      throw new FormatError(conversion.length === 1 ? `Unknown conversion specifier ${conversion}` : 'expected \':\' after conversion specifier');
    }
    if (spec) throw new FormatError(`format spec ":${spec}" in field {${body}} is not supported by this port`);
    if (name === '' || /^\d+$/.test(name)) throw new FormatError(`Replacement index ${name || 0} out of range for positional args tuple`);
    if (/[.[]/.test(name)) throw new FormatError(`attribute or index access in field {${body}} is not supported by this port`);
    pieces.push({ literal, field: { name, conversion: conversion as 'r' | 's' | 'a' | undefined } });
    literal = '';
    i = j + 1;
  }
  pieces.push({ literal });
  return pieces;
}

function asciiRepr(value: unknown): string {
  return pythonRepr(value).replace(/[^\x00-\x7f]/gu, (ch) => {
    const code = ch.codePointAt(0)!;
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
    if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
    return `\\U${code.toString(16).padStart(8, '0')}`;
  });
}

/** Python `str(value)`: strings as they are, everything else as its `repr`. */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

/**
 * Python's `template.format(**fields)` for named fields: `{{`/`}}` become braces, `{name}` is replaced by
 * `str(fields[name])` (`!r`/`!s`/`!a` conversions supported). Unknown names are a `KeyError`, a stray `}`
 * a `ValueError`, as in Python; format specs and attribute/index access are not supported (a {@link FormatError}).
 */
export function pythonFormat(template: string, fields: Record<string, unknown>): string {
  let out = '';
  for (const piece of parseFormatString(template)) {
    out += piece.literal;
    if (!piece.field) continue;
    const { name, conversion } = piece.field;
    if (!Object.prototype.hasOwnProperty.call(fields, name)) throw new FormatError(`KeyError: '${name}'`);
    const value = fields[name];
    out += conversion === 'r' ? pythonRepr(value) : conversion === 'a' ? asciiRepr(value) : pythonStr(value);
  }
  return out;
}
