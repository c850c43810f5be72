import { stat } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { type RunListing, listRuns } from '@eval/core';
import type { RunsCommandOptions } from '../flags/runs';
import { csvLine, formatMarkdownTable, formatMetricValue, formatTable } from '../format';
import { emit } from '../util';

/** At most this many metric columns in the table and markdown (all of them in JSON and CSV). */
const MAX_METRIC_COLUMNS = 6;

function statusText(r: RunListing): string {
  if (r.status === 'partial' && r.counts) return `partial (${r.counts.failed} failed, ${r.counts.skipped} skipped)`;
  return r.status;
}

function date(iso: string | undefined): string {
  return iso ? iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z') : '';
}

/** Metric names in order of first appearance across the rows; `headline`: without the breakdown figures (`part`). */
function metricNames(rows: RunListing[], headline = false): string[] {
  const names = new Set<string>();
  for (const r of rows) for (const [k, m] of Object.entries(r.metrics)) if (!headline || !m.part) names.add(k);
  return [...names];
}

/** `dialeval runs [DIR]`. */
export async function runRuns(dirArg: string | undefined, opts: RunsCommandOptions): Promise<void> {
  const format = opts.format;
  const dir = dirArg ?? (process.env.DIALEVAL_RUNS || '.');
  const rows = await listRuns(dir, {
    benchmark: opts.benchmark,
    sortBy: opts.sort,
    descending: opts.sort !== undefined && opts.ascending ? false : undefined,
  });
  if (format === 'json') {
    await emit(JSON.stringify(rows, null, 2), opts.out);
    return;
  }
  if (format === 'html') {
    await emit(await leaderboardHtml(dir, rows, opts.out), opts.out);
    return;
  }
  const shown = (r: RunListing) => relative(dir, r.dir) || '.';
  const names = metricNames(rows);
  if (format === 'csv') {
    const header = [
      'dir',
      'benchmark',
      'variant',
      'system',
      'created_at',
      'status',
      'evaluated',
      'failed',
      'skipped',
      'cost_usd',
      ...names,
    ];
    const lines = rows.map((r) =>
      csvLine([
        r.dir,
        r.benchmark,
        r.variant,
        r.system,
        r.createdAt,
        r.status,
        r.counts?.evaluated,
        r.counts?.failed,
        r.counts?.skipped,
        r.costUsd,
        ...names.map((n) => r.metrics[n]?.value),
      ]),
    );
    await emit([csvLine(header), ...lines].join('\n'), opts.out);
    return;
  }
  // One benchmark: a column per headline metric; several: one `metrics` column of `name value` pairs.
  // the tables show headline figures; breakdowns (per domain, round...) are in json and csv
  const single = new Set(rows.map((r) => r.benchmark)).size <= 1;
  const headline = metricNames(rows, true);
  const columns = single ? headline.slice(0, MAX_METRIC_COLUMNS) : [];
  // as the run record declares it (unit, digits): mwzeval's Success 60.5 beside 78.0, a ratio as 53.3%
  const value = (r: RunListing, n: string) => formatMetricValue(r.metrics[n]?.value, r.metrics[n]);
  const header = [
    'benchmark',
    'variant',
    'system',
    'date',
    'status',
    ...(single ? columns : ['metrics']),
    'cost',
    'dir',
  ];
  const body = rows.map((r) => [
    r.benchmark ?? '',
    r.variant ?? '',
    r.system ?? '',
    date(r.createdAt),
    statusText(r),
    ...(single
      ? columns.map((n) => value(r, n))
      : [
          Object.keys(r.metrics)
            .filter((n) => !r.metrics[n]!.part)
            .slice(0, MAX_METRIC_COLUMNS)
            .map((n) => `${n} ${value(r, n)}`)
            .join(', '),
        ]),
    r.costUsd === undefined ? '' : `$${r.costUsd.toFixed(4)}`,
    shown(r),
  ]);
  const invalid = rows.filter((r) => r.status === 'invalid');
  const notes = invalid.map((r) => `invalid: ${r.error}`);
  const summary =
    `${rows.length} run(s) under ${dir}` +
    (rows.some((r) => r.status === 'unfinished')
      ? `, ${rows.filter((r) => r.status === 'unfinished').length} unfinished (no run.json)`
      : '') +
    (single && names.length > columns.length
      ? `; ${names.length - columns.length} more figure(s) in --format json/csv`
      : '');
  const table = format === 'markdown' ? formatMarkdownTable(header, body) : formatTable(header, body);
  await emit([table, '', summary, ...notes].join('\n'), opts.out);
}

/** Where a run's report is, when one was written beside it: `report.html` in the run directory, or `<dir>.html`. */
async function reportBeside(runDir: string): Promise<string | undefined> {
  for (const file of [resolve(runDir, 'report.html'), `${resolve(runDir)}.html`]) {
    if ((await stat(file).catch(() => undefined))?.isFile()) return file;
  }
  return undefined;
}

/** The self-contained leaderboard page (`--format html`): links are relative to where the page is written. */
async function leaderboardHtml(dir: string, rows: RunListing[], out: string | undefined): Promise<string> {
  const { renderLeaderboard } = await import('@eval/report');
  const base = out === undefined ? process.cwd() : dirname(resolve(out));
  const runs = await Promise.all(
    rows.map(async (r) => {
      const report = await reportBeside(r.dir);
      return { ...r, dir: relative(dir, r.dir) || '.', ...(report ? { report: relative(base, report) } : {}) };
    }),
  );
  return renderLeaderboard({ runs, title: `Runs under ${dir}` });
}
