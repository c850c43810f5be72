import { PyLiteralDict, PyOpaque, PySet, PyTuple, PyTypeError, type PyLiteral } from './value';

/** Python's `eval` failed on the text (a `SyntaxError`, `NameError`, `TypeError`, ...). */
export class PythonEvalError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} (at ${position})`);
    this.name = 'PythonEvalError';
  }
}

export interface PythonLiteralOptions {
  /**
   * Names that evaluate to constants. Python's builtins give `True`, `False`, `None` (default); every other
   * name is a `NameError`. (Lower-cased text, as the single-step reference evaluates it, has `true`/`none`,
   * which are NameErrors there.)
   */
  names?: Record<string, PyLiteral>;
}

const DEFAULT_NAMES: Record<string, PyLiteral> = { True: true, False: false, None: null };

type Tok =
  | { t: 'str'; v: string; bytes: boolean; pos: number }
  | { t: 'num'; v: PyLiteral; pos: number }
  | { t: 'name'; v: string; pos: number }
  | { t: 'op'; v: string; pos: number }
  | { t: 'nl'; pos: number }
  | { t: 'end'; pos: number };

const SIMPLE_ESCAPES: Record<string, string> = {
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

const IDENT_START = /[\p{L}\p{Nl}_\u1885\u1886\u2118\u212e\u309b\u309c]/u;
const IDENT_CONT =
  /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_\u00b7\u0387\u1369-\u1371\u19da\u1885\u1886\u2118\u212e\u309b\u309c]/u;

/**
 * Tokenises like CPython's tokenizer for `eval` input: leading spaces/tabs of the source are stripped,
 * blank and comment-only lines are ignored, newlines inside brackets are free, a backslash joins lines,
 * an indented logical line is an `IndentationError`.
 */
function tokenize(src: string): Tok[] {
  if (src.includes('\0')) throw new PythonEvalError('source code string cannot contain null bytes', src.indexOf('\0'));
  let i = 0;
  const n = src.length;
  while (i < n && (src[i] === ' ' || src[i] === '\t')) i++;
  const toks: Tok[] = [];
  let depth = 0;
  let atLineStart = false; // the first line's indentation was stripped
  const fail = (msg: string, at = i): never => {
    throw new PythonEvalError(msg, at);
  };
  while (i < n) {
    if (atLineStart && depth === 0) {
      // measure indentation of a new logical line
      let j = i;
      let indent = 0;
      while (j < n && (src[j] === ' ' || src[j] === '\t' || src[j] === '\f')) {
        indent = src[j] === '\f' ? 0 : indent + 1;
        j++;
      }
      const c = src[j];
      if (j >= n) {
        // trailing whitespace-only line without a newline: CPython 3.11 reports "unexpected indent"
        if (indent > 0) fail('unexpected indent', i);
        i = j;
        break;
      }
      if (c === '\n' || c === '\r' || c === '#') {
        // blank or comment-only line
        i = j;
        if (c === '#') while (i < n && src[i] !== '\n' && src[i] !== '\r') i++;
        if (src[i] === '\r' && src[i + 1] === '\n') i += 2;
        else i++;
        continue;
      }
      if (c === '\\' && (src[j + 1] === '\n' || src[j + 1] === '\r')) {
        i = j;
        atLineStart = false;
        continue;
      }
      if (indent > 0) fail('unexpected indent', j);
      i = j;
      atLineStart = false;
      continue;
    }
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\f') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < n && src[i] !== '\n' && src[i] !== '\r') i++;
      continue;
    }
    if (c === '\\') {
      if (src[i + 1] === '\n') {
        i += 2;
        continue;
      }
      if (src[i + 1] === '\r') {
        i += src[i + 2] === '\n' ? 3 : 2;
        continue;
      }
      fail('unexpected character after line continuation character');
    }
    if (c === '\n' || c === '\r') {
      if (depth === 0) {
        toks.push({ t: 'nl', pos: i });
        atLineStart = true;
      }
      i += c === '\r' && src[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    // string literal, possibly with a prefix
    const prefix = /^(?:[rRuUbBfF]|[bB][rR]|[rR][bB]|[fF][rR]|[rR][fF])?(?=['"])/.exec(src.slice(i, i + 3));
    if (prefix && (src[i + prefix[0].length] === "'" || src[i + prefix[0].length] === '"')) {
      const str = readString(src, i, prefix[0].toLowerCase(), fail);
      toks.push({ t: 'str', v: str.v, bytes: str.bytes, pos: str.pos });
      i = str.end;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = readNumber(src, i);
      if (!m) fail('invalid decimal literal');
      toks.push({ t: 'num', v: m!.value, pos: i });
      i = m!.end;
      if (i < n && IDENT_CONT.test(src[i]!)) fail('invalid decimal literal', i);
      continue;
    }
    if (IDENT_START.test(c)) {
      let j = i + 1;
      while (j < n && IDENT_CONT.test(src[j]!)) j++;
      toks.push({ t: 'name', v: src.slice(i, j).normalize('NFKC'), pos: i });
      i = j;
      continue;
    }
    if (src.startsWith('...', i)) {
      toks.push({ t: 'op', v: '...', pos: i });
      i += 3;
      continue;
    }
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
    if ('()[]{},:+-'.includes(c)) {
      toks.push({ t: 'op', v: c, pos: i });
      i++;
      continue;
    }
    // any other operator makes an expression this port does not evaluate
    fail(`unsupported token ${JSON.stringify(c)}`);
  }
  if (depth > 0) fail("'(' was never closed", n);
  toks.push({ t: 'end', pos: n });
  return toks;
}

function readString(
  src: string,
  start: number,
  prefix: string,
  fail: (msg: string, at?: number) => never,
): { v: string; bytes: boolean; pos: number; end: number } {
  let i = start + prefix.length;
  const q = src[i]!;
  const triple = src.startsWith(q.repeat(3), i);
  const raw = prefix.includes('r');
  const bytes = prefix.includes('b');
  const fstring = prefix.includes('f');
  i += triple ? 3 : 1;
  let out = '';
  const n = src.length;
  for (;;) {
    if (i >= n) fail(triple ? 'unterminated triple-quoted string literal' : 'unterminated string literal', start);
    const c = src[i]!;
    if (triple ? src.startsWith(q.repeat(3), i) : c === q) {
      i += triple ? 3 : 1;
      break;
    }
    if (!triple && (c === '\n' || c === '\r')) fail('unterminated string literal', start);
    if (bytes && c.charCodeAt(0) > 0x7f) fail('bytes can only contain ASCII literal characters', i);
    if (fstring && (c === '{' || c === '}')) fail('f-string expressions are not evaluated by this port', i);
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = src[i + 1];
    if (e === undefined) fail('unterminated string literal', start);
    if (raw) {
      // a raw string keeps the backslash; it still escapes the quote and a newline
      out += c + e;
      i += 2;
      continue;
    }
    if (e === '\n') {
      i += 2;
      continue;
    }
    if (e === '\r') {
      i += src[i + 2] === '\n' ? 3 : 2;
      continue;
    }
    if (SIMPLE_ESCAPES[e!] !== undefined) {
      out += SIMPLE_ESCAPES[e!];
      i += 2;
      continue;
    }
    if (/[0-7]/.test(e!)) {
      const m = /^[0-7]{1,3}/.exec(src.slice(i + 1, i + 4))![0];
      const code = Number.parseInt(m, 8);
      if (bytes) out += String.fromCharCode(code & 0xff);
      else out += String.fromCodePoint(code);
      i += 1 + m.length;
      continue;
    }
    if (e === 'x') {
      const hex = src.slice(i + 2, i + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) fail('truncated \\xXX escape', i);
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 4;
      continue;
    }
    if (!bytes && (e === 'u' || e === 'U')) {
      const len = e === 'u' ? 4 : 8;
      const hex = src.slice(i + 2, i + 2 + len);
      if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) fail(`truncated \\${e}${'X'.repeat(len)} escape`, i);
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff) fail('illegal Unicode character', i);
      out += code >= 0xd800 && code <= 0xdfff ? String.fromCharCode(code) : String.fromCodePoint(code);
      i += 2 + len;
      continue;
    }
    if (!bytes && e === 'N') fail('\\N{...} escapes are not supported by this port', i);
    // unknown escape: kept verbatim (a DeprecationWarning in Python, not an error)
    out += c + e;
    i += 2;
  }
  return { v: out, bytes, pos: start, end: i };
}

function readNumber(src: string, start: number): { value: PyLiteral; end: number } | undefined {
  const rest = src.slice(start);
  const D = '[0-9](?:_?[0-9])*';
  const radix = /^0(?:[xX](?:_?[0-9a-fA-F])+|[oO](?:_?[0-7])+|[bB](?:_?[01])+)/.exec(rest);
  if (radix) {
    const body = radix[0].slice(2).replace(/_/g, '');
    const base = /[xX]/.test(radix[0][1]!) ? 16 : /[oO]/.test(radix[0][1]!) ? 8 : 2;
    return { value: Number.parseInt(body, base), end: start + radix[0].length };
  }
  const float = new RegExp(`^(?:(?:${D})?\\.${D}|${D}\\.)(?:[eE][-+]?${D})?|^${D}[eE][-+]?${D}`).exec(rest);
  const int = new RegExp(`^${D}`).exec(rest);
  let text: string;
  if (float && (!int || float[0].length >= int[0].length)) {
    text = float[0];
  } else if (int) {
    text = int[0];
    // "01" is a SyntaxError (leading zeros); "00" is fine
    if (text.startsWith('0') && /[1-9]/.test(text)) return undefined;
  } else return undefined;
  let end = start + text.length;
  if (src[end] === 'j' || src[end] === 'J') {
    end++;
    return { value: new PyOpaque('complex', `${text.replace(/_/g, '')}j`), end };
  }
  return { value: Number(text.replace(/_/g, '')), end };
}

/**
 * Evaluates `text` the way Python's `eval` (CPython 3.11; for literals the same as `ast.literal_eval`) evaluates a literal: strings (prefixes, escapes, implicit
 * concatenation), numbers, `True`/`False`/`None`, lists, tuples, dicts, sets, unary `+`/`-`, comments.
 * Never runs code: any other expression (names, calls, operators) is treated as an evaluation error,
 * as almost all of them would be in Python. Throws {@link PythonEvalError}.
 */
export function evalPythonLiteral(text: string, options: PythonLiteralOptions = {}): PyLiteral {
  const names = options.names ?? DEFAULT_NAMES;
  const toks = tokenize(text);
  let p = 0;
  const peek = () => toks[p]!;
  const fail = (msg: string, tok: Tok = peek()): never => {
    throw new PythonEvalError(msg, tok.pos);
  };
  const isOp = (v: string) => {
    const t = peek();
    return t.t === 'op' && t.v === v;
  };
  const expectOp = (v: string) => {
    if (!isOp(v)) fail(`expected '${v}'`);
    p++;
  };
  const wrap = <T>(f: () => T): T => {
    try {
      return f();
    } catch (error) {
      if (error instanceof PyTypeError) throw new PythonEvalError(`TypeError: ${error.message}`, peek().pos);
      throw error;
    }
  };

  const atom = (): PyLiteral => {
    const t = peek();
    if (t.t === 'str') {
      let s = '';
      const bytes = t.bytes;
      while (peek().t === 'str') {
        const u = peek() as Extract<Tok, { t: 'str' }>;
        if (u.bytes !== bytes) fail('cannot mix bytes and nonbytes literals');
        s += u.v;
        p++;
      }
      return bytes ? new PyOpaque('bytes', `b${JSON.stringify(s)}`) : s;
    }
    if (t.t === 'num') {
      p++;
      return t.v;
    }
    if (t.t === 'name') {
      p++;
      if (!Object.hasOwn(names, t.v)) fail(`NameError: name '${t.v}' is not defined`, t);
      return names[t.v]!;
    }
    if (t.t === 'op') {
      if (t.v === '...') {
        p++;
        return new PyOpaque('ellipsis', 'Ellipsis');
      }
      if (t.v === '(') {
        p++;
        if (isOp(')')) {
          p++;
          return new PyTuple([]);
        }
        const first = expr();
        if (isOp(')')) {
          p++;
          return first;
        }
        const items = [first];
        while (isOp(',')) {
          p++;
          if (isOp(')')) break;
          items.push(expr());
        }
        expectOp(')');
        return new PyTuple(items);
      }
      if (t.v === '[') {
        p++;
        const items: PyLiteral[] = [];
        while (!isOp(']')) {
          items.push(expr());
          if (isOp(',')) p++;
          else break;
        }
        expectOp(']');
        return items;
      }
      if (t.v === '{') {
        p++;
        if (isOp('}')) {
          p++;
          return new PyLiteralDict();
        }
        const firstKey = expr();
        if (isOp(':')) {
          p++;
          const d = new PyLiteralDict();
          const firstValue = expr();
          wrap(() => d.set(firstKey, firstValue));
          while (isOp(',')) {
            p++;
            if (isOp('}')) break;
            const k = expr();
            expectOp(':');
            const v = expr();
            wrap(() => d.set(k, v));
          }
          expectOp('}');
          return d;
        }
        const s = new PySet();
        wrap(() => s.add(firstKey));
        while (isOp(',')) {
          p++;
          if (isOp('}')) break;
          const v = expr();
          wrap(() => s.add(v));
        }
        expectOp('}');
        return s;
      }
    }
    return fail('invalid syntax');
  };

  const expr = (): PyLiteral => {
    if (isOp('-') || isOp('+')) {
      const op = peek();
      p++;
      const v = expr();
      let num: number;
      if (typeof v === 'number') num = v;
      else if (typeof v === 'boolean') num = v ? 1 : 0;
      else if (v instanceof PyOpaque && v.kind === 'complex' && op.t === 'op') {
        return op.v === '-' ? new PyOpaque('complex', `(-${v.text})`) : v;
      } else return fail(`TypeError: bad operand type for unary ${op.t === 'op' ? op.v : ''}`, op);
      return op.t === 'op' && op.v === '-' ? -num : num;
    }
    return atom();
  };

  // eval_input: expressions NEWLINE* ENDMARKER  (a bare "a, b" is a tuple)
  while (peek().t === 'nl') p++;
  if (peek().t === 'end') fail('invalid syntax: unexpected EOF');
  const first = expr();
  let result: PyLiteral = first;
  if (isOp(',')) {
    const items = [first];
    while (isOp(',')) {
      p++;
      if (peek().t === 'nl' || peek().t === 'end') break;
      items.push(expr());
    }
    result = new PyTuple(items);
  }
  while (peek().t === 'nl') p++;
  if (peek().t !== 'end') fail('invalid syntax');
  return result;
}
