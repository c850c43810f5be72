/** Python string semantics the game relies on. */

// Characters for which Python's str.isspace() is true (what `str.strip()` without arguments removes).
const PY_WHITESPACE = new Set<number>([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
  0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** Python's `s.strip()` (Unicode whitespace as `str.isspace`), or `s.strip(chars)`. */
export function pyStrip(s: string, chars?: string): string {
  const isStripped = chars === undefined ? (c: number) => PY_WHITESPACE.has(c) : (c: number) => chars.includes(String.fromCharCode(c));
  let start = 0;
  let end = s.length;
  while (start < end && isStripped(s.charCodeAt(start))) start++;
  while (end > start && isStripped(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/** Python's `template.format(*args)` for positional `{}` fields with `{{`/`}}` escapes (all the game texts use). */
export function pyFormat(template: string, ...args: Array<string | number>): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === '{') {
      if (template[i + 1] === '{') {
        out += '{';
        i++;
        continue;
      }
      const close = template.indexOf('}', i);
      const field = close < 0 ? '' : template.slice(i + 1, close);
      let index: number;
      if (field === '') index = next++;
      else if (/^\d+$/.test(field)) index = Number(field);
      else throw new Error(`unsupported format field {${field}} in ${JSON.stringify(template)}`);
      if (index >= args.length) throw new Error(`format field {${field}} has no argument in ${JSON.stringify(template)}`);
      out += String(args[index]);
      i = close;
      continue;
    }
    if (c === '}') {
      if (template[i + 1] === '}') i++;
      out += '}';
      continue;
    }
    out += c;
  }
  return out;
}

/** Python's `s.replace(old, new)`: every occurrence, no special replacement patterns. */
export function pyReplace(s: string, search: string, replacement: string): string {
  if (search === '') return s;
  return s.split(search).join(replacement);
}

/** The game's continuation test: a line break left after stripping leading and trailing `\n` (`"\n" in s.strip("\n")`). */
export function hasContinuation(s: string): boolean {
  return pyStrip(s, '\n').includes('\n');
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** How a slot value is found in an answer: the reference's substring test, or whole words only. */
export type SlotMatch = 'substring' | 'word-boundary';

/** `value.lower() in answer.lower()` (default), or the value as a whole word/phrase (case-insensitive). */
export function containsValue(answer: string, value: string, mode: SlotMatch = 'substring'): boolean {
  if (mode === 'substring') return answer.toLowerCase().includes(value.toLowerCase());
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(value.toLowerCase())}(?![\\p{L}\\p{N}_])`, 'u');
  return re.test(answer.toLowerCase());
}
