import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { InputError, readText } from '@eval/core';
import { parsePyJson } from '../internal/pyjson';
import { readScoresFile, type ScoresJson } from './scorer';

/**
 * Benchmark aggregation as clemcore's `clemeval.py` computes it with pandas: per (game, model) `% Played` =
 * 100 × mean(1 − Aborted), `Quality Score` = mean(Main Score) skipping NaN, its sample std (ddof 1); all rounded
 * to 2 decimals with numpy's rounding; clemscore = Average % Played / 100 × Average Quality Score.
 */

/** pandas' groupby mean: NaN skipped, Kahan-compensated sum (`group_mean`); NaN when there is no value. */
export function pandasMean(values: ArrayLike<number>): number {
  let sum = 0;
  let compensation = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) continue;
    n++;
    const y = v - compensation;
    const t = sum + y;
    compensation = t - sum - y;
    if (Number.isNaN(compensation)) compensation = 0;
    sum = t;
  }
  return n === 0 ? Number.NaN : sum / n;
}

/** pandas' groupby std (`group_var`, Welford, ddof 1, then sqrt); NaN with fewer than two values. */
export function pandasStd(values: ArrayLike<number>, ddof = 1): number {
  let n = 0;
  let mean = 0;
  let m2 = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) continue;
    n++;
    const old = mean;
    mean += (v - old) / n;
    m2 += (v - mean) * (v - old);
  }
  return n > ddof ? Math.sqrt(m2 / (n - ddof)) : Number.NaN;
}

function roundHalfEven(y: number): number {
  const f = Math.floor(y);
  const d = y - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** numpy's `around(x, decimals)` (what `DataFrame.round` does): `rint(x * 10**d) / 10**d`. */
export function numpyRound(x: number, decimals = 2): number {
  if (!Number.isFinite(x)) return x;
  const scale = 10 ** decimals;
  return roundHalfEven(x * scale) / scale;
}

/** The scores of one recorded episode and where it sits in the benchmark layout. */
export interface EpisodeScoreRecord {
  /** `<model-pair>` directory, e.g. `gpt-4o-t0.0--gpt-4o-t0.0`. */
  model: string;
  game: string;
  /** `<i>_<experiment>` directory. */
  experiment: string;
  /** `episode_<n>` directory. */
  episode: string;
  file: string;
  scores: ScoresJson;
  /** The Answerer's model name recorded in the episode's interactions.json (`"Player 1": "Answerer: <name>"`). */
  recordedModel?: string;
  /**
   * The episode was stopped by a failure of the player's calls (HTTP errors, timeouts: the `Abort Reason` clembench
   * records as `player failure: ...`), not by the model's answers: left out of every figure until it is played again.
   */
  errored?: string;
}

/** Every file below `dir` whose name is a key of `out`, appended to that key's list, sorted by path. */
async function findFiles(dir: string, out: ReadonlyMap<string, string[]>): Promise<void> {
  for (const [name, path] of await walk(dir, out)) out.get(name)!.push(path);
}

/**
 * The files below `dir` named as a key of `names`, as `[name, path]` in path order. The subdirectories of a directory
 * are read at once (their thread-pool round trips overlap instead of queueing one by one), their results joined in
 * name order.
 */
async function walk(dir: string, names: ReadonlyMap<string, unknown>): Promise<Array<[string, string]>> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const parts = await Promise.all(
    entries.map((e): Array<[string, string]> | Promise<Array<[string, string]>> => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return walk(path, names);
      return e.isFile() && names.has(e.name) ? [[e.name, path]] : [];
    }),
  );
  return parts.flat();
}

/** Every file called `name` below `dir`, sorted by path. */
export async function findEpisodeFiles(dir: string, name: string): Promise<string[]> {
  const files: string[] = [];
  await findFiles(dir, new Map([[name, files]]));
  return files;
}

/** The files of a results directory's episodes, each list in path order (the order a walk of the directory gives). */
export interface ResultFiles {
  interactions: string[];
  scores: string[];
  /** `errored.json` markers of episodes stopped by failed calls. */
  errored: string[];
}

/** Every `interactions.json`, `scores.json` and `errored.json` below `dir`, in one walk of the directory. */
export async function findResultFiles(dir: string): Promise<ResultFiles> {
  const found: ResultFiles = { interactions: [], scores: [], errored: [] };
  await findFiles(
    dir,
    new Map([
      ['interactions.json', found.interactions],
      ['scores.json', found.scores],
      ['errored.json', found.errored],
    ]),
  );
  return found;
}

/**
 * Paths in the order a walk of their directory gives them (each directory's entries by name, code-unit order): the
 * order of {@link findResultFiles}' lists, for a caller that adds files to one.
 */
export function inWalkOrder(paths: Iterable<string>): string[] {
  const key = new Map<string, string[]>();
  for (const p of paths) key.set(p, resolve(p).split(sep));
  return [...key.keys()].sort((a, b) => {
    const x = key.get(a)!;
    const y = key.get(b)!;
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return x.length - y.length;
  });
}

/** clembench's model-pair directory name, `<model>-t<T>--<model>-t<T>`. */
function isModelPairName(name: string | undefined): name is string {
  return name !== undefined && /^.+-t[\d.]+--.+-t[\d.]+$/.test(name);
}

/**
 * An episode's transcript (`interactions.json`), parsed once for both the model name and abort reason (here) and the
 * run record's items (`loadRunEpisodes`). `JSON.parse` first: it gives the same strings, numbers and key order for
 * standard JSON and is many times faster on these large files; Python-only JSON (NaN, Infinity) and syntax errors go
 * through {@link parsePyJson}, which parses the first and names file, line and column for the second.
 * @internal `runBenchmark.itemDetails` reads transcripts back with it
 */
export async function readInteractions(file: string): Promise<unknown> {
  const text = await readText(file);
  try {
    return JSON.parse(text);
  } catch {
    return parsePyJson(text, file);
  }
}

/** What a loader keeps of each transcript: nothing, all of it, or its `players` and `Abort Reason` only. */
type KeepInteractions = boolean | 'summary';

/**
 * Of a parsed transcript (`interactions.json`), its `players` and `Abort Reason`: all that the items of a run keeping
 * the transcript by location, and the metrics, read of it (`loadRunEpisodes(dir, { interactions: 'summary' })`).
 */
export function transcriptSummary(logs: unknown): unknown {
  if (logs === null || typeof logs !== 'object') return logs;
  const l = logs as { players?: unknown; 'Abort Reason'?: unknown };
  return {
    ...(l.players !== undefined ? { players: l.players } : {}),
    ...(l['Abort Reason'] !== undefined ? { 'Abort Reason': l['Abort Reason'] } : {}),
  };
}

/** A transcript as `keep` asks for it. */
const kept = (logs: unknown, keep: KeepInteractions): unknown => (keep === 'summary' ? transcriptSummary(logs) : logs);

async function recordedEpisode(
  scoresFile: string,
  keep: KeepInteractions,
  transcripts?: ReadonlyMap<string, unknown>,
): Promise<{ model?: string; errored?: string; interactions?: unknown }> {
  const file = join(dirname(scoresFile), 'interactions.json');
  const given = transcripts?.get(resolve(file));
  if (given === undefined && !existsSync(file)) return {};
  const logs = (given ?? (await readInteractions(file))) as {
    players?: Record<string, unknown>;
    'Abort Reason'?: unknown;
  };
  const player = logs?.players?.['Player 1'];
  const model = typeof player === 'string' ? player.replace(/^Answerer: /, '') : undefined;
  const reason = logs?.['Abort Reason'];
  return {
    model,
    errored: typeof reason === 'string' && reason.startsWith('player failure') ? reason : undefined,
    ...(keep ? { interactions: kept(logs, keep) } : {}),
  };
}

async function erroredMarker(file: string): Promise<{ model?: string; errored?: string }> {
  const value = parsePyJson(await readText(file), file) as { reason?: unknown } | null;
  return { errored: typeof value?.reason === 'string' ? value.reason : 'player failure (see errored.json)' };
}

/** How many episodes ahead `loadRunScores` reads. */
const READ_AHEAD = 8;

type Settled<T> = { value: T } | { error: unknown };

const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

function settled<T>(s: Settled<T>): T {
  if ('error' in s) throw s.error;
  return s.value;
}

interface EpisodeFiles {
  recorded: Settled<{ model?: string; errored?: string; interactions?: unknown }>;
  partialInteractions: Settled<unknown>;
  scores: Settled<ScoresJson>;
}

/** Contents the caller has already read, by resolved path: `interactions.json` transcripts, `scores.json` scores. */
interface KnownFiles {
  transcripts?: ReadonlyMap<string, unknown>;
  scores?: ReadonlyMap<string, ScoresJson>;
}

function knownOr<T>(
  known: ReadonlyMap<string, T> | undefined,
  file: string,
  read: (file: string) => Promise<T>,
): Promise<T> {
  const value = known?.get(resolve(file));
  return value === undefined ? read(file) : Promise.resolve(value);
}

/** The files of one episode (`scores.json` or an `errored.json` marker, and `interactions.json`), read at once; never rejects. */
async function readEpisodeFiles(
  file: string,
  keepInteractions: KeepInteractions,
  known: KnownFiles,
): Promise<EpisodeFiles> {
  const marker = basename(file) === 'errored.json';
  const partial = join(dirname(file), 'interactions.json');
  const [recorded, partialInteractions, scores] = await Promise.all([
    settle(marker ? erroredMarker(file) : recordedEpisode(file, keepInteractions, known.transcripts)),
    settle(
      marker && keepInteractions && existsSync(partial)
        ? readInteractions(partial).then((logs) => kept(logs, keepInteractions))
        : Promise.resolve(undefined),
    ),
    settle(
      marker
        ? Promise.resolve({ 'episode scores': {}, 'turn scores': {} } as unknown as ScoresJson)
        : knownOr(known.scores, file, readScoresFile),
    ),
  ]);
  return { recorded, partialInteractions, scores };
}

/**
 * Reads every `scores.json` below a results directory; model, game, experiment and episode are the last four
 * directory names of each path, as clemeval parses them (`<model-pair>/privateshared/<i>_<experiment>/episode_<n>`).
 * The layout without the game level (`<model-pair>/<i>_<experiment>/episode_<n>`, as `play --replay` and `score`
 * accept it) is recognised by its model-pair name; a directory inside one model's results takes the model pair from
 * its own name, else the model name recorded in the episodes. Episodes of different recorded models under one name
 * are refused (an `InputError`), never pooled.
 */
export async function loadRunScores(dir: string): Promise<EpisodeScoreRecord[]> {
  return loadScoreRecords(dir, false);
}

/**
 * {@link loadRunScores}; with `keepInteractions`, each record that has an `interactions.json` carries it, parsed (the
 * file is read once for both; `'summary'`: only its `players` and `Abort Reason`); `known` holds transcripts and scores already read, by resolved path (not read again).
 * @internal `loadRunEpisodes` uses it
 */
export async function loadScoreRecords(
  dir: string,
  keepInteractions: KeepInteractions,
  known: KnownFiles = {},
  listed?: Pick<ResultFiles, 'scores' | 'errored'>,
): Promise<Array<EpisodeScoreRecord & { interactions?: unknown }>> {
  // one walk of the directory for both (none when the caller has just walked it)
  const files: string[] = listed ? [...listed.scores] : [];
  const erroredFiles: string[] = listed ? [...listed.errored] : [];
  if (!listed)
    await findFiles(
      dir,
      new Map([
        ['scores.json', files],
        ['errored.json', erroredFiles],
      ]),
    );
  // Episodes stopped by failed calls leave only an errored.json marker (see playAndRecordEpisode).
  const markers = erroredFiles.filter((f) => !existsSync(join(dirname(f), 'scores.json')));
  const out: Array<EpisodeScoreRecord & { interactions?: unknown }> = [];
  const all = [...files, ...markers];
  // The files are read a few episodes ahead (their thread-pool round trips overlap instead of queueing one by one);
  // each episode's results are taken in path order, and in the order they were read before, so the first bad file in
  // path order is still the error reported.
  const loads: Array<Promise<EpisodeFiles> | undefined> = [];
  const start = (i: number) => {
    if (i < all.length) loads[i] = readEpisodeFiles(all[i]!, keepInteractions, known);
  };
  for (let i = 0; i < READ_AHEAD; i++) start(i);
  for (const [i, file] of all.entries()) {
    start(i + READ_AHEAD);
    const loaded = await loads[i]!;
    loads[i] = undefined;
    const parts = relative(dir, file).split(sep);
    const tail = parts.slice(-5);
    while (tail.length < 5) tail.unshift('');
    let [model, game, experiment, episode] = tail as [string, string, string, string, string];
    if (isModelPairName(game) && game !== 'privateshared') {
      // no game level: <model-pair>/<i>_<experiment>/episode_<n>
      model = game;
      game = 'privateshared';
    }
    const recorded = settled(loaded.recorded);
    // a stopped episode's partial transcript, where one was written beside its marker
    const partial = settled(loaded.partialInteractions);
    if (partial !== undefined) recorded.interactions = partial;
    if (model === '') {
      const own = basename(resolve(dir, ...parts.slice(0, Math.max(0, parts.length - 4))));
      if (isModelPairName(own)) model = own;
      else if (recorded.model !== undefined) model = recorded.model;
      else
        throw new InputError(
          'cannot tell which model played this episode: no model-pair directory above it and no "Player 1" in its interactions.json',
          { file },
        );
      if (game === '') game = 'privateshared';
    }
    const scores = settled(loaded.scores);
    const record: EpisodeScoreRecord & { interactions?: unknown } = { model, game, experiment, episode, file, scores };
    if (recorded.model !== undefined) record.recordedModel = recorded.model;
    if (recorded.errored !== undefined) record.errored = recorded.errored;
    if (recorded.interactions !== undefined) record.interactions = recorded.interactions;
    out.push(record);
  }
  const names = new Map<string, Set<string>>();
  for (const r of out) {
    if (r.recordedModel === undefined) continue;
    const key = `${r.game}\u0000${r.model}`;
    names.set(key, (names.get(key) ?? new Set()).add(r.recordedModel));
  }
  for (const [key, set] of names) {
    if (set.size > 1) {
      throw new InputError(
        `episodes of ${set.size} different models (${[...set].join(', ')}) would be reported under one name "${key.split('\u0000')[1]}": point the report at a directory with one results directory per model`,
        { file: dir },
      );
    }
  }
  return out;
}

export interface QualityFigures {
  episodes: number;
  /** `% Played`, rounded to 2 decimals. */
  played: number;
  /** `Quality Score` (mean Main Score, NaN skipped), rounded to 2 decimals. */
  quality: number;
  /** `Quality Score (std)` (ddof 1), rounded to 2 decimals. */
  qualityStd: number;
}

function figures(records: EpisodeScoreRecord[]): QualityFigures {
  const played: number[] = [];
  const main: number[] = [];
  for (const r of records) {
    const e = r.scores['episode scores'];
    if (typeof e.Aborted === 'number') played.push(1 - e.Aborted);
    if (typeof e['Main Score'] === 'number') main.push(e['Main Score']);
  }
  return {
    episodes: records.length,
    played: numpyRound(pandasMean(played) * 100, 2),
    quality: numpyRound(pandasMean(main), 2),
    qualityStd: numpyRound(pandasStd(main), 2),
  };
}

function groupBy<T>(records: T[], key: (r: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of records) {
    const k = key(r);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return new Map([...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export interface GameModelRow extends QualityFigures {
  game: string;
  model: string;
}

export interface ModelRow {
  model: string;
  /** `Average % Played` over the games, rounded to 2 decimals. */
  averagePlayed: number;
  /** `Average Quality Score` over the games, rounded to 2 decimals. */
  averageQuality: number;
  /** Average % Played / 100 × Average Quality Score, rounded to 2 decimals. */
  clemscore: number;
}

export interface ExperimentRow extends QualityFigures {
  model: string;
  game: string;
  experiment: string;
  /** Mean turn-level Accuracy per probing round (`"0"`…), over the episodes in which that round completed. */
  accuracyByRound: Record<string, { mean: number; episodes: number }>;
}

export interface BenchmarkReport {
  games: GameModelRow[];
  models: ModelRow[];
  experiments: ExperimentRow[];
  /** Episodes stopped by failed calls (not by the model): left out of every figure above until played again. */
  errored: Array<{ model: string; experiment: string; episode: string; reason: string }>;
}

/**
 * clemeval's table (per game and model, per model with clemscore) plus per-experiment figures and accuracy by round.
 * Errored episodes (see {@link EpisodeScoreRecord.errored}) are listed apart and counted in no figure.
 */
export function aggregateScores(all: EpisodeScoreRecord[]): BenchmarkReport {
  const records = all.filter((r) => r.errored === undefined);
  const errored = all.flatMap((r) =>
    r.errored === undefined
      ? []
      : [{ model: r.model, experiment: r.experiment, episode: r.episode, reason: r.errored }],
  );
  const games: GameModelRow[] = [];
  for (const [, list] of groupBy(records, (r) => `${r.game}\u0000${r.model}`)) {
    games.push({ game: list[0]!.game, model: list[0]!.model, ...figures(list) });
  }
  const models: ModelRow[] = [];
  for (const [model, g] of groupBy(games, (r) => r.model)) {
    const averagePlayed = numpyRound(pandasMean(g.map((x) => x.played)), 2);
    const averageQuality = numpyRound(pandasMean(g.map((x) => x.quality)), 2);
    models.push({
      model,
      averagePlayed,
      averageQuality,
      clemscore: numpyRound((averagePlayed / 100) * averageQuality, 2),
    });
  }
  const experiments: ExperimentRow[] = [];
  for (const [, list] of groupBy(records, (r) => `${r.model}\u0000${r.game}\u0000${r.experiment}`)) {
    const byRound = new Map<string, number[]>();
    for (const r of list) {
      for (const [k, t] of Object.entries(r.scores['turn scores'])) {
        if (typeof t.Accuracy !== 'number') continue;
        const xs = byRound.get(k);
        if (xs) xs.push(t.Accuracy);
        else byRound.set(k, [t.Accuracy]);
      }
    }
    const accuracyByRound: ExperimentRow['accuracyByRound'] = {};
    for (const k of [...byRound.keys()].sort((a, b) => Number(a) - Number(b))) {
      const xs = byRound.get(k)!;
      accuracyByRound[k] = { mean: pandasMean(xs), episodes: xs.length };
    }
    experiments.push({
      model: list[0]!.model,
      game: list[0]!.game,
      experiment: list[0]!.experiment,
      ...figures(list),
      accuracyByRound,
    });
  }
  return { games, models, experiments, errored };
}
