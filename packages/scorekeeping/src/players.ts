import type { ChatMessage, ChatModel, ChatOptions, ChatResult } from '@eval/core';
import { EvalError, InputError, readText, validate } from '@eval/core';
import { z } from 'zod';
import { parsePyJson } from './internal/pyjson';
import { PythonRandom } from '@eval/core/python';
import { EXPERIMENTS, type ExperimentName, type GameResources, type GameWords } from './resources';
import { containsValue, pyStrip, type SlotMatch } from './internal/text';
import type { Answerer, AnswererCall, AnswererReply, Interactions } from './types';

// ---------------------------------------------------------------------------------------------------------------------
// Any ChatModel
// ---------------------------------------------------------------------------------------------------------------------

export interface ChatModelAnswererOptions {
  /** Name logged as the Answerer (default: the model's id). */
  name?: string;
  /** Generation options of every call (the recorded runs used temperature 0). */
  chat?: Omit<ChatOptions, 'signal'>;
  /**
   * Strip surrounding whitespace from every answer, as clembench's API backends do (`response_text.strip()`);
   * default true.
   */
  strip?: boolean;
}

/** The Answerer as any chat model (the CLI passes `@eval/llm`'s cached, rate-limited OpenAI-compatible model). */
export function chatModelAnswerer(model: ChatModel, options: ChatModelAnswererOptions = {}): Answerer {
  const strip = options.strip ?? true;
  return {
    name: options.name ?? model.id,
    async respond(messages: ChatMessage[], call: AnswererCall): Promise<AnswererReply> {
      const result: ChatResult = await model.chat(messages, { ...options.chat, signal: call.signal });
      const text = strip ? pyStrip(result.text) : result.text;
      const raw: Record<string, unknown> = { finish_reason: result.finishReason };
      if (result.model) raw.model = result.model;
      if (result.usage) raw.usage = result.usage;
      if (result.cached) raw.cached = true;
      return { text, raw };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Scripted replay of a recorded episode
// ---------------------------------------------------------------------------------------------------------------------

/** The Answerer's recorded outputs, by round: the slot answer and, per probe in order, the answer of every try. */
export interface EpisodeScript {
  rounds: Array<{ request?: string; probes: string[][] }>;
}

const eventSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    action: z.object({ type: z.string(), content: z.string() }).loose(),
  })
  .loose();
const turnsSchema = z.object({ turns: z.array(z.array(eventSchema)) }).loose();

/**
 * Extracts the Answerer's outputs from an interactions.json: the Player 1 → GM `probe answer` and `get message`
 * events in log order, grouped by round and probe (a probe ends at its `Answer for …` metadata event).
 */
export function scriptFromInteractions(interactions: unknown, file?: string): EpisodeScript {
  const { turns } = validate(turnsSchema, interactions, { file });
  const rounds: EpisodeScript['rounds'] = [];
  turns.forEach((events) => {
    const round: EpisodeScript['rounds'][number] = { probes: [] };
    let current: string[] | undefined;
    for (const e of events) {
      const type = e.action.type;
      if (e.from === 'Player 1' && type === 'probe answer') {
        current ??= [];
        current.push(e.action.content);
      } else if (e.from === 'Player 1' && type === 'get message') {
        round.request = e.action.content;
      } else if (e.from === 'GM' && type === 'metadata' && e.action.content.startsWith('Answer for ')) {
        round.probes.push(current ?? []);
        current = undefined;
      }
    }
    if (current) round.probes.push(current);
    rounds.push(round);
  });
  return { rounds };
}

/** Replays a script: answers each call with the recorded output for that round, probe and try. */
export function scriptedAnswerer(script: EpisodeScript, options: { name?: string } = {}): Answerer {
  return {
    name: options.name ?? 'scripted',
    async respond(_messages, call) {
      const round = script.rounds[call.round];
      if (call.kind === 'request') {
        if (round?.request === undefined)
          throw new EvalError('script_exhausted', `the script has no recorded slot answer for round ${call.round}`);
        return round.request;
      }
      const text = round?.probes[call.probeIndex ?? 0]?.[call.attempt - 1];
      if (text === undefined) {
        throw new EvalError(
          'script_exhausted',
          `the script has no recorded answer for round ${call.round}, probe ${call.probeIndex}, try ${call.attempt}`,
        );
      }
      return text;
    },
  };
}

/** Reads an interactions.json and returns a scripted Answerer replaying it (named after its recorded Player 1). */
export async function scriptedAnswererFromFile(file: string): Promise<Answerer> {
  const logs = parsePyJson(await readText(file), file) as Partial<Interactions>;
  const recorded =
    typeof logs?.players?.['Player 1'] === 'string' ? logs.players['Player 1'].replace(/^Answerer: /, '') : undefined;
  return scriptedAnswerer(scriptFromInteractions(logs, file), { name: recorded });
}

// ---------------------------------------------------------------------------------------------------------------------
// Programmatic players as ChatModels (usable in-process or behind the scripted OpenAI-compatible test server)
// ---------------------------------------------------------------------------------------------------------------------

function longestMatch(text: string, table: Record<string, string[]>): string | undefined {
  let best: string | undefined;
  let bestLength = 0;
  for (const [slot, phrasings] of Object.entries(table)) {
    for (const p of phrasings) {
      if (p.length > bestLength && text.includes(p)) {
        best = slot;
        bestLength = p.length;
      }
    }
  }
  return best;
}

function parseInstanceBlock(prompt: string): Record<string, string> | undefined {
  const lines = prompt.split('\n');
  const start = lines.findIndex((l) => l.startsWith('WHAT: '));
  if (start < 0) return undefined;
  const out: Record<string, string> = {};
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    const m = /^([^:\s][^:]*): (.*)$/.exec(line);
    if (!m) break;
    out[m[1]!] = m[2]!;
  }
  return out;
}

function identify(
  resources: GameResources,
  block: Record<string, string>,
): { experiment: ExperimentName; slots: Record<string, string> } | undefined {
  const keys = Object.keys(block);
  for (const exp of EXPERIMENTS) {
    const slotNames = Object.keys(resources.experiments[exp].slotValues);
    if (slotNames.length !== keys.length) continue;
    const byUpper = new Map(slotNames.map((s) => [s.toUpperCase(), s]));
    if (keys.every((k) => byUpper.has(k))) {
      const slots: Record<string, string> = {};
      for (const k of keys) slots[byUpper.get(k)!] = block[k]!;
      return { experiment: exp, slots };
    }
  }
  return undefined;
}

export interface PerfectPlayerOptions {
  /** How "shared" is decided for values given early: the game's substring test (default) or whole words. Use the game's setting. */
  slotMatch?: SlotMatch;
}

/**
 * The answer a perfect Answerer gives, computed from the conversation alone (so it also works behind an
 * OpenAI-compatible server): `ANSWER: <value>.` to a request; to a probe `ASIDE: Yes.` when the probed slot was
 * requested or its value already appeared in one of its answers, else `ASIDE: No.`. Against the game master this
 * scores Main Score 100 on every instance.
 */
export function perfectAnswer(
  messages: ChatMessage[],
  resources: GameResources,
  options: PerfectPlayerOptions = {},
): string {
  const words = resources.words;
  const first = messages[0];
  const last = messages[messages.length - 1];
  if (!first || !last || last.role !== 'user')
    throw new EvalError('player_error', 'perfect player: expected a conversation ending with a user message');
  const block = parseInstanceBlock(first.content);
  const found = block && identify(resources, block);
  if (!found)
    throw new EvalError(
      'player_error',
      'perfect player: the first message holds no instance block of a known experiment',
    );
  const texts = resources.experiments[found.experiment];
  const earlier = messages.slice(2, -1);
  const probed = last.content.startsWith(words.ME) ? longestMatch(last.content, texts.probingQuestions) : undefined;
  if (probed !== undefined) {
    const requested = earlier.some((m) => m.role === 'user' && longestMatch(m.content, texts.requests) === probed);
    const given = earlier.some(
      (m) => m.role === 'assistant' && containsValue(m.content, found.slots[probed]!, options.slotMatch),
    );
    const yes = words.YES.charAt(0).toUpperCase() + words.YES.slice(1);
    const no = words.NO.charAt(0).toUpperCase() + words.NO.slice(1);
    return `${words.ASIDE}${requested || given ? yes : no}.`;
  }
  const requested = longestMatch(last.content, texts.requests);
  if (requested === undefined)
    throw new EvalError(
      'player_error',
      `perfect player: cannot tell what is asked in ${JSON.stringify(last.content.slice(0, 120))}`,
    );
  return `${words.ANSWER}${found.slots[requested]}.`;
}

/** A ChatModel that plays perfectly (see {@link perfectAnswer}); no network. */
export function perfectModel(resources: GameResources, options: PerfectPlayerOptions = {}): ChatModel {
  return {
    id: 'perfect',
    async chat(messages) {
      return { text: perfectAnswer(messages, resources, options), finishReason: 'stop' };
    },
  };
}

/**
 * clembench's mock Answerer (`Answerer._custom_response` of the current game code), seeded: a CPython random stream
 * draws `r` ("no, " if r < 0.4, "yes, " if r < 0.8, else nothing), the tag (`ASIDE: ` for a message starting with
 * `ME: `, else `ANSWER: `; each with probability 0.9, else none) and, with probability 0.1, an invalid continuation.
 */
export function mockAnswer(
  rng: PythonRandom,
  lastMessage: string,
  words: Pick<GameWords, 'ANSWER' | 'ASIDE' | 'ME' | 'YES' | 'NO'>,
): string {
  const r = rng.random();
  let begin = '';
  if (r < 0.4) begin = `${words.NO}, `;
  else if (r < 0.8) begin = `${words.YES}, `;
  const tag = lastMessage.startsWith(words.ME)
    ? rng.random() < 0.9
      ? words.ASIDE
      : ''
    : rng.random() < 0.9
      ? words.ANSWER
      : '';
  if (rng.random() < 0.9) return `${tag}${begin}placeholder.`;
  return `${tag}${begin}placeholder \n invalid stuff.`;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * A ChatModel replying like clembench's mock player; no network. Each call draws from a CPython random stream seeded
 * with (seed, hash of the conversation), so the replies are deterministic and independent of call order (the probes
 * of a round may be sent concurrently).
 */
export function mockModel(resources: Pick<GameResources, 'words'>, options: { seed?: number } = {}): ChatModel {
  const seed = BigInt(options.seed ?? 42);
  return {
    id: 'mock',
    async chat(messages) {
      const last = messages[messages.length - 1];
      if (!last) throw new InputError('mock player: empty conversation');
      const digest = fnv1a(messages.map((m) => `${m.role}\u0000${m.content}`).join('\u0001'));
      const rng = new PythonRandom((seed << 32n) | BigInt(digest));
      return { text: mockAnswer(rng, last.content, resources.words), finishReason: 'stop' };
    },
  };
}
