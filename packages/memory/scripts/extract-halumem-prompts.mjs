#!/usr/bin/env node
// Extracts HaluMem's memory-system-side QA answer prompts and context templates, unmodified, from a local checkout of
// https://github.com/MemTensor/HaluMem into the directory layout `loadAnswerPrompts` (@eval/memory) reads:
//
//   eval/prompts.py      PROMPT_MEMZERO, PROMPT_ZEP, PROMPT_MEMOS, PROMPT_MEMOBASE (+ any other PROMPT_*) -> PROMPT_<X>.txt
//   eval/eval_<a>.py     TEMPLATE* constants and custom_instructions                -> eval_<a>__<NAME>.txt
//
// Usage: node extract-halumem-prompts.mjs <HaluMem checkout> <output dir>
//
// The texts are CC-BY-NC-ND-4.0 (HaluMem README badge), (c) the HaluMem authors: this script copies them byte for byte
// (the Python string values, as `python -c "from prompts import PROMPT_MEMZERO"` would give them) and writes a
// SOURCE.md with the attribution beside them. Do not edit the extracted files; keep SOURCE.md with them.
//
// Python string literals are parsed here (no Python needed): plain and triple-quoted, ' and ", prefixes r/u, escape
// sequences, adjacent-literal concatenation and parentheses. f-strings, byte strings and \N{...} escapes are refused
// (HaluMem's constants use none of them). Source newlines are normalised to \n, as Python reads source files.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The files `loadAnswerPrompts` requires. */
export const REQUIRED_FILES = [
  'PROMPT_MEMZERO.txt',
  'PROMPT_ZEP.txt',
  'PROMPT_MEMOS.txt',
  'PROMPT_MEMOBASE.txt',
  'eval_memobase__TEMPLATE_MEMOBASE.txt',
  'eval_memos__TEMPLATE_MEMOS.txt',
  'eval_memzero__TEMPLATE_MEM0.txt',
  'eval_memzero__custom_instructions.txt',
  'eval_memzero_graph__TEMPLATE_MEM0_GRAPH.txt',
  'eval_supermemory__TEMPLATE_SUPERMEMORY.txt',
  'eval_zep__TEMPLATE.txt',
];

class ExtractError extends Error {}

const STRING_PREFIX = /^(?:[rRuU]|[fF]|[rR][fF]|[fF][rR]|[bB]|[rR][bB]|[bB][rR])$/;
const IDENT_START = /[A-Za-z_]/;
const IDENT_CHAR = /[A-Za-z0-9_]/;

function lineOf(src, pos) {
  let n = 1;
  for (let i = 0; i < pos && i < src.length; i++) if (src[i] === '\n') n++;
  return n;
}

/** Decodes the escapes of a non-raw str literal body. */
function decodeEscapes(body, where) {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) throw new ExtractError(`${where}: string ends with a backslash`);
    const simple = {
      '\n': '',
      '\\': '\\',
      "'": "'",
      '"': '"',
      a: '\x07',
      b: '\b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
    };
    if (Object.hasOwn(simple, e)) {
      out += simple[e];
    } else if (/[0-7]/.test(e)) {
      let oct = e;
      while (oct.length < 3 && /[0-7]/.test(body[i + 1] ?? '')) oct += body[++i];
      out += String.fromCodePoint(parseInt(oct, 8));
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + len);
      if (!new RegExp(`^[0-9A-Fa-f]{${len}}$`).test(hex)) throw new ExtractError(`${where}: truncated \\${e} escape`);
      out += String.fromCodePoint(parseInt(hex, 16));
      i += len;
    } else if (e === 'N') {
      throw new ExtractError(`${where}: \\N{...} escapes are not supported`);
    } else {
      out += `\\${e}`; // Python keeps unknown escapes as written
    }
  }
  return out;
}

/**
 * Reads one string literal starting at `pos` (at its prefix or quote). Returns { value, end, prefix } or null when no
 * string literal starts there.
 */
function readStringLiteral(src, pos) {
  let i = pos;
  while (i < src.length && /[A-Za-z]/.test(src[i]) && i - pos < 2) i++;
  const prefix = src.slice(pos, i);
  if (prefix && !STRING_PREFIX.test(prefix)) return null;
  const q = src[i];
  if (q !== '"' && q !== "'") return null;
  const triple = src.startsWith(q.repeat(3), i);
  const open = triple ? 3 : 1;
  let j = i + open;
  const start = j;
  for (;;) {
    if (j >= src.length) throw new ExtractError(`line ${lineOf(src, pos)}: unterminated string literal`);
    const c = src[j];
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (!triple && c === '\n') throw new ExtractError(`line ${lineOf(src, pos)}: unterminated string literal`);
    if (triple ? src.startsWith(q.repeat(3), j) : c === q) break;
    j++;
  }
  const raw = src.slice(start, j);
  return { raw, prefix: prefix.toLowerCase(), end: j + open, start: pos };
}

/** The value of a parsed literal, refusing f-strings and bytes. */
function literalValue(lit, src, name) {
  const where = `line ${lineOf(src, lit.start)} (${name})`;
  if (lit.prefix.includes('f'))
    throw new ExtractError(`${where}: f-strings are not supported (the value depends on run-time data)`);
  if (lit.prefix.includes('b')) throw new ExtractError(`${where}: a bytes literal is not a text constant`);
  return lit.prefix.includes('r') ? lit.raw : decodeEscapes(lit.raw, where);
}

/** Skips spaces, tabs, backslash continuations, and (inside parentheses) newlines and comments. */
function skipSpace(src, i, inParens) {
  for (;;) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\f') i++;
    else if (c === '\\' && src[i + 1] === '\n') i += 2;
    else if (inParens && c === '\n') i++;
    else if (inParens && c === '#') while (i < src.length && src[i] !== '\n') i++;
    else return i;
  }
}

/**
 * Parses the right-hand side of an assignment at `pos`: one or more adjacent string literals, optionally in
 * parentheses, then the end of the statement. Returns { value, end } or { error } when it is not a plain string.
 */
function readConstantValue(src, pos, name) {
  let i = skipSpace(src, pos, false);
  const parens = src[i] === '(';
  if (parens) i = skipSpace(src, i + 1, true);
  const parts = [];
  for (;;) {
    const lit = readStringLiteral(src, i);
    if (!lit) break;
    parts.push(literalValue(lit, src, name));
    i = skipSpace(src, lit.end, parens);
  }
  if (parts.length === 0) return { error: 'not a string literal', end: i };
  if (parens) {
    if (src[i] !== ')') return { error: 'not a plain string constant', end: i };
    i = skipSpace(src, i + 1, false);
  }
  if (i < src.length && src[i] !== '\n' && src[i] !== '#' && src[i] !== ';')
    return { error: 'not a plain string constant (an expression follows the literal)', end: i };
  return { value: parts.join(''), end: i };
}

/**
 * All `NAME = "..."` string constants of a Python source whose name passes `wanted`, at any indentation (module level
 * or inside a function), in source order; a later assignment to the same name replaces an earlier one, as in Python.
 * Strings, comments and bracketed expressions are skipped correctly, so text inside other strings is never matched.
 */
export function extractStringConstants(source, wanted = () => true) {
  const src = source.replace(/\r\n?/g, '\n');
  const found = new Map();
  const assign = /([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)/y;
  let depth = 0;
  let lineStart = true;
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (lineStart && depth === 0) {
      // at the start of a logical line: indentation, then maybe an assignment
      while (src[i] === ' ' || src[i] === '\t' || src[i] === '\f') i++;
      lineStart = false;
      assign.lastIndex = i;
      const m = assign.exec(src);
      if (m && wanted(m[1])) {
        const r = readConstantValue(src, assign.lastIndex, m[1]);
        if (r.error) throw new ExtractError(`line ${lineOf(src, i)}: ${m[1]} is ${r.error}`);
        found.set(m[1], r.value);
        i = r.end;
      }
      continue;
    }
    if (c === '\n') {
      lineStart = depth === 0; // inside brackets a newline does not end the logical line
      i++;
    } else if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '\\' && src[i + 1] === '\n') {
      i += 2; // explicit line joining: not a new logical line
    } else if (c === '"' || c === "'") {
      i = readStringLiteral(src, i).end;
    } else if (IDENT_START.test(c)) {
      const lit = i + 2 < src.length ? readStringLiteral(src, i) : null;
      if (lit && lit.start === i && (i === 0 || !IDENT_CHAR.test(src[i - 1]))) {
        i = lit.end;
      } else {
        while (i < src.length && IDENT_CHAR.test(src[i])) i++;
      }
    } else {
      if (c === '(' || c === '[' || c === '{') depth++;
      else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
      i++;
    }
  }
  return found;
}

/** The extracted texts of a HaluMem checkout: a Map from output file name to text. */
export function extractHaluMemPrompts(checkout) {
  const evalDir = join(checkout, 'eval');
  const promptsPy = join(evalDir, 'prompts.py');
  if (!existsSync(promptsPy))
    throw new ExtractError(`${promptsPy} not found: pass the root of a MemTensor/HaluMem checkout`);
  const files = new Map();
  for (const [name, text] of extractStringConstants(readFileSync(promptsPy, 'utf8'), (n) =>
    /^PROMPT_[A-Z0-9_]+$/.test(n),
  )) {
    files.set(`${name}.txt`, text);
  }
  const adapters = readdirSync(evalDir)
    .filter((f) => /^eval_[A-Za-z0-9_]+\.py$/.test(f) && f !== 'eval_tools.py')
    .sort();
  for (const file of adapters) {
    const adapter = basename(file, '.py').slice('eval_'.length);
    const wanted = (n) => /^TEMPLATE[A-Z0-9_]*$/.test(n) || n === 'custom_instructions';
    for (const [name, text] of extractStringConstants(readFileSync(join(evalDir, file), 'utf8'), wanted)) {
      files.set(`eval_${adapter}__${name}.txt`, text);
    }
  }
  const missing = REQUIRED_FILES.filter((f) => !files.has(f));
  if (missing.length) throw new ExtractError(`constants not found in ${evalDir}: ${missing.join(', ')}`);
  return files;
}

/** The checked-out commit, read from .git without running git (undefined when unknown). */
function gitCommit(checkout) {
  try {
    const head = readFileSync(join(checkout, '.git', 'HEAD'), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(head)) return head;
    const ref = head.replace(/^ref:\s*/, '');
    const loose = join(checkout, '.git', ref);
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    const packed = readFileSync(join(checkout, '.git', 'packed-refs'), 'utf8');
    const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
    return line?.split(' ')[0];
  } catch {
    return undefined;
  }
}

function sourceNote(checkout, names) {
  const commit = gitCommit(checkout);
  return `# HaluMem answer prompts and context templates

Extracted unmodified by @eval/memory's scripts/extract-halumem-prompts.mjs from a checkout of
https://github.com/MemTensor/HaluMem${commit ? ` at commit ${commit}` : ''} (eval/prompts.py, eval/eval_*.py).

(c) the HaluMem authors: "HaluMem: Evaluating Hallucinations in Memory Systems of Agents", Chen et al., arXiv 2511.03506.
Licence: CC-BY-NC-ND-4.0 (https://creativecommons.org/licenses/by-nc-nd/4.0/): non-commercial use only, no modified
versions may be shared, keep this attribution with the files.

Files: ${names.join(', ')}
`;
}

function main(argv) {
  if (argv.length !== 2 || argv.includes('--help') || argv.includes('-h')) {
    process.stderr.write('usage: node extract-halumem-prompts.mjs <HaluMem checkout> <output dir>\n');
    return argv.includes('--help') || argv.includes('-h') ? 0 : 2;
  }
  const [checkout, out] = argv.map((p) => resolve(p));
  let files;
  try {
    files = extractHaluMemPrompts(checkout);
  } catch (error) {
    if (!(error instanceof ExtractError)) throw error;
    process.stderr.write(`extract-halumem-prompts: ${error.message}\n`);
    return 1;
  }
  mkdirSync(out, { recursive: true });
  const names = [...files.keys()].sort();
  for (const name of names) writeFileSync(join(out, name), files.get(name), 'utf8');
  writeFileSync(join(out, 'SOURCE.md'), sourceNote(checkout, names), 'utf8');
  process.stdout.write(
    `wrote ${names.length} files to ${out} (CC-BY-NC-ND-4.0: keep them unmodified, with SOURCE.md)\n`,
  );
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
