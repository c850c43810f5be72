import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pythonJsonDumps } from '@eval/core/python';
import { describe, expect, it } from 'vitest';
import { FIXTURES, SHARED, itMultiwoz, shared } from '../../test/helpers';
import { CANONICAL_SLOT_NAMES, type BeliefState } from './normalize';
import {
  type DialogActs22,
  type Dialogue22,
  SOURCE_FILES,
  delexicalize22,
  goalFromMultiwoz21,
  prepareMultiwozResource,
  referencesFromMultiwoz22,
} from './prepare';

const MINI = join(FIXTURES, 'multiwoz22-mini');
const dialogues = JSON.parse(readFileSync(join(MINI, 'test', 'dialogues_001.json'), 'utf8')) as Dialogue22[];
const acts = JSON.parse(readFileSync(join(MINI, 'dialog_acts.json'), 'utf8')) as DialogActs22;

// Hand-derived from the fixture (see test/fixtures/multiwoz22-mini/README.md) by the rules of spec §§ 4, 10.3.
const EXPECTED_REFERENCES = {
  mul9901: [
    'there are COUNT PRICE places in the AREA. NAME serves FOOD food.',
    'done! your reference number is REFERENCE for COUNT people.',
    'TRAINID leaves at TIME and arrives by TIME. shall i book it?',
  ],
  sng9902: ["yes, it is one of our COUNT TYPE \u{1f642} and it's in the AREA.", "you're welcome, goodbye."],
};
const restaurant = { pricerange: 'cheap', area: 'north', name: 'royal spice', bookpeople: '3', booktime: '18:15' };
const EXPECTED_GOLD_2022: Record<string, BeliefState[]> = {
  mul9901: [
    { restaurant: { pricerange: 'cheap', area: 'north' } },
    { restaurant },
    { restaurant, train: { destination: 'ely', leave: '17:30' } },
  ],
  sng9902: [
    { hotel: { name: 'alexander bed and breakfast', type: 'guesthouse' } },
    { hotel: { name: 'alexander bed and breakfast', type: 'guesthouse', area: 'centre' } },
  ],
};

describe('references and gold states from MultiWOZ 2.2 (load_multiwoz22), on a fixture written for this project', () => {
  it('delexicalises spans (sorted, overlapping and dontcare skipped) and normalises like the predictions', () => {
    const { references, goldStates } = referencesFromMultiwoz22(dialogues, acts);
    expect(references).toEqual(EXPECTED_REFERENCES);
    expect(JSON.stringify(goldStates)).toBe(JSON.stringify(EXPECTED_GOLD_2022)); // key order included
  });

  it('v2023 rules rename bed-and-breakfast names in the gold states; references do not change', () => {
    const v23 = referencesFromMultiwoz22(dialogues, acts, { normalization: '2023' });
    expect(v23.references).toEqual(EXPECTED_REFERENCES);
    expect(v23.goldStates.sng9902![0]!.hotel!.name).toBe('alexander b and b');
  });

  it('delexicalize_utterance: code-point offsets', () => {
    expect(delexicalize22('\u{1f642} at 5 pm', [['A', 'leaveat', '5 pm', 5, 9]])).toBe('\u{1f642} at [leaveat]');
  });

  itMultiwoz(
    'output format = the mwzeval-generated files of derived/subset21 (json.dump indent=2, keys, slot and placeholder names)',
    () => {
      const refs = shared<Record<string, string[]>>('derived/subset21/mwz22_refs.json');
      const gold = shared<Record<string, BeliefState[]>>('derived/subset21/gold_states.json');
      // the transcribed mwzeval files are exactly what our writer produces for their content
      expect(pythonJsonDumps(refs, { indent: 2 })).toBe(
        readFileSync(join(SHARED, 'derived', 'subset21', 'mwz22_refs.json'), 'utf8'),
      );
      expect(pythonJsonDumps(gold, { indent: 2 })).toBe(
        readFileSync(join(SHARED, 'derived', 'subset21', 'gold_states.json'), 'utf8'),
      );
      const ours = referencesFromMultiwoz22(dialogues, acts);
      // ids: lower case, no ".json"; one entry per system turn; same value types
      for (const table of [refs, ours.references])
        for (const id of Object.keys(table)) expect(id).toMatch(/^[a-z]+\d+$/);
      for (const id of Object.keys(ours.references))
        expect(ours.references[id]).toHaveLength(ours.goldStates[id]!.length);
      // slot names in our gold states are names mwzeval's gold states use
      const slotNames = (g: Record<string, BeliefState[]>) =>
        new Set(
          Object.values(g).flatMap((turns) => turns.flatMap((s) => Object.values(s).flatMap((d) => Object.keys(d)))),
        );
      const theirs = slotNames(gold);
      for (const s of slotNames(ours.goldStates)) expect(theirs.has(s), s).toBe(true);
      // placeholders in references are canonical upper-case names, in both
      const placeholders = (r: Record<string, string[]>) =>
        new Set(Object.values(r).flatMap((x) => x.flatMap((t) => t.match(/\b[A-Z]{2,}\b/g) ?? [])));
      for (const p of placeholders(refs)) expect(CANONICAL_SLOT_NAMES).toContain(p);
      for (const p of placeholders(ours.references)) expect(CANONICAL_SLOT_NAMES).toContain(p);
    },
  );
});

describe('goals from MultiWOZ 2.1 (spec § 10.1)', () => {
  it('one goal, hand-derived: renamed/normalised informable, mapped requestables, REFERENCE when booking', () => {
    const goal = goalFromMultiwoz21({
      train: {
        info: { leaveAt: '5:30 pm', destination: 'Ely' },
        reqt: ['trainID', 'price'],
        book: { people: '2', invalid: false },
      },
      hotel: {
        info: { type: 'guest house', name: "Rosa's" },
        reqt: ['phone', 'postcode', 'parking'],
        book: { stay: '2', pre_invalid: true },
      },
      taxi: {},
      message: ['ignored'],
    });
    expect(goal).toEqual({
      hotel: {
        informable: { type: 'guesthouse', name: 'rosas bed and breakfast' },
        requestable: ['PHONE', 'POST', 'REFERENCE'],
        booking: { stay: '2' },
      },
      train: {
        informable: { leave: '17:30', destination: 'ely' },
        requestable: ['REFERENCE', 'TRAINID'],
        booking: { people: '2' },
      },
    });
  });

  itMultiwoz(
    'prepareMultiwozResource writes references, gold states and goals; the goals equal derived/goals_test_reconstructed.json byte for byte',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mwz-prepare-'));
      mkdirSync(join(dir, 'sources', 'MultiWOZ_2.2', 'test'), { recursive: true });
      symlinkSync(join(MINI, 'dialog_acts.json'), join(dir, SOURCE_FILES.dialogActs22));
      symlinkSync(join(MINI, 'test', 'dialogues_001.json'), join(dir, SOURCE_FILES.dialogues22('test', 1)));
      symlinkSync(join(MINI, 'test', 'dialogues_002.json'), join(dir, SOURCE_FILES.dialogues22('test', 2)));
      symlinkSync(
        join(SHARED, 'derived', 'sources', 'convlab2_multiwoz21_test.json.zip'),
        join(dir, SOURCE_FILES.multiwoz21TestZip),
      );
      await prepareMultiwozResource(dir);
      const read = (rel: string) => readFileSync(join(dir, rel), 'utf8');
      // dialogues_002.json adds PMUL9903 (police; its user turn has an empty state)
      expect(JSON.parse(read('references/mwz22.json'))).toEqual({
        ...EXPECTED_REFERENCES,
        pmul9903: ['NAME is at ADDRESS, postcode POST.'],
      });
      expect(read('gold_states.json')).toBe(pythonJsonDumps({ ...EXPECTED_GOLD_2022, pmul9903: [{}] }, { indent: 2 }));
      expect(JSON.parse(read('gold_states.v2023.json')).sng9902[1].hotel.name).toBe('alexander b and b');
      expect(read('goals.json')).toBe(readFileSync(join(SHARED, 'derived', 'goals_test_reconstructed.json'), 'utf8'));
    },
  );
});
