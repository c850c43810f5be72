/**
 * Scoring recorded results as `dialeval scorekeeping score` does (one episode, or a scores.json beside every
 * transcript of a results directory), and the run record of a results directory (`score --run`, `report --run`).
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { EvalError, InputError, readText, writeFileAtomic } from '@eval/core';
import { readInstanceFile } from './instances';
import { parsePyJson } from './internal/pyjson';
import {
  aggregateScores,
  findResultFiles,
  inWalkOrder,
  loadRunScores,
  transcriptSummary,
  type BenchmarkReport,
} from './metrics/aggregate';
import { formatScoresJson, scoreEpisode, type ScoresJson } from './metrics/scorer';
import type { ScorekeepingRunRecord } from './play';
import { runRecord } from './internal/record';
import { loadRunEpisodes, scorekeepingRunVariant, type RunEpisode } from './runs';
import type { Interactions } from './types';

export interface ScoreResultsOptions {
  /** Slots of the instance; default: from the instance.json beside each transcript, else from the transcript. */
  nSlots?: number;
  /** Compare with the scores.json already there instead of writing. */
  check?: boolean;
  /** A results directory: also give its run record ({@link ScoreResultsOutcome.record}); ignored for one episode. */
  record?: boolean;
}

/** What {@link scoreResults} did. */
export interface ScoreResultsOutcome {
  /** One episode (a transcript, or a directory holding one): its scores.json text exactly as clembench writes it. */
  episode?: { file: string; text: string; scoresFile: string; before?: string };
  /** Transcripts scored. */
  scored: number;
  /** scores.json written (or, with `check`, found different or missing). */
  changed: number;
  /** scores.json identical to what scoring gives. */
  same: number;
  /** With `check`: the scores.json files that differ from what scoring gives, or are missing. */
  differences: Array<{ file: string; status: 'missing' | 'differs' }>;
  /** Transcripts that could not be scored: what was wrong (file, record, field). */
  errors: string[];
  /** With `record` (and no error): the run record of the results directory, every episode scored. */
  record?: ScorekeepingRunRecord;
}

async function slotsFor(interactionsFile: string, given: number | undefined): Promise<number | undefined> {
  if (given !== undefined) return given;
  const instanceFile = join(dirname(interactionsFile), 'instance.json');
  if (existsSync(instanceFile)) return Object.keys((await readInstanceFile(instanceFile)).slots).length;
  return undefined;
}

const readIfThere = (file: string) => (existsSync(file) ? readFile(file, 'utf8') : Promise.resolve(undefined));

/**
 * Re-scores recorded episodes exactly like clembench. `path` is an `interactions.json`, an episode directory (one
 * episode: its scores.json text is returned, nothing is written), or a results directory: a scores.json is written
 * beside every transcript (with `check`, compared instead).
 */
export async function scoreResults(path: string, options: ScoreResultsOptions = {}): Promise<ScoreResultsOutcome> {
  const st = await stat(path).catch(() => undefined);
  if (!st) throw new InputError('no such file or directory', { file: path, code: 'file_not_found' });
  const single = st.isFile()
    ? path
    : existsSync(join(path, 'interactions.json'))
      ? join(path, 'interactions.json')
      : '';
  const outcome: ScoreResultsOutcome = { scored: 0, changed: 0, same: 0, differences: [], errors: [] };
  if (single) {
    if (st.isFile() && basename(single) !== 'interactions.json' && !single.endsWith('.json'))
      throw new EvalError('usage_error', `expected an interactions.json, got ${path}`);
    const logs = parsePyJson(await readText(single), single);
    const text = formatScoresJson(scoreEpisode(logs, { nSlots: await slotsFor(single, options.nSlots), file: single }));
    const scoresFile = join(dirname(single), 'scores.json');
    const before = options.check ? await readIfThere(scoresFile) : undefined;
    if (before !== undefined && before === text) outcome.same++;
    else if (options.check) {
      outcome.changed++;
      outcome.differences.push({ file: scoresFile, status: before === undefined ? 'missing' : 'differs' });
    }
    return {
      ...outcome,
      scored: 1,
      episode: { file: single, text, scoresFile, ...(before !== undefined ? { before } : {}) },
    };
  }
  if (options.check && options.record)
    throw new EvalError('usage_error', 'a run records a scored results directory; a check only compares');
  // one walk: the transcripts to score, and (for a run record) the scores and errored markers already there
  const found = await findResultFiles(path);
  if (found.interactions.length === 0)
    throw new InputError('no interactions.json below this directory', { file: path });
  // with a run record, the transcripts parsed for scoring and their scores are its items' too (not read again); of
  // the transcripts, the items and metrics read only the players and the abort reason
  const transcripts = new Map<string, unknown>();
  const scores = new Map<string, ScoresJson>();
  for (const file of found.interactions) {
    let text: string;
    try {
      const logs = parsePyJson(await readText(file), file) as Partial<Interactions>;
      const s = scoreEpisode(logs, { nSlots: await slotsFor(file, options.nSlots), file });
      text = formatScoresJson(s);
      if (options.record) {
        transcripts.set(file, transcriptSummary(logs));
        // the scores.json written from them, as the run record would read it back (its numbers are their exact repr)
        scores.set(join(dirname(file), 'scores.json'), {
          'turn scores': s.turnScores,
          'episode scores': s.episodeScores,
        });
      }
    } catch (error) {
      if (!EvalError.isInstance(error)) throw error;
      outcome.errors.push(error.message);
      continue;
    }
    outcome.scored++;
    const target = join(dirname(file), 'scores.json');
    const before = await readIfThere(target);
    if (before === text) outcome.same++;
    else {
      outcome.changed++;
      if (options.check)
        outcome.differences.push({ file: target, status: before === undefined ? 'missing' : 'differs' });
      else await writeFileAtomic(target, text);
    }
  }
  if (options.record && outcome.errors.length === 0) {
    // every episode now has its scores.json beside its transcript: the listing the run reads, without a second walk
    const files = {
      scores: inWalkOrder([...found.scores, ...found.interactions.map((f) => join(dirname(f), 'scores.json'))]),
      errored: found.errored,
    };
    const episodes = await loadRunEpisodes(path, { transcripts, scores, files, interactions: 'summary' });
    outcome.record = scorekeepingResultsRecord(path, episodes, { slots: options.nSlots ?? 'from instance.json' });
  }
  return outcome;
}

/**
 * The run record of a results directory's scored episodes (as `loadRunEpisodes` reads them): the variant names the
 * model pairs; the system is the model pair when there is one (a model pair's own directory: its name).
 */
function scorekeepingResultsRecord(
  dir: string,
  episodes: RunEpisode[],
  options: Record<string, unknown> = {},
): ScorekeepingRunRecord {
  const pairs = [...new Set(episodes.map((r) => r.model || basename(resolve(dir))))];
  return runRecord({
    variant: scorekeepingRunVariant({ modelPairs: pairs }),
    ...(pairs.length === 1 ? { system: pairs[0] } : {}),
    options,
    episodes,
  });
}

export interface ReadResultsOptions {
  /** Report although some episodes errored (stopped by failed calls): they are left out of every figure. */
  allowPartial?: boolean;
  /** Also give the directory's run record (the transcripts' players and abort reasons are read for its items). */
  record?: boolean;
}

/** A results directory's benchmark figures, as `dialeval scorekeeping report` gives them. */
export interface ResultsReport {
  report: BenchmarkReport;
  /** Set when episodes errored (and `allowPartial`): which ones, left out of every figure until played again. */
  partial?: string;
  /** With `record`: the run record of every scored episode of the directory. */
  record?: ScorekeepingRunRecord;
}

/**
 * Reads every scored episode below a results directory and aggregates them as clemeval does. Episodes stopped by
 * failed calls make the figures partial: refused (a `partial_result` error naming them) unless `allowPartial`.
 */
export async function readResults(dir: string, options: ReadResultsOptions = {}): Promise<ResultsReport> {
  const st = await stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new InputError('not a directory', { file: dir, code: 'file_not_found' });
  // with a run record, the episodes with what the items read of their transcripts, read once for the report and the run
  const records = options.record ? await loadRunEpisodes(dir, { interactions: 'summary' }) : await loadRunScores(dir);
  if (records.length === 0)
    throw new InputError('no scores.json below this directory (run `dialeval scorekeeping score DIR` first?)', {
      file: dir,
    });
  const report = aggregateScores(records);
  const errored = report.errored;
  let partial: string | undefined;
  if (errored.length > 0) {
    const list = errored.slice(0, 5).map((e) => `${e.model} ${e.experiment} ${e.episode} (${e.reason})`);
    partial = `${errored.length} episode(s) were stopped by failed calls, not by the model, and are left out of every figure: ${list.join('; ')}${errored.length > 5 ? '; ...' : ''}`;
    if (!options.allowPartial)
      throw new EvalError(
        'partial_result',
        `refusing to report incomplete results: ${partial}; play them again (\`dialeval scorekeeping play\` with the same --out), or pass --allow-partial for partial figures`,
      );
  }
  return {
    report,
    ...(partial ? { partial } : {}),
    ...(options.record ? { record: scorekeepingResultsRecord(dir, records) } : {}),
  };
}
