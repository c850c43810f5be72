import type { ChatMessage } from '@eval/core';

/** One logged event of an episode (clembench `interactions.json` `turns[i][j]`). */
export interface InteractionEvent {
  from: string;
  to: string;
  timestamp: string;
  action: { type: string; content: string };
}

/** One probe of a probing round; a probe after a failed one keeps only target/question/gt. */
export interface ProbeRecord {
  target: string;
  question: string;
  gt: number;
  answer?: string;
  /** 1 yes, 0 no, 2 no parsable answer. */
  value?: number;
  tries?: number;
}

/** An episode transcript in clembench v2.0's `interactions.json` format (keys in this order). */
export interface Interactions {
  players: Record<string, string>;
  turns: InteractionEvent[][];
  probes: ProbeRecord[][];
  realised_slots: Record<string, number>;
  'Request Count': number[];
  'Parsed Request Count': number[];
  'Violated Request Count': number[];
  'Filled Slots': boolean[];
  Aborted: boolean;
  'Played Probe Rounds': number;
  /**
   * dialeval extension, written only when the episode was aborted because the player failed (an exception such as a
   * network error or an exhausted budget), never for the game's own abort conditions.
   */
  'Abort Reason'?: string;
}

/** One model call (clembench `requests.json` entry). */
export interface RequestRecord {
  timestamp: string;
  manipulated_prompt_obj: ChatMessage[];
  raw_response_obj: Record<string, unknown>;
}

/** What the game master tells the Answerer about a call (programmatic and scripted players use it). */
export interface AnswererCall {
  /** `request`: a Questioner request (remembered in the history); `probe`: a private probing question. */
  kind: 'request' | 'probe';
  /** Round 0…n (round r = the r-th slot answer and probing round r). */
  round: number;
  /** The slot requested or probed. */
  slot: string;
  /** Position of the probe within its round (probes only). */
  probeIndex?: number;
  /** 1-based try of a probe (1 for requests). */
  attempt: number;
  signal: AbortSignal;
}

export interface AnswererReply {
  text: string;
  /** Extra details logged as the call's `raw_response_obj` in requests.json (e.g. usage). */
  raw?: Record<string, unknown>;
}

/** The Answerer (Player 1): an LLM behind a ChatModel, a scripted replay, or a programmatic player. */
export interface Answerer {
  /** Name logged as `"Player 1": "Answerer: <name>"`. */
  readonly name: string;
  respond(messages: ChatMessage[], call: AnswererCall): Promise<string | AnswererReply>;
}
