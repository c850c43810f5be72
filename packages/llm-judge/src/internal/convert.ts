import { InputError, readText } from '@eval/core';
import { PyDict, type PyValue, typeName } from './python';
import { parseJsonFile, readTurnRecords, type SlotValues, type TurnRecord } from './records';
import { SLOTS } from './slots';

// ---------------------------------------------------------------------------------------------------------
// TRADE label fixing (jasonwu0731/trade-dst `fix_general_label_error`), as the reference's result_parser.py uses it
// ---------------------------------------------------------------------------------------------------------

const GENERAL_TYPO: Readonly<Record<string, string>> = {
  guesthouse: 'guest house',
  guesthouses: 'guest house',
  guest: 'guest house',
  'mutiple sports': 'multiple sports',
  sports: 'multiple sports',
  'mutliple sports': 'multiple sports',
  swimmingpool: 'swimming pool',
  concerthall: 'concert hall',
  concert: 'concert hall',
  pool: 'swimming pool',
  'night club': 'nightclub',
  mus: 'museum',
  ol: 'architecture',
  colleges: 'college',
  coll: 'college',
  architectural: 'architecture',
  musuem: 'museum',
  churches: 'church',
  center: 'centre',
  'center of town': 'centre',
  'near city center': 'centre',
  cen: 'centre',
  ce: 'centre',
  'town center': 'centre',
  'centre of cambridge': 'centre',
  'city center': 'centre',
  scentre: 'centre',
  'town centre': 'centre',
  'in town': 'centre',
  'centre of town': 'centre',
  'in the north': 'north',
  'north part of town': 'north',
  'east side': 'east',
  'east area': 'east',
  'west part of town': 'west',
  'the south': 'south',
  cb30aq: 'none',
  mode: 'moderate',
  'moderate -ly': 'moderate',
  mo: 'moderate',
  'next friday': 'friday',
  monda: 'monday',
  'free parking': 'free',
  'free internet': 'yes',
  '4 star': '4',
  '4 stars': '4',
  '0 star rarting': 'none',
  y: 'yes',
  any: 'dontcare',
  n: 'no',
  'does not care': 'dontcare',
  'not men': 'none',
  not: 'none',
  'not mentioned': 'none',
  '': 'none',
  'not mendtioned': 'none',
  '3 .': '3',
  'does not': 'no',
  fun: 'none',
  art: 'none',
};

const HOTEL_TYPE_NONE = new Set([
  'nigh',
  'moderate -ly priced',
  'bed and breakfast',
  'centre',
  'venetian',
  'intern',
  'a cheap -er hotel',
]);
const ATTRACTION_TYPE_NONE = new Set(['gastropub', 'la raza', 'galleria', 'gallery', 'science', 'm']);
const HOTEL_TYPE_HOTEL = new Set(['hotel with free parking and free wifi', '4', '3 star hotel']);
const RESTAURANT_AREA_NONE = new Set(['stansted airport', 'cambridge', 'silver street']);
const ATTRACTION_AREA_NONE = new Set(['norwich', 'ely', 'museum', 'same area as hotel']);

/** One slot's value through TRADE's typo table and per-slot rules. */
export function fixSlotValue(slot: string, value: string): string {
  let v = Object.hasOwn(GENERAL_TYPO, value) ? GENERAL_TYPO[value]! : value;
  if (
    (slot === 'hotel-type' && HOTEL_TYPE_NONE.has(v)) ||
    (slot === 'hotel-internet' && v === '4') ||
    (slot === 'hotel-pricerange' && v === '2') ||
    (slot === 'attraction-type' && ATTRACTION_TYPE_NONE.has(v)) ||
    (slot.includes('area') && v === 'moderate') ||
    (slot.includes('day') && v === 't')
  ) {
    v = 'none';
  } else if (slot === 'hotel-type' && HOTEL_TYPE_HOTEL.has(v)) {
    v = 'hotel';
  } else if (slot === 'hotel-star' && v === '3 star hotel') {
    // dead rule (the slot is "hotel-stars"), kept as in TRADE
    v = '3';
  } else if (slot.includes('area')) {
    if (v === 'no') v = 'north';
    else if (v === 'we') v = 'west';
    else if (v === 'cent') v = 'centre';
  } else if (slot.includes('day')) {
    if (v === 'we') v = 'wednesday';
    else if (v === 'no') v = 'none';
  } else if (slot.includes('price') && v === 'ch') {
    v = 'cheap';
  } else if (slot.includes('internet') && v === 'free') {
    v = 'yes';
  }
  if (
    (slot === 'restaurant-area' && RESTAURANT_AREA_NONE.has(v)) ||
    (slot === 'attraction-area' && ATTRACTION_AREA_NONE.has(v))
  )
    v = 'none';
  return v;
}

/**
 * TRADE's `fix_general_label_error`: every slot of the 30-slot list present in `labels` gets its value fixed
 * (in place: keys and their order are kept); other names are left untouched.
 */
export function fixGeneralLabelError(labels: SlotValues, slots: readonly string[] = SLOTS): SlotValues {
  for (const slot of slots) {
    const v = labels.get(slot);
    if (v !== undefined) labels.set(slot, fixSlotValue(slot, v));
  }
  return labels;
}

const TIME_RE = /\p{Nd}\p{Nd}\P{Nd}\p{Nd}\p{Nd}/u;

/**
 * `fix_time_label`: when the value contains `dd?dd` with a separator other than `:`, that separator character is
 * replaced by `:` everywhere in the value; then `parking`/`wifi` become `yes`.
 */
export function fixTimeLabel(value: string): string {
  let v = value;
  const m = TIME_RE.exec(v);
  if (m) {
    const sep = [...m[0]][2]!;
    if (sep !== ':') v = v.split(sep).join(':');
  }
  if (v === 'parking' || v === 'wifi') v = 'yes';
  return v;
}

/** `update_state`: applies a turn label to the accumulated state (`none` deletes), then fixes the whole state. */
export function updateState(state: SlotValues, turnLabel: SlotValues): SlotValues {
  for (const [slot, raw] of turnLabel) {
    let value = fixTimeLabel(raw);
    if (value === 'none') {
      state.delete(slot);
      continue;
    }
    if (value === 'parking' || value === 'wifi') value = 'yes';
    state.set(slot, value);
  }
  return fixGeneralLabelError(state);
}

// ---------------------------------------------------------------------------------------------------------
// Dialogue sources: turn structure, utterances and ground truth
// ---------------------------------------------------------------------------------------------------------

export interface SourceTurn {
  /** The system utterance before the user's ('' on turn 0). */
  system: string;
  user: string;
  /** MultiWOZ 2.1 accumulated state after the turn (TRADE slot names). */
  groundTruth: SlotValues;
  /** MultiWOZ 2.4 accumulated state, when known. */
  groundTruthM24?: SlotValues;
}

export interface SourceDialogue {
  /** As in flags: `SNG0073.json`. */
  id: string;
  turns: SourceTurn[];
}

/** Dialogue structure taken from existing per-turn records (e.g. the reference's `*_sampled.json`). */
export function dialoguesFromRecords(records: readonly TurnRecord[]): SourceDialogue[] {
  const out: SourceDialogue[] = [];
  let current: SourceDialogue | undefined;
  for (const r of records) {
    if (!current || current.id !== r.dialogueId) out.push((current = { id: r.dialogueId, turns: [] }));
    current.turns.push({
      system: r.system,
      user: r.user,
      groundTruth: new Map(r.groundTruth),
      groundTruthM24: r.groundTruthM24 && new Map(r.groundTruthM24),
    });
  }
  return out;
}

function beliefState(
  value: PyValue | undefined,
  loc: { file?: string; record: string; field: Array<string | number> },
): SlotValues {
  const out: SlotValues = new Map();
  if (value instanceof PyDict) {
    for (const [k, v] of value.items()) {
      if (typeof k !== 'string' || typeof v !== 'string')
        throw new InputError('belief_state entries must map a slot name to a string value', loc);
      out.set(k, v);
    }
    return out;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const slots = item instanceof PyDict ? item.get('slots') : undefined;
      const first = Array.isArray(slots) ? slots[0] : undefined;
      if (!Array.isArray(first) || typeof first[0] !== 'string' || typeof first[1] !== 'string') {
        throw new InputError('expected {"slots": [[slot, value]], ...}', { ...loc, field: [...loc.field, i] });
      }
      out.set(first[0], first[1]);
    });
    return out;
  }
  throw new InputError(
    `expected belief_state as an object or a list of {"slots": [[slot, value]]}, got ${value === undefined ? 'nothing' : typeName(value)}`,
    loc,
  );
}

function tradeDialogues(
  value: PyValue,
  file?: string,
): Array<{ id: string; turns: Array<{ system: string; user: string; state: SlotValues }> }> {
  if (!Array.isArray(value))
    throw new InputError(`expected a list of dialogues (TRADE test_dials.json), got ${typeName(value)}`, { file });
  return value.map((d, i) => {
    if (!(d instanceof PyDict))
      throw new InputError(`expected a dialogue object, got ${typeName(d)}`, { file, record: i });
    const id = d.get('dialogue_idx');
    if (typeof id !== 'string')
      throw new InputError('dialogue_idx must be a string', { file, record: i, field: ['dialogue_idx'] });
    const turns = d.get('dialogue');
    if (!Array.isArray(turns))
      throw new InputError('dialogue must be a list of turns', { file, record: id, field: ['dialogue'] });
    return {
      id,
      turns: turns.map((t, j) => {
        if (!(t instanceof PyDict))
          throw new InputError(`expected a turn object, got ${typeName(t)}`, {
            file,
            record: id,
            field: ['dialogue', j],
          });
        const system = t.get('system_transcript');
        const user = t.get('transcript');
        if (typeof system !== 'string')
          throw new InputError('system_transcript must be a string', {
            file,
            record: id,
            field: ['dialogue', j, 'system_transcript'],
          });
        if (typeof user !== 'string')
          throw new InputError('transcript must be a string', {
            file,
            record: id,
            field: ['dialogue', j, 'transcript'],
          });
        const turnIdx = t.get('turn_idx');
        if (turnIdx !== undefined && turnIdx !== j) {
          throw new InputError(`turns out of order: turn_idx ${String(turnIdx)} at position ${j}`, {
            file,
            record: id,
            field: ['dialogue', j, 'turn_idx'],
          });
        }
        return {
          system,
          user,
          state: beliefState(t.get('belief_state'), { file, record: id, field: ['dialogue', j, 'belief_state'] }),
        };
      }),
    };
  });
}

/**
 * Dialogue structure from TRADE-preprocessed MultiWOZ test files (`test_dials.json`): MultiWOZ 2.1 (required)
 * and 2.4 (optional; its dialogues and turns must line up with 2.1's, as the reference asserts).
 */
export function dialoguesFromTrade(
  m21: PyValue,
  m24?: PyValue,
  files: { m21?: string; m24?: string } = {},
): SourceDialogue[] {
  const a = tradeDialogues(m21, files.m21);
  const b = m24 === undefined ? undefined : tradeDialogues(m24, files.m24);
  if (b && b.length !== a.length)
    throw new InputError(
      `MultiWOZ 2.4 dialogues (${b.length}) do not line up with MultiWOZ 2.1 dialogues (${a.length})`,
      { file: files.m24 },
    );
  return a.map((d, i) => {
    const e = b?.[i];
    if (e && (e.id !== d.id || e.turns.length !== d.turns.length)) {
      throw new InputError(
        `dialogue ${i} is ${e.id} with ${e.turns.length} turns in MultiWOZ 2.4 but ${d.id} with ${d.turns.length} turns in MultiWOZ 2.1`,
        {
          file: files.m24,
          record: i,
        },
      );
    }
    return {
      id: d.id,
      turns: d.turns.map((t, j) => ({
        system: t.system,
        user: t.user,
        groundTruth: t.state,
        groundTruthM24: e ? e.turns[j]!.state : undefined,
      })),
    };
  });
}

/**
 * Reads a dialogue source file: a TRADE `test_dials.json` (list of `{dialogue_idx, dialogue: [...]}`), or a
 * per-turn record file (list of records with `flag`). Gzip is detected.
 */
export async function readDialogueSource(file: string, m24File?: string): Promise<SourceDialogue[]> {
  const text = await readText(file);
  const value = parseJsonFile(text, file);
  if (Array.isArray(value) && value[0] instanceof PyDict && value[0].has('flag')) {
    if (m24File)
      throw new InputError(
        'MultiWOZ 2.4 dialogues can only be combined with a TRADE test_dials.json source (records carry ground_truth_m24 themselves)',
        { file: m24File },
      );
    return dialoguesFromRecords(await readTurnRecords(file));
  }
  const m24 = m24File ? parseJsonFile(await readText(m24File), m24File) : undefined;
  return dialoguesFromTrade(value, m24, { m21: file, m24: m24File });
}

function historyBefore(turns: readonly SourceTurn[], t: number): string[] {
  const h: string[] = [];
  for (let i = 0; i < t; i++) h.push(turns[i]!.system, turns[i]!.user);
  return h;
}

// ---------------------------------------------------------------------------------------------------------
// Raw predictions (list of {flag, generate, slot, value}) -> per-turn records (results/result_parser.py)
// ---------------------------------------------------------------------------------------------------------

export interface RawPrediction {
  flag: string;
  generate: string;
  value: string;
}

export interface ConversionWarnings {
  /** Prediction flags whose dialogue is not in the source (ignored, as the reference iterates the source). */
  unknownDialogues: string[];
  /** Prediction flags naming a turn the source dialogue does not have (ignored). */
  unknownTurns: string[];
  /** Source dialogues without any prediction (converted with empty turn labels / skipped for state input). */
  dialoguesWithoutPredictions: string[];
  /** Predicted slot names outside the 30-slot schema (kept: the integration judges them wrong), with counts. */
  unknownSlots: Record<string, number>;
}

export interface ConversionResult {
  records: TurnRecord[];
  warnings: ConversionWarnings;
}

function emptyWarnings(): ConversionWarnings {
  return { unknownDialogues: [], unknownTurns: [], dialoguesWithoutPredictions: [], unknownSlots: {} };
}

const SLOT_SET = new Set(SLOTS);

/** Validates a raw prediction list (`raw_result-*.json`); errors name the file, the entry and the field. */
export function parseRawPredictions(value: unknown, file?: string): RawPrediction[] {
  if (!Array.isArray(value)) throw new InputError('expected a JSON list of {flag, generate, slot, value}', { file });
  return value.map((v, i) => {
    if (!v || typeof v !== 'object' || Array.isArray(v))
      throw new InputError('expected an object {flag, generate, slot, value}', { file, record: i });
    const o = v as Record<string, unknown>;
    for (const f of ['flag', 'generate', 'value'] as const) {
      if (typeof o[f] !== 'string')
        throw new InputError(`expected a string, got ${o[f] === undefined ? 'nothing' : typeof o[f]}`, {
          file,
          record: i,
          field: [f],
        });
    }
    return { flag: o.flag as string, generate: o.generate as string, value: o.value as string };
  });
}

/**
 * The reference's conversion of raw predictions to per-turn records (§2.2): for every source dialogue and
 * turn, the turn label is the turn's predictions (file order; values through `fix_time_label`, then
 * `fix_general_label_error`), the state accumulates with `update_state`, and the record carries the source's
 * utterances, history and ground truth.
 */
export function convertRawPredictions(
  predictions: readonly RawPrediction[],
  dialogues: readonly SourceDialogue[],
): ConversionResult {
  const byFlag = new Map<string, RawPrediction[]>();
  for (const p of predictions) {
    let list = byFlag.get(p.flag);
    if (!list) byFlag.set(p.flag, (list = []));
    list.push(p);
  }
  const warnings = emptyWarnings();
  const records: TurnRecord[] = [];
  const used = new Set<string>();
  for (const d of dialogues) {
    let state: SlotValues = new Map();
    let any = false;
    d.turns.forEach((turn, t) => {
      const flag = `${d.id}-${t}`;
      const preds = byFlag.get(flag);
      let turnLabel: SlotValues = new Map();
      if (preds) {
        used.add(flag);
        any = true;
        for (const p of preds) turnLabel.set(p.generate, fixTimeLabel(p.value));
        turnLabel = fixGeneralLabelError(turnLabel);
        for (const k of turnLabel.keys())
          if (!SLOT_SET.has(k)) warnings.unknownSlots[k] = (warnings.unknownSlots[k] ?? 0) + 1;
      }
      state = updateState(state, turnLabel);
      records.push({
        flag,
        dialogueId: d.id,
        turnIndex: t,
        predictTurnLabel: turnLabel,
        groundTruth: new Map(turn.groundTruth),
        predict: new Map(state),
        system: turn.system,
        user: turn.user,
        history: historyBefore(d.turns, t),
        ...(turn.groundTruthM24 ? { groundTruthM24: new Map(turn.groundTruthM24) } : {}),
      });
    });
    if (!any) warnings.dialoguesWithoutPredictions.push(d.id);
  }
  const known = new Set(dialogues.map((d) => d.id));
  for (const flag of byFlag.keys()) {
    if (used.has(flag)) continue;
    const cut = flag.lastIndexOf('-');
    const dialogue = cut > 0 ? flag.slice(0, cut) : flag;
    if (known.has(dialogue)) warnings.unknownTurns.push(flag);
    else warnings.unknownDialogues.push(flag);
  }
  return { records, warnings };
}

// ---------------------------------------------------------------------------------------------------------
// DST predictions in the @eval/multiwoz input format (a state per turn) -> per-turn records (beyond the reference)
// ---------------------------------------------------------------------------------------------------------

/** The `@eval/multiwoz` (mwzeval) input: dialogue id -> system turns, each with the predicted `state`. */
export type StatePredictions = Record<
  string,
  Array<{ state?: Record<string, Record<string, unknown>> } & Record<string, unknown>>
>;

const SLOT_NAME_MAP: Readonly<Record<string, string>> = {
  arrive: 'arriveby',
  leave: 'leaveat',
  bookday: 'book day',
  bookpeople: 'book people',
  bookstay: 'book stay',
  booktime: 'book time',
};

/**
 * Maps an mwzeval state slot name to the reference's TRADE name: lower-cased, spaces removed, `arrive`/`leave`
 * and the `book*` names restored (`bookpeople` -> `book people`).
 */
export function tradeSlotName(domain: string, slot: string): string {
  const s = slot.toLowerCase().replaceAll(' ', '');
  return `${domain.toLowerCase()}-${SLOT_NAME_MAP[s] ?? s}`;
}

/** Normalises a dialogue id for matching: lower case, without `.json`. */
export function dialogueKey(id: string): string {
  return id.toLowerCase().replace(/\.json$/, '');
}

export interface StateConversionOptions {
  file?: string;
}

/**
 * Converts DST predictions given as a state per turn (the `@eval/multiwoz` input: `{dialogue id: [{state:
 * {domain: {slot: value}}}, ...]}`) into per-turn records. The predicted turn label of turn t is the set of
 * slot-values new or changed since turn t-1 (deleted slots are not listed, like the rule turn label); the
 * utterances, history and ground truth come from the dialogue source. Dialogue ids match case-insensitively
 * without `.json`. Unknown dialogues, turns beyond the source and missing states are {@link InputError}s;
 * source dialogues without predictions are left out and counted in the warnings.
 */
export function convertStatePredictions(
  predictions: StatePredictions,
  dialogues: readonly SourceDialogue[],
  options: StateConversionOptions = {},
): ConversionResult {
  const file = options.file;
  if (!predictions || typeof predictions !== 'object' || Array.isArray(predictions)) {
    throw new InputError('expected an object {dialogue id: [turn, ...]} (the @eval/multiwoz input format)', { file });
  }
  const source = new Map(dialogues.map((d) => [dialogueKey(d.id), d]));
  const warnings = emptyWarnings();
  const records: TurnRecord[] = [];
  const seen = new Set<string>();
  for (const [id, turns] of Object.entries(predictions)) {
    const d = source.get(dialogueKey(id));
    if (!d) throw new InputError(`dialogue ${JSON.stringify(id)} is not in the dialogue source`, { file, record: id });
    if (seen.has(d.id))
      throw new InputError(
        `dialogue ${JSON.stringify(id)} appears twice (ids match case-insensitively, without .json)`,
        { file, record: id },
      );
    seen.add(d.id);
    if (!Array.isArray(turns)) throw new InputError('expected a list of turns', { file, record: id });
    if (turns.length > d.turns.length) {
      throw new InputError(`${turns.length} turns predicted but the dialogue has ${d.turns.length}`, {
        file,
        record: id,
      });
    }
    let previous: SlotValues = new Map();
    turns.forEach((turn, t) => {
      const state = turn?.state;
      if (!state || typeof state !== 'object' || Array.isArray(state)) {
        throw new InputError('every turn needs a predicted "state" object {domain: {slot: value}}', {
          file,
          record: id,
          field: [t, 'state'],
        });
      }
      const flat: SlotValues = new Map();
      for (const [domain, slots] of Object.entries(state)) {
        if (!slots || typeof slots !== 'object' || Array.isArray(slots)) {
          throw new InputError('expected {slot: value}', { file, record: id, field: [t, 'state', domain] });
        }
        for (const [slot, value] of Object.entries(slots)) {
          if (typeof value !== 'string')
            throw new InputError(`expected a string value, got ${typeof value}`, {
              file,
              record: id,
              field: [t, 'state', domain, slot],
            });
          const name = tradeSlotName(domain, slot);
          if (!SLOT_SET.has(name)) warnings.unknownSlots[name] = (warnings.unknownSlots[name] ?? 0) + 1;
          flat.set(name, value);
        }
      }
      const label: SlotValues = new Map();
      for (const [k, v] of flat) if (previous.get(k) !== v) label.set(k, v);
      const src = d.turns[t]!;
      records.push({
        flag: `${d.id}-${t}`,
        dialogueId: d.id,
        turnIndex: t,
        predictTurnLabel: label,
        groundTruth: new Map(src.groundTruth),
        predict: flat,
        system: src.system,
        user: src.user,
        history: historyBefore(d.turns, t),
        ...(src.groundTruthM24 ? { groundTruthM24: new Map(src.groundTruthM24) } : {}),
      });
      previous = flat;
    });
  }
  for (const d of dialogues) if (!seen.has(d.id)) warnings.dialoguesWithoutPredictions.push(d.id);
  return { records, warnings };
}

// ---------------------------------------------------------------------------------------------------------
// MultiWOZ 2.1 raw data (data.json / ConvLab-2 test.json: {id: {goal, log: [user, system, ...]}}) as a source
// ---------------------------------------------------------------------------------------------------------

const TRADE_DOMAIN_ORDER = ['taxi', 'restaurant', 'hospital', 'hotel', 'attraction', 'train', 'police'];
const EXPERIMENT_DOMAINS = new Set(['hotel', 'train', 'restaurant', 'attraction', 'taxi']);
const DONTCARE = new Set(['dont care', 'dontcare', "don't care", 'do not care']);

/**
 * The belief state of a MultiWOZ 2.1 system turn's `metadata`, the way TRADE's `get_summary_bstate` lists it
 * (domains taxi, restaurant, hotel, attraction, train; booking slots in sorted order as `<domain>-book <slot>`,
 * then informable slots; empty and "not mentioned" values dropped, "don't care" variants as `dontcare`), values
 * lower-cased and trimmed, then `fix_general_label_error` (slots it sets to `none` dropped). TRADE's text
 * `normalize()` of values is not applied.
 */
export function beliefStateFromMetadata(metadata: unknown): SlotValues {
  const out: SlotValues = new Map();
  if (!metadata || typeof metadata !== 'object') return out;
  const m = metadata as Record<string, { book?: Record<string, unknown>; semi?: Record<string, unknown> }>;
  for (const domain of TRADE_DOMAIN_ORDER) {
    if (!EXPERIMENT_DOMAINS.has(domain) || !m[domain]) continue;
    const book = m[domain]!.book ?? {};
    for (const slot of Object.keys(book).sort()) {
      const v = book[slot];
      if (slot === 'booked' || typeof v !== 'string' || v === '') continue;
      out.set(`${domain}-book ${slot.trim().toLowerCase()}`, v.trim().toLowerCase());
    }
    const semi = m[domain]!.semi ?? {};
    for (const [slot, v] of Object.entries(semi)) {
      if (typeof v !== 'string' || v === '' || v === 'not mentioned') continue;
      out.set(`${domain}-${slot.trim().toLowerCase()}`, DONTCARE.has(v) ? 'dontcare' : v.trim().toLowerCase());
    }
  }
  fixGeneralLabelError(out);
  for (const [k, v] of out) if (v === 'none') out.delete(k);
  return out;
}

/**
 * Dialogue source from MultiWOZ 2.1 raw data (`data.json`, or ConvLab-2's `test.json`): `log` alternates user and
 * system turns; turn t is user utterance t with the system utterance before it, and the ground truth is the
 * metadata of the system turn that answers it. Ids get the `.json` suffix of the reference's flags. Only the
 * MultiWOZ 2.1 ground truth is available this way (no MWZ2.4 rule metrics).
 */
export function dialoguesFromMultiwoz21(
  data: unknown,
  options: { file?: string; ids?: Iterable<string> } = {},
): SourceDialogue[] {
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new InputError('expected MultiWOZ data {dialogue id: {log: [...]}}', { file: options.file });
  const all = data as Record<string, { log?: unknown }>;
  const wanted = options.ids ? [...options.ids] : Object.keys(all);
  const byKey = new Map(Object.keys(all).map((k) => [dialogueKey(k), k]));
  return wanted.map((id) => {
    const key = byKey.get(dialogueKey(id));
    if (key === undefined)
      throw new InputError(`dialogue ${JSON.stringify(id)} is not in the MultiWOZ data`, {
        file: options.file,
        record: id,
      });
    const log = all[key]!.log;
    if (!Array.isArray(log))
      throw new InputError('expected a "log" list', { file: options.file, record: key, field: ['log'] });
    const text = (i: number): string => {
      const t = (log[i] as { text?: unknown } | undefined)?.text;
      if (typeof t !== 'string')
        throw new InputError('expected a text string', { file: options.file, record: key, field: ['log', i, 'text'] });
      return t;
    };
    const turns: SourceTurn[] = [];
    for (let u = 0; u < log.length; u += 2) {
      turns.push({
        system: u === 0 ? '' : text(u - 1),
        user: text(u),
        groundTruth: beliefStateFromMetadata((log[u + 1] as { metadata?: unknown } | undefined)?.metadata),
      });
    }
    return { id: key.endsWith('.json') ? key : `${key}.json`, turns };
  });
}
