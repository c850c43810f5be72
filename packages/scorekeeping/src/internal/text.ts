/** Python string semantics the game relies on. */
import { pyReplace, pyStrip, pythonFormat } from '@eval/core/python';

/** Python's `s.strip()` / `s.strip(chars)` (`@eval/core/python`'s `pyStrip`). */
export { pyStrip };

/** Python's `template.format(*args)` (`@eval/core/python`'s `pythonFormat` with positional arguments). */
export function pyFormat(template: string, ...args: Array<string | number>): string {
  return pythonFormat(template, args, { numbers: 'guess' });
}

/** Python's `s.replace(old, new)` (`@eval/core/python`'s `pyReplace`). */
export { pyReplace };

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
