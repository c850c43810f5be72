/**
 * The Moses tokenizer and detokenizer as sacremoses 0.1.1 implements them for `lang="en"` with default options
 * (`MosesTokenizer.tokenize(text, escape=True)`, `MosesDetokenizer.detokenize(tokens)`), which mwzeval applies to
 * every response. Spec: shared/specs/multiwoz.md §§ 4.1.1-4.1.2.
 */
import {
  PY_WHITESPACE as PY_WS,
  PY_WHITESPACE_ASCII as PY_WS_ASCII,
  isAscii,
  pySplit,
  pyStrip,
} from '@eval/core/python';
import {
  type CodePointRanges,
  IsAlnum,
  IsAlpha,
  IsLower,
  IsN,
  IsSc,
  NONBREAKING_PREFIXES_EN,
} from './perluniprops.generated';

/** Character-class body of code-point ranges, optionally restricted to ASCII (for ASCII-only input). */
function classBody(ranges: CodePointRanges, asciiOnly = false): string {
  const hex = (c: number) => (asciiOnly ? `\\x${c.toString(16).padStart(2, '0')}` : `\\u{${c.toString(16)}}`);
  const out: string[] = [];
  for (const r of ranges) {
    let [lo, hi] = typeof r === 'number' ? [r, r] : r;
    if (asciiOnly) {
      if (lo > 0x7f) continue;
      hi = Math.min(hi, 0x7f);
    }
    out.push(lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`);
  }
  return out.join('');
}

function rangeTest(ranges: CodePointRanges): (cp: number) => boolean {
  const lo = new Uint32Array(ranges.length);
  const hi = new Uint32Array(ranges.length);
  ranges.forEach((r, i) => {
    lo[i] = typeof r === 'number' ? r : r[0];
    hi[i] = typeof r === 'number' ? r : r[1];
  });
  return (cp) => {
    let a = 0;
    let b = lo.length - 1;
    while (a <= b) {
      const m = (a + b) >> 1;
      if (cp < lo[m]!) b = m - 1;
      else if (cp > hi[m]!) a = m + 1;
      else return true;
    }
    return false;
  };
}

const isAlphaCp = rangeTest(IsAlpha);
const isLowerCp = rangeTest(IsLower);

/**
 * The tokenizer's regular expressions. Two compilations: with the full Unicode classes, and with the classes
 * restricted to ASCII, used for ASCII-only text (where both match exactly the same characters, and the latter run much
 * faster).
 */
function compileTokenizer(asciiOnly: boolean) {
  const ALNUM = classBody(IsAlnum, asciiOnly);
  const ALPHA = classBody(IsAlpha, asciiOnly);
  const NUM = classBody(IsN, asciiOnly);
  const WS = asciiOnly ? PY_WS_ASCII : PY_WS;
  const flags = asciiOnly ? 'g' : 'gu';
  return {
    DEDUPLICATE_SPACE: new RegExp(`[${WS}]+`, flags),
    /** Whether DEDUPLICATE_SPACE would change the text: a whitespace run longer than one, or other than " ". */
    NEEDS_DEDUPLICATE: new RegExp(`[${WS}]{2}|(?! )[${WS}]`, asciiOnly ? '' : 'u'),
    PAD_NOT_ISALNUM: new RegExp(`([^${ALNUM}${WS}.'\`,\\-])`, flags),
    COMMA_SEPARATE_1: new RegExp(`([^${NUM}])[,]`, flags),
    COMMA_SEPARATE_2: new RegExp(`[,]([^${NUM}])`, flags),
    COMMA_SEPARATE_3: new RegExp(`([${NUM}])[,]$`, flags),
    EN_APOSTROPHE: [
      [new RegExp(`([^${ALPHA}])[']([^${ALPHA}])`, flags), "$1 ' $2"],
      [new RegExp(`([^${ALPHA}${NUM}])[']([${ALPHA}])`, flags), "$1 ' $2"],
      [new RegExp(`([${ALPHA}])[']([^${ALPHA}])`, flags), "$1 ' $2"],
      [new RegExp(`([${ALPHA}])[']([${ALPHA}])`, flags), "$1 '$2"],
      [new RegExp(`([${NUM}])[']([s])`, flags), "$1 '$2"],
    ] as Array<[RegExp, string]>,
  };
}

const UNICODE_RE = compileTokenizer(false);
const ASCII_RE = compileTokenizer(true);
const ASCII_JUNK = /[\x00-\x1f]/gu;
const MULTIDOT = /\.(\.+)/gu;
const DOTMULTI_DOT = /DOTMULTI\./u;
const DOTMULTI_DOT_NONDOT = /DOTMULTI\.([^.])/gu;
const DOTMULTI_DOT_G = /DOTMULTI\./gu;
const TRAILING_DOT_APOSTROPHE = /\.' ?$/u;
const ESCAPE_XML: Array<[RegExp, string]> = [
  [/&/g, '&amp;'],
  [/\|/g, '&#124;'],
  [/</g, '&lt;'],
  [/>/g, '&gt;'],
  [/'/g, '&apos;'],
  [/"/g, '&quot;'],
  [/\[/g, '&#91;'],
  [/\]/g, '&#93;'],
];

const ESCAPED_CHARS = /[&|<>'"[\]]/;

const PREFIXES = new Set(NONBREAKING_PREFIXES_EN);
const NUMERIC_ONLY = new Set(
  NONBREAKING_PREFIXES_EN.filter((w) => new RegExp(`[${PY_WS}]+#NUMERIC_ONLY#`, 'u').test(w)).map((w) => {
    const k = w.lastIndexOf(' ');
    return k < 0 ? '' : w.slice(0, k);
  }),
);

function replaceMultidots(text: string): string {
  text = text.replace(MULTIDOT, ' DOTMULTI$1');
  while (DOTMULTI_DOT.test(text)) {
    text = text.replace(DOTMULTI_DOT_NONDOT, 'DOTDOTMULTI $1');
    text = text.replace(DOTMULTI_DOT_G, 'DOTDOTMULTI');
  }
  return text;
}

function restoreMultidots(text: string): string {
  while (text.includes('DOTDOTMULTI')) text = text.split('DOTDOTMULTI').join('DOTMULTI.');
  return text.split('DOTMULTI').join('.');
}

function anyAlpha(s: string): boolean {
  for (const ch of s) if (isAlphaCp(ch.codePointAt(0)!)) return true;
  return false;
}

/**
 * sacremoses' `handles_nonbreaking_prefixes`, returning the tokens of its result (the text it returns, split on
 * whitespace): a token `prefix.` that is not a non-breaking prefix becomes the two tokens `prefix` and `.`.
 */
function handleNonbreakingPrefixes(text: string): string[] {
  const tokens = pySplit(text);
  const n = tokens.length;
  let out: string[] | undefined; // tokens[0..i) as they come out, once one is split
  for (let i = 0; i < n; i++) {
    const token = tokens[i]!;
    // re.search(r"^(\S+)\.$", token): a token (no whitespace) of at least two code points ending with "."
    if (!token.endsWith('.') || token.length < 2) {
      out?.push(token);
      continue;
    }
    const prefix = token.slice(0, -1);
    const next = i + 1 < n ? tokens[i + 1]! : '';
    if (
      (prefix.includes('.') && anyAlpha(prefix)) ||
      (PREFIXES.has(prefix) && !NUMERIC_ONLY.has(prefix)) ||
      (i !== n - 1 && next !== '' && isLowerCp(next.codePointAt(0)!)) ||
      (NUMERIC_ONLY.has(prefix) && i + 1 < n && /^[0-9]+/.test(next))
    ) {
      out?.push(token);
    } else {
      out ??= tokens.slice(0, i);
      out.push(prefix, '.');
    }
  }
  return out ?? tokens;
}

/** `MosesTokenizer(lang="en").tokenize(text)` of sacremoses 0.1.1 (escape on, no aggressive dash splits). */
export function mosesTokenize(text: string): string[] {
  const re = isAscii(text) ? ASCII_RE : UNICODE_RE;
  // (replacing every single space by a space would only copy the text)
  if (re.NEEDS_DEDUPLICATE.test(text)) text = text.replace(re.DEDUPLICATE_SPACE, ' ');
  text = text.replace(ASCII_JUNK, '');
  text = pyStrip(text);
  text = text.replace(re.PAD_NOT_ISALNUM, ' $1 ');
  // (each substitution below only applies when its literal character is present: skipped otherwise, for speed)
  if (text.includes('..') || text.includes('DOTMULTI')) text = replaceMultidots(text);
  if (text.includes(',')) {
    text = text
      .replace(re.COMMA_SEPARATE_1, '$1 , ')
      .replace(re.COMMA_SEPARATE_2, ' , $1')
      .replace(re.COMMA_SEPARATE_3, '$1 , ');
  }
  if (text.includes("'")) for (const [r, sub] of re.EN_APOSTROPHE) text = text.replace(r, sub);
  const tokens = handleNonbreakingPrefixes(text);
  // The steps below change only text with an apostrophe, DOTMULTI or a character to escape (the split above adds
  // none): otherwise the tokens are the result (joining them with single spaces leaves nothing to deduplicate or
  // strip, and splitting again gives them back).
  if (!text.includes('DOTMULTI') && !ESCAPED_CHARS.test(text)) return tokens;
  text = tokens.join(' ');
  if (text.includes("'")) text = text.replace(TRAILING_DOT_APOSTROPHE, " . ' ");
  if (text.includes('DOTMULTI')) text = restoreMultidots(text);
  if (ESCAPED_CHARS.test(text)) for (const [r, sub] of ESCAPE_XML) text = text.replace(r, sub);
  return pySplit(text);
}

const UNESCAPE_XML: Array<[string, string]> = [
  ['&bar;', '|'],
  ['&#124;', '|'],
  ['&lt;', '<'],
  ['&gt;', '>'],
  ['&bra;', '['],
  ['&ket;', ']'],
  ['&quot;', '"'],
  ['&apos;', "'"],
  ['&#91;', '['],
  ['&#93;', ']'],
  ['&amp;', '&'],
];

// sacremoses.util.is_cjk
const CJK_RANGES: ReadonlyArray<readonly [number, number]> = [
  [4352, 4607],
  [11904, 42191],
  [43072, 43135],
  [44032, 55215],
  [63744, 64255],
  [65072, 65103],
  [65381, 65500],
  [131072, 196607],
];

function isCjk(cp: number): boolean {
  if (cp < 4352) return false; // below the first range (every ASCII token)
  for (const [lo, hi] of CJK_RANGES) if (cp >= lo && cp <= hi) return true;
  return false;
}

function lastCodePoint(s: string): number {
  const c = s.charCodeAt(s.length - 1);
  if (c >= 0xdc00 && c <= 0xdfff && s.length >= 2) return s.codePointAt(s.length - 2)!;
  return c;
}

// The detokenizer's token classes, tested code point by code point (a regular expression test per token allocates):
// CURRENCY_OR_OPENING /^[\p{IsSc}([{¿¡]+$/u, PUNCTUATION /^[,.?!:;\\%}\])]+$/u, QUOTES /^['"„“`]+$/u,
// DOUBLE_QUOTES /^[„“”]+$/u, CONTRACTION /^'\p{IsAlpha}/u.
const isScCp = rangeTest(IsSc);
const isCurrencyOrOpening = (cp: number) =>
  cp === 0x28 || cp === 0x5b || cp === 0x7b || cp === 0xbf || cp === 0xa1 || isScCp(cp);
const isPunctuation = (cp: number) =>
  cp === 0x2c ||
  cp === 0x2e ||
  cp === 0x3f ||
  cp === 0x21 ||
  cp === 0x3a ||
  cp === 0x3b ||
  cp === 0x5c ||
  cp === 0x25 ||
  cp === 0x7d ||
  cp === 0x5d ||
  cp === 0x29;
const isQuote = (cp: number) => cp === 0x27 || cp === 0x22 || cp === 0x201e || cp === 0x201c || cp === 0x60;
const isDoubleQuote = (cp: number) => cp === 0x201e || cp === 0x201c || cp === 0x201d;

/** `/^[class]+$/u.test(s)`: non-empty, and every code point is in the class. */
function everyCodePoint(s: string, test: (cp: number) => boolean): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i)!;
    if (!test(cp)) return false;
    if (cp > 0xffff) i++;
  }
  return true;
}

function isContraction(s: string): boolean {
  return s.length > 1 && s.charCodeAt(0) === 0x27 && isAlphaCp(s.codePointAt(1)!);
}

/** Tokens that the detokenizer's whitespace split would give back unchanged: non-empty printable ASCII, no space. */
function plainTokens(tokens: readonly string[]): boolean {
  for (const t of tokens) {
    if (t.length === 0) return false;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c <= 0x20 || c >= 0x7f) return false;
    }
  }
  return true;
}

/** `MosesDetokenizer(lang="en").detokenize(tokens)` of sacremoses 0.1.1 (unescape on). */
export function mosesDetokenize(tokens: readonly string[]): string {
  let toks: readonly string[];
  if (plainTokens(tokens) && !tokens.includes('@-@') && !tokens.some((t) => t.includes('&'))) {
    toks = tokens; // joining and splitting again would give the same tokens
  } else {
    let text = ` ${tokens.join(' ')} `;
    if (text.includes(' @-@ ')) text = text.split(' @-@ ').join('-');
    if (text.includes('&'))
      for (const [from, to] of UNESCAPE_XML) if (text.includes(from)) text = text.split(from).join(to);
    toks = pySplit(text);
  }
  let quoteCounts: Map<string, number> | undefined;
  let prepend = ' ';
  // the output's pieces, joined once at the end (rather than one concatenation per token)
  const parts: string[] = [];
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i]!;
    if (isCjk(tok.codePointAt(0)!)) {
      if (!(i > 0 && isCjk(lastCodePoint(toks[i - 1]!)))) parts.push(prepend);
      parts.push(tok);
      prepend = ' ';
    } else if (everyCodePoint(tok, isCurrencyOrOpening)) {
      parts.push(prepend, tok);
      prepend = '';
    } else if (everyCodePoint(tok, isPunctuation)) {
      parts.push(tok);
      prepend = ' ';
    } else if (i > 0 && isContraction(tok)) {
      parts.push(tok);
      prepend = ' ';
    } else if (everyCodePoint(tok, isQuote)) {
      const nq = everyCodePoint(tok, isDoubleQuote) ? '"' : tok;
      quoteCounts ??= new Map<string, number>([
        ["'", 0],
        ['"', 0],
        ['``', 0],
        ['`', 0],
        ["''", 0],
      ]);
      const count = quoteCounts.get(nq) ?? 0;
      quoteCounts.set(nq, count);
      if (count % 2 === 0) {
        if (tok === "'" && i > 0 && toks[i - 1]!.endsWith('s')) {
          parts.push(tok);
          prepend = ' ';
        } else {
          parts.push(prepend, tok);
          prepend = '';
          quoteCounts.set(nq, count + 1);
        }
      } else {
        parts.push(tok);
        prepend = ' ';
        quoteCounts.set(nq, count + 1);
      }
    } else {
      parts.push(prepend, tok);
      prepend = ' ';
    }
  }
  return pyStrip(parts.join('').replace(/ {2,}/g, ' '));
}
