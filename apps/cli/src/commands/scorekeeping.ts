import { type Command, InvalidArgumentError, Option } from 'commander';
import { addRunOptions } from '../run-record';
import { addLlmOptions } from '../llm-options';
import { integer } from '../parsers';
import type {
  ScorekeepingInstancesFlags,
  ScorekeepingPlayFlags,
  ScorekeepingScoreFlags,
  ScorekeepingReportFlags,
} from '../flags/scorekeeping';

/** Parses `--episodes 0-4,7` into game ids. */
export function parseEpisodeList(value: string): number[] {
  const out = new Set<number>();
  for (const part of value.split(',').map((s) => s.trim())) {
    if (part === '') continue;
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new InvalidArgumentError(`--episodes expects numbers and ranges like 0-4,7, got "${part}"`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a) throw new InvalidArgumentError(`--episodes: empty range "${part}"`);
    for (let i = a; i <= b; i++) out.add(i);
  }
  if (out.size === 0) throw new InvalidArgumentError('--episodes is empty');
  return [...out].sort((x, y) => x - y);
}

/** `--experiments a,b`: the names (the package checks them against the game's experiments). */
const nameList = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function registerScorekeeping(program: Command): void {
  const sk = program
    .command('scorekeeping')
    .description(
      'the clembench private/shared (scorekeeping) game: generate instances, play episodes against any LLM, score them exactly like clembench, report',
    );

  sk.command('instances')
    .description('generate game instances (clembench instancegenerator.py: CPython random stream, json.dumps output)')
    .option(
      '--resources <dir>',
      'resource directory in clembench layout, or "default" (default: $DIALEVAL_CLEMBENCH_PRIVATESHARED_DIR, the fetched clembench-privateshared set, else the built-in default texts)',
    )
    .option('--seed <n>', 'random.seed of the generator (42: the v2.0 instances; 2102: v1.6)', integer('--seed'), 42)
    .option('--per-experiment <n>', 'instances per experiment', integer('--per-experiment', { min: 1 }), 10)
    .option(
      '--indent <n>',
      'pretty-print like json.dumps(indent=N) (default: one compact line, as in/instances.json)',
      integer('--indent', { min: 0 }),
    )
    .option('--lang <code>', 'lang field of every instance', 'en')
    .addOption(
      new Option(
        '--check-values <mode>',
        'value-overlap check of the slot values (checkvalues.py): the reference is case-sensitive; the game matches case-insensitively',
      )
        .choices(['case-sensitive', 'case-insensitive', 'off'])
        .default('case-sensitive'),
    )
    .option('--allow-overlaps', 'report overlapping slot values as warnings instead of failing')
    .option('--out <file>', 'write the instances file here (exact bytes) instead of stdout')
    .action(async (opts: ScorekeepingInstancesFlags) => {
      const { scorekeepingInstances } = await import('../actions/scorekeeping');
      await scorekeepingInstances(opts);
    });

  addRunOptions(
    addLlmOptions(
      sk
        .command('play')
        .description(
          'play episodes against a model (or a programmatic player) and write clembench results: <out>/<model>-t<T>--<model>-t<T>/privateshared/<i>_<experiment>/episode_<n>/{instance,interactions,requests,scores}.json; resumable',
        )
        .requiredOption('--out <dir>', 'results directory (finished episodes in it are skipped)')
        .addOption(
          new Option(
            '--player <name>',
            'a programmatic Answerer instead of an LLM (no network): perfect or mock (clembench’s mock)',
          ).choices(['perfect', 'mock']),
        )
        .option(
          '--replay <dir>',
          'replay the Answerer outputs recorded in a clembench results directory of one model (scripted player; instances from each episode’s instance.json)',
        )
        .option('--mock-seed <n>', 'seed of the mock player', integer('--mock-seed'), 42)
        .option('--resources <dir>', 'resource directory in clembench layout, or "default" (see `instances`)')
        .option(
          '--instances <file>',
          'instances file (default: <resources>/in/instances.json, else generated with --instances-seed)',
        )
        .option(
          '--instances-seed <n>',
          'seed for generating instances when there is no instances file',
          integer('--instances-seed'),
          42,
        )
        .option(
          '--experiments <names>',
          'comma-separated experiments (default: all): travel-booking, job-interview, restaurant, things-places, letter-number',
          nameList,
        )
        .option('--episodes <ids>', 'episode numbers (game ids), e.g. 0-4,7 (default: all)', parseEpisodeList)
        .option(
          '--episode-concurrency <n>',
          'episodes played at the same time',
          integer('--episode-concurrency', { min: 1 }),
          4,
        )
        .option(
          '--sequential-probes',
          'send the probes of a round one after another, as the reference does (same results, slower)',
        )
        .addOption(
          new Option(
            '--coda <mode>',
            'the "Answer only this question…" coda: logged only (v2.0), sent (652fa63), or off (077ace7+)',
          )
            .choices(['log-only', 'send', 'off'])
            .default('log-only'),
        )
        .option('--fix-probe-spacing', 'single space after "ME:" on the first probe try (the reference sends two)')
        .addOption(
          new Option(
            '--yes-no <mode>',
            'probe answers: "prefix" (reference: "Not sure" is a no) or "word" (yes/no as a whole word)',
          )
            .choices(['prefix', 'word'])
            .default('prefix'),
        )
        .addOption(
          new Option('--slot-match <mode>', 'slot values in answers: substring (reference) or word-boundary')
            .choices(['substring', 'word-boundary'])
            .default('substring'),
        )
        .option('--no-strip', 'keep surrounding whitespace of model answers (clembench backends strip it)')
        .option(
          '--no-retry-failed',
          'on resume, keep episodes aborted by a player failure instead of playing them again',
        )
        .option('--summary <file>', 'write a machine-readable run summary (JSON)')
        .addOption(new Option('--format <format>', 'text or json').choices(['text', 'json']).default('text')),
      { temperature: 0 },
    ),
  ).action(async (opts: ScorekeepingPlayFlags) => {
    const { scorekeepingPlay } = await import('../actions/scorekeeping');
    await scorekeepingPlay(opts);
  });

  addRunOptions(sk.command('score'))
    .argument('<path>', 'an interactions.json, an episode directory, or a results directory')
    .description(
      're-score recorded episodes exactly like clembench: one episode prints its scores.json (exact bytes); a results directory gets a scores.json beside every interactions.json',
    )
    .option('--out <file>', 'one episode: write scores.json here instead of printing it')
    .option(
      '--slots <n>',
      'number of slots of the instance (default: from instance.json beside the transcript, else the transcript)',
      integer('--slots', { min: 1 }),
    )
    .option('--check', 'compare with the scores.json already there instead of writing (exit 1 on any difference)')
    .action(async (path: string, opts: ScorekeepingScoreFlags) => {
      const { scorekeepingScore } = await import('../actions/scorekeeping');
      await scorekeepingScore(path, opts);
    });

  addRunOptions(sk.command('report'))
    .argument('<run-dir>', 'results directory (clembench layout)')
    .description(
      'benchmark figures per model and experiment: % Played, Quality Score (± std), clemscore, accuracy by probing round',
    )
    .addOption(new Option('--format <format>', 'table, json or csv').choices(['table', 'json', 'csv']).default('table'))
    .option('--out <file>', 'write the report here instead of stdout')
    .option(
      '--allow-partial',
      'report although some episodes errored (stopped by failed calls; left out of every figure) with a PARTIAL line; without it they are refused, exit 1',
    )
    .action(async (dir: string, opts: ScorekeepingReportFlags) => {
      const { scorekeepingReport } = await import('../actions/scorekeeping');
      await scorekeepingReport(dir, opts);
    });
}
