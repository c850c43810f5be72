// The leaderboard page of a directory of runs: one sortable table per benchmark, each run linked to its report.
import { fold, h, sortable } from './dom';
import type { LeaderboardRow } from './model';

interface LeaderboardData {
  title: string;
  generatedAt: string;
  rows: LeaderboardRow[];
}

function main(): void {
  const data = JSON.parse(document.getElementById('report-data')?.textContent ?? '{}') as LeaderboardData;
  const app = document.getElementById('app')!;
  const benchmarks = [...new Set(data.rows.map((r) => r.benchmark))].sort();
  app.append(
    h('h1', null, data.title),
    h(
      'p',
      { class: 'muted' },
      `${data.rows.length} run(s) · ${benchmarks.length} benchmark(s) · generated ${data.generatedAt} by @eval/report. Click a column to sort.`,
    ),
  );
  for (const benchmark of benchmarks) {
    const rows = data.rows.filter((r) => r.benchmark === benchmark);
    const metrics: string[] = [];
    for (const r of rows) for (const m of Object.keys(r.metrics)) if (!metrics.includes(m)) metrics.push(m);
    const main = metrics.slice(0, 8);
    const tbl = h(
      'table',
      { 'data-table': `runs-${benchmark}` },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['system', 'variant', ...main, 'status', 'date', 'cost', 'report'].map((c) =>
            h('th', { scope: 'col', class: main.includes(c) ? 'num' : null }, c),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((r) =>
          h(
            'tr',
            { 'data-run': r.dir },
            h('td', null, r.system),
            h('td', null, r.variant),
            main.map((m) =>
              h(
                'td',
                { class: 'num', 'data-sort': r.metrics[m]?.sort ?? '', 'data-metric': m },
                r.metrics[m]?.text ?? '',
              ),
            ),
            h('td', { class: r.status === 'complete' ? null : 'bad' }, r.status),
            h('td', null, r.createdAt.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z')),
            h('td', { class: 'num' }, r.cost),
            h(
              'td',
              null,
              r.report
                ? h('a', { href: r.report, 'data-report': r.dir }, 'report')
                : h('span', { class: 'muted', title: r.dir }, r.dir),
            ),
          ),
        ),
      ),
    );
    sortable(tbl);
    const section = h(
      'section',
      { 'data-benchmark': benchmark },
      h('h2', null, benchmark),
      h('div', { class: 'table-wrap full' }, tbl),
    );
    if (metrics.length > main.length)
      section.append(
        fold(
          `${metrics.length - main.length} more metric(s)`,
          false,
          h('p', null, metrics.slice(main.length).join(', ')),
        ),
      );
    app.append(section);
  }
  app.removeAttribute('aria-busy');
  document.body.setAttribute('data-ready', 'true');
}

main();
