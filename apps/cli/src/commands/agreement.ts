import { type Command, Option } from 'commander';
import type { AgreementCommandOptions } from '../flags/agreement';
import { integer } from '../parsers';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerAgreement(program: Command): void {
  program
    .command('agreement')
    .description(
      "agreement of judges: runs of one benchmark over the same items by different judges (models, prompt variants, repeats, people): Krippendorff's alpha with a bootstrap interval over clusters, pairwise Cohen's kappa with base rates, the flipped items, and each headline metric under each judge with the largest shift",
    )
    .argument('<runs...>', 'run directories (each with run.json and items.jsonl), one per judge')
    .addOption(
      new Option('--format <format>', 'table, json (every figure and flipped item), csv or markdown')
        .choices(['table', 'json', 'csv', 'markdown'])
        .default('table'),
    )
    .option('--value <name>', "the item value that is the verdict (default: the benchmark's first binary outcome)")
    .addOption(
      new Option(
        '--level <level>',
        'level of measurement of alpha (default: ordinal for numbers with more than two values, else nominal)',
      ).choices(['nominal', 'ordinal', 'interval']),
    )
    .option(
      '--human <file>',
      'human labels, one more judge: JSONL of {"id", "label"} or a JSON map id -> label (repeatable)',
      collect,
    )
    .addOption(
      new Option(
        '--unit <unit>',
        'resample whole clusters where items carry them (the dialogue of a turn, ...), or items',
      )
        .choices(['cluster', 'item'])
        .default('cluster'),
    )
    .option('--resamples <n>', 'bootstrap resamples', integer('--resamples', { min: 1 }), 2000)
    .option('--seed <n>', 'seed of the resampling', integer('--seed', { min: 0 }), 0)
    .option('--metric <name>', 'recompute only this headline metric under each judge (repeatable)', collect)
    .option('--recompute <module>', 'an ES module exporting `runBenchmark` for a benchmark dialeval does not know')
    .option(
      '--fallback-item-means',
      'when no descriptor can be found for the runs, recompute each metric as the mean of its item values',
    )
    .option('--out <file>', 'write the output to FILE (atomically) instead of stdout')
    .action(async (runs: string[], opts: AgreementCommandOptions) => {
      const { runAgreement } = await import('../actions/agreement');
      await runAgreement(runs, opts);
    });
}
