import { type Command, Option } from 'commander';
import type { RunsCommandOptions } from '../flags/runs';

export function registerRuns(program: Command): void {
  program
    .command('runs')
    .description(
      'leaderboard of every run under DIR: benchmark, variant, system, date, status, headline metrics, cost (unfinished runs shown as such)',
    )
    .argument('[dir]', 'directory to search for runs (default: $DIALEVAL_RUNS, else .)')
    .option('--benchmark <name>', 'only runs of this benchmark')
    .option('--sort <key>', 'sort by a metric name (highest first), or date, cost, system, variant, status, benchmark')
    .option('--ascending', 'with --sort: lowest first')
    .addOption(
      new Option(
        '--format <format>',
        'table, json, csv, markdown, or html (a self-contained sortable page per benchmark)',
      )
        .choices(['table', 'json', 'csv', 'markdown', 'html'])
        .default('table'),
    )
    .option('--out <file>', 'write the output to FILE (atomically) instead of stdout')
    .action(async (dir: string | undefined, opts: RunsCommandOptions) => {
      const { runRuns } = await import('../actions/runs');
      await runRuns(dir, opts);
    });
}
