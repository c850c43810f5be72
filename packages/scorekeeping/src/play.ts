/**
 * Playing the benchmark as `dialeval scorekeeping play` does: the instances (a file, the resource directory's, or
 * generated), the episodes to play and those already done (resumable), a programmatic player or a model driven by the
 * caller's job runner (repeats, dry-run estimates), the summary, and the run record of the model pair's results.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  EvalError,
  InputError,
  type ChatModel,
  type RunLlm,
  type RunResource,
  type RunWriter,
  exactMean,
  sha256Hex,
  stdev,
} from '@eval/core';
import { isRunStoppingError, type GameMasterOptions } from './game-master';
import { assertNoOverlaps, generateInstances, readInstanceFile, readInstancesFile } from './instances';
import type { GameInstance, InstancesFile } from './instances';
import { parsePyJson } from './internal/pyjson';
import type { SlotMatch } from './internal/text';
import { aggregateScores, findEpisodeFiles, loadRunScores, type BenchmarkReport } from './metrics/aggregate';
import { chatModelAnswerer, mockModel, perfectModel, scriptedAnswererFromFile } from './players';
import { EXPERIMENTS, type GameResources } from './resources';
import {
  episodeCallRange,
  modelPairName,
  partitionEpisodes,
  playAndRecordEpisode,
  runEpisodes,
  selectEpisodes,
  summarizeOutcomes,
  type EpisodeOutcome,
  type EpisodeRef,
  type RunSummary,
} from './run';
import { runRecord } from './internal/record';
import { loadRunEpisodes, scorekeepingRunVariant, type RunEpisode } from './runs';

/** How the game master plays (every default is the reference's v2.0 behaviour). */
export interface PlayGameOptions {
  /** The "Answer only this question…" coda: logged only (default), sent, or off. */
  coda?: 'log-only' | 'send' | 'off';
  /** A single space after "ME:" on the first probe try (the reference sends two). */
  fixProbeSpacing?: boolean;
  /** Probe answers: `prefix` (default: "Not sure" is a no) or `word`. */
  yesNo?: 'prefix' | 'word';
  /** Slot values in answers: `substring` (default) or `word-boundary`. */
  slotMatch?: SlotMatch;
  /** Strip surrounding whitespace of model answers, as clembench's backends do (default true). */
  strip?: boolean;
  /** Send the probes of a round at once (default true; same transcript and scores as one after another). */
  concurrentProbes?: boolean;
}

/** Who answers: a programmatic player (no network), the outputs recorded in a results directory, or a model. */
export type ScorekeepingPlayer =
  | { kind: 'perfect' }
  | { kind: 'mock'; seed?: number }
  | { kind: 'replay'; dir: string }
  | { kind: 'model'; model: string };

export interface PlayScorekeepingOptions {
  /** Results root: episodes go to `<outDir>/<model-pair>/privateshared/<i>_<experiment>/episode_<n>/`. */
  outDir: string;
  resources: GameResources;
  /** The directory `resources` were read from (undefined for the built-in default texts). */
  resourceDir?: string;
  /** An instances file; default `<resourceDir>/in/instances.json` when present, else generated with `instancesSeed`. */
  instancesFile?: string;
  /** Default 42 (clembench's). */
  instancesSeed?: number;
  experiments?: string[];
  /** Game ids (episode numbers) to play. */
  episodes?: number[];
  game?: PlayGameOptions;
  /** Default 0 (written into the model-pair directory name). */
  temperature?: number;
  /** Episodes played at the same time (programmatic players; a model's job runner has its own). Default 4. */
  episodeConcurrency?: number;
  /** On resume, play again episodes aborted by a player failure (default true). */
  retryPlayerFailures?: boolean;
  onEpisode?: (outcome: EpisodeOutcome, done: number, total: number) => void;
}

/** A figure over repeats: every repeat's value, their mean and sample standard deviation (null with one repeat). */
export interface RepeatSpread {
  values: Array<number | null>;
  mean: number | null;
  std: number | null;
}

/** What a play gives: the summary of the model pair's episodes, its benchmark report, and notes for the reader. */
export interface ScorekeepingPlayResult {
  summary: RunSummary;
  /** Where the instances came from (a file, or `generated (seed 42) from …`). */
  instances: string;
  report: BenchmarkReport;
  /** Lines for the reader beside the report (the replay source, failed episodes, the repeats' mean ± std). */
  notes: string[];
  /** Set with `repeats` > 1: each repeat's directory and the spread of the model's figures over them. */
  repeats?: {
    n: number;
    dirs: string[];
    averagePlayed: RepeatSpread;
    averageQuality: RepeatSpread;
    clemscore: RepeatSpread;
  };
  /** The scored episodes of the results directory (transcripts as summaries), for the run record. */
  episodes: RunEpisode[];
  /** The run record of the model pair's results (its episodes, variant, options). */
  record: ScorekeepingRunRecord;
  /** The machine-readable summary (`play --summary`, `--format json`): the summary, instances, report, repeats. */
  json: Record<string, unknown>;
  /**
   * Set by {@link ScorekeepingPlan.finish} when some episodes failed or were not run (stopped by the budget,
   * interrupted): why (the episodes done are kept; running again resumes).
   */
  incomplete?: string;
}

/** What the run record of played or scored episodes holds; the items and metrics come from `episodes`. */
export interface ScorekeepingRunRecord {
  benchmark: 'scorekeeping';
  variant: string;
  /** The model pair (the run's default system name), when the episodes are of one. */
  system?: string;
  options: Record<string, unknown>;
  /** Where the run goes by default: the model pair's results directory (`play`); none for `score`/`report`. */
  dir?: string;
  /** The instances file read (an input of role `instances`), when one was. */
  instancesFile?: string;
  /** The episodes of the run: only the model pair's for `play`. */
  episodes: RunEpisode[];
  /**
   * Writes the record into an open run and finishes it: the instances file as an input, every episode's transcript and
   * scores as artifacts, one item per episode (its transcript kept by location), the metrics, and `extra` (the LLM
   * block of a model's run, the resource set the texts came from).
   */
  writeTo(run: RunWriter, extra?: { llm?: RunLlm; resource?: RunResource }): Promise<void>;
}

/** Mean and sample standard deviation (n - 1) of a figure across repeats; null values (no figure) are left out. */
function spread(values: Array<number | null>): RepeatSpread {
  const xs = values.filter((x): x is number => x !== null && Number.isFinite(x));
  return { values, mean: xs.length > 0 ? exactMean(xs) : null, std: xs.length > 1 ? stdev(xs) : null };
}

/** Experiments named by the caller must be the game's. */
function checkExperiments(names: ReadonlyArray<string> | undefined): void {
  const unknown = (names ?? []).filter((n) => !(EXPERIMENTS as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new EvalError(
      'usage_error',
      `unknown experiment(s): ${unknown.join(', ')} (available: ${EXPERIMENTS.join(', ')})`,
    );
}

async function loadInstances(
  options: PlayScorekeepingOptions,
): Promise<{ instances: InstancesFile; source: string; file?: string }> {
  if (options.instancesFile)
    return {
      instances: await readInstancesFile(options.instancesFile),
      source: resolve(options.instancesFile),
      file: options.instancesFile,
    };
  const inDir = options.resourceDir ? join(options.resourceDir, 'in', 'instances.json') : undefined;
  if (inDir && existsSync(inDir)) return { instances: await readInstancesFile(inDir), source: inDir, file: inDir };
  const seed = options.instancesSeed ?? 42;
  assertNoOverlaps(options.resources, 'case-sensitive');
  return {
    instances: generateInstances(options.resources, { seed }),
    source: `generated (seed ${seed}) from ${options.resources.source}`,
  };
}

/**
 * A clembench results directory of one model: every `<i>_<experiment>/episode_<n>/interactions.json` below it, with
 * the instance of each (its instance.json) placed at experiment index i.
 */
async function readRecordedRun(
  dir: string,
): Promise<{ instances: InstancesFile; files: Map<string, string>; modelName: string }> {
  const files = await findEpisodeFiles(dir, 'interactions.json');
  const map = new Map<string, string>();
  const pairs = new Set<string>();
  const experiments = EXPERIMENTS.map((name) => ({ name, game_instances: [] as GameInstance[] }));
  let modelName: string | undefined;
  for (const file of files) {
    const parts = file.split(/[\\/]/);
    const ep = /^episode_(\d+)$/.exec(parts[parts.length - 2] ?? '');
    const ex = /^(\d+)_(.+)$/.exec(parts[parts.length - 3] ?? '');
    if (!ep || !ex) continue;
    const index = EXPERIMENTS.indexOf(ex[2] as (typeof EXPERIMENTS)[number]);
    if (index < 0 || index !== Number(ex[1]))
      throw new InputError(
        `unexpected experiment directory ${parts[parts.length - 3]} (expected <i>_<experiment> in clembench order)`,
        { file },
      );
    // <model-pair>/privateshared/<i>_<experiment>/… (clembench results) or <model-pair>/<i>_<experiment>/… (runs archive)
    const above = parts[parts.length - 4] ?? '';
    pairs.add(above === 'privateshared' ? (parts[parts.length - 5] ?? '') : above);
    const instanceFile = join(dirname(file), 'instance.json');
    if (!existsSync(instanceFile)) throw new InputError('no instance.json beside the recorded transcript', { file });
    const instance = await readInstanceFile(instanceFile);
    experiments[index]!.game_instances.push(instance);
    map.set(`${ex[2]}/${instance.game_id}`, file);
    if (modelName === undefined) {
      const logs = parsePyJson(await readFile(file, 'utf8'), file) as { players?: Record<string, string> };
      modelName = logs.players?.['Player 1']?.replace(/^Answerer: /, '');
    }
  }
  if (map.size === 0)
    throw new InputError('no recorded episode (<i>_<experiment>/episode_<n>/interactions.json) below this directory', {
      file: dir,
    });
  if (pairs.size > 1)
    throw new EvalError(
      'usage_error',
      `--replay: ${dir} holds several models (${[...pairs].join(', ')}); point it at one model's directory`,
    );
  for (const e of experiments) e.game_instances.sort((a, b) => a.game_id - b.game_id);
  return { instances: { experiments }, files: map, modelName: modelName ?? 'replay' };
}

function gameMasterOptions(game: PlayGameOptions = {}): Omit<GameMasterOptions, 'signal' | 'modelName'> {
  return {
    coda: game.coda ?? 'log-only',
    fixProbeSpacing: game.fixProbeSpacing ?? false,
    yesNoMatch: game.yesNo ?? 'prefix',
    slotMatch: game.slotMatch ?? 'substring',
    concurrentProbes: game.concurrentProbes !== false,
  };
}

const GAME_DEFAULTS: Record<string, unknown> = {
  coda: 'log-only',
  fixProbeSpacing: false,
  yesNo: 'prefix',
  slotMatch: 'substring',
  strip: true,
};

/**
 * The run record of a play: the model pair's results directory (its episodes only), the variant (model pair,
 * experiments, episodes, the instances' identity, any non-default game option) and every option that changes a
 * number.
 */
async function playRecord(
  player: ScorekeepingPlayer,
  options: PlayScorekeepingOptions,
  p: { modelPair: string; instancesFile?: string; loaded: RunEpisode[] },
): Promise<ScorekeepingRunRecord> {
  const file = p.instancesFile && existsSync(p.instancesFile) ? p.instancesFile : undefined;
  const instances =
    player.kind === 'replay'
      ? 'replay'
      : file
        ? `sha256:${sha256Hex(await readFile(file)).slice(0, 12)}`
        : `seed ${options.instancesSeed ?? 42}`;
  const g = options.game ?? {};
  const game: Record<string, unknown> = {
    coda: g.coda ?? 'log-only',
    fixProbeSpacing: g.fixProbeSpacing ?? false,
    yesNo: g.yesNo ?? 'prefix',
    slotMatch: g.slotMatch ?? 'substring',
    strip: g.strip !== false,
  };
  const nonDefault = Object.fromEntries(Object.entries(game).filter(([k, v]) => v !== GAME_DEFAULTS[k]));
  return runRecord({
    variant: scorekeepingRunVariant({
      modelPairs: [p.modelPair],
      experiments: options.experiments,
      episodes: options.episodes,
      options: { instances, ...(options.resources.isDefault ? { texts: 'default' } : {}), ...nonDefault },
    }),
    system: p.modelPair,
    options: {
      player: player.kind,
      ...(player.kind === 'model' ? { model: player.model } : {}),
      temperature: options.temperature ?? 0,
      ...(player.kind === 'mock' ? { mockSeed: player.seed ?? 42 } : {}),
      instances,
      experiments: options.experiments ?? 'all',
      episodes: options.episodes ?? 'all',
      ...game,
      concurrentProbes: g.concurrentProbes !== false,
      retryFailed: options.retryPlayerFailures !== false,
    },
    dir: join(options.outDir, p.modelPair),
    ...(player.kind !== 'replay' && file ? { instancesFile: file } : {}),
    episodes: p.loaded.filter((e) => e.model === p.modelPair),
  });
}

async function playResult(
  player: ScorekeepingPlayer,
  options: PlayScorekeepingOptions,
  p: { summary: RunSummary; instances: string; instancesFile?: string; notes: string[] } & Pick<
    ScorekeepingPlayResult,
    'repeats'
  >,
): Promise<ScorekeepingPlayResult> {
  // the run record reads the transcripts too (their players and abort reasons: its items keep the transcript by
  // location): one read of the results directory serves the report and the record
  const loaded = await loadRunEpisodes(options.outDir, { interactions: 'summary' });
  const record = await playRecord(player, options, {
    modelPair: p.summary.modelPair,
    instancesFile: p.instancesFile,
    loaded,
  });
  const report = aggregateScores(record.episodes);
  const repeats = p.repeats ? { repeats: p.repeats } : {};
  return {
    summary: p.summary,
    instances: p.instances,
    report,
    notes: p.notes,
    ...repeats,
    episodes: record.episodes,
    record,
    json: {
      ...p.summary,
      instances: p.instances,
      resourcesAreDefaults: options.resources.isDefault,
      report,
      ...repeats,
    },
  };
}

/**
 * Plays the selected episodes with a programmatic player (`perfect`, clembench's `mock`) or replays the Answerer
 * outputs recorded in a results directory, into clembench's results layout (resumable: finished episodes are kept),
 * and reads the model pair's results back: summary, report and run record.
 */
export async function playScorekeeping(
  player: Exclude<ScorekeepingPlayer, { kind: 'model' }>,
  options: PlayScorekeepingOptions,
): Promise<ScorekeepingPlayResult> {
  checkExperiments(options.experiments);
  const common = {
    outDir: options.outDir,
    resources: options.resources,
    temperature: options.temperature ?? 0,
    experiments: options.experiments,
    episodes: options.episodes,
    game: gameMasterOptions(options.game),
    episodeConcurrency: options.episodeConcurrency ?? 4,
    retryPlayerFailures: options.retryPlayerFailures !== false,
    onEpisode: options.onEpisode,
  };
  if (player.kind === 'replay') {
    const recorded = await readRecordedRun(player.dir);
    const summary = await runEpisodes({
      ...common,
      instances: recorded.instances,
      answerer: (ref: EpisodeRef) =>
        scriptedAnswererFromFile(recorded.files.get(`${ref.experiment}/${ref.instance.game_id}`)!),
      modelName: recorded.modelName,
    });
    return playResult(player, options, {
      summary,
      instances: `instance.json files of ${resolve(player.dir)}`,
      notes: [`replayed the Answerer outputs recorded in ${resolve(player.dir)}`],
    });
  }
  const { instances, source, file } = await loadInstances(options);
  const model =
    player.kind === 'perfect'
      ? perfectModel(options.resources, { slotMatch: options.game?.slotMatch })
      : mockModel(options.resources, { seed: player.seed ?? 42 });
  const summary = await runEpisodes({
    ...common,
    instances,
    answerer: chatModelAnswerer(model, { name: player.kind, strip: options.game?.strip }),
    modelName: player.kind,
  });
  return playResult(player, options, { summary, instances: source, instancesFile: file, notes: [] });
}

/** One job's outcome as a job runner reports it (`@eval/llm`'s `runJobs` results have this shape). */
export type PlayJobResult =
  | { id: string; repeat?: number; ok: true; value: EpisodeOutcome }
  | { id: string; repeat?: number; ok: false; error: string };

/** A dry run's estimate of one bound (`@eval/llm`'s `DryRunEstimate` has this shape). */
export interface PlayCostEstimate {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  explanation: string;
}

/** The jobs of a model run ({@link ScorekeepingPlan.jobs}). */
export interface ScorekeepingJobs {
  name: 'scorekeeping';
  items: EpisodeRef[];
  /** A job's id: `<experiment>/episode_<n>`. */
  id: (ref: EpisodeRef) => string;
  repeats?: number;
  signal: AbortSignal;
  /** The calls of an episode: every probe answered at once (realistic), every probe re-prompted to its last try. */
  dryRunCalls: (ref: EpisodeRef) => { realistic: number; upper: number };
  run: (ref: EpisodeRef, ctx: { model: ChatModel; repeat: number; signal?: AbortSignal }) => Promise<EpisodeOutcome>;
  /** The error that stopped the jobs, if one did. */
  stopped(): unknown;
}

/** The episodes of a model run, laid out for a job runner; {@link ScorekeepingPlan.finish} reads the results back. */
export interface ScorekeepingPlan {
  modelPair: string;
  /** Episodes selected; with `repeats` > 1 each is a job of every repeat. */
  episodes: EpisodeRef[];
  /** Episodes still to play (repeat 0); the others are finished and kept. */
  pending: EpisodeRef[];
  finished: EpisodeOutcome[];
  repeats: number;
  /**
   * The jobs for a job runner (`@eval/llm`'s `runJobs` takes them as they are): every selected episode with repeats
   * (each repeat plays what it has not finished, into `<outDir>.repeat<r>` for r > 0), else the pending ones; each
   * played with the job's model and scored; the calls of an episode from the game's structure for a dry run. An
   * error for which `stopOn` is true stops every job at once (it says nothing about the episode and would error every
   * one); `stopped()` then gives it. Besides, the run-stopping errors of `@eval/llm` (budget, dry run, replay miss, no
   * key) end an episode without recording it; an episode stopped by failed calls throws (played again next run).
   */
  jobs(options?: { stopOn?: (error: unknown) => boolean }): ScorekeepingJobs;
  /** The dry run's text: planned episodes, and the estimate of calls, tokens and cost as a range. */
  dryRunText(estimate: { realistic: PlayCostEstimate; upper: PlayCostEstimate }, costKnown: boolean): string;
  /**
   * Reads the run back after the jobs: the result, or, when some episodes failed or were not run (stopped by the
   * budget, interrupted), `incomplete` with the reason (the episodes done are kept; running again resumes).
   */
  finish(results: ReadonlyArray<PlayJobResult>, info?: { stoppedByBudget?: boolean }): Promise<ScorekeepingPlayResult>;
}

/**
 * Plans a model's run: the instances, the episodes selected, those already finished (skipped on resume) and, with
 * `repeats` > 1, every episode once more per repeat into `<outDir>.repeat<r>` (its own clembench results directory).
 * The caller runs {@link ScorekeepingPlan.jobs} through its job runner (cache, retries, budget, dry run; `@eval/llm`'s
 * `runJobs`), then calls {@link ScorekeepingPlan.finish} with the results (or prints {@link ScorekeepingPlan.dryRunText}).
 */
export async function planScorekeepingRun(
  model: string,
  options: PlayScorekeepingOptions & { repeats?: number },
): Promise<ScorekeepingPlan> {
  checkExperiments(options.experiments);
  const temperature = options.temperature ?? 0;
  const modelPair = modelPairName(model, temperature);
  const outDir = options.outDir;
  const retry = options.retryPlayerFailures !== false;
  const { instances, source, file } = await loadInstances(options);
  const refs = selectEpisodes(instances, { experiments: options.experiments, episodes: options.episodes });
  const { pending, finished } = await partitionEpisodes(refs, outDir, modelPair, retry);
  const repeats = options.repeats ?? 1;
  const outDirOf = (r: number) => (r === 0 ? outDir : `${outDir}.repeat${r}`);
  const key = (experiment: string, gameId: number) => `${experiment}/${gameId}`;
  const finishedOf: Array<Map<string, EpisodeOutcome>> = [];
  for (let r = 0; r < repeats && repeats > 1; r++) {
    const part = r === 0 ? { finished } : await partitionEpisodes(refs, outDirOf(r), modelPair, retry);
    finishedOf.push(new Map(part.finished.map((o) => [key(o.experiment, o.gameId), o])));
  }
  const tries = options.resources.reprompts.length;
  const game = gameMasterOptions(options.game);
  const player: ScorekeepingPlayer = { kind: 'model', model };
  return {
    modelPair,
    episodes: refs,
    pending,
    finished,
    repeats,
    jobs(jobOptions = {}) {
      const stop = new AbortController();
      let fatal: unknown;
      const stopOn = jobOptions.stopOn ?? (() => false);
      return {
        name: 'scorekeeping',
        items: repeats > 1 ? refs : pending,
        id: (ref) => `${ref.experiment}/episode_${ref.instance.game_id}`,
        ...(repeats > 1 ? { repeats } : {}),
        signal: stop.signal,
        dryRunCalls(ref) {
          const r = episodeCallRange(ref.instance, tries);
          return { realistic: r.min, upper: r.max };
        },
        async run(ref, ctx) {
          const done = repeats > 1 ? finishedOf[ctx.repeat]?.get(key(ref.experiment, ref.instance.game_id)) : undefined;
          if (done) return done;
          try {
            return await playAndRecordEpisode(ref, {
              outDir: outDirOf(ctx.repeat),
              modelPair,
              resources: options.resources,
              answerer: chatModelAnswerer(ctx.model, { name: model, strip: options.game?.strip }),
              modelName: model,
              game: { ...game, isFatal: (e) => isRunStoppingError(e) || stopOn(e) },
              signal: ctx.signal,
              onPlayerFailure: 'error',
            });
          } catch (error) {
            if (stopOn(error)) {
              fatal ??= error;
              stop.abort(error);
            }
            throw error;
          }
        },
        stopped: () => fatal,
      };
    },
    dryRunText({ realistic, upper }, costKnown) {
      const usd = (x: number) =>
        costKnown ? `$${x.toFixed(4)}` : `unknown (no price for ${model}; pass --prices FILE)`;
      return [
        `dry run: ${pending.length} episode(s) planned (${finished.length} already done); nothing was played or written`,
        `realistic: ${realistic.calls} calls (every episode played to the end, every probe answered on its first try: one request per slot and one call per probe and round), ~${realistic.promptTokens} prompt + ~${realistic.completionTokens} completion tokens, ${usd(realistic.cost)} (${realistic.explanation})`,
        `upper bound: ${upper.calls} calls (every probe re-prompted to its last, ${tries}th, try), ~${upper.promptTokens} prompt + ~${upper.completionTokens} completion tokens, ${usd(upper.cost)} (${upper.explanation}); episodes the model aborts make fewer calls`,
        `prompt tokens are those of each episode's first request (the only one that can be built before the model answers); later calls carry the growing conversation, so both costs are lower bounds`,
      ].join('\n');
    },
    async finish(results, info = {}) {
      const played = results.flatMap((r) => (r.ok && (r.repeat ?? 0) === 0 ? [r.value] : []));
      const failed = results.flatMap((r) => (r.ok ? [] : [r]));
      const summary = summarizeOutcomes(repeats > 1 ? played : [...finished, ...played], {
        modelPair,
        outDir,
        resources: options.resources.source,
      });
      summary.total = refs.length;
      const notes = failed.map((f) => `error: ${f.id}${f.repeat ? ` (repeat ${f.repeat})` : ''}: ${f.error}`);
      const notRun =
        repeats > 1
          ? refs.length * repeats - results.length
          : refs.length - finished.length - played.length - failed.length;
      if (info.stoppedByBudget || notRun > 0 || failed.length > 0) {
        const why = info.stoppedByBudget
          ? 'stopped by --max-cost'
          : failed.length > 0
            ? `${failed.length} episode(s) errored (their calls failed after every retry; not scored, not counted in % Played)`
            : 'interrupted';
        const result = await playResult(player, options, { summary, instances: source, instancesFile: file, notes });
        return {
          ...result,
          incomplete: `scorekeeping run ${why}: ${summary.played + summary.skipped} of ${refs.length} episodes are done and kept in ${outDir}; run the same command again to resume`,
        };
      }
      let spreads: ScorekeepingPlayResult['repeats'];
      if (repeats > 1) {
        // each repeat's benchmark figures, then their mean and std
        const models: BenchmarkReport['models'] = [];
        for (let r = 0; r < repeats; r++)
          models.push(
            ...aggregateScores((await loadRunScores(outDirOf(r))).filter((x) => x.model === modelPair)).models,
          );
        spreads = {
          n: repeats,
          dirs: Array.from({ length: repeats }, (_, r) => outDirOf(r)),
          averagePlayed: spread(models.map((m) => m.averagePlayed)),
          averageQuality: spread(models.map((m) => m.averageQuality)),
          clemscore: spread(models.map((m) => m.clemscore)),
        };
        const ms = (x: RepeatSpread) =>
          x.mean === null ? '—' : `${x.mean.toFixed(2)} ± ${x.std === null ? '—' : x.std.toFixed(2)}`;
        notes.push(
          `over ${repeats} repeats (mean ± std): Average % Played ${ms(spreads.averagePlayed)}, Average Quality Score ${ms(spreads.averageQuality)}, clemscore ${ms(spreads.clemscore)}`,
        );
      }
      return playResult(player, options, {
        summary,
        instances: source,
        instancesFile: file,
        notes,
        ...(spreads ? { repeats: spreads } : {}),
      });
    },
  };
}
