import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
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
}

async function findFiles(dir: string, name: string, out: string[]): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) await findFiles(path, name, out);
    else if (e.isFile() && e.name === name) out.push(path);
  }
  return out;
}

/** Every file called `name` below `dir`, sorted by path. */
export async function findEpisodeFiles(dir: string, name: string): Promise<string[]> {
  return findFiles(dir, name, []);
}

/**
 * Reads every `scores.json` below a results directory; model, game, experiment and episode are the last four
 * directory names of each path, as clemeval parses them.
 */
export async function loadRunScores(dir: string): Promise<EpisodeScoreRecord[]> {
  const files = await findEpisodeFiles(dir, 'scores.json');
  const out: EpisodeScoreRecord[] = [];
  for (const file of files) {
    const parts = relative(dir, file).split(sep);
    const tail = parts.slice(-5);
    while (tail.length < 5) tail.unshift('');
    const [model, game, experiment, episode] = tail as [string, string, string, string, string];
    out.push({ model, game, experiment, episode, file, scores: await readScoresFile(file) });
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
}

/** clemeval's table (per game and model, per model with clemscore) plus per-experiment figures and accuracy by round. */
export function aggregateScores(records: EpisodeScoreRecord[]): BenchmarkReport {
  const games: GameModelRow[] = [];
  for (const [, list] of groupBy(records, (r) => `${r.game}\u0000${r.model}`)) {
    games.push({ game: list[0]!.game, model: list[0]!.model, ...figures(list) });
  }
  const models: ModelRow[] = [];
  for (const [model, g] of groupBy(games, (r) => r.model)) {
    const averagePlayed = numpyRound(pandasMean(g.map((x) => x.played)), 2);
    const averageQuality = numpyRound(pandasMean(g.map((x) => x.quality)), 2);
    models.push({ model, averagePlayed, averageQuality, clemscore: numpyRound((averagePlayed / 100) * averageQuality, 2) });
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
    experiments.push({ model: list[0]!.model, game: list[0]!.game, experiment: list[0]!.experiment, ...figures(list), accuracyByRound });
  }
  return { games, models, experiments };
}
