import { cohenKappa, InputError, readText, validate } from '@eval/core';
import { z } from 'zod';
import { parsePyJson, PyFloat, pyDumps, type PyJsonValue } from '../internal/pyjson';
import type { Interactions } from '../types';

/** Python type of a score: decides `0` vs `0.0` in scores.json. */
export type PyNumberType = 'int' | 'float';

/** Scores of one episode in clembench's `scores.json` structure (keys in clembench's order). */
export interface EpisodeScores {
  /** `"0"`…: Request Count, Parsed Request Count, Violated Request Count, Accuracy[, Slot Filled?]. Complete probing rounds only. */
  turnScores: Record<string, Record<string, number>>;
  /** Middle-Accuracy (only when round m completed), Accuracy, Kappa, Truncated Kappa, Slot-Filling-Accuracy, Main Score, Aborted, Lose, Success, request counts, Request Success Ratio. */
  episodeScores: Record<string, number>;
  /** Python type of each episode score (`Truncated Kappa` is the int 0 when kappa ≤ 0; `Main Score` can be the int 0). */
  episodeTypes: Record<string, PyNumberType>;
}

const TURN_TYPES: Record<string, PyNumberType> = {
  'Request Count': 'int',
  'Parsed Request Count': 'int',
  'Violated Request Count': 'int',
  Accuracy: 'float',
  'Slot Filled?': 'int',
};

const counts = z.array(z.number().int().nonnegative());
const probeSchema = z
  .object({
    target: z.string().optional(),
    question: z.string().optional(),
    gt: z.number().int(),
    answer: z.string().optional(),
    value: z.number().int().optional(),
    tries: z.number().int().optional(),
  })
  .loose();

/** The interactions.json fields the scorer reads, validated (errors name the file and the field). */
export const scoredInteractionsSchema = z
  .object({
    probes: z.array(z.array(probeSchema)),
    'Request Count': counts,
    'Parsed Request Count': counts,
    'Violated Request Count': counts,
    'Filled Slots': z.array(z.boolean()),
    Aborted: z.boolean(),
    'Played Probe Rounds': z.number().int().nonnegative(),
    realised_slots: z.record(z.string(), z.number().int()).optional(),
  })
  .loose()
  .superRefine((logs, ctx) => {
    const played = logs['Played Probe Rounds'];
    if (logs.probes.length < played) {
      ctx.addIssue({
        code: 'custom',
        path: ['probes'],
        message: `has ${logs.probes.length} rounds but Played Probe Rounds is ${played}`,
      });
    }
    for (let t = 0; t < Math.min(played, logs.probes.length); t++) {
      const round = logs.probes[t]!;
      if (round.length === 0)
        ctx.addIssue({ code: 'custom', path: ['probes', t], message: 'a complete probing round has no probes' });
      round.forEach((p, i) => {
        if (p.value === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['probes', t, i, 'value'],
            message: 'missing in a complete probing round',
          });
      });
    }
    for (const key of ['Request Count', 'Parsed Request Count', 'Violated Request Count'] as const) {
      if (logs[key].length < played)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `has ${logs[key].length} entries but Played Probe Rounds is ${played}`,
        });
    }
    if (played > 1 && logs['Filled Slots'].length < played - 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['Filled Slots'],
        message: `has ${logs['Filled Slots'].length} entries but ${played - 1} slot rounds were played`,
      });
    }
    if (!logs.Aborted && logs['Filled Slots'].length === 0) {
      ctx.addIssue({ code: 'custom', path: ['Filled Slots'], message: 'is empty in an episode that was not aborted' });
    }
    if (logs['Request Count'].reduce((a, b) => a + b, 0) === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['Request Count'],
        message: 'no request was counted (Request Success Ratio would divide by zero)',
      });
    }
  });

function accuracy(gold: number[], pred: number[]): number {
  let correct = 0;
  for (let i = 0; i < gold.length; i++) if (gold[i] === pred[i]) correct++;
  return correct / gold.length;
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

export interface ScoreOptions {
  /** Number of slots of the instance (`len(game_instance["slots"])`); default: the number of probes per round or of `realised_slots`. */
  nSlots?: number;
  /** File name for error messages. */
  file?: string;
}

/** Slot count of an episode from its transcript alone. */
export function inferSlotCount(logs: Pick<Interactions, 'probes' | 'realised_slots'>): number | undefined {
  if (logs.realised_slots && Object.keys(logs.realised_slots).length > 0)
    return Object.keys(logs.realised_slots).length;
  const first = logs.probes?.[0];
  return first && first.length > 0 ? first.length : undefined;
}

/**
 * clembench's `PrivateSharedScorer.compute_scores`: turn scores for every complete probing round and the episode
 * scores, with scikit-learn's kappa, Python's `max(0, kappa)` (the int 0), missing vs NaN Middle-Accuracy and the
 * request sums over all rounds (including an unscored aborted one).
 */
export function scoreEpisode(interactions: unknown, options: ScoreOptions = {}): EpisodeScores {
  const logs = validate(scoredInteractionsSchema, interactions, { file: options.file });
  const nSlots = options.nSlots ?? inferSlotCount(logs as unknown as Interactions);
  if (nSlots === undefined)
    throw new InputError('cannot tell the number of slots (no realised_slots, no probes): pass nSlots', {
      file: options.file,
    });
  const aborted = logs.Aborted;
  const middle = Math.trunc((nSlots + 1) / 2) - 1;
  const turnScores: Record<string, Record<string, number>> = {};
  const episodeScores: Record<string, number> = {};
  const episodeTypes: Record<string, PyNumberType> = {};
  const put = (key: string, value: number, type: PyNumberType) => {
    episodeScores[key] = value;
    episodeTypes[key] = type;
  };
  const gold: number[] = [];
  const pred: number[] = [];
  for (let turn = 0; turn < logs['Played Probe Rounds']; turn++) {
    const t: Record<string, number> = {
      'Request Count': logs['Request Count'][turn]!,
      'Parsed Request Count': logs['Parsed Request Count'][turn]!,
      'Violated Request Count': logs['Violated Request Count'][turn]!,
    };
    const g = logs.probes[turn]!.map((p) => p.gt);
    const p = logs.probes[turn]!.map((x) => x.value!);
    t.Accuracy = accuracy(g, p);
    if (turn !== 0) t['Slot Filled?'] = logs['Filled Slots'][turn - 1] ? 1 : 0;
    turnScores[String(turn)] = t;
    gold.push(...g);
    pred.push(...p);
    if (turn === middle) put('Middle-Accuracy', aborted ? Number.NaN : accuracy(g, p), 'float');
  }
  const acc = aborted ? Number.NaN : accuracy(gold, pred);
  const kappa = aborted ? Number.NaN : cohenKappa(gold, pred);
  // Python's max(0, kappa): the int 0 unless kappa > 0 (max(0, nan) is 0 as well).
  const tkappaIsInt = !aborted && !(kappa > 0);
  const tkappa = aborted ? Number.NaN : tkappaIsInt ? 0 : kappa;
  const filled = logs['Filled Slots'];
  const sf = aborted ? Number.NaN : filled.filter(Boolean).length / filled.length;
  let main: number;
  let mainType: PyNumberType = 'float';
  if (Number.isNaN(sf) || Number.isNaN(tkappa)) main = Number.NaN;
  else if (sf + tkappa === 0) {
    main = 0;
    mainType = 'int';
  } else main = 100 * ((2 * sf * tkappa) / (sf + tkappa));
  put('Accuracy', acc, 'float');
  put('Kappa', kappa, 'float');
  put('Truncated Kappa', tkappa, tkappaIsInt ? 'int' : 'float');
  put('Slot-Filling-Accuracy', sf, 'float');
  put('Main Score', main, mainType);
  const success = aborted ? 0 : acc === 1.0 && sf === 1.0 ? 1 : 0;
  const lose = aborted ? 0 : success ? 0 : 1;
  const reqs = sum(logs['Request Count']);
  const parsed = sum(logs['Parsed Request Count']);
  const violated = sum(logs['Violated Request Count']);
  put('Aborted', aborted ? 1 : 0, 'int');
  put('Lose', lose, 'int');
  put('Success', success, 'int');
  put('Request Count', reqs, 'int');
  put('Parsed Request Count', parsed, 'int');
  put('Violated Request Count', violated, 'int');
  put('Request Success Ratio', parsed / reqs, 'float');
  return { turnScores, episodeScores, episodeTypes };
}

/** The scores as the Python object clembench dumps (`{"turn scores": …, "episode scores": …}`), with int/float types. */
export function scoresToPyJson(scores: EpisodeScores): PyJsonValue {
  const typed = (value: number, type: PyNumberType | undefined): PyJsonValue =>
    type === 'int' ? value : new PyFloat(value);
  const turn: Record<string, PyJsonValue> = {};
  for (const [k, t] of Object.entries(scores.turnScores)) {
    const row: Record<string, PyJsonValue> = {};
    for (const [name, v] of Object.entries(t))
      row[name] = typed(v, TURN_TYPES[name] ?? (Number.isInteger(v) ? 'int' : 'float'));
    turn[k] = row;
  }
  const episode: Record<string, PyJsonValue> = {};
  for (const [name, v] of Object.entries(scores.episodeScores)) episode[name] = typed(v, scores.episodeTypes[name]);
  return { 'turn scores': turn, 'episode scores': episode };
}

/** scores.json text exactly as clembench writes it (`json.dump`: `", "`/`": "`, bare `NaN`, no trailing newline). */
export function formatScoresJson(scores: EpisodeScores): string {
  return pyDumps(scoresToPyJson(scores));
}

/** Reads an interactions.json file (NaN-tolerant) and scores it. `nSlots` defaults to the transcript's slot count. */
export async function scoreInteractionsFile(file: string, options: { nSlots?: number } = {}): Promise<EpisodeScores> {
  const logs = parsePyJson(await readText(file), file);
  return scoreEpisode(logs, { ...options, file });
}

/** A scores.json file as plain numbers (NaN-tolerant). */
export interface ScoresJson {
  'turn scores': Record<string, Record<string, number>>;
  'episode scores': Record<string, number>;
}

const scoreNumber = z.union([z.number(), z.nan()]);
const scoresJsonSchema = z
  .object({
    'turn scores': z.record(z.string(), z.record(z.string(), scoreNumber)),
    'episode scores': z.record(z.string(), scoreNumber),
  })
  .loose();

export async function readScoresFile(file: string): Promise<ScoresJson> {
  return validate(scoresJsonSchema, parsePyJson(await readText(file), file), { file }) as ScoresJson;
}
