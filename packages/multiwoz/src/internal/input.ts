/**
 * mwzeval's predictions format (spec § 2): dialogue id -> list of system turns `{response, state?, active_domains?}`,
 * validated with `predictionsSchema` (`@eval/multiwoz/schemas`). Errors name the dialogue id, the turn index and the field.
 */
import { InputError, type ReadOptions, formatFieldPath, readJson } from '@eval/core';
import { PY_WHITESPACE } from '@eval/core/python';
import type { BeliefState } from './normalize';
import { predictionsSchema } from '../schemas';

export interface PredictionTurn {
  response: string;
  state?: BeliefState;
  active_domains?: string[];
  [extra: string]: unknown;
}

/** Dialogue id (lower case, no `.json`, e.g. `"pmul4648"`) -> system turns in order. */
export type Predictions = Record<string, PredictionTurn[]>;

/** Predictions objects returned by {@link parsePredictions} (not validated twice). */
const validated = new WeakSet<object>();

function describe(path: ReadonlyArray<PropertyKey>): string {
  const [id, turn, ...rest] = path;
  const parts: string[] = [];
  if (id !== undefined) parts.push(`dialogue ${JSON.stringify(String(id))}`);
  if (typeof turn === 'number') parts.push(`turn ${turn}`);
  if (rest.length > 0) parts.push(`field ${formatFieldPath(rest as Array<string | number>)}`);
  return parts.join(', ');
}

/**
 * Validates a parsed predictions file. Throws an {@link InputError} whose message names the dialogue id, turn index
 * and field of every problem (the first ten), e.g. `dialogue "sng0073", turn 2, field response: expected string`.
 */
export function parsePredictions(value: unknown, file?: string): Predictions {
  if (typeof value === 'object' && value !== null && validated.has(value)) return value as Predictions;
  const result = predictionsSchema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({
      path: i.path.map((p) => (typeof p === 'symbol' ? p.toString() : p)),
      message: i.message,
    }));
    const shown = issues.slice(0, 10).map((i) => (i.path.length > 0 ? `${describe(i.path)}: ${i.message}` : i.message));
    if (issues.length > 10) shown.push(`... and ${issues.length - 10} more`);
    const message = `invalid predictions (${issues.length} issue${issues.length === 1 ? '' : 's'}): ${shown.join('; ')}`;
    const first = issues[0]?.path;
    throw new InputError(message, {
      file,
      record: first && first.length > 0 ? String(first[0]) : undefined,
      field: first && first.length > 1 ? first.slice(1) : undefined,
      issues,
      code: 'input_error',
    });
  }
  const data = result.data as Predictions;
  const ids = Object.keys(data);
  if (ids.length === 0) throw new InputError('the predictions contain no dialogue', { file });
  for (const id of ids) {
    if (data[id]!.length === 0)
      throw new InputError(`dialogue ${JSON.stringify(id)} has no turns`, { file, record: id });
  }
  validated.add(data);
  return data;
}

/** Reads a predictions file (JSON, optionally gzip) and validates it as {@link parsePredictions} does. */
export async function readMultiwozPredictions(file: string, options?: ReadOptions): Promise<Predictions> {
  return parsePredictions(await readJson(file, undefined, options), file);
}

/** `has_state_predictions`: every turn of every dialogue has a `state`. */
export function hasStatePredictions(predictions: Predictions): boolean {
  for (const turns of Object.values(predictions)) for (const t of turns) if (t.state === undefined) return false;
  return true;
}

/** `has_domain_predictions`: every turn of every dialogue has `active_domains`. */
export function hasDomainPredictions(predictions: Predictions): boolean {
  for (const turns of Object.values(predictions))
    for (const t of turns) if (t.active_domains === undefined) return false;
  return true;
}

const DOMAINS = ['restaurant', 'hotel', 'attraction', 'train', 'taxi', 'police', 'hospital'];
const SLOT_ONLY_RE = new RegExp(`\\[([\\p{L}\\p{N}_${PY_WHITESPACE}]+)\\]`, 'gu');

/**
 * `add_slot_domains.py` (`extract_active_domains_from_slot_names`): the active domains of a raw response are the
 * domain prefixes of its `[domain_slot]` placeholders (e.g. `[restaurant_name]` -> restaurant), in first-seen order.
 */
export function domainsFromSlotNames(response: string): string[] {
  const found = new Set<string>();
  for (const m of response.toLowerCase().matchAll(SLOT_ONLY_RE)) found.add(m[1]!.split('_')[0]!);
  return [...found].filter((d) => DOMAINS.includes(d));
}
