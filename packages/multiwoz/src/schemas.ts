/**
 * `@eval/multiwoz/schemas`: zod schemas of the formats this package reads, for callers who validate or compose with
 * zod. The package validates its inputs with these same schemas.
 */
import { z } from 'zod';

/** A belief state: domain -> slot -> value (strings). */
export const beliefStateSchema = z.record(z.string(), z.record(z.string(), z.string()));

/** One system turn of a predictions file. */
export const turnSchema = z.looseObject({
  /** Delexicalised system response with `[slot]` placeholders. */
  response: z.string(),
  /** Predicted belief state before this response: domain -> slot -> value (strings). */
  state: beliefStateSchema.optional(),
  /** Domains the response is about. */
  active_domains: z.array(z.string()).optional(),
});

/** mwzeval's predictions format: dialogue id -> system turns. */
export const predictionsSchema = z.record(z.string(), z.array(turnSchema));

/** One dialogue of goals.json: domain -> informable constraints and requestable slots. */
export const goalSchema = z.record(
  z.string(),
  z.looseObject({
    informable: z.record(z.string(), z.string()),
    requestable: z.array(z.string()),
  }),
);

/** One dialogue of booked_domains.json: per system turn, the domains booked so far. */
export const bookedDomainsSchema = z.array(z.array(z.string()));

/** One dialogue of a BLEU reference set: the normalised reference of each system turn. */
export const referencesSchema = z.array(z.string());

/** One dialogue of gold_states.json: the normalised gold state of each system turn. */
export const goldStatesSchema = z.array(beliefStateSchema);

/** One domain of a MultiWOZ 2.1 `goal` field (what the goals reconstruction reads). */
export const goal21DomainSchema = z.looseObject({
  info: z.record(z.string(), z.string()).optional(),
  reqt: z.array(z.string()).optional(),
  book: z.record(z.string(), z.unknown()).optional(),
});
