/**
 * The run record of scorekeeping episodes (spec `runs.md` sections 1-3): one item per episode, the clembench
 * figures as headline metrics, and the {@link runBenchmark} that recomputes them from items.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  type RunBenchmark,
  type RunItem,
  type RunItemValue,
  type RunMetric,
  resolveRunLocation,
  runLocation,
} from '@eval/core';
import {
  aggregateScores,
  loadScoreRecords,
  readInteractions,
  type BenchmarkReport,
  type EpisodeScoreRecord,
  type ResultFiles,
} from './metrics/aggregate';
import type { ScoresJson } from './metrics/scorer';
import type { Interactions } from './types';

export const SCOREKEEPING_BENCHMARK = 'scorekeeping';

/** An episode's scores with, where available, its transcript (`interactions.json` beside `scores.json`). */
export interface RunEpisode extends EpisodeScoreRecord {
  interactions?: Interactions;
}

export interface LoadRunEpisodesOptions {
  /**
   * Transcripts the caller has already parsed (`parsePyJson` of each `interactions.json`), by the file's path: used as
   * they are, not read again. For items written with a `runDir` (the transcript kept by location) only `players` and
   * `Abort Reason` of each are read, so that is all a caller needs to keep (`score --run` does so).
   */
  transcripts?: ReadonlyMap<string, unknown>;
  /** Scores the caller has just written (each `scores.json` as `readScoresFile` would read it back), by path: not read again. */
  scores?: ReadonlyMap<string, ScoresJson>;
  /**
   * What each episode keeps of its transcript (`interactions`): `'whole'` (default), or `'summary'`: only `players`
   * and `Abort Reason`, which is all {@link scorekeepingRunItems} reads when it is given the run directory and keeps
   * the transcript by location. The transcripts are still read (model names, abort reasons); only less is held.
   */
  interactions?: 'whole' | 'summary';
  /**
   * The directory's `scores.json` and `errored.json` files as the caller has just found them ({@link findResultFiles},
   * with any `scores.json` it wrote since added in walk order: {@link inWalkOrder}): the directory is not walked again.
   */
  files?: Pick<ResultFiles, 'scores' | 'errored'>;
}

/**
 * Every scored episode below a results directory (as {@link loadRunScores}), with its `interactions.json` (read once:
 * the records' model names and abort reasons come from the same parse). A `RunEpisode` is an `EpisodeScoreRecord`:
 * `aggregateScores` takes them as they are.
 */
export async function loadRunEpisodes(dir: string, options: LoadRunEpisodesOptions = {}): Promise<RunEpisode[]> {
  const byPath = <T>(m: ReadonlyMap<string, T> | undefined) =>
    m ? new Map([...m].map(([file, x]) => [resolve(file), x])) : undefined;
  const keep = options.interactions === 'summary' ? 'summary' : true;
  return (await loadScoreRecords(
    dir,
    keep,
    { transcripts: byPath(options.transcripts), scores: byPath(options.scores) },
    options.files,
  )) as RunEpisode[];
}

/** `3_things-places` -> `things-places`. */
function experimentName(dir: string): string {
  return dir.replace(/^\d+_/, '');
}

const num = (x: unknown): number | null => (typeof x === 'number' && !Number.isNaN(x) ? x : null);

/**
 * The variant of a scorekeeping run: `privateshared`, the model pair(s) (clembench scores differ per model), the
 * experiments and episodes played, and any non-default game option. Runs compare only within one variant, so two
 * checkpoints of one model are compared under a shared `--system` name and the same model-pair label.
 */
export function scorekeepingRunVariant(info: {
  modelPairs: string[];
  experiments?: string[];
  episodes?: number[];
  options?: Record<string, unknown>;
}): string {
  const parts = ['privateshared', `players=${[...new Set(info.modelPairs)].sort().join('+')}`];
  if (info.experiments) parts.push(`experiments=${info.experiments.join(',')}`);
  if (info.episodes) parts.push(`episodes=${info.episodes.join(',')}`);
  for (const [k, v] of Object.entries(info.options ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (v !== undefined) parts.push(`${k}=${String(v)}`);
  }
  return parts.join(';');
}

/**
 * The display detail of an episode's transcript: `probes` (one per probing question: round, slot, question, the
 * model's answer, truth, whether it was answered correctly, `shared`/`private`) and `transcript` (the messages in
 * order). One code path for the items that embed it and for {@link runBenchmark}`.itemDetails`, which reads it back.
 */
function transcriptDetail(logs: Interactions): { probes: unknown[]; transcript: unknown[] } {
  return {
    probes: (logs.probes ?? []).flatMap((round, r) =>
      round.map((p) => ({
        round: r,
        slot: p.target,
        question: p.question,
        answer: p.answer ?? null,
        truth: p.gt === 1,
        correct: p.value === undefined ? null : p.value === p.gt,
        kind: p.gt === 1 ? 'shared' : 'private',
      })),
    ),
    transcript: (logs.turns ?? [])
      .flat()
      .map((ev) => ({ from: ev.from, to: ev.to, type: ev.action.type, text: ev.action.content })),
  };
}

/**
 * The items of scored episodes, in path order: id `<experiment>/episode_<n>` (`travel-booking/episode_7`), group =
 * experiment; values `mainScore`, `accuracy`, `kappa`, `middleAccuracy`, `slotFillingAccuracy` (null where clembench
 * has NaN or no value), `played`, `aborted`, and `accuracyRound<k>` (turn-level Accuracy of each completed probing
 * round). An episode aborted by a player failure (`Abort Reason` in its transcript) was not evaluated: it carries
 * `error` and counts into no metric. `detail`: `outcome`, `modelPair`, `models`, `abortReason`, and the transcript:
 * with a `runDir` and an `interactions.json` beside the episode's scores, by location only (`interactions`: the file's
 * path relative to `runDir` with `/` separators when it is inside it, else absolute, as `RunWriter.addArtifact` records
 * artifacts; {@link runBenchmark}`.itemDetails` reads `probes` and `transcript` back from it); otherwise embedded
 * (`probes`, `transcript`).
 */
export function scorekeepingRunItems(
  episodes: ReadonlyArray<RunEpisode>,
  options: { runDir?: string } = {},
): RunItem[] {
  const items: RunItem[] = [];
  const seen = new Set<string>();
  for (const e of episodes) {
    const s = e.scores['episode scores'];
    const aborted = num(s.Aborted);
    const values: Record<string, RunItemValue> = {
      mainScore: num(s['Main Score']),
      accuracy: num(s.Accuracy),
      kappa: num(s.Kappa),
      middleAccuracy: num(s['Middle-Accuracy']),
      slotFillingAccuracy: num(s['Slot-Filling-Accuracy']),
      played: aborted === null ? null : aborted === 0,
      aborted: aborted === null ? null : aborted !== 0,
    };
    for (const [k, t] of Object.entries(e.scores['turn scores'])) {
      if (typeof t.Accuracy === 'number') values[`accuracyRound${k}`] = num(t.Accuracy);
    }
    const experiment = experimentName(e.experiment);
    let id = `${experiment}/${e.episode}`;
    if (seen.has(id)) id = `${id}@${e.model}`;
    seen.add(id);
    const logs = e.interactions;
    // stopped by failed calls: the errored.json marker of `play`, or clembench's recorded `Abort Reason`
    const abortReason = e.errored ?? logs?.['Abort Reason'];
    const detail: Record<string, unknown> = {
      outcome: abortReason ? 'errored' : aborted ? 'aborted' : 'played',
      modelPair: e.model,
      models: logs?.players?.['Player 1'] ? [logs.players['Player 1'].replace(/^Answerer: /, '')] : [],
    };
    if (abortReason) detail.abortReason = abortReason;
    const file = options.runDir ? join(dirname(e.file), 'interactions.json') : undefined;
    if (file && existsSync(file)) detail.interactions = runLocation(options.runDir!, file);
    else if (logs) Object.assign(detail, transcriptDetail(logs));
    // an episode's probes share its conversation: the episode is the unit a resample draws
    const item: RunItem = { id, group: experiment, cluster: id, values, detail };
    if (abortReason) item.error = `the player failed: ${abortReason}`;
    items.push(item);
  }
  return items;
}

/** Rebuilds the score records the clemeval aggregation reads from items (one model: the run's system). */
function recordsFromItems(items: ReadonlyArray<RunItem>): EpisodeScoreRecord[] {
  return items
    .filter((item) => item.error === undefined)
    .map((item) => {
      const v = item.values;
      const nan = (x: RunItemValue | undefined) => (typeof x === 'number' ? x : Number.NaN);
      const turn: Record<string, Record<string, number>> = {};
      for (const [k, x] of Object.entries(v)) {
        const m = /^accuracyRound(\d+)$/.exec(k);
        if (m && typeof x === 'number') turn[m[1]!] = { Accuracy: x };
      }
      const episode: Record<string, number> = { 'Main Score': nan(v.mainScore) };
      if (typeof v.aborted === 'boolean') episode.Aborted = v.aborted ? 1 : 0;
      return {
        model: 'run',
        game: 'privateshared',
        experiment: item.group ?? '',
        episode: item.id,
        file: '',
        scores: { 'turn scores': turn, 'episode scores': episode },
      };
    });
}

/** clemeval rounds `% Played` (percent points) and the Quality Score (0-100, as Main Score) to 2 decimals. */
const PERCENT = { unit: '%', digits: 2 } as const;
const SCORE = { unit: 'score', digits: 2 } as const;
/** A probing round's accuracy: a 0-1 mean, shown in percent. */
const ACCURACY = { unit: 'ratio', digits: 1 } as const;

/**
 * The headline figures of a clemeval report over one system: `% Played`, `Quality Score`, `Quality Score (std)`,
 * `clemscore`, and per experiment `<experiment>: % Played`, `<experiment>: Quality Score`, `<experiment>: Quality
 * Score (std)` (each a `part` of the headline figure `by: 'experiment'`), `<experiment>: accuracy round <k>` (a part
 * of `<experiment>: accuracy` `by: 'round'`: the private/shared curve), as `dialeval scorekeeping report` prints them.
 * A report over several model pairs is pooled into one system.
 */
function figures(report: BenchmarkReport): Record<string, RunMetric> {
  const out: Record<string, RunMetric> = {};
  const v = (x: number) => (Number.isNaN(x) ? null : x);
  const g = report.games[0];
  const m = report.models[0];
  const n = g?.episodes ?? 0;
  out['% Played'] = { value: g ? v(g.played) : null, n, ...PERCENT };
  out['Quality Score'] = { value: g ? v(g.quality) : null, n, ...SCORE };
  out['Quality Score (std)'] = { value: g ? v(g.qualityStd) : null, n, ...SCORE };
  out.clemscore = { value: m ? v(m.clemscore) : null, n, ...SCORE };
  for (const e of report.experiments) {
    const name = experimentName(e.experiment);
    const part = (of: string) => ({ part: { of, by: 'experiment', value: name } });
    out[`${name}: % Played`] = { value: v(e.played), n: e.episodes, ...PERCENT, ...part('% Played') };
    out[`${name}: Quality Score`] = { value: v(e.quality), n: e.episodes, ...SCORE, ...part('Quality Score') };
    out[`${name}: Quality Score (std)`] = {
      value: v(e.qualityStd),
      n: e.episodes,
      ...SCORE,
      ...part('Quality Score (std)'),
    };
    for (const [k, r] of Object.entries(e.accuracyByRound))
      out[`${name}: accuracy round ${k}`] = {
        value: v(r.mean),
        n: r.episodes,
        ...ACCURACY,
        part: { of: `${name}: accuracy`, by: 'round', value: k },
      };
  }
  return out;
}

/**
 * The run's headline metrics from scored episodes: clemeval's aggregation ({@link aggregateScores}) over the
 * evaluated episodes (those aborted by a player failure are failed items, left out), pooled into one system.
 */
export function scorekeepingRunMetrics(
  episodes: ReadonlyArray<EpisodeScoreRecord & { interactions?: Interactions }>,
): Record<string, RunMetric> {
  const evaluated = episodes
    .filter((e) => !e.interactions?.['Abort Reason'])
    .map((e) => ({ ...e, model: 'run', game: 'privateshared', experiment: experimentName(e.experiment) }));
  const out = figures(aggregateScores(evaluated));
  // a Quality Score is a mean over the episodes with a Main Score (aborted ones have NaN)
  const scored = (list: typeof evaluated) =>
    list.filter(
      (e) =>
        typeof e.scores['episode scores']['Main Score'] === 'number' &&
        !Number.isNaN(e.scores['episode scores']['Main Score']),
    ).length;
  for (const [name, m] of Object.entries(out)) {
    if (!/Quality Score|clemscore/.test(name)) continue;
    const experiment = name.includes(': ') ? name.slice(0, name.indexOf(': ')) : undefined;
    m.n = scored(experiment === undefined ? evaluated : evaluated.filter((e) => e.experiment === experiment));
  }
  return out;
}

/**
 * Every figure of {@link scorekeepingRunMetrics} from items (pandas' NaN-skipping mean and std, numpy's rounding, as
 * clemeval): exactly the values `run.json` records. Items with `error` count into nothing.
 */
export function recompute(items: ReadonlyArray<RunItem>): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [k, m] of Object.entries(figures(aggregateScores(recordsFromItems(items))))) out[k] = m.value;
  return out;
}

/**
 * scorekeeping for `compare`, `runs` and `report`: {@link recompute}; `% Played` is binary per episode; the episode
 * is the cluster of an item (an item is one).
 */
export const runBenchmark: RunBenchmark = {
  benchmark: SCOREKEEPING_BENCHMARK,
  package: '@eval/scorekeeping',
  cluster: { unit: 'episode' },
  recompute: (items) => recompute(items),
  binary: { '% Played': 'played' },
  itemDetails: readItemDetails,
};

/** How many transcripts `itemDetails` reads at once. */
const READ_CONCURRENCY = 8;

/**
 * `runBenchmark.itemDetails`: the items with `probes` and `transcript` read back from the `interactions.json` each
 * one's `detail.interactions` names (relative locations resolved against `runDir`), exactly as
 * {@link scorekeepingRunItems} embeds them. An item that already has its transcript, or names no location, is returned
 * as it is; so is one whose file is gone or cannot be read as a transcript (the report then says where it was).
 */
async function readItemDetails(items: ReadonlyArray<RunItem>, runDir: string): Promise<RunItem[]> {
  const out = [...items];
  const todo: number[] = [];
  for (const [i, item] of items.entries()) {
    if (typeof item.detail?.interactions === 'string' && item.detail.transcript === undefined) todo.push(i);
  }
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const i = todo[next++]!;
      const item = items[i]!;
      const { interactions, ...rest } = item.detail! as { interactions: string } & Record<string, unknown>;
      try {
        const logs = (await readInteractions(resolveRunLocation(runDir, interactions))) as Interactions;
        out[i] = { ...item, detail: { ...rest, ...transcriptDetail(logs), interactions } };
      } catch {
        // gone or not a transcript: the item as recorded, with its location
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, todo.length) }, worker));
  return out;
}
