import { join } from 'node:path';
import { readJson } from '@eval/core';
import { describe, expect, it } from 'vitest';
import { describeWithReferenceData, itWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import {
  convertRawPredictions,
  convertStatePredictions,
  dialoguesFromRecords,
  dialoguesFromTrade,
  fixGeneralLabelError,
  fixTimeLabel,
  parseRawPredictions,
  tradeSlotName,
} from './convert';
import { parseJsonPy } from './json';
import { readTurnRecords } from './records';

const PRED = referencePath('llm-judge/predictions');
const itWithPredictions = itWithReferenceData('llm-judge/predictions');

const SYSTEMS: Array<[string, string]> = [
  ['original', 'original'],
  ['da', 'augmented-fine-infer'],
  ['da-p', 'augmented-fine-infer-permute'],
];

describeWithReferenceData('llm-judge/predictions')(
  'conversion of raw predictions to per-turn records (spec 2.2)',
  () => {
    for (const [name, run] of SYSTEMS) {
      it(`${name}: reproduces predict_turn_label (with key order) and predict of all 732 sampled turns`, async () => {
        const sampled = await readTurnRecords(join(PRED, `${name}_sampled.json.gz`));
        expect(sampled.length).toBe(732);
        const raw = parseRawPredictions(await readJson(join(PRED, `raw_result-seed-10-ratio-1-${run}.json.gz`)));
        const { records, warnings } = convertRawPredictions(raw, dialoguesFromRecords(sampled));
        expect(records.length).toBe(732);
        records.forEach((r, i) => {
          const s = sampled[i]!;
          expect(r.flag).toBe(s.flag);
          expect([...r.predictTurnLabel.entries()]).toEqual([...s.predictTurnLabel.entries()]);
          expect([...r.predict.entries()]).toEqual([...s.predict.entries()]);
          expect(r.history).toEqual(s.history);
        });
        // the raw files cover the 999 test dialogues; only the 100 sampled ones are in the source
        expect(warnings.unknownDialogues.length).toBeGreaterThan(0);
        expect(warnings.unknownTurns).toEqual([]);
      });
    }

    it('counts the 275 / 285 / 261 empty predicted turn labels of the spec', async () => {
      const counts: number[] = [];
      for (const [name] of SYSTEMS) {
        const sampled = await readTurnRecords(join(PRED, `${name}_sampled.json.gz`));
        counts.push(sampled.filter((r) => r.predictTurnLabel.size === 0).length);
      }
      expect(counts).toEqual([275, 285, 261]);
    });
  },
);

describe('TRADE label fixing', () => {
  it('fix_time_label replaces a non-colon time separator everywhere and maps parking/wifi', () => {
    expect(fixTimeLabel('17.15')).toBe('17:15');
    expect(fixTimeLabel('after 17.15 or 18.00')).toBe('after 17:15 or 18:00');
    expect(fixTimeLabel('17:15')).toBe('17:15');
    expect(fixTimeLabel('parking')).toBe('yes');
    expect(fixTimeLabel('wifi')).toBe('yes');
  });

  it('fix_general_label_error: typo table, per-slot chain, final rule, non-schema names untouched', () => {
    const m = new Map([
      ['hotel-type', 'guesthouse'],
      ['hotel-area', 'center'],
      ['restaurant-area', 'cambridge'],
      ['train-day', 'we'],
      ['hotel-internet', 'free internet'],
      ['hotel-parking', 'free parking'],
      ['restaurant-pricerange', 'ch'],
      ['attraction-type', 'gallery'],
      ['hotel-stars', '4 stars'],
      ['restaurant-food', ''],
      ['hotel-location', 'center'],
    ]);
    fixGeneralLabelError(m);
    expect([...m.entries()]).toEqual([
      ['hotel-type', 'guest house'],
      ['hotel-area', 'centre'],
      ['restaurant-area', 'none'],
      ['train-day', 'wednesday'],
      ['hotel-internet', 'yes'],
      ['hotel-parking', 'free'],
      ['restaurant-pricerange', 'cheap'],
      ['attraction-type', 'none'],
      ['hotel-stars', '4'],
      ['restaurant-food', 'none'],
      ['hotel-location', 'center'],
    ]);
  });
});

describe('TRADE test_dials.json as the dialogue source', () => {
  it('takes utterances, history and both ground truths; the two versions must line up', () => {
    const m21 = parseJsonPy(
      JSON.stringify([
        {
          dialogue_idx: 'X1.json',
          dialogue: [
            {
              turn_idx: 0,
              system_transcript: '',
              transcript: 'a taxi please',
              belief_state: [{ slots: [['taxi-leaveat', '17:15']], act: 'inform' }],
            },
            {
              turn_idx: 1,
              system_transcript: 'where to ?',
              transcript: 'the museum',
              belief_state: { 'taxi-leaveat': '17:15', 'taxi-destination': 'museum' },
            },
          ],
        },
      ]),
    );
    const m24 = parseJsonPy(
      JSON.stringify([
        {
          dialogue_idx: 'X1.json',
          dialogue: [
            { system_transcript: '', transcript: 'a taxi please', belief_state: [] },
            {
              system_transcript: 'where to ?',
              transcript: 'the museum',
              belief_state: [{ slots: [['taxi-destination', 'museum']] }],
            },
          ],
        },
      ]),
    );
    const d = dialoguesFromTrade(m21, m24);
    const { records } = convertRawPredictions(
      [{ flag: 'X1.json-1', generate: 'taxi-destination', value: 'museum' }],
      d,
    );
    expect(records.map((r) => r.flag)).toEqual(['X1.json-0', 'X1.json-1']);
    expect(records[1]!.history).toEqual(['', 'a taxi please']);
    expect([...records[1]!.groundTruth.entries()]).toEqual([
      ['taxi-leaveat', '17:15'],
      ['taxi-destination', 'museum'],
    ]);
    expect([...records[1]!.groundTruthM24!.entries()]).toEqual([['taxi-destination', 'museum']]);
    expect(() => dialoguesFromTrade(m21, parseJsonPy('[]'))).toThrow(/do not line up/);
  });
});

describe('state-per-turn predictions (the @eval/multiwoz input format)', () => {
  itWithPredictions(
    'maps slot names, derives the turn label from consecutive states and takes text from the source',
    async () => {
      const sampled = await readTurnRecords(join(PRED, 'original_sampled.json.gz'));
      const source = dialoguesFromRecords(sampled);
      const sng = sampled.filter((r) => r.dialogueId === 'SNG0073.json');
      const toState = (m: Map<string, string>) => {
        const s: Record<string, Record<string, string>> = {};
        for (const [k, v] of m) {
          const [domain, slot] = k.split('-') as [string, string];
          (s[domain] ??= {})[slot.replace('leaveat', 'leaveAt').replace('arriveby', 'arriveBy')] = v;
        }
        return s;
      };
      const { records, warnings } = convertStatePredictions(
        { sng0073: sng.map((r) => ({ response: '', state: toState(r.predict) })) },
        source,
      );
      expect(records.map((r) => r.flag)).toEqual(sng.map((r) => r.flag));
      records.forEach((r, i) => {
        expect([...r.predict.entries()].sort()).toEqual([...sng[i]!.predict.entries()].sort());
        expect(r.user).toBe(sng[i]!.user);
        expect(r.history).toEqual(sng[i]!.history);
      });
      // turn 1 adds taxi-leaveat to the state of turn 0
      expect([...records[1]!.predictTurnLabel.entries()]).toEqual([['taxi-leaveat', '17:15']]);
      expect(warnings.dialoguesWithoutPredictions.length).toBe(99);
    },
  );

  itWithPredictions('unknown dialogues, extra turns and missing states are clear errors', async () => {
    const source = dialoguesFromRecords(await readTurnRecords(join(PRED, 'original_sampled.json.gz')));
    expect(() => convertStatePredictions({ nope123: [{ state: {} }] }, source, { file: 'p.json' })).toThrow(
      /p\.json, record "nope123": dialogue "nope123" is not in the dialogue source/,
    );
    expect(() =>
      convertStatePredictions({ sng0073: Array.from({ length: 9 }, () => ({ state: {} })) }, source),
    ).toThrow(/9 turns predicted but the dialogue has/);
    expect(() => convertStatePredictions({ sng0073: [{ response: 'x' }] }, source)).toThrow(
      /needs a predicted "state"/,
    );
  });

  it('slot names: lower case, spaces removed, arrive/leave and book* restored', () => {
    expect(tradeSlotName('taxi', 'leaveAt')).toBe('taxi-leaveat');
    expect(tradeSlotName('train', 'arrive')).toBe('train-arriveby');
    expect(tradeSlotName('hotel', 'book people')).toBe('hotel-book people');
    expect(tradeSlotName('restaurant', 'bookday')).toBe('restaurant-book day');
    expect(tradeSlotName('hotel', 'pricerange')).toBe('hotel-pricerange');
  });
});

describe('MultiWOZ 2.1 data (the @eval/multiwoz resource) as the dialogue source', () => {
  const MWZ = referencePath('multiwoz/derived');
  itWithReferenceData('llm-judge/predictions', 'multiwoz/derived')(
    'loads the text and MWZ2.1 ground truth of the sampled dialogues with the turn structure of the reference records',
    async () => {
      const { loadMultiwozDialogues } = await import('./multiwoz-source');
      const sampled = await readTurnRecords(join(PRED, 'original_sampled.json.gz'));
      const ids = [...new Set(sampled.map((r) => r.dialogueId))];
      const source = await loadMultiwozDialogues({ dir: MWZ, ids });
      expect(source.map((d) => d.id)).toEqual(ids);
      for (const d of source) expect(d.turns.length).toBe(sampled.filter((r) => r.dialogueId === d.id).length);
      // SNG0073: raw MultiWOZ text (not TRADE-normalised), ground truth as the reference's records have it
      const sng = source.find((d) => d.id === 'SNG0073.json')!;
      expect(sng.turns[1]!.system).toBe('What time do you want to leave and what time do you want to arrive by ?');
      expect(sng.turns[1]!.user).toBe('I want to leave after 17:15 .');
      const ref = sampled.find((r) => r.flag === 'SNG0073.json-1')!;
      expect([...sng.turns[1]!.groundTruth.entries()].sort()).toEqual([...ref.groundTruth.entries()].sort());
      expect(sng.turns[0]!.groundTruthM24).toBeUndefined();
    },
  );

  it('a missing resource says how to get it', async () => {
    const { loadMultiwozDialogues } = await import('./multiwoz-source');
    await expect(loadMultiwozDialogues({ dir: join(PRED, 'nope'), flag: '--data' })).rejects.toThrow(
      /not a directory.*--data/,
    );
  });
});
