import { InputError, jsonSyntaxError, readText, type ReadOptions } from '@eval/core';
import { PythonJsonError } from '@eval/core/python';
import { parseJsonPy, stringifyJson } from './json';
import { PyDict, type PyValue, typeName } from './python';

/** Domain-slot -> value, in insertion order (the order is part of the rendered prompt). */
export type SlotValues = Map<string, string>;

/**
 * One dialogue turn as the reference judges it (its `*_sampled.json` record), with camel-cased fields.
 * `flag` is `<dialogue id>-<turn index>` (`SNG0073.json-1`), the turn index 0-based.
 */
export interface TurnRecord {
  flag: string;
  /** The part of `flag` before its last `-`. */
  dialogueId: string;
  /** The part of `flag` after its last `-`. */
  turnIndex: number;
  /** The slot-values the tracker predicted in this turn (what the LLM judges). */
  predictTurnLabel: SlotValues;
  /** The tracker's accumulated state after this turn. */
  predict: SlotValues;
  /** MultiWOZ 2.1 accumulated ground-truth state after this turn. */
  groundTruth: SlotValues;
  /** MultiWOZ 2.4 accumulated ground-truth state, when available. */
  groundTruthM24?: SlotValues;
  /** The system utterance before the user's (empty on turn 0). */
  system: string;
  user: string;
  /** Previous turns' utterances: `[system_0, user_0, system_1, user_1, ...]`. */
  history: string[];
}

/** The reference's JSON shape of a record (`align_data`), as accepted from code. */
export interface TurnRecordJson {
  flag: string;
  predict_turn_label: Record<string, string> | Map<string, string>;
  predict: Record<string, string> | Map<string, string>;
  ground_truth: Record<string, string> | Map<string, string>;
  ground_truth_m24?: Record<string, string> | Map<string, string>;
  system: string;
  user: string;
  history: string[];
}

export interface Location {
  file?: string;
  record?: string | number;
}

const TURN_RE = /^(0|[1-9][0-9]*)$/;

/** Splits a flag at its last `-` into dialogue id and turn index; throws an {@link InputError} when malformed. */
export function splitFlag(flag: string, loc: Location = {}): { dialogueId: string; turnIndex: number } {
  const cut = flag.lastIndexOf('-');
  const turn = cut < 0 ? '' : flag.slice(cut + 1);
  if (cut <= 0 || !TURN_RE.test(turn)) {
    throw new InputError(
      `flag ${JSON.stringify(flag)} is not "<dialogue id>-<turn index>" (turn index a non-negative integer without leading zeros)`,
      {
        ...loc,
        field: ['flag'],
      },
    );
  }
  return { dialogueId: flag.slice(0, cut), turnIndex: Number(turn) };
}

function slotValues(value: PyValue | undefined, field: string, loc: Location): SlotValues {
  if (!(value instanceof PyDict)) {
    throw new InputError(
      `expected an object of slot -> value, got ${value === undefined ? 'nothing' : typeName(value)}`,
      { ...loc, field: [field] },
    );
  }
  const out: SlotValues = new Map();
  for (const [k, v] of value.items()) {
    if (typeof k !== 'string') throw new InputError('slot names must be strings', { ...loc, field: [field] });
    if (typeof v !== 'string')
      throw new InputError(`expected a string value, got ${typeName(v)}`, { ...loc, field: [field, k] });
    out.set(k, v);
  }
  return out;
}

function str(value: PyValue | undefined, field: string, loc: Location): string {
  if (typeof value !== 'string') {
    throw new InputError(`expected a string, got ${value === undefined ? 'nothing' : typeName(value)}`, {
      ...loc,
      field: [field],
    });
  }
  return value;
}

/** Builds a {@link TurnRecord} from a parsed reference record (see {@link parseJsonPy}); errors name file, record, field. */
export function recordFromPy(value: PyValue, loc: Location = {}): TurnRecord {
  if (!(value instanceof PyDict)) throw new InputError(`expected a turn record object, got ${typeName(value)}`, loc);
  const flag = str(value.get('flag'), 'flag', loc);
  const where = { ...loc, record: loc.record ?? flag };
  const { dialogueId, turnIndex } = splitFlag(flag, where);
  const historyValue = value.get('history');
  if (!Array.isArray(historyValue)) {
    throw new InputError(
      `expected a list of utterances, got ${historyValue === undefined ? 'nothing' : typeName(historyValue)}`,
      {
        ...where,
        field: ['history'],
      },
    );
  }
  const history = historyValue.map((h, i) => {
    if (typeof h !== 'string')
      throw new InputError(`expected a string, got ${typeName(h)}`, { ...where, field: ['history', i] });
    return h;
  });
  if (history.length % 2 !== 0) {
    throw new InputError(
      `history must alternate system and user utterances (even length), got ${history.length} items`,
      {
        ...where,
        field: ['history'],
      },
    );
  }
  const m24 = value.get('ground_truth_m24');
  return {
    flag,
    dialogueId,
    turnIndex,
    predictTurnLabel: slotValues(value.get('predict_turn_label'), 'predict_turn_label', where),
    predict: slotValues(value.get('predict'), 'predict', where),
    groundTruth: slotValues(value.get('ground_truth'), 'ground_truth', where),
    groundTruthM24: m24 === undefined || m24 === null ? undefined : slotValues(m24, 'ground_truth_m24', where),
    system: str(value.get('system'), 'system', where),
    user: str(value.get('user'), 'user', where),
    history,
  };
}

const toMap = (v: Record<string, string> | Map<string, string>): SlotValues =>
  v instanceof Map ? new Map(v) : new Map(Object.entries(v));

/** Builds a {@link TurnRecord} from the reference JSON shape given in code (plain objects or Maps). */
export function recordFromJson(json: TurnRecordJson, loc: Location = {}): TurnRecord {
  const d = new PyDict();
  d.set('flag', json.flag);
  for (const key of ['predict_turn_label', 'predict', 'ground_truth', 'ground_truth_m24'] as const) {
    const v = json[key];
    if (v === undefined) continue;
    const inner = new PyDict();
    for (const [k, val] of toMap(v)) inner.set(k, val);
    d.set(key, inner);
  }
  d.set('system', json.system);
  d.set('user', json.user);
  d.set('history', Array.isArray(json.history) ? [...json.history] : (json.history as unknown as PyValue));
  return recordFromPy(d, loc);
}

/** The reference JSON shape of a record, insertion order kept (serialise with {@link stringifyJson}). */
export function recordToJson(record: TurnRecord): Map<string, unknown> {
  const out = new Map<string, unknown>([
    ['flag', record.flag],
    ['predict_turn_label', record.predictTurnLabel],
    ['ground_truth', record.groundTruth],
    ['predict', record.predict],
    ['system', record.system],
    ['user', record.user],
    ['history', record.history],
  ]);
  if (record.groundTruthM24) out.set('ground_truth_m24', record.groundTruthM24);
  return out;
}

/** Parses JSON text with the order-keeping parser; syntax errors become an {@link InputError} naming the file. */
export function parseJsonFile(text: string, file?: string): PyValue {
  try {
    return parseJsonPy(text);
  } catch (error) {
    if (error instanceof PythonJsonError) throw jsonSyntaxError(error, text, { file });
    throw error;
  }
}

/** Parses JSONL text (one value per non-blank line) with the order-keeping parser. */
export function parseJsonlFile(text: string, file?: string): PyValue[] {
  const out: PyValue[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push(parseJsonPy(line));
    } catch (error) {
      if (error instanceof PythonJsonError) throw jsonSyntaxError(error, line, { file, record: i + 1, lineOffset: i });
      throw error;
    }
  });
  return out;
}

/** Reads a JSON list (or, for `.jsonl`/`.jsonl.gz`, JSON lines); gzip is detected from the bytes. */
export async function readJsonListOrdered(file: string, read?: ReadOptions): Promise<PyValue[]> {
  const text = await readText(file, read);
  if (/\.jsonl(\.gz)?$/i.test(file)) return parseJsonlFile(text, file);
  const value = parseJsonFile(text, file);
  if (!Array.isArray(value)) throw new InputError(`expected a JSON list, got ${typeName(value)}`, { file });
  return value;
}

export interface ReadRecordsOptions extends ReadOptions {
  /**
   * Require the reference layout: each dialogue's turns consecutive, in order, from 0 (default true).
   * Violations are {@link InputError}s naming the record.
   */
  requireOrder?: boolean;
}

/**
 * Reads a per-turn record file (the reference's `*_sampled.json`: a JSON list, optionally gzip; or JSONL),
 * validating every record and, by default, the turn order.
 */
export async function readTurnRecords(file: string, options: ReadRecordsOptions = {}): Promise<TurnRecord[]> {
  const values = await readJsonListOrdered(file, {
    allowInvalidUtf8: options.allowInvalidUtf8,
    onInvalidUtf8: options.onInvalidUtf8,
    onRead: options.onRead,
  });
  const records = values.map((v, i) => recordFromPy(v, { file, record: i }));
  if (options.requireOrder ?? true) checkRecordOrder(records, file);
  return records;
}

/**
 * Checks the reference layout of a record list: dialogues contiguous, turns 0, 1, 2, ... in order, no duplicates.
 * Throws an {@link InputError} naming the first offending record.
 */
export function checkRecordOrder(records: readonly TurnRecord[], file?: string): void {
  const finished = new Set<string>();
  let current: string | undefined;
  let expected = 0;
  records.forEach((r, i) => {
    if (r.dialogueId !== current) {
      if (current !== undefined) finished.add(current);
      if (finished.has(r.dialogueId)) {
        throw new InputError(
          `turns of dialogue ${r.dialogueId} are not consecutive (it appeared earlier in the file)`,
          { file, record: i, field: ['flag'] },
        );
      }
      current = r.dialogueId;
      expected = 0;
    }
    if (r.turnIndex !== expected) {
      throw new InputError(
        `turns out of order in dialogue ${r.dialogueId}: expected turn ${expected}, got ${r.turnIndex} (flag ${r.flag})`,
        { file, record: i, field: ['flag'] },
      );
    }
    expected++;
  });
}

/** Writes records as the reference's JSON list (insertion order of every slot map kept). */
export function serializeTurnRecords(records: readonly TurnRecord[]): string {
  return `${stringifyJson(records.map(recordToJson), 1)}\n`;
}

/** Groups items by dialogue (order of first appearance) and turn index; duplicate flags are an error. */
export function groupByDialogue<T>(
  items: readonly T[],
  recordOf: (item: T) => TurnRecord,
  loc: { file?: string; indexOf?: (item: T, i: number) => number } = {},
): Map<string, Map<number, T>> {
  const groups = new Map<string, Map<number, T>>();
  items.forEach((item, i) => {
    const r = recordOf(item);
    let g = groups.get(r.dialogueId);
    if (!g) groups.set(r.dialogueId, (g = new Map()));
    if (g.has(r.turnIndex)) {
      throw new InputError(`duplicate flag ${r.flag}`, {
        file: loc.file,
        record: loc.indexOf ? loc.indexOf(item, i) : i,
        field: ['flag'],
      });
    }
    g.set(r.turnIndex, item);
  });
  return groups;
}

/**
 * The turns of a grouped dialogue as 0..n-1; a missing turn index (where the reference crashes with a
 * `KeyError`) is an {@link InputError}.
 */
export function orderedTurns<T>(dialogueId: string, turns: Map<number, T>, file?: string): T[] {
  const out: T[] = [];
  for (let t = 0; t < turns.size; t++) {
    const item = turns.get(t);
    if (item === undefined) {
      const have = [...turns.keys()].sort((a, b) => a - b);
      throw new InputError(
        `dialogue ${dialogueId} lacks turn ${t} (has turns ${have.join(', ')}); every turn from 0 must be present`,
        {
          file,
          record: `${dialogueId}-${t}`,
        },
      );
    }
    out.push(item);
  }
  return out;
}
