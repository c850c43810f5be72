/**
 * Building the evaluator's data from public originals, as mwzeval's loader does:
 * - BLEU references (`references/mwz22.json`) and gold states (`gold_states.json`) from MultiWOZ 2.2 raw dialogues and
 *   dialogue acts (`load_multiwoz22`, spec § 10.3);
 * - goals (`goals.json`) from the MultiWOZ 2.1 `goal` fields by the reconstruction rule of spec § 10.1.
 * `prepareMultiwozResource(dir)` is the post-install step of the `multiwoz` resource set.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EvalError, InputError, parseJson, readJson, readZip, validate, writeFileAtomic } from '@eval/core';
import { pythonJsonDumps } from '@eval/core/python';
import { z } from 'zod';
import { DATA_FILES } from './data';
import {
  type BeliefState,
  type NormalizationVersion,
  normalizeResponse,
  normalizeState,
  normalizeStateSlotName,
  normalizeStateSlotValue,
} from './normalize';
import { goal21DomainSchema } from '../schemas';
import type { Goal } from '../metrics/success';

// ---------------------------------------------------------------------------------------------------------------
// MultiWOZ 2.2 -> references and gold states
// ---------------------------------------------------------------------------------------------------------------

// The MultiWOZ 2.2 files, as far as the references and gold states read them
const frame22Schema = z.looseObject({
  service: z.string(),
  state: z
    .looseObject({
      slot_values: z.record(z.string(), z.array(z.string())),
    })
    .optional(),
});
const turn22Schema = z.looseObject({
  turn_id: z.union([z.string(), z.number()]),
  speaker: z.string().optional(),
  utterance: z.string(),
  frames: z.array(frame22Schema),
});
const dialogue22Schema = z.looseObject({
  dialogue_id: z.string(),
  turns: z.array(turn22Schema),
});
const spanSchema = z.tuple([z.string(), z.string(), z.string(), z.number(), z.number()]);
const dialogActs22Schema = z.record(
  z.string(),
  z.record(z.string(), z.looseObject({ span_info: z.array(spanSchema) })),
);

/** One dialogue of MultiWOZ 2.2 (`{train,dev,test}/dialogues_NNN.json` hold arrays of these). */
export type Dialogue22 = z.output<typeof dialogue22Schema>;

/** `dialog_acts.json` of MultiWOZ 2.2: dialogue id (with `.json`) -> turn id -> `{span_info: [[act, slot, value, start, end]]}`. */
export type DialogActs22 = z.output<typeof dialogActs22Schema>;

/** `parse_state(turn)`: domain -> slot -> first value, `dontcare` slots dropped, empty domains dropped. */
export function parseState22(turn: {
  frames: Array<{ service: string; state?: { slot_values: Record<string, string[]> } }>;
}): BeliefState {
  const state: BeliefState = {};
  for (const frame of turn.frames) {
    const ds: Record<string, string> = {};
    for (const [name, values] of Object.entries(frame.state?.slot_values ?? {})) {
      if (values.includes('dontcare')) continue;
      const slot = name.split('-')[1];
      if (slot === undefined || values.length === 0) {
        throw new InputError(`malformed slot ${JSON.stringify(name)} = ${JSON.stringify(values)}`, {
          field: ['frames', frame.service],
        });
      }
      ds[slot] = values[0]!;
    }
    if (Object.keys(ds).length > 0) state[frame.service] = ds;
  }
  return state;
}

/** `delexicalize_utterance(utterance, span_info)`: spans sorted by start (stable), overlapping and `dontcare` skipped. */
export function delexicalize22(
  utterance: string,
  spans: ReadonlyArray<readonly [string, string, string, number, number]>,
): string {
  const cps = Array.from(utterance);
  const sorted = spans.map((s, i) => ({ s, i })).sort((a, b) => a.s[3] - b.s[3] || a.i - b.i);
  let out = '';
  let prev = 0;
  for (const { s } of sorted) {
    const [, slot, value, start, end] = s;
    if (start < prev || value === 'dontcare') continue;
    out += `${cps.slice(prev, start).join('')}[${slot}]`;
    prev = end;
  }
  return out + cps.slice(prev).join('');
}

export interface References22 {
  /** Dialogue id (lower case, no `.json`) -> normalised reference response per system turn. */
  references: Record<string, string[]>;
  /** Dialogue id -> normalised gold state per system turn. */
  goldStates: Record<string, BeliefState[]>;
}

/**
 * `load_multiwoz22()` without the download: the normalised references and gold states of the given MultiWOZ 2.2
 * dialogues (in order; a later duplicate id overwrites an earlier one, as in the reference).
 */
export function referencesFromMultiwoz22(
  dialogues: readonly Dialogue22[],
  dialogActs: DialogActs22,
  options: { normalization?: NormalizationVersion; onUnknownSlot?: (name: string) => void } = {},
): References22 {
  const references: Record<string, string[]> = {};
  const goldStates: Record<string, BeliefState[]> = {};
  for (const dialog of dialogues) {
    const acts = dialogActs[dialog.dialogue_id];
    let state: BeliefState = {};
    const turns: Array<{ response: string; state: BeliefState }> = [];
    dialog.turns.forEach((t, i) => {
      if (i % 2 === 0) {
        state = parseState22(t as Parameters<typeof parseState22>[0]);
        return;
      }
      const turnActs = acts?.[String(t.turn_id)];
      if (!turnActs) {
        throw new InputError(
          `no dialogue acts for dialogue ${JSON.stringify(dialog.dialogue_id)} turn ${JSON.stringify(t.turn_id)}`,
          {
            record: dialog.dialogue_id,
          },
        );
      }
      turns.push({
        response: delexicalize22(t.utterance, turnActs.span_info as Parameters<typeof delexicalize22>[1]),
        state,
      });
    });
    const id = dialog.dialogue_id.split('.')[0]!.toLowerCase();
    references[id] = turns.map((t) => normalizeResponse(t.response, { onUnknownSlot: options.onUnknownSlot }));
    goldStates[id] = turns.map((t) => normalizeState(t.state, options.normalization ?? '2022'));
  }
  return { references, goldStates };
}

// ---------------------------------------------------------------------------------------------------------------
// MultiWOZ 2.1 goals -> goals.json
// ---------------------------------------------------------------------------------------------------------------

const GOAL_DOMAINS = ['restaurant', 'hotel', 'attraction', 'train', 'taxi', 'hospital', 'police'];
const REQUESTABLE_MAP: Record<string, string> = {
  phone: 'PHONE',
  address: 'ADDRESS',
  postcode: 'POST',
  reference: 'REFERENCE',
  id: 'TRAINID',
};

/**
 * The mwzeval goal of one MultiWOZ 2.1 `goal` field (spec § 10.1): informable constraints renamed and normalised
 * (v2022 rules), requestable slots mapped to PHONE/ADDRESS/POST/REFERENCE/TRAINID, booking without the
 * `invalid`/`pre_invalid` flags.
 */
export function goalFromMultiwoz21(goal: Record<string, unknown>, id = ''): Goal {
  const out: Goal = {};
  for (const domain of GOAL_DOMAINS) {
    const raw = goal[domain];
    if (raw === undefined || raw === null) continue;
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      throw new InputError(`goal.${domain} must be an object`, { record: id, field: ['goal', domain] });
    }
    if (Object.keys(raw).length === 0) continue;
    const g = validate(goal21DomainSchema, raw, { record: id, field: ['goal', domain] });
    const informable = Object.fromEntries(
      Object.entries(g.info ?? {}).map(([k, v]) => {
        const slot = normalizeStateSlotName(k);
        return [slot, normalizeStateSlotValue(slot, v, '2022')];
      }),
    );
    const reqt = g.reqt ?? [];
    let requestable: string[];
    if (domain === 'train') {
      requestable = [...(g.book ? ['REFERENCE'] : []), ...(reqt.includes('trainID') ? ['TRAINID'] : [])];
    } else {
      requestable = [
        ...reqt.filter((s) => s in REQUESTABLE_MAP).map((s) => REQUESTABLE_MAP[s]!),
        ...(g.book ? ['REFERENCE'] : []),
      ];
    }
    const booking = g.book
      ? Object.fromEntries(Object.entries(g.book).filter(([k]) => k !== 'invalid' && k !== 'pre_invalid'))
      : [];
    out[domain] = { informable, requestable, booking };
  }
  return out;
}

/** goals.json content for a MultiWOZ 2.1 data file (`{DIALOGUE_ID: {goal: ..., log: ...}}`). */
export function goalsFromMultiwoz21(data: Record<string, unknown>): Record<string, Goal> {
  const out: Record<string, Goal> = {};
  for (const [key, dialog] of Object.entries(data)) {
    const goal = (dialog as { goal?: unknown } | null)?.goal;
    if (typeof goal !== 'object' || goal === null)
      throw new InputError('dialogue has no "goal" object', { record: key, field: ['goal'] });
    out[key.replace(/\.json$/, '').toLowerCase()] = goalFromMultiwoz21(goal as Record<string, unknown>, key);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The resource set's prepare step
// ---------------------------------------------------------------------------------------------------------------

/** Where the fetched originals are put inside the resource directory. */
export const SOURCE_FILES = {
  dialogActs22: 'sources/MultiWOZ_2.2/dialog_acts.json',
  dialogues22: (fold: 'train' | 'dev' | 'test', n: number) =>
    `sources/MultiWOZ_2.2/${fold}/dialogues_${String(n).padStart(3, '0')}.json`,
  multiwoz21TestZip: 'sources/convlab2_multiwoz21_test.json.zip',
} as const;

const FOLDS: Array<['train' | 'dev' | 'test', number]> = [
  ['train', 17],
  ['dev', 2],
  ['test', 2],
];

/**
 * Post-install step of the `multiwoz` resource set: writes `references/mwz22.json`, `gold_states.json` (v2022 rules),
 * `gold_states.v2023.json` (v2023 rules) and `goals.json` (test dialogues) next to the fetched originals, in the
 * format mwzeval writes (`json.dump(..., indent=2)`). Reads every MultiWOZ 2.2 dialogues file present under
 * `sources/MultiWOZ_2.2/{train,dev,test}/` in mwzeval's order (the set fetches the test files).
 */
export async function prepareMultiwozResource(dir: string): Promise<void> {
  const actsFile = join(dir, SOURCE_FILES.dialogActs22);
  const dialogActs = await readJson(actsFile, dialogActs22Schema);
  const dialogues: Dialogue22[] = [];
  for (const [fold, n] of FOLDS) {
    for (let i = 1; i <= n; i++) {
      const file = join(dir, SOURCE_FILES.dialogues22(fold, i));
      if (!existsSync(file)) continue;
      const rows = await readJson(file, dialogue22Schema.array());
      dialogues.push(...rows);
    }
  }
  if (dialogues.length === 0)
    throw new EvalError('invalid_data', `no MultiWOZ 2.2 dialogues under ${join(dir, 'sources/MultiWOZ_2.2')}`);
  const v2022 = referencesFromMultiwoz22(dialogues, dialogActs, { normalization: '2022' });
  const v2023 = referencesFromMultiwoz22(dialogues, dialogActs, { normalization: '2023' });
  await writeFileAtomic(join(dir, DATA_FILES.references('mwz22')), pythonJsonDumps(v2022.references, { indent: 2 }));
  await writeFileAtomic(join(dir, DATA_FILES.goldStates), pythonJsonDumps(v2022.goldStates, { indent: 2 }));
  await writeFileAtomic(join(dir, DATA_FILES.goldStatesV2023), pythonJsonDumps(v2023.goldStates, { indent: 2 }));

  const zipFile = join(dir, SOURCE_FILES.multiwoz21TestZip);
  const entries = readZip(await readFile(zipFile), zipFile);
  const json = [...entries.entries()].find(([name]) => name.endsWith('.json'));
  if (!json) throw new InputError('no .json entry in the archive', { file: zipFile });
  const goals = goalsFromMultiwoz21(
    parseJson(json[1].toString('utf8'), `${zipFile} (${json[0]})`) as Record<string, unknown>,
  );
  await writeFileAtomic(join(dir, DATA_FILES.goals), pythonJsonDumps(goals, { indent: 2 }));
}
