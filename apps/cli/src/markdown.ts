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
