import { type Command, Option } from 'commander';
import type { CompareCommandOptions } from '../flags/compare';
import { integer } from '../parsers';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description(
      'compare runs of one benchmark and variant item by item: B - A per headline metric, paired-bootstrap 95% CI, ' +
        'approximate-randomisation p, exact McNemar and flipped items for binary outcomes, Holm-adjusted p-values',
    )
    .argument(
      '<runs...>',
      'two or more run directories (each with run.json and items.jsonl); every run is compared with the first',
    )
    .addOption(
      new Option('--format <format>', 'table, json (every figure), csv (a row per pair and metric) or markdown')
        .choices(['table', 'json', 'csv', 'markdown'])
        .default('table'),
    )
    .option(
      '--resamples <n>',
      'R: bootstrap resamples and randomisation rounds',
      integer('--resamples', { min: 1 }),
      10_000,
    )
    .option('--seed <n>', 'seed of the resampling (the swaps use seed + 1)', integer('--seed', { min: 0 }), 0)
    .option('--all-pairs', 'compare every pair of runs, not only each against the first')
    .option('--force', 'compare runs of different benchmarks or variants anyway (the mismatch is reported)')
    .option('--metric <name>', 'compare only this headline metric (repeatable)', collect)
    .option(
      '--recompute <module>',
      'an ES module exporting `runBenchmark` (a RunBenchmark) for a benchmark dialeval does not know',
    )
    .option(
      '--fallback-item-means',
      "when the benchmark's descriptor cannot be found: compare the means of the item values instead of refusing",
    )
    .option('--out <file>', 'write the output to FILE (atomically) instead of stdout')
    .addOption(
      new Option(
        '--unit <unit>',
        'resample and swap whole clusters where items carry them (the dialogue of a turn, ...), or independent items',
      )
        .choices(['cluster', 'item'])
        .default('cluster'),
    )
    .action(async (runs: string[], opts: CompareCommandOptions) => {
      const { runCompare } = await import('../actions/compare');
      await runCompare(runs, opts);
    });
}
