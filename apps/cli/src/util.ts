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
    r
      .map((c, j) => (numeric[j] ? String(c).padStart(widths[j]!) : String(c).padEnd(widths[j]!)))
      .join('  ')
      .trimEnd();
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
