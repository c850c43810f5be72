import { type Command, Option } from 'commander';
import { addRunOptions } from '../run-record';
import { confidenceLevel, integer } from '../parsers';
import type { CgtCommandOptions } from '../flags/cgt';

export function registerCgt(program: Command): void {
  const cmd = program
    .command('cgt')
    .description(
      'common ground tracking: accumulative P/R/F1 and cumulative Dice-Sørensen of recorded answers, exactly as brandeis-llc/mmdp-cgt',
    )
    .argument(
      '<predictions-dir>',
      'a setting folder of *_group_<n>.json files, a folder of such setting folders, or one group file',
    )
    .option(
      '--gold [cga-csv-dir]',
      'replay the gold common ground from CGA annotation CSVs (Group_NN_CGA.csv) instead of the gold lists embedded in the ' +
        'prediction files; without a directory: $DIALEVAL_CGT_DIR, else the fetched `cgt` resource set ' +
        '(write --gold=DIR, or put --gold after <predictions-dir>)',
    )
    .addOption(
      new Option(
        '--cga-variant <variant>',
        'which annotations --gold replays (cga_originals or the auto-accept cga_new)',
      )
        .choices(['originals', 'new'])
        .default('originals'),
    )
    .addOption(
      new Option('--mode <mode>', 'DSC used for the macro score and the printed lines')
        .choices(['strict', 'lenient'])
        .default('strict'),
    )
    .addOption(
      new Option(
        '--format <format>',
        "output: table, json (every value, Python number format), csv, or reference (the reference script's stdout)",
      )
        .choices(['table', 'json', 'csv', 'reference'])
        .default('table'),
    )
    .option('--out <file>', 'write the output to FILE (atomically) instead of stdout')
    .option(
      '--details',
      'json: add fields beyond the reference layout (files, row keys, P/R macro, bootstrap CIs, counts, options)',
    )
    .addOption(
      new Option(
        '--invalid-prediction <mode>',
        'an answer that is not a JSON object: error (the reference crashes) or empty (score it as {} and count it)',
      )
        .choices(['error', 'empty'])
        .default('error'),
    )
    .addOption(
      new Option(
        '--empty-group <mode>',
        'a group without any scored row: error (the reference crashes) or skip (leave it out of the macro mean)',
      )
        .choices(['error', 'skip'])
        .default('error'),
    )
    .addOption(
      new Option('--mean <mode>', 'group means: exact (statistics.mean, bit for bit) or naive (sum / n)')
        .choices(['exact', 'naive'])
        .default('exact'),
    )
    .addOption(
      new Option('--prf1 <variant>', 'PRF1 counting: reference, or standard (not a reference behaviour)')
        .choices(['reference', 'standard'])
        .default('reference'),
    )
    .option(
      '--bootstrap <samples>',
      'bootstrap resamples over groups for the macro confidence intervals (0 = off)',
      integer('--bootstrap', { min: 0 }),
      1000,
    )
    .option('--seed <n>', 'bootstrap seed', integer('--seed', { min: 0 }), 0)
    .option('--confidence <level>', 'bootstrap confidence level', confidenceLevel('--confidence'), 0.95);
  addRunOptions(cmd).action(async (dir: string, opts: CgtCommandOptions) => {
    const { runCgt } = await import('../actions/cgt');
    await runCgt(dir, opts);
  });
}
