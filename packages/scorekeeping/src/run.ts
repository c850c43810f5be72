import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EvalError, readText, writeFileAtomic } from '@eval/core';
import { pythonFloatRepr } from '@eval/core/python';
import { playEpisode, type GameMasterOptions } from './game-master';
import type { GameInstance, InstancesFile } from './instances';
import { parsePyJson, pyDumps, type PyJsonValue } from './internal/pyjson';
import type { GameResources } from './resources';
import { formatScoresJson, scoreEpisode, type EpisodeScores } from './metrics/scorer';
import type { Answerer } from './types';

/** The game's name in clembench (the `<game>` directory of the results layout). */
export const GAME_NAME = 'privateshared';

/** clembench's results directory of a single-player game: `<model>-t<temperature>--<model>-t<temperature>`. */
export function modelPairName(model: string, temperature = 0): string {
  const one = `${model}-t${pythonFloatRepr(temperature)}`;
  return `${one}--${one}`;
}

/** Where an episode's files go: `<out>/<model-pair>/privateshared/<i>_<experiment>/episode_<n>/`. */
export function episodeDir(
  outDir: string,
  modelPair: string,
  experimentIndex: number,
  experiment: string,
  gameId: number,
): string {
  return join(outDir, modelPair, GAME_NAME, `${experimentIndex}_${experiment}`, `episode_${gameId}`);
}

export interface EpisodeRef {
  experimentIndex: number;
  experiment: string;
  instance: GameInstance;
}

/** Selects episodes from an instances file by experiment name and game id (all when omitted). */
export function selectEpisodes(
  instances: InstancesFile,
  filter: { experiments?: string[]; episodes?: number[] } = {},
): EpisodeRef[] {
  const known = instances.experiments.map((e) => e.name);
  for (const name of filter.experiments ?? []) {
    if (!known.includes(name))
      throw new EvalError('usage_error', `unknown experiment "${name}" (the instances have: ${known.join(', ')})`);
  }
  const out: EpisodeRef[] = [];
  instances.experiments.forEach((exp, experimentIndex) => {
    if (filter.experiments && !filter.experiments.includes(exp.name)) return;
    for (const instance of exp.game_instances) {
      if (filter.episodes && !filter.episodes.includes(instance.game_id)) continue;
      out.push({ experimentIndex, experiment: exp.name, instance });
    }
  });
  return out;
}

/**
 * The model calls one episode makes, from the game's structure: one request per slot (`request_order`) and, in each
 * probing round (0 to the number of slots), one call per probe. `min`: every probe answered parsably on its first try
 * (a complete episode); `max`: every probe re-prompted until its last try (`reprompts` tries, 5 in clembench). An
 * episode the model aborts makes fewer calls than `min`.
 */
export function episodeCallRange(instance: GameInstance, reprompts: number): { min: number; max: number } {
  const requests = instance.request_order.length;
  let probes = 0;
  for (let round = 0; round <= requests; round++) probes += Object.keys(instance.probes[String(round)] ?? {}).length;
  return { min: requests + probes, max: requests + reprompts * probes };
}

export type EpisodeStatus = 'played' | 'skipped';

export interface EpisodeOutcome {
  experiment: string;
  gameId: number;
  dir: string;
  status: EpisodeStatus;
  aborted: boolean;
  abortReason?: string;
  /** NaN when aborted. */
  mainScore: number;
}

export interface RunEpisodesOptions {
  /** Results root; episodes go to `<outDir>/<model-pair>/privateshared/<i>_<experiment>/episode_<n>/`. */
  outDir: string;
  resources: GameResources;
  instances: InstancesFile;
  /**
   * The Answerer: one object for all episodes (it must allow concurrent calls when episodes run in parallel), or a
   * factory called once per episode (e.g. a scripted replay of that episode's recorded transcript).
   */
  answerer: Answerer | ((ref: EpisodeRef) => Answerer | Promise<Answerer>);
  /** Model name in the results layout and in `"Player 1"` (default: the answerer's name). */
  modelName?: string;
  /** Temperature written into the model-pair directory name (default 0, i.e. `-t0.0`). */
  temperature?: number;
  experiments?: string[];
  /** Game ids (episode numbers) to play. */
  episodes?: number[];
  game?: Omit<GameMasterOptions, 'signal' | 'modelName'>;
  /** Episodes played at the same time (default 1). */
  episodeConcurrency?: number;
  /**
   * Finished episodes (scores.json present) are skipped. Episodes aborted by a player failure are played again
   * unless this is false.
   */
  retryPlayerFailures?: boolean;
  onEpisode?: (outcome: EpisodeOutcome, done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface RunSummary {
  modelPair: string;
  outDir: string;
  resources: string;
  total: number;
  played: number;
  skipped: number;
  aborted: number;
  playerFailures: number;
  episodes: EpisodeOutcome[];
}

async function finishedOutcome(
  dir: string,
  ref: EpisodeRef,
  retryPlayerFailures: boolean,
): Promise<EpisodeOutcome | undefined> {
  const scoresFile = join(dir, 'scores.json');
  const interactionsFile = join(dir, 'interactions.json');
  if (!existsSync(scoresFile) || !existsSync(interactionsFile)) return undefined;
  try {
    const logs = parsePyJson(await readText(interactionsFile), interactionsFile) as Record<string, unknown>;
    if (retryPlayerFailures && typeof logs['Abort Reason'] === 'string') return undefined;
    const scores = parsePyJson(await readText(scoresFile), scoresFile) as { 'episode scores'?: Record<string, number> };
    return {
      experiment: ref.experiment,
      gameId: ref.instance.game_id,
      dir,
      status: 'skipped',
      aborted: logs.Aborted === true,
      abortReason: typeof logs['Abort Reason'] === 'string' ? (logs['Abort Reason'] as string) : undefined,
      mainScore: scores['episode scores']?.['Main Score'] ?? Number.NaN,
    };
  } catch {
    return undefined; // unreadable leftovers: play again
  }
}

/** Writes an episode's files in clembench's layout; scores.json last (its presence marks the episode finished). */
export async function writeEpisode(
  dir: string,
  instance: GameInstance,
  result: { interactions: unknown; requests: unknown },
  scores: EpisodeScores,
): Promise<void> {
  await writeFileAtomic(join(dir, 'instance.json'), pyDumps(instance as unknown as PyJsonValue));
  await writeFileAtomic(join(dir, 'interactions.json'), pyDumps(result.interactions as PyJsonValue));
  await writeFileAtomic(join(dir, 'requests.json'), pyDumps(result.requests as PyJsonValue));
  await writeFileAtomic(join(dir, 'scores.json'), formatScoresJson(scores));
}

export interface RecordEpisodeOptions {
  outDir: string;
  /** `<model>-t<temperature>--<model>-t<temperature>` (see {@link modelPairName}). */
  modelPair: string;
  resources: GameResources;
  answerer: Answerer;
  modelName: string;
  game?: Omit<GameMasterOptions, 'signal' | 'modelName'>;
  signal?: AbortSignal;
  /**
   * An episode stopped by a failure of the player's calls (not by the model's answers): `record` writes it as
   * clembench does (aborted, with the `Abort Reason`; reports count it as errored); `error` (default) writes nothing
   * and throws an {@link EpisodeErroredError}, so the episode is played again by the next run.
   */
  onPlayerFailure?: 'record' | 'error';
}

/** Marker written in the directory of an episode stopped by failed calls (`{ experiment, game_id, reason }`). */
export const ERRORED_FILE = 'errored.json';

/** An episode stopped by failed calls of the player: nothing is written; play it again. */
export class EpisodeErroredError extends EvalError {
  readonly experiment: string;
  readonly gameId: number;
  constructor(experiment: string, gameId: number, reason: string) {
    super(
      'episode_errored',
      `experiment ${experiment} episode ${gameId}: ${reason} (errored: not scored, played again by the next run)`,
    );
    this.name = 'EpisodeErroredError';
    this.experiment = experiment;
    this.gameId = gameId;
  }
}

/** The episode's directory in the results layout. */
export function episodeDirOf(ref: EpisodeRef, outDir: string, modelPair: string): string {
  return episodeDir(outDir, modelPair, ref.experimentIndex, ref.experiment, ref.instance.game_id);
}

/**
 * Splits episodes into finished ones (scores.json written; skipped on resume) and pending ones. Episodes aborted by
 * a player failure count as pending unless `retryPlayerFailures` is false.
 */
export async function partitionEpisodes(
  refs: EpisodeRef[],
  outDir: string,
  modelPair: string,
  retryPlayerFailures = true,
): Promise<{ pending: EpisodeRef[]; finished: EpisodeOutcome[] }> {
  const pending: EpisodeRef[] = [];
  const finished: EpisodeOutcome[] = [];
  for (const ref of refs) {
    const outcome = await finishedOutcome(episodeDirOf(ref, outDir, modelPair), ref, retryPlayerFailures);
    if (outcome) finished.push(outcome);
    else pending.push(ref);
  }
  return { pending, finished };
}

/** Plays one episode, scores it and writes its files (experiment file, instance, interactions, requests, scores). */
export async function playAndRecordEpisode(ref: EpisodeRef, options: RecordEpisodeOptions): Promise<EpisodeOutcome> {
  const dir = episodeDirOf(ref, options.outDir, options.modelPair);
  const result = await playEpisode(ref.instance, ref.experiment, options.resources, options.answerer, {
    ...options.game,
    modelName: options.modelName,
    signal: options.signal,
  });
  const erroredFile = join(dir, ERRORED_FILE);
  if (result.abortReason?.startsWith('player failure') && (options.onPlayerFailure ?? 'error') === 'error') {
    // No transcript or scores at the final paths; the marker lets `report` see the episode is missing and why.
    await writeFileAtomic(
      erroredFile,
      `${JSON.stringify({ experiment: ref.experiment, game_id: ref.instance.game_id, reason: result.abortReason }, null, 2)}\n`,
    );
    throw new EpisodeErroredError(ref.experiment, ref.instance.game_id, result.abortReason);
  }
  const experimentFile = join(dir, '..', `experiment_${ref.experiment}.json`);
  if (!existsSync(experimentFile)) await writeFileAtomic(experimentFile, pyDumps({ name: ref.experiment }));
  const scores = scoreEpisode(result.interactions, { nSlots: Object.keys(ref.instance.slots).length });
  await writeEpisode(dir, ref.instance, result, scores);
  await rm(erroredFile, { force: true });
  return {
    experiment: ref.experiment,
    gameId: ref.instance.game_id,
    dir,
    status: 'played',
    aborted: result.interactions.Aborted,
    abortReason: result.abortReason,
    mainScore: scores.episodeScores['Main Score']!,
  };
}

/** Summary figures of a list of outcomes. */
export function summarizeOutcomes(
  outcomes: EpisodeOutcome[],
  extra: { modelPair: string; outDir: string; resources: string },
): RunSummary {
  return {
    ...extra,
    total: outcomes.length,
    played: outcomes.filter((o) => o.status === 'played').length,
    skipped: outcomes.filter((o) => o.status === 'skipped').length,
    aborted: outcomes.filter((o) => o.aborted).length,
    playerFailures: outcomes.filter((o) => o.abortReason?.startsWith('player failure')).length,
    episodes: outcomes,
  };
}

/**
 * Plays the selected episodes and writes `instance.json`, `interactions.json`, `requests.json` and `scores.json`
 * of each in clembench's results layout. Resumable: finished episodes are skipped. A player failure aborts only
 * its episode (recorded with the reason).
 */
export async function runEpisodes(options: RunEpisodesOptions): Promise<RunSummary> {
  const shared = typeof options.answerer === 'function' ? undefined : options.answerer;
  const modelName = options.modelName ?? shared?.name;
  if (modelName === undefined)
    throw new EvalError('usage_error', 'runEpisodes: modelName is required with an answerer factory');
  const modelPair = modelPairName(modelName, options.temperature ?? 0);
  const refs = selectEpisodes(options.instances, { experiments: options.experiments, episodes: options.episodes });
  const { pending, finished } = await partitionEpisodes(
    refs,
    options.outDir,
    modelPair,
    options.retryPlayerFailures ?? true,
  );
  const outcomes: EpisodeOutcome[] = [];
  let done = 0;
  for (const o of finished) {
    outcomes.push(o);
    options.onEpisode?.(o, ++done, refs.length);
  }
  let next = 0;
  const worker = async () => {
    while (next < pending.length) {
      if (options.signal?.aborted) throw options.signal.reason ?? new DOMException('cancelled', 'AbortError');
      const ref = pending[next++]!;
      const outcome = await playAndRecordEpisode(ref, {
        outDir: options.outDir,
        modelPair,
        resources: options.resources,
        answerer: shared ?? (await (options.answerer as (ref: EpisodeRef) => Answerer | Promise<Answerer>)(ref)),
        modelName,
        game: options.game,
        signal: options.signal,
        onPlayerFailure: 'record',
      });
      outcomes.push(outcome);
      options.onEpisode?.(outcome, ++done, refs.length);
    }
  };
  const workers = Math.max(1, Math.min(options.episodeConcurrency ?? 1, pending.length || 1));
  await Promise.all(Array.from({ length: workers }, worker));
  const order = new Map(refs.map((r, i) => [`${r.experiment}\u0000${r.instance.game_id}`, i]));
  outcomes.sort(
    (a, b) => order.get(`${a.experiment}\u0000${a.gameId}`)! - order.get(`${b.experiment}\u0000${b.gameId}`)!,
  );
  return summarizeOutcomes(outcomes, { modelPair, outDir: options.outDir, resources: options.resources.source });
}
