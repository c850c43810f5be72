/**
 * A JSON object whose top-level values are parsed on first use. `scanJsonObject` checks the whole text's syntax
 * (exactly what `JSON.parse` accepts) without building values, and records where each top-level key's value lies;
 * `get` parses one value. Used for `booked_domains.json` (10,438 dialogues of which the test set uses 1,000).
 */

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Top-level values of a JSON object text, parsed when asked for. Keys are in `JSON.parse`'s own-key order. */
export class LazyJsonObject {
  /** @internal */
  constructor(
    private readonly text: string,
    /** key -> slot; the value of slot s is text.slice(starts[s], ends[s]). A duplicate key keeps its first slot and its last value, as `JSON.parse` (and Python's json) do. */
    private readonly slots: Map<string, number>,
    private readonly starts: number[],
    private readonly ends: number[],
  ) {}

  has(key: string): boolean {
    return this.slots.has(key);
  }

  /** The parsed value of `key` (a new value on each call), or undefined. */
  get(key: string): unknown {
    const s = this.slots.get(key);
    return s === undefined ? undefined : JSON.parse(this.text.slice(this.starts[s]!, this.ends[s]!));
  }

  /** The keys in the order `Object.keys(JSON.parse(text))` gives (integer-like keys first, ascending). */
  keys(): string[] {
    const order: Record<string, true> = Object.create(null);
    for (const k of this.slots.keys()) order[k] = true;
    return Object.keys(order);
  }

  get size(): number {
    return this.slots.size;
  }
}

function ws(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === SPACE || c === LF || c === CR || c === TAB) i++;
    else return i;
  }
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** End of the string starting at the quote at i, or -1. Raw control characters and bad escapes are errors. */
function skipString(t: string, i: number): number {
  const n = t.length;
  let j = i + 1;
  for (;;) {
    if (j >= n) return -1;
    const c = t.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c < SPACE) return -1;
    if (c === BACKSLASH) {
      const e = t.charCodeAt(j + 1);
      if (e === 0x75 /* u */) {
        if (
          !(
            isHex(t.charCodeAt(j + 2)) &&
            isHex(t.charCodeAt(j + 3)) &&
            isHex(t.charCodeAt(j + 4)) &&
            isHex(t.charCodeAt(j + 5))
          )
        )
          return -1;
        j += 6;
        continue;
      }
      // " \ / b f n r t
      if (
        e === QUOTE ||
        e === BACKSLASH ||
        e === 0x2f ||
        e === 0x62 ||
        e === 0x66 ||
        e === 0x6e ||
        e === 0x72 ||
        e === 0x74
      ) {
        j += 2;
        continue;
      }
      return -1;
    }
    j++;
  }
}

function digits(t: string, i: number): number {
  let c = t.charCodeAt(i);
  while (c >= ZERO && c <= NINE) c = t.charCodeAt(++i);
  return i;
}

/** End of the number starting at i, or -1 (JSON's grammar: no leading zeros, no bare dot, no `+`). */
function skipNumber(t: string, i: number): number {
  if (t.charCodeAt(i) === MINUS) i++;
  const c = t.charCodeAt(i);
  if (c === ZERO) i++;
  else if (c > ZERO && c <= NINE) i = digits(t, i + 1);
  else return -1;
  if (t.charCodeAt(i) === DOT) {
    const j = digits(t, i + 1);
    if (j === i + 1) return -1;
    i = j;
  }
  const e = t.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const s = t.charCodeAt(i);
    if (s === PLUS || s === MINUS) i++;
    const j = digits(t, i);
    if (j === i) return -1;
    i = j;
  }
  return i;
}

let stack = new Uint8Array(64);
const IN_ARRAY = 1;
const IN_OBJECT = 2;

/** After the `{` or `,` of an object: the key and its colon; returns the index of the value, or -1. */
function memberHead(t: string, i: number): number {
  i = ws(t, i);
  if (t.charCodeAt(i) !== QUOTE) return -1;
  i = skipString(t, i);
  if (i < 0) return -1;
  i = ws(t, i);
  if (t.charCodeAt(i) !== COLON) return -1;
  return i + 1;
}

/** End of the JSON value starting at i (after whitespace), or -1 when it is not valid JSON. Iterative: any depth. */
function skipValue(t: string, i: number): number {
  let depth = 0;
  value: for (;;) {
    i = ws(t, i);
    const c = t.charCodeAt(i);
    if (c === LBRACE || c === LBRACKET) {
      const close = c === LBRACE ? RBRACE : RBRACKET;
      const j = ws(t, i + 1);
      if (t.charCodeAt(j) === close) {
        i = j + 1;
      } else {
        if (depth === stack.length) {
          const grown = new Uint8Array(stack.length * 2);
          grown.set(stack);
          stack = grown;
        }
        stack[depth++] = c === LBRACE ? IN_OBJECT : IN_ARRAY;
        if (c === LBRACE) {
          i = memberHead(t, i + 1);
          if (i < 0) return -1;
        } else {
          i = j;
        }
        continue;
      }
    } else if (c === QUOTE) {
      i = skipString(t, i);
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      i = skipNumber(t, i);
    } else if (c === 0x74 /* t */ && t.startsWith('true', i)) {
      i += 4;
    } else if (c === 0x66 /* f */ && t.startsWith('false', i)) {
      i += 5;
    } else if (c === 0x6e /* n */ && t.startsWith('null', i)) {
      i += 4;
    } else {
      return -1;
    }
    if (i < 0) return -1;
    // after a value: close containers, or go on to the next element / member
    for (;;) {
      if (depth === 0) return i;
      i = ws(t, i);
      const d = t.charCodeAt(i);
      const top = stack[depth - 1];
      if (d === COMMA) {
        if (top === IN_OBJECT) {
          i = memberHead(t, i + 1);
          if (i < 0) return -1;
        } else {
          i++;
        }
        continue value;
      }
      if ((d === RBRACKET && top === IN_ARRAY) || (d === RBRACE && top === IN_OBJECT)) {
        depth--;
        i++;
        continue;
      }
      return -1;
    }
  }
}

// Fast path for one member `"key": value` whose key has no escapes and whose value is an array of arrays of strings
// without escapes (every value of booked_domains.json): one native regular-expression match instead of a scan by
// character. It accepts only valid JSON; anything else is scanned by skipValue.
const JSON_WS = '[ \\t\\n\\r]*';
const PLAIN_STRING = '"[^"\\\\\\x00-\\x1f]*"';
const STRINGS = `\\[${JSON_WS}(?:${PLAIN_STRING}(?:${JSON_WS},${JSON_WS}${PLAIN_STRING})*${JSON_WS})?\\]`;
const ARRAYS = `\\[${JSON_WS}(?:${STRINGS}(?:${JSON_WS},${JSON_WS}${STRINGS})*${JSON_WS})?\\]`;
const PLAIN_MEMBER = new RegExp(`${JSON_WS}"([^"\\\\\\x00-\\x1f]*)"${JSON_WS}:${JSON_WS}(${ARRAYS})`, 'y');

/**
 * Scans JSON text (BOM already removed) whose top-level value is an object. Returns undefined when the text is not
 * valid JSON (as `JSON.parse` defines it) or not an object: the caller then parses it fully, which reports the error
 * (or gives the non-object value).
 */
export function scanJsonObject(text: string): LazyJsonObject | undefined {
  let i = ws(text, 0);
  if (text.charCodeAt(i) !== LBRACE) return undefined;
  const slots = new Map<string, number>();
  const starts: number[] = [];
  const ends: number[] = [];
  i = ws(text, i + 1);
  if (text.charCodeAt(i) === RBRACE) {
    i++;
  } else {
    for (;;) {
      let key: string;
      let start: number;
      PLAIN_MEMBER.lastIndex = i;
      const m = PLAIN_MEMBER.exec(text);
      if (m !== null) {
        key = m[1]!;
        i = PLAIN_MEMBER.lastIndex;
        start = i - m[2]!.length;
      } else {
        i = ws(text, i);
        if (text.charCodeAt(i) !== QUOTE) return undefined;
        const keyStart = i;
        i = skipString(text, i);
        if (i < 0) return undefined;
        const raw = text.slice(keyStart + 1, i - 1);
        key = raw.includes('\\') ? (JSON.parse(text.slice(keyStart, i)) as string) : raw;
        i = ws(text, i);
        if (text.charCodeAt(i) !== COLON) return undefined;
        start = ws(text, i + 1);
        i = skipValue(text, start);
        if (i < 0) return undefined;
      }
      const slot = slots.get(key);
      if (slot === undefined) {
        slots.set(key, starts.length);
        starts.push(start);
        ends.push(i);
      } else {
        starts[slot] = start;
        ends[slot] = i;
      }
      i = ws(text, i);
      const c = text.charCodeAt(i);
      if (c === COMMA) {
        i++;
        continue;
      }
      if (c === RBRACE) {
        i++;
        break;
      }
      return undefined;
    }
  }
  if (ws(text, i) !== text.length) return undefined;
  return new LazyJsonObject(text, slots, starts, ends);
}
