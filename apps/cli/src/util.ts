import { EvalError, writeFileAtomic } from '@eval/core';

/** Wrong flags or arguments: exit code 2. */
export class UsageError extends EvalError {
  constructor(message: string) {
    super('usage_error', message);
    this.name = 'UsageError';
  }
}

/** Writes `text` to `--out FILE` atomically, or to stdout. */
export async function emit(text: string, out?: string): Promise<void> {
  const body = text.endsWith('\n') ? text : `${text}\n`;
  if (out) await writeFileAtomic(out, body);
  else process.stdout.write(body);
}

/** Plain-text table with right-aligned numeric columns. */
export function formatTable(header: string[], rows: Array<Array<string | number>>): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? formatNumber(c) : c)))];
  const widths = header.map((_, j) => Math.max(...cells.map((r) => String(r[j] ?? '').length)));
  const numeric = header.map((_, j) => rows.length > 0 && rows.every((r) => typeof r[j] === 'number'));
  const line = (r: Array<string | number>) =>
    r.map((c, j) => (numeric[j] ? String(c).padStart(widths[j]!) : String(c).padEnd(widths[j]!))).join('  ').trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export function formatNumber(x: number, digits = 4): string {
  if (Number.isNaN(x)) return 'NaN';
  if (Number.isInteger(x)) return String(x);
  return x.toFixed(digits);
}

/** RFC 4180 CSV line. */
export function csvLine(cells: Array<string | number | boolean | null | undefined>): string {
  return cells
    .map((c) => {
      const s = c === null || c === undefined ? '' : String(c);
      return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    })
    .join(',');
}

/**
 * Parses an integer flag value: `undefined` stays `undefined` (apply your default with `??`); with `min` 1 or 0 the
 * message says "a positive" / "a non-negative integer".
 */
export function intFlag(flag: string, value: string | undefined, options: { min?: number } = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < (options.min ?? Number.MIN_SAFE_INTEGER)) {
    const what = options.min === 1 ? 'a positive integer' : options.min === 0 ? 'a non-negative integer' : 'an integer';
    throw new UsageError(`${flag} expects ${what}, got "${value}"`);
  }
  return n;
}

/** Parses a confidence level in (0, 1) (default 0.95). */
export function confidenceFlag(value: string | undefined, flag = '--confidence'): number {
  if (value === undefined) return 0.95;
  const x = Number(value);
  if (!(x > 0 && x < 1)) throw new UsageError(`${flag} expects a number between 0 and 1, got "${value}"`);
  return x;
}
