import { type Command, Option } from 'commander';
import { addRunOptions } from '../run-record';
import { addLlmOptions } from '../llm-options';
import { integer } from '../parsers';
import type { MemoryRunFlags, MemoryJudgeFlags, MemoryAggregateFlags, MemoryLeaderboardFlags } from '../flags/memory';

const collect = (value: string, previous: string[] = []) => [...previous, value];

function aggregationOptions(command: Command, onEmptyDefault: 'error' | 'null'): Command {
  return command
    .option(
      '--accept-boolean-included',
      'count a JSON boolean true for is_included_in_golden_memories as included (the reference only accepts the strings "true"/"True")',
    )
    .option(
      '--type-accuracy-excludes-interference',
      "leave interference points out of memory_type_accuracy, as HaluMem's README describes (the code includes them)",
    )
    .addOption(
      new Option(
        '--on-empty <mode>',
        'a ratio with an empty denominator: error (the reference raises ZeroDivisionError) or null',
      )
        .choices(['error', 'null'])
        .default(onEmptyDefault),
    );
}

export function registerMemory(program: Command): void {
  const memory = program
    .command('memory')
    .description(
      'HaluMem-style evaluation of agent memory systems: run a system, judge its run artifact, aggregate, compare',
    );

  addLlmOptions(
    memory
      .command('run')
      .description(
        'drive a memory system through a HaluMem dataset (JSONL, one user per line) and write its run artifact, resumably',
      )
      .requiredOption(
        '--system <name|module>',
        'full-context, extract-retrieve (the built-in baselines), or a path to an ES module exporting a MemorySystem factory',
      )
      .requiredOption('--data <file>', 'HaluMem dataset JSONL (HaluMem-Medium.jsonl / HaluMem-Long.jsonl), streamed')
      .requiredOption(
        '--out <file>',
        'run artifact to write (JSONL); finished users go to <file>.partial until the run completes',
      )
      .option('--max-users <n>', 'run at most N users', integer('--max-users', { min: 1 }))
      .option('--top-k-update <n>', 'search results kept per update point', integer('--top-k-update', { min: 1 }), 10)
      .option('--top-k-question <n>', 'memories retrieved per question', integer('--top-k-question', { min: 1 }), 20)
      .option('--system-option <key=value>', 'option passed to the system (repeatable)', collect)
      .option(
        '--answer-prompts <dir>',
        `directory of HaluMem answer prompts (PROMPT_*.txt, made with @eval/memory's scripts/extract-halumem-prompts.mjs; default $DIALEVAL_HALUMEM_PROMPTS_DIR)`,
      )
      .addOption(
        new Option(
          '--answer-prompt <name>',
          "baselines: answer with HaluMem's PROMPT_<name> instead of this project's own prompt",
        ).choices(['MEMZERO', 'ZEP', 'MEMOS', 'MEMOBASE']),
      )
      .option('--fresh', 'discard an interrupted run (<out>.partial) instead of resuming it')
      .option('--summary <file>', 'write a machine-readable run summary (JSON)'),
  ).action(async (opts: MemoryRunFlags) => {
    const { memoryRun } = await import('../actions/memory');
    await memoryRun(opts);
  });

  const judge = addLlmOptions(
    memory
      .command('judge')
      .description(
        'run the four HaluMem judges (integrity, accuracy, update, QA) over a run artifact and write <frame>_eval_stat_result.json',
      )
      .argument('<run-artifact>', 'HaluMem run artifact (<frame>_eval_results.jsonl), streamed one user at a time')
      .option(
        '--out <file>',
        'stat result file (default: <frame>_eval_stat_result.json next to the artifact); with several --judge, a directory (default <frame>_judges next to the artifact) holding <label>/<frame>_eval_stat_result.json and its run per judge',
      )
      .option(
        '--judge <model[@base-url]>',
        'a judge model, at its own endpoint after @ (repeatable, instead of --model): several judges make a panel, ended by their agreement',
        collect,
      )
      .option(
        '--human <file>',
        'human labels, one more judge in the agreement: JSONL of {"id", "label"} or a JSON map item id -> label, the label the question verdict (true: correct) (repeatable)',
        collect,
      )
      .option(
        '--work-dir <dir>',
        'per-user result cache, reused on resume (default: <out without .json>.tmp2; a HaluMem tmp2/ works too)',
      )
      .addOption(
        new Option(
          '--routing <mode>',
          "reference: HaluMem's routing (update points without search results go to the integrity judge); corrected: every update point goes to the update judge",
        )
          .choices(['reference', 'corrected'])
          .default('reference'),
      )
      .option(
        '--max-users <n>',
        'judge at most N users (exact; the reference judges up to user_num + 1 = 21)',
        integer('--max-users', { min: 1 }),
      )
      .option(
        '--attempts <n>',
        'attempts per judgement when the answer has no usable ```json block (reference RETRY_TIMES)',
        integer('--attempts', { min: 1 }),
        3,
      )
      .addOption(
        new Option('--format <format>', "text summary or json (overall_score in HaluMem's shape)")
          .choices(['text', 'json'])
          .default('text'),
      )
      .option('--summary <file>', 'write a machine-readable summary of the judge run (JSON)'),
    { model: 'gpt-4o', temperature: 0 },
  );
  addRunOptions(judge);
  aggregationOptions(judge, 'error').action(async (artifact: string, opts: MemoryJudgeFlags) => {
    const { memoryJudge } = await import('../actions/memory-judge');
    await memoryJudge(artifact, opts);
  });

  addRunOptions(
    aggregationOptions(
      memory
        .command('aggregate')
        .description(
          "aggregate judged records exactly as HaluMem's aggregate_eval_results: (all)/(valid) variants, F1, update and QA ratios, per memory type, per question type",
        )
        .argument(
          '<judged-records...>',
          'HaluMem <frame>_eval_stat_result.json or tmp2/<uuid>.json files (any JSON with *_records lists), or directories of them; pooled',
        )
        .option(
          '--artifact <file>',
          "run artifact to compute time_consuming from (as the reference does); without it, a single HaluMem stat file's stored time_consuming is kept",
        )
        .addOption(
          new Option(
            '--format <format>',
            "text; json: overall_score exactly in HaluMem's shape; report: JSON with the per-question-type and per-difficulty breakdowns",
          )
            .choices(['text', 'json', 'report'])
            .default('text'),
        )
        .option('--out <file>', 'write the output to FILE (atomically) instead of stdout')
        .option('--write-stat <file>', 'also write a full HaluMem stat result (overall_score + records with is_valid)')
        .option(
          '--allow-partial',
          'aggregate a judge work directory that is marked incomplete (the output then says PARTIAL); without it such input is refused, exit 1',
        ),
      'error',
    ),
  ).action(async (paths: string[], opts: MemoryAggregateFlags) => {
    const { memoryAggregate } = await import('../actions/memory');
    await memoryAggregate(paths, opts);
  });

  memory
    .command('leaderboard')
    .description(
      "compare systems in HaluMem's leaderboard columns (R, Weighted R, Target P, Acc., FMR, F1, Update C/H/O, QA C/H/O)",
    )
    .argument('<judged-records...>', 'one judged-records file or directory per system')
    .option('--names <list>', 'comma-separated system names (default: derived from the file names)')
    .addOption(
      new Option('--format <format>', 'table, markdown, csv or json')
        .choices(['table', 'markdown', 'csv', 'json'])
        .default('table'),
    )
    .option('--out <file>', 'write the output to FILE (atomically) instead of stdout')
    .option('--accept-boolean-included', 'count a JSON boolean true for is_included_in_golden_memories as included')
    .option(
      '--allow-partial',
      'compare a judge work directory marked incomplete (PARTIAL on stderr); without it such input is refused, exit 1',
    )
    .addOption(
      new Option(
        '--on-empty <mode>',
        'a metric with an empty denominator (e.g. no extraction, as for Zep): null, shown as —, or error',
      )
        .choices(['error', 'null'])
        .default('null'),
    )
    .action(async (paths: string[], opts: MemoryLeaderboardFlags) => {
      const { memoryLeaderboard } = await import('../actions/memory');
      await memoryLeaderboard(paths, opts);
    });
}
