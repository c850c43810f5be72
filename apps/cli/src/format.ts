// The one place the CLI turns numbers and rows into text: plain tables, markdown tables, CSV, percentages. A run
// metric's own unit and precision come from core's formatMetricValue.
export { formatMetricDifference, formatMetricValue } from '@eval/core';

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

/** A GitHub-flavoured markdown table; `|` and newlines inside cells are escaped. Numeric columns align right. */
export function formatMarkdownTable(header: string[], rows: Array<Array<string | number>>): string {
  const cell = (c: string | number) => String(c).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const numeric = header.map((_, j) => rows.length > 0 && rows.every((r) => typeof r[j] === 'number'));
  return [
    `| ${header.map(cell).join(' | ')} |`,
    `|${numeric.map((n) => (n ? ' ---: ' : ' --- ')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** A 0-1 ratio as a percentage (`0.5333` -> `53.33%` with 2 digits); null and undefined are an em dash. */
export function percent(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? '—' : `${(x * 100).toFixed(digits)}%`;
}
