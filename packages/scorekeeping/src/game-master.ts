import { setMaxListeners } from 'node:events';
import type { ChatMessage } from '@eval/core';
import { EvalError } from '@eval/core';
import type { GameInstance } from './instances';
import type { GameResources, GameWords } from './resources';
import { containsValue, hasContinuation, pyFormat, pyReplace, pyStrip, type SlotMatch } from './internal/text';
import type {
  Answerer,
  AnswererCall,
  AnswererReply,
  InteractionEvent,
  Interactions,
  ProbeRecord,
  RequestRecord,
} from './types';

/** The parse result of an unusable answer (clembench `INVALID`). */
export const INVALID = 'NA';
/** The probe value of a failed probe (clembench `INVALID_LABEL`). */
export const INVALID_LABEL = 2;

export interface GameMasterOptions {
  /**
   * The coda `"{request} Answer only this question in one short sentence and then stop."`: v1.6–v2.0 log it but never
   * send it (`log-only`, default); `send` is the behaviour of clemcore-2.x commit 652fa63; `off` neither sends nor
   * logs it (077ace7 and later).
   */
  coda?: 'log-only' | 'send' | 'off';
  /** The first probe try reads `"ME:  <q>"` (two spaces) in the reference; `true` sends a single space. */
  fixProbeSpacing?: boolean;
  /**
   * `prefix` (reference): a probe answer is yes/no when its text starts with "yes"/"no" (so "Not sure" is a no);
   * `word`: "yes"/"no" must be a whole word.
   */
  yesNoMatch?: 'prefix' | 'word';
  /** How slot values are found in answers (filling and anticipation): `substring` (reference) or `word-boundary`. */
  slotMatch?: SlotMatch;
  /** Game-master generation: `v2` (v1.6–v2.0 recorded behaviour) is the only one. */
  engine?: 'v2';
  /**
   * Send the probes of a round concurrently (default true). They never enter the history, so transcript, counts and
   * scores are the same as when they are sent one after another (`false`, as the reference does).
   */
  concurrentProbes?: boolean;
  /** Name logged for Player 1 (default: the answerer's name). */
  modelName?: string;
  /** Clock for timestamps (epoch milliseconds; default: the system clock). */
  now?: () => number;
  /** Cancels the episode: the promise rejects and nothing is recorded. */
  signal?: AbortSignal;
  /**
   * Errors of the player that stop the whole run instead of aborting the episode (the promise rejects, nothing is
   * recorded). Default: {@link isRunStoppingError} (budget exhausted, dry run, cache miss in replay mode, no API key).
   */
  isFatal?: (error: unknown) => boolean;
}

/** Error codes (of `@eval/llm`) that end the run rather than one episode: nothing paid for is lost, the episode is played later. */
export const RUN_STOPPING_ERROR_CODES: ReadonlySet<string> = new Set([
  'budget_exceeded',
  'request_deferred',
  'cache_miss',
  'missing_api_key',
]);

/** True for errors that should stop the run instead of being recorded as a player failure. */
export function isRunStoppingError(error: unknown): boolean {
  return EvalError.isInstance(error) && RUN_STOPPING_ERROR_CODES.has(error.code);
}

export interface EpisodeResult {
  interactions: Interactions;
  /** Every logged model call (clembench `requests.json`). */
  requests: RequestRecord[];
  /** Why the episode was aborted, if it was: `invalid format in probing`, `invalid format in slot filling`, `player failure: …`. */
  abortReason?: string;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function clockNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Python `datetime.now().isoformat()` (local time, microseconds; omitted when zero). */
export function pythonIsoTimestamp(epochMs: number): string {
  return formatLocal(epochMs, 'T');
}

function formatLocal(epochMs: number, sep: string): string {
  const whole = Math.floor(epochMs);
  const micro = Math.min(999999, Math.round((epochMs - whole) * 1000) + (whole % 1000) * 1000);
  const d = new Date(whole);
  const base = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}${sep}${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return micro === 0 ? base : `${base}.${pad(micro, 6)}`;
}

/** Python `str(timedelta)` for a non-negative duration. */
function pythonTimedelta(ms: number): string {
  const totalMicro = Math.max(0, Math.round(ms * 1000));
  const micro = totalMicro % 1_000_000;
  let secs = Math.floor(totalMicro / 1_000_000);
  const days = Math.floor(secs / 86400);
  secs -= days * 86400;
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const s = secs % 60;
  const body = `${h}:${pad(m)}:${pad(s)}${micro ? `.${pad(micro, 6)}` : ''}`;
  return days ? `${days} day${days === 1 ? '' : 's'}, ${body}` : body;
}

function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as Error).name === 'AbortError' || (error as Error).name === 'APIUserAbortError')
  );
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

interface TryRecord {
  text: string;
  askedAt: number;
  answer: string;
  answeredAt: number;
  parsed: string;
  request: RequestRecord;
}

interface ProbeOutcome {
  tries: TryRecord[];
  success: boolean;
  /** The player failed (exception) on the try after `tries`. */
  failure?: { message: string; text: string; askedAt: number; error?: unknown };
}

/** Parses a probe answer: `yes`, `no` or `NA` (clembench `_parse_probing_response`). */
export function parseProbeAnswer(
  answer: string,
  words: Pick<GameWords, 'ASIDE' | 'YES' | 'NO'>,
  mode: 'prefix' | 'word' = 'prefix',
): string {
  const tag = pyStrip(words.ASIDE);
  if (!answer.startsWith(tag) || hasContinuation(answer)) return INVALID;
  const clean = pyStrip(pyReplace(answer, tag, '')).toLowerCase();
  const starts = (word: string) =>
    mode === 'prefix'
      ? clean.startsWith(word)
      : clean.startsWith(word) && !/^[\p{L}\p{N}_]/u.test(clean.slice(word.length));
  if (starts(words.YES)) return words.YES;
  if (starts(words.NO)) return words.NO;
  return INVALID;
}

/** Parses a slot answer: the answer without its tag, or `NA` (clembench `_parse_slot_response`). */
export function parseSlotAnswer(answer: string, words: Pick<GameWords, 'ANSWER'>): string {
  const tag = pyStrip(words.ANSWER);
  if (!answer.startsWith(tag) || hasContinuation(answer)) return INVALID;
  return pyStrip(pyReplace(answer, tag, ''));
}

/** The text sent on try `tries` (1-based) of a probe: the reprompt prefix after `ME: `. */
export function probeText(
  question: string,
  tries: number,
  words: Pick<GameWords, 'ME'>,
  reprompts: string[],
  fixSpacing = false,
): string {
  const reprompt = reprompts[tries - 1]!;
  if (fixSpacing && reprompt === '') return question;
  return pyReplace(question, words.ME, `${words.ME}${reprompt} `);
}

/**
 * Plays one episode of the private/shared game (v1.6–v2.0 game master) against an Answerer and returns the
 * transcript in clembench's format. A failing player (an exception) never crashes the episode: it is logged and
 * the episode is aborted with the reason.
 */
export async function playEpisode(
  instance: GameInstance,
  experiment: string,
  resources: GameResources,
  answerer: Answerer,
  options: GameMasterOptions = {},
): Promise<EpisodeResult> {
  const engine = options.engine ?? 'v2';
  if (engine !== 'v2') throw new EvalError('usage_error', `unknown game-master engine "${engine}" (supported: v2)`);
  const texts = resources.experiments[experiment as keyof GameResources['experiments']];
  if (!texts) throw new EvalError('input_error', `unknown experiment "${experiment}"`);
  const words = resources.words;
  const reprompts = resources.reprompts;
  const coda = options.coda ?? 'log-only';
  const yesNoMatch = options.yesNoMatch ?? 'prefix';
  const slotMatch = options.slotMatch ?? 'substring';
  const concurrent = options.concurrentProbes ?? true;
  const now = options.now ?? clockNow;
  const outerSignal = options.signal;
  const modelName = options.modelName ?? answerer.name;
  const isFatal = options.isFatal ?? isRunStoppingError;

  const slots = instance.slots;
  const nSlots = instance.request_order.length;
  const questionerTag = `${instance.tag}: `;
  const turns: InteractionEvent[][] = [];
  const requests: RequestRecord[] = [];
  const allProbes: ProbeRecord[][] = [];
  const probeGt: Record<string, number> = {};
  instance.request_order.forEach((slot, i) => {
    probeGt[slot] = i;
  });
  const requestCounts = new Array<number>(nSlots + 1).fill(0);
  const parsedCounts = new Array<number>(nSlots + 1).fill(0);
  const violatedCounts = new Array<number>(nSlots + 1).fill(0);
  const filledSlots: boolean[] = [];
  let playedRounds = 0;
  let aborted = false;
  let abortReason: string | undefined;
  let playerFailure: string | undefined;

  const log = (from: string, to: string, type: string, content: string, at = now()) => {
    turns[turns.length - 1]!.push({ from, to, timestamp: pythonIsoTimestamp(at), action: { type, content } });
  };
  const record = (
    messages: ChatMessage[],
    reply: AnswererReply,
    startedAt: number,
    endedAt: number,
  ): RequestRecord => ({
    timestamp: pythonIsoTimestamp(endedAt),
    manipulated_prompt_obj: messages.map((m) => ({ role: m.role, content: m.content })),
    raw_response_obj: {
      ...(reply.raw ?? {}),
      clem_player: {
        call_start: formatLocal(startedAt, ' '),
        call_duration: pythonTimedelta(endedAt - startedAt),
        response: reply.text,
        model_name: modelName,
      },
    },
  });
  const ask = async (messages: ChatMessage[], call: Omit<AnswererCall, 'signal'>, signal: AbortSignal) => {
    const reply = await answerer.respond(messages, { ...call, signal });
    const r = typeof reply === 'string' ? { text: reply } : reply;
    if (typeof r?.text !== 'string')
      throw new EvalError(
        'player_error',
        `the answerer returned no text (got ${JSON.stringify(reply)?.slice(0, 100)})`,
      );
    return r;
  };
  const checkCancelled = () => {
    if (outerSignal?.aborted) throw outerSignal.reason ?? new DOMException('The episode was cancelled', 'AbortError');
  };

  // Answerer history: the initial prompt and the pseudo answer; probes never enter it.
  const messages: ChatMessage[] = [
    { role: 'user', content: instance.initial_prompt },
    { role: 'assistant', content: words.OK ?? 'Ok.' },
  ];

  const runProbe = async (
    question: string,
    round: number,
    slot: string,
    probeIndex: number,
    history: ChatMessage[],
    signal: AbortSignal,
  ): Promise<ProbeOutcome> => {
    const tries: TryRecord[] = [];
    for (let attempt = 1; attempt <= reprompts.length; attempt++) {
      const text = probeText(question, attempt, words, reprompts, options.fixProbeSpacing);
      const prompt = [...history, { role: 'user' as const, content: text }];
      const askedAt = now();
      let reply: AnswererReply;
      try {
        reply = await ask(prompt, { kind: 'probe', round, slot, probeIndex, attempt }, signal);
      } catch (error) {
        if (outerSignal?.aborted) throw error;
        return { tries, success: false, failure: { message: errorMessage(error), text, askedAt, error } };
      }
      const answeredAt = now();
      const parsed = parseProbeAnswer(reply.text, words, yesNoMatch);
      tries.push({
        text,
        askedAt,
        answer: reply.text,
        answeredAt,
        parsed,
        request: record(prompt, reply, askedAt, answeredAt),
      });
      if (parsed === words.YES || parsed === words.NO) return { tries, success: true };
      if (signal.aborted) return { tries, success: false, failure: { message: 'cancelled', text, askedAt } };
    }
    return { tries, success: false };
  };

  /** One probing round; returns whether every probe got a parsable answer. */
  const probeRound = async (round: number): Promise<boolean> => {
    log('GM', 'GM', 'info', 'Begin probing');
    const indices = instance.probes[String(round)] ?? {};
    const probes: ProbeRecord[] = Object.entries(indices).map(([slot, idx]) => {
      const phrasings = texts.probingQuestions[slot];
      const q = phrasings?.[idx];
      if (q === undefined) {
        throw new EvalError(
          'input_error',
          `instance ${instance.game_id}: probes["${round}"]["${slot}"] = ${idx} has no probing question in the resources`,
        );
      }
      return { target: slot.toUpperCase(), question: pyFormat(words.PROBE, q), gt: round > probeGt[slot]! ? 1 : 0 };
    });
    const slotsOfProbes = Object.keys(indices);
    allProbes.push(probes);
    const history = messages.slice();
    const controller = new AbortController();
    // every concurrent probe call may listen to the round's signal
    setMaxListeners(Math.max(10, 2 * probes.length + 10), controller.signal);
    const onOuterAbort = () => controller.abort(outerSignal?.reason);
    outerSignal?.addEventListener('abort', onOuterAbort, { once: true });
    const start = (i: number) => runProbe(probes[i]!.question, round, slotsOfProbes[i]!, i, history, controller.signal);
    let pending: Array<Promise<ProbeOutcome>> = [];
    if (concurrent) {
      pending = probes.map((_, i) => start(i));
      for (const p of pending) p.catch(() => undefined);
    }
    let success = true;
    try {
      for (let i = 0; i < probes.length; i++) {
        const outcome = concurrent ? await pending[i]! : await start(i);
        checkCancelled();
        const probe = probes[i]!;
        for (const t of outcome.tries) {
          log('GM', 'Player 1', 'probe question', t.text, t.askedAt);
          log('Player 1', 'GM', 'probe answer', t.answer, t.answeredAt);
          requests.push(t.request);
          requestCounts[round]! += 1;
          log('GM', 'GM', 'parse', t.parsed);
          if (t.parsed === words.YES || t.parsed === words.NO) parsedCounts[round]! += 1;
          else violatedCounts[round]! += 1;
        }
        if (outcome.failure) {
          if (outcome.failure.error !== undefined && isFatal(outcome.failure.error)) throw outcome.failure.error;
          log('GM', 'Player 1', 'probe question', outcome.failure.text, outcome.failure.askedAt);
          playerFailure = outcome.failure.message;
          success = false;
          break;
        }
        const last = outcome.tries[outcome.tries.length - 1]!;
        probe.answer = last.answer;
        probe.value = last.parsed === words.YES ? 1 : last.parsed === words.NO ? 0 : INVALID_LABEL;
        probe.tries = outcome.success ? outcome.tries.length : outcome.tries.length + 1;
        log(
          'GM',
          'GM',
          'metadata',
          outcome.success
            ? `Answer for ${probe.target} valid after ${probe.tries} tries.`
            : `Answer for ${probe.target} invalid after max attempts.`,
        );
        log('GM', 'GM', 'check', `Answer is ${probe.value === probe.gt ? '' : 'in'}correct.`);
        if (!outcome.success) {
          success = false;
          break;
        }
      }
    } finally {
      // Probes after a failed one are not needed: cancel their calls.
      controller.abort();
      outerSignal?.removeEventListener('abort', onOuterAbort);
    }
    if (success) playedRounds += 1;
    log('GM', 'GM', 'info', 'End probing');
    return success;
  };

  const abortForPlayer = () => {
    aborted = true;
    abortReason = `player failure: ${playerFailure}`;
    log('GM', 'GM', 'error', `Abort: ${abortReason}`);
  };

  const players = {
    GM: 'Game master for privateshared',
    'Player 1': `Answerer: ${modelName}`,
    'Player 2': 'Questioner: Programmatic',
  };

  turns.push([]);
  log('GM', 'Player 1', 'send message', instance.initial_prompt);
  if (!(await probeRound(0))) {
    if (playerFailure !== undefined) abortForPlayer();
    else {
      log('GM', 'GM', 'invalid format', 'Abort: invalid format in probing.');
      aborted = true;
      abortReason = 'invalid format in probing';
    }
  }

  for (let round = 1; round <= nSlots && !aborted; round++) {
    turns.push([]);
    const slot = instance.request_order[round - 1]!;
    // The programmatic Questioner.
    log('GM', 'Player 2', 'send message', words.DUMMY_PROMPT);
    const phrasing = texts.requests[slot]?.[instance.requests[slot]!];
    if (phrasing === undefined) {
      throw new EvalError(
        'input_error',
        `instance ${instance.game_id}: requests["${slot}"] = ${instance.requests[slot]} has no request text in the resources`,
      );
    }
    const tagged = `${questionerTag}${phrasing}`;
    log('Player 2', 'GM', 'get message', pyStrip(pyReplace(tagged, questionerTag, '')));
    const withCoda = pyFormat(words.CODA, tagged);
    const sent = coda === 'send' ? withCoda : tagged;
    messages.push({ role: 'user', content: sent });
    log('GM', 'Player 1', 'send message', coda === 'off' ? tagged : withCoda);

    const askedAt = now();
    let reply: AnswererReply;
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(outerSignal?.reason);
    outerSignal?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      reply = await ask(messages.slice(), { kind: 'request', round, slot, attempt: 1 }, controller.signal);
    } catch (error) {
      checkCancelled();
      if (isAbortError(error) && outerSignal?.aborted) throw error;
      if (isFatal(error)) throw error;
      playerFailure = errorMessage(error);
      abortForPlayer();
      break;
    } finally {
      outerSignal?.removeEventListener('abort', onOuterAbort);
    }
    const answeredAt = now();
    const answer = reply.text;
    messages.push({ role: 'assistant', content: answer });
    log('Player 1', 'GM', 'get message', answer, answeredAt);
    requests.push(record(messages.slice(0, -1), reply, askedAt, answeredAt));
    requestCounts[round]! += 1;
    const parsed = parseSlotAnswer(answer, words);
    log('GM', 'GM', 'parse', parsed);
    if (parsed === INVALID) {
      violatedCounts[round]! += 1;
      log('GM', 'GM', 'invalid format', 'Abort: invalid format in slot filling.');
      aborted = true;
      abortReason = 'invalid format in slot filling';
      break;
    }
    parsedCounts[round]! += 1;
    const filled = containsValue(answer, slots[slot]!, slotMatch);
    filledSlots.push(filled);
    log('GM', 'GM', 'metadata', `Slot filled: ${filled ? 'True' : 'False'}`);
    const turn = round - 1;
    for (const [other, value] of Object.entries(slots)) {
      if (containsValue(answer, value, slotMatch) && turn < probeGt[other]!) {
        log(
          'GM',
          'GM',
          'metadata',
          `Value for ${other.toUpperCase()} anticipated; ground truth turn updated from ${probeGt[other]} to ${turn}.`,
        );
        probeGt[other] = turn;
      }
    }
    log('GM', 'Player 2', 'send message', parsed);
    if (!(await probeRound(round))) {
      if (playerFailure !== undefined) abortForPlayer();
      else {
        log('GM', 'GM', 'invalid format', 'Abort: invalid format in probing.');
        aborted = true;
        abortReason = 'invalid format in probing';
      }
      break;
    }
  }

  log('GM', 'GM', 'end', 'Game finished.');
  const interactions: Interactions = {
    players,
    turns,
    probes: allProbes,
    realised_slots: { ...probeGt },
    'Request Count': requestCounts,
    'Parsed Request Count': parsedCounts,
    'Violated Request Count': violatedCounts,
    'Filled Slots': filledSlots,
    Aborted: aborted,
    'Played Probe Rounds': playedRounds,
  };
  if (playerFailure !== undefined) interactions['Abort Reason'] = abortReason;
  return { interactions, requests, abortReason };
}
