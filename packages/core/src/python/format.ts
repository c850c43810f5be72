import { type PythonReprOptions, pythonRepr } from './json';

/** A Python `str.format` error (`ValueError`, `KeyError`, `IndexError`), or a feature this port does not support. */
export class FormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FormatError';
  }
}

/** A replacement field of a `str.format` template: `name` is `''` (automatic numbering), digits, or an identifier. */
export interface FormatField {
  name: string;
  conversion?: 'r' | 's' | 'a';
}

/** Literal text followed by an optional replacement field. */
export interface FormatPiece {
  literal: string;
  field?: FormatField;
}

/**
 * Splits a `str.format` template into literal text and replacement fields as CPython's `MarkupIterator` does:
 * `{{`/`}}` are literal braces, a stray `}` or an unclosed `{` is a `ValueError` with CPython's message.
 * Format specs (`{x:>5}`) and attribute/index access (`{a.b}`, `{a[0]}`) are not used by any package and throw a
 * {@link FormatError} rather than being approximated.
 */
export function parseFormatString(template: string): FormatPiece[] {
  const pieces: FormatPiece[] = [];
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
    if (depth > 0)
      throw new FormatError(
        i + 1 === n ? "Single '{' encountered in format string" : "expected '}' before end of string",
      );
    const body = template.slice(i + 1, j);
    const m = /^([^!:]*)(?:!([^:]*))?(?::([\s\S]*))?$/.exec(body)!;
    const name = m[1]!;
    const conversion = m[2];
    const spec = m[3];
    if (conversion !== undefined && !['r', 's', 'a'].includes(conversion)) {
      throw new FormatError(
        conversion.length === 1
          ? `Unknown conversion specifier ${conversion}`
          : "expected ':' after conversion specifier",
      );
    }
    if (spec) throw new FormatError(`format spec ":${spec}" in field {${body}} is not supported by this port`);
    if (/[.[]/.test(name))
      throw new FormatError(`attribute or index access in field {${body}} is not supported by this port`);
    pieces.push({ literal, field: { name, conversion: conversion as 'r' | 's' | 'a' | undefined } });
    literal = '';
    i = j + 1;
  }
  pieces.push({ literal });
  return pieces;
}

function asciiRepr(value: unknown, options: PythonReprOptions): string {
  return pythonRepr(value, options).replace(/[^\x00-\x7f]/gu, (ch) => {
    const code = ch.codePointAt(0)!;
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
    if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
    return `\\U${code.toString(16).padStart(8, '0')}`;
  });
}

/**
 * Python's `template.format(*args)` (an array) or `template.format(**kwargs)` (an object), CPython 3.11 `str.format`:
 * `{}` numbers automatically, `{0}` picks a positional argument, `{name}` a keyword one; `{{`/`}}` are braces; a value
 * is written as `str(value)` (`!r`/`!s`/`!a` conversions supported), numbers typed by `options.numbers` (see
 * `pythonRepr`). Errors are {@link FormatError}s with CPython's message: an unknown name is a `KeyError: 'name'`, a
 * missing positional argument `Replacement index 1 out of range for positional args tuple`, mixing `{}` and `{0}`
 * `cannot switch from automatic field numbering to manual field specification`.
 */
export function pythonFormat(
  template: string,
  args: readonly unknown[] | Readonly<Record<string, unknown>>,
  options: PythonReprOptions = {},
): string {
  const positional: readonly unknown[] = Array.isArray(args) ? args : [];
  const named: Readonly<Record<string, unknown>> = Array.isArray(args)
    ? {}
    : (args as Readonly<Record<string, unknown>>);
  let out = '';
  let auto: number | undefined;
  let manual = false;
  for (const piece of parseFormatString(template)) {
    out += piece.literal;
    if (!piece.field) continue;
    const { name, conversion } = piece.field;
    let value: unknown;
    if (name === '' || /^\d+$/.test(name)) {
      let index: number;
      if (name === '') {
        if (manual) throw new FormatError('cannot switch from manual field specification to automatic field numbering');
        auto = (auto ?? -1) + 1;
        index = auto;
      } else {
        if (auto !== undefined)
          throw new FormatError('cannot switch from automatic field numbering to manual field specification');
        manual = true;
        index = Number(name);
      }
      if (index >= positional.length)
        throw new FormatError(`Replacement index ${index} out of range for positional args tuple`);
      value = positional[index];
    } else {
      if (!Object.hasOwn(named, name)) throw new FormatError(`KeyError: '${name}'`);
      value = named[name];
    }
    out +=
      conversion === 'r'
        ? pythonRepr(value, options)
        : conversion === 'a'
          ? asciiRepr(value, options)
          : pythonStr(value, options);
  }
  return out;
}

function pythonStr(value: unknown, options: PythonReprOptions): string {
  return typeof value === 'string' ? value : pythonRepr(value, options);
}
