import { type Command, Option } from 'commander';
import { addRunOptions } from '../run-record';
import { confidenceLevel, integer } from '../parsers';
import type { MultiwozCommandOptions, MultiwozCompareOptions } from '../flags/multiwoz';

const dataOption = () =>
  new Option(
    '--data <dir>',
    "data directory in mwzeval's data/ layout (default: $DIALEVAL_MULTIWOZ_DIR, else the fetched `multiwoz` resource set)",
  );
const normalizationOption = () =>
  new Option(
    '--normalization <version>',
    'mwzeval version: 2022 (7f19ee0, the published numbers) or 2023 (master: 3 more name rules)',
  )
    .choices(['2022', '2023'])
    .default('2022');

export function registerMultiwoz(program: Command): void {
  const cmd = program
    .command('multiwoz')
    .description(
      'MultiWOZ response generation / DST evaluation exactly as mwzeval: BLEU (sacreBLEU), Inform/Success, lexical richness, DST ' +
        '(no metric flag = --bleu --success --richness)',
    )
    .argument(
      '<predictions>',
      "predictions in mwzeval's format: {dialogue_id: [{response, state?, active_domains?}, ...]} (.json or .json.gz)",
    )
    .option('--bleu', 'BLEU against the MultiWOZ 2.2 references (mwz22)')
    .option('--success', 'Inform and Success rates (gold states are used when a turn has no state)')
    .option('--richness', 'lexical richness (entropy, conditional entropy, MSTTR, lengths, distinct n-grams)')
    .option('--dst', 'dialogue state tracking: joint accuracy, slot precision/recall/F1')
    .addOption(dataOption())
    .addOption(normalizationOption())
    .addOption(
      new Option('--format <format>', "table, or json (exactly mwzeval's output object and number format)")
        .choices(['table', 'json'])
        .default('table'),
    )
    .option('--out <file>', 'write the output to FILE (atomically) instead of stdout')
    .option('--references <names>', 'comma-separated BLEU reference sets under <data>/references/ (default mwz22)')
    .option('--add-slot-domains', "active domains from [domain_slot] placeholders, as mwzeval's add_slot_domains.py")
    .option(
      '--strict-dst',
      'fix for a reference quirk: DST on predictions without states is an error (the reference scores gold against gold)',
    )
    .option(
      '--ci',
      'bootstrap confidence intervals for BLEU, Inform and Success, resampling dialogues (in the table and the --summary file)',
    )
    .option('--samples <n>', 'bootstrap resamples', integer('--samples', { min: 1 }), 1000)
    .option('--seed <n>', 'bootstrap seed', integer('--seed', { min: 0 }), 0)
    .option('--confidence <level>', 'bootstrap confidence level', confidenceLevel('--confidence'), 0.95)
    .option(
      '--per-dialogue <file>',
      'write per-dialogue results as JSONL (Inform/Success per domain and why they failed)',
    )
    .option('--summary <file>', 'write a machine-readable summary (results, intervals, warnings, options) as JSON');
  addRunOptions(cmd).action(async (predictions: string, opts: MultiwozCommandOptions) => {
    const { runMultiwoz } = await import('../actions/multiwoz');
    await runMultiwoz(predictions, opts);
  });
  cmd
    .command('compare')
    .description(
      'paired bootstrap comparison of two prediction files on their common dialogues: is A better than B? (default --bleu --success); ' +
        'given two run directories, the same as `dialeval compare A B`',
    )
    .argument('<a>', 'predictions of system A (or its run directory)')
    .argument('<b>', 'predictions of system B (or its run directory)')
    .option('--bleu', 'compare BLEU')
    .option('--success', 'compare Inform and Success')
    .addOption(dataOption())
    .addOption(normalizationOption())
    .addOption(new Option('--format <format>', 'table or json').choices(['table', 'json']).default('table'))
    .option('--out <file>', 'write the output to FILE (atomically) instead of stdout')
    .option('--add-slot-domains', 'active domains from [domain_slot] placeholders (both files)')
    .option('--samples <n>', 'bootstrap resamples', integer('--samples', { min: 1 }), 1000)
    .option('--seed <n>', 'bootstrap seed', integer('--seed', { min: 0 }), 0)
    .option(
      '--confidence <level>',
      'confidence level of the difference intervals',
      confidenceLevel('--confidence'),
      0.95,
    )
    .action(async (a: string, b: string, opts: MultiwozCompareOptions, command: Command) => {
      // Options that `multiwoz` also declares are parsed by it wherever they appear: take them from there when given.
      const parent = command.parent!;
      const merged: MultiwozCompareOptions & Record<string, unknown> = { ...opts };
      for (const [key, value] of Object.entries(parent.opts()))
        if (parent.getOptionValueSource(key) === 'cli') merged[key] = value;
      // `multiwoz` declares the run options, so commander takes them here too: a comparison writes no run
      for (const key of ['run', 'system'])
        if (parent.getOptionValueSource(key) === 'cli') {
          const { UsageError } = await import('../util');
          throw new UsageError(
            `--${key} is not an option of \`multiwoz compare\`: a comparison writes no run (run directories are compared with \`dialeval compare A B\`)`,
          );
        }
      const { runMultiwozCompare } = await import('../actions/multiwoz');
      await runMultiwozCompare(a, b, merged);
    });
}
