import { type Command, Option } from 'commander';
import { addRunOptions } from '../run-record';
import { addLlmOptions } from '../llm-options';
import { integer, nonNegativeNumber } from '../parsers';
import type {
  LlmJudgeRunFlags,
  LlmJudgeImportFlags,
  LlmJudgeReportFlags,
  LlmJudgeConvertFlags,
} from '../flags/llm-judge';

export const LLM_JUDGE_METHODS = ['ours', 'twodim-cot', 'direct', 'cot'] as const;

const collect = (value: string, previous: string[] = []) => [...previous, value];

function metricOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--on-parse-failure <mode>',
        'an unusable judge output: reference (fail where the reference crashes, skip where it skips), skip, judge-wrong',
      )
        .choices(['reference', 'skip', 'judge-wrong'])
        .default('reference'),
    )
    .option(
      '--completeness-value-aware',
      'keep a "missed" slot whose reported value differs from the tracked one (the reference drops it)',
    )
    .addOption(
      new Option('--gpt-jga <variant>', 'GPT-JGA from the state before the turn (the reference) or after it')
        .choices(['before-turn', 'after-turn'])
        .default('before-turn'),
    )
    .addOption(
      new Option(
        '--rule-jga <variant>',
        'rule JGA counter: fixed (count/turns) or reference (counters start at 1, as the reference prints)',
      )
        .choices(['fixed', 'reference'])
        .default('fixed'),
    )
    .addOption(
      new Option(
        '--rule-normalization <mode>',
        'rule TSA comparison: each method its own (method), or force two-step / single-step',
      )
        .choices(['method', 'two-step', 'single-step'])
        .default('method'),
    );
}

function inputOptions(command: Command): Command {
  return command
    .option('--records <file>', "per-turn records (the reference's *_sampled.json format; JSON list, JSONL or .gz)")
    .option(
      '--raw-predictions <file>',
      'raw DST predictions (list of {flag, generate, slot, value}), converted as the reference does; needs --dialogues',
    )
    .option(
      '--states <file>',
      'DST predictions in the @eval/multiwoz input format ({dialogue id: [{state: {domain: {slot: value}}}]}); text from --dialogues or the multiwoz resource',
    )
    .option('--dialogues <file>', 'dialogue source: TRADE test_dials.json (MultiWOZ 2.1) or a per-turn record file')
    .option(
      '--dialogues-m24 <file>',
      'TRADE test_dials.json of MultiWOZ 2.4 (for the M24 rule metrics), with --dialogues',
    )
    .option(
      '--data <dir>',
      'multiwoz resource directory for --states without --dialogues (default: DIALEVAL_MULTIWOZ_DIR or `dialeval resources fetch multiwoz`)',
    );
}

export function registerLlmJudge(program: Command): void {
  const judge = program
    .command('llm-judge')
    .description(
      'two-dimensional LLM evaluation of dialogue state tracking (Gu & Yang 2024): judge turns, import recorded runs, report TSA/JGA/coherence and agreement with humans',
    );

  const run = addLlmOptions(
    inputOptions(
      judge
        .command('run')
        .description(
          'judge every turn with an LLM (through the cached, resumable @eval/llm runtime) and write the outputs and the metrics',
        )
        .addOption(
          new Option('--method <name>', 'ours (the paper), twodim-cot, direct or cot')
            .choices([...LLM_JUDGE_METHODS])
            .makeOptionMandatory(),
        )
        .option(
          '--templates <dir>',
          'template directory (default: DIALEVAL_LLM_DST_EVAL_DIR or `dialeval resources fetch llm-dst-eval`); repeatable: each variant is one more judge of a panel',
          collect,
        )
        .option(
          '--judge <model[@base-url]>',
          'a judge model, at its own endpoint after @ (repeatable, instead of --model): several judges make a panel, each judged into <out>/<label>, ended by their agreement',
          collect,
        )
        .option(
          '--human <file>',
          'human labels of the turn verdict, one more judge in the agreement: the reference\'s manual_eval.json ({flag: 0|1}), a JSON map or JSONL of {"id", "label"} (repeatable)',
          collect,
        )
        .requiredOption(
          '--out <dir>',
          "output directory: <method>_*outputs.json (the reference's [record, output, prompt] format) and <method>_result.json",
        )
        .option('--journal <file>', 'run journal for resuming (default <out>/<method>.journal.jsonl)')
        .option('--system-message <text>', 'system message (default: the reference\'s "You are a helpful assistant")')
        .option(
          '--namespace <name>',
          'cache-key namespace (as given to `import --namespace`): answers filed under another namespace are not used',
        )
        .addOption(
          new Option('--format <format>', 'table or json on stdout').choices(['table', 'json']).default('table'),
        )
        .option('--summary <file>', 'write a machine-readable run summary (JSON)'),
    ),
    { temperature: 0 },
  );
  addRunOptions(run);
  metricOptions(run).action(async (opts: LlmJudgeRunFlags) => {
    const { llmJudgeRun } = await import('../actions/llm-judge-run');
    await llmJudgeRun(opts);
  });

  judge
    .command('import')
    .description(
      'import recorded judge outputs (lists of [record, output, prompt]) into the LLM cache after checking every prompt, so that `run` re-aggregates them without any LLM call',
    )
    .argument('<recorded-outputs...>', "recorded output files, e.g. the reference's output.zip contents")
    .option(
      '--templates <dir>',
      'template directory (default: DIALEVAL_LLM_DST_EVAL_DIR or `dialeval resources fetch llm-dst-eval`)',
    )
    .option('--model <name>', 'model the answers are filed under (run with the same --model)', 'gpt-4-1106-preview')
    .option(
      '--namespace <name>',
      'file the answers under this cache-key namespace (run with the same --namespace): recorded runs whose prompts coincide no longer replace each other',
    )
    .option('--cache-dir <dir>', 'LLM answer cache directory (default: <DIALEVAL_HOME>/llm-cache)')
    .addOption(
      new Option('--temperature <t>', 'temperature of the run that should hit the entries (default 0, the reference)')
        .argParser(nonNegativeNumber('--temperature'))
        .default(0),
    )
    .option('--system-message <text>', "system message of that run (default: the reference's)")
    .addOption(
      new Option('--role <role>', 'force the template role of every file (default: detected by re-rendering)').choices([
        'ours-accuracy',
        'ours-completeness',
        'twodim-cot-accuracy',
        'twodim-cot-completeness',
        'direct',
        'cot',
      ]),
    )
    .option('--verify-only', 'check the prompts, write nothing')
    .addOption(new Option('--format <format>', 'table or json').choices(['table', 'json']).default('table'))
    .action(async (files: string[], opts: LlmJudgeImportFlags) => {
      const { llmJudgeImport } = await import('../actions/llm-judge');
      await llmJudgeImport(files, opts);
    });

  addRunOptions(
    metricOptions(
      judge
        .command('report')
        .description(
          'TSA, JGA, coherence with MultiWOZ 2.1/2.4 and agreement with human judgements, from judge outputs (no LLM call)',
        )
        .argument(
          '[dirs...]',
          'directories holding <method>_*outputs.json files (as `run` writes them, or the slice layout: ours_acc_outputs.json, ours_comp_outputs.json, direct_outputs.json, cot_outputs.json)',
        )
        .option(
          '--outputs <method=files>',
          "one method's outputs: ours=ACC.json,COMP.json or direct=OUT.json (repeatable)",
          collect,
        )
        .option(
          '--records <file>',
          'per-turn records: adds the RULE-M21/M24 rows (rule-only metrics) when no outputs give them',
        )
        .option(
          '--human <file>',
          "human judgements (the reference's manual_eval.json, {flag: 0|1}, or JSONL {flag, human}): adds the human-check table, kappa and confusion",
        )
        .option(
          '--turns <n>',
          'N of the human-check formula (default: the number of turns judged, e.g. 732)',
          integer('--turns', { min: 1 }),
        )
        .addOption(new Option('--format <format>', 'table or json').choices(['table', 'json']).default('table'))
        .option('--per-turn', "with --format json: include every turn's judgement")
        .option('--out <file>', 'write the report to FILE (atomically) instead of stdout')
        .option(
          '--allow-partial',
          'report incomplete outputs (failed calls, missing turns) with a PARTIAL line; without it they are refused, exit 1',
        ),
    ),
  ).action(async (dirs: string[], opts: LlmJudgeReportFlags) => {
    const { llmJudgeReport } = await import('../actions/llm-judge');
    await llmJudgeReport(dirs, opts);
  });

  inputOptions(
    judge
      .command('convert')
      .description('convert DST predictions (raw reference format, or a state per turn) into per-turn records')
      .requiredOption('--out <file>', "record file to write (JSON list, the reference's *_sampled.json format)")
      .option('--summary <file>', 'write the conversion warnings (JSON)'),
  ).action(async (opts: LlmJudgeConvertFlags) => {
    const { llmJudgeConvert } = await import('../actions/llm-judge');
    await llmJudgeConvert(opts);
  });
}
