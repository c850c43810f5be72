import type { Command } from 'commander';
import type { ReportCommandOptions } from '../flags/report';
import { integer } from '../parsers';

export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      'write one self-contained HTML report (no network when opened) of a run, or of several runs of one benchmark with ' +
        'their comparison: what was evaluated, headline metrics with intervals, distributions, the benchmark view, drill-down to every item',
    )
    .argument('<runs...>', 'one or more run directories (run.json + items.jsonl; an unfinished run is shown as such)')
    .option('--out <file>', 'the HTML file to write (atomically)', 'report.html')
    .option('--title <text>', 'the report title (default: benchmark and systems)')
    .option(
      '--resamples <n>',
      'several runs: R for the comparison (as dialeval compare)',
      integer('--resamples', { min: 1 }),
      10_000,
    )
    .option(
      '--seed <n>',
      'several runs: seed of the comparison (as dialeval compare)',
      integer('--seed', { min: 0 }),
      0,
    )
    .option('--all-pairs', 'several runs: compare every pair, not only each run against the first')
    .option('--force', 'several runs: compare runs of different variants anyway (the mismatch is shown)')
    .option(
      '--fallback-item-means',
      "several runs, when the benchmark's descriptor cannot be found: compare the means of the item values instead of refusing",
    )
    .action(async (runs: string[], opts: ReportCommandOptions) => {
      const { runReport } = await import('../actions/report');
      await runReport(runs, opts);
    });
}
