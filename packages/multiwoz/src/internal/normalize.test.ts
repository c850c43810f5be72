import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { describeWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import {
  type BeliefState,
  foodToCanonical,
  nameToCanonical,
  normalizeSlotName,
  normalizeState,
  normalizeStateSlotName,
  normalizeStateSlotValue,
  timeStrToMinutes,
  timeToCanonical,
  typeToCanonical,
} from './normalize';
import { PythonValueError } from '@eval/core/python';

const SHARED = referencePath('multiwoz');

describe('time_to_canonical (spec § 4.3.2 examples)', () => {
  const examples: Array<[string, string]> = [
    ['after 5pm', '17:00'],
    ['by 17:30', '17:30'],
    ['5:30 pm', '17:30'],
    ['12 pm', '24:00'],
    ['0930', '09:30'],
    ['9', '09:00'],
    ['9:30am', '09:30'],
    ['17.30', '17.30'],
    ['after 11:45.', '11:45'],
    ['around 10', 'around 10'],
    ['1 p.m.', '13:00'],
    ['18 : 45', '18:45'],
    ['7:5', '7:5'],
    ['  by3pm', '00:00'],
    ['', '00:00'],
    ['10:00pm', '22:00'],
    ['05:45 p.m.', '17:45'],
    ['Noon', '12:00'],
  ];
  for (const [input, expected] of examples) {
    it(`${JSON.stringify(input)} -> ${expected}`, () => expect(timeToCanonical(input)).toBe(expected));
  }

  it('raises where Python int() raises ("ab:30pm"), as a PythonValueError', () => {
    expect(() => timeToCanonical('ab:30pm')).toThrow(PythonValueError);
  });

  it('time_str_to_minutes needs two leading digits; minutes run to the next colon', () => {
    expect(timeStrToMinutes('9:15')).toBe(0);
    expect(timeStrToMinutes('25:99')).toBe(1599);
    expect(timeStrToMinutes('17:45')).toBe(17 * 60 + 45);
    expect(() => timeStrToMinutes('12:34abc')).toThrow(PythonValueError);
  });
});

describe('state slot names and values (spec §§ 4.2-4.3)', () => {
  it('slot names: lower-case, spaces removed, arriveby/leaveat renamed, nothing else', () => {
    expect(normalizeStateSlotName('Arrive By')).toBe('arrive');
    expect(normalizeStateSlotName('leaveAt')).toBe('leave');
    expect(normalizeStateSlotName('book people')).toBe('bookpeople');
    expect(normalizeStateSlotName('pricerange')).toBe('pricerange');
  });

  it('placeholder names map to canonical upper-case names; unknown ones are removed', () => {
    expect(normalizeSlotName('Restaurant_Name')).toBe('NAME');
    expect(normalizeSlotName('openhours')).toBe('OPEN');
    const seen: string[] = [];
    expect(normalizeSlotName('hotel', (n) => seen.push(n))).toBe('');
    expect(seen).toEqual(['hotel']);
  });

  it('type is an exact map (no strip/lower), food is stripped and lower-cased first', () => {
    expect(typeToCanonical('guest house')).toBe('guesthouse');
    expect(typeToCanonical(' Guest House')).toBe(' Guest House');
    expect(foodToCanonical(' Sea Food ')).toBe('seafood');
    expect(foodToCanonical('Thai')).toBe('thai');
  });

  it('names: &-rules, then the restaurant/hotel/attraction tables; v2023 adds "b and b" and two hotel rules', () => {
    expect(nameToCanonical(" Nando's ")).toBe('nandos');
    expect(nameToCanonical('Christs')).toBe("christ's college");
    expect(nameToCanonical('A & B guest house')).toBe('a and b guest house');
    expect(nameToCanonical('A & B guest house', '2023')).toBe('a and b guesthouse');
    expect(nameToCanonical('acorn guesthouse', '2023')).toBe('acorn guest house');
    expect(nameToCanonical('alexander bed and breakfast', '2022')).toBe('alexander bed and breakfast');
    expect(nameToCanonical('alexander bed and breakfast', '2023')).toBe('alexander b and b');
    // the spec's double normalisation: "rosa's" -> "rosas bed and breakfast" -> (again, v2023) "rosas b and b"
    expect(nameToCanonical("rosa's", '2023')).toBe('rosas bed and breakfast');
    expect(nameToCanonical(nameToCanonical("rosa's", '2023'), '2023')).toBe('rosas b and b');
  });

  it('dispatch: booktime is not a time slot, parking "free" -> yes, other values untouched', () => {
    expect(normalizeStateSlotValue('booktime', '9:00')).toBe('9:00');
    expect(normalizeStateSlotValue('leave', '9:00')).toBe('09:00');
    expect(normalizeStateSlotValue('parking', 'free')).toBe('yes');
    expect(normalizeStateSlotValue('area', 'Centre')).toBe('Centre');
  });

  it('normalizeState keeps domain order, later duplicates overwrite in place, and does not mutate', () => {
    const state: BeliefState = {
      train: { leaveAt: '5pm', 'leave at': '6pm', day: 'monday' },
      hotel: { Name: 'Lime House' },
    };
    const copy = JSON.parse(JSON.stringify(state)) as BeliefState;
    const out = normalizeState(state);
    expect(JSON.stringify(out)).toBe(
      JSON.stringify({ train: { leave: '18:00', day: 'monday' }, hotel: { name: 'limehouse' } }),
    );
    expect(state).toEqual(copy);
  });
});

describeWithReferenceData('multiwoz')(
  'fixtures/normalized: states of 6 systems after normalisation, v2022 and v2023',
  () => {
    for (const version of ['2022', '2023'] as const) {
      for (const name of ['augpt', 'damd', 'galaxy-e2e', 'labes', 'mintl', 'ubar']) {
        it(`v${version} ${name}`, () => {
          const predictions = JSON.parse(readFileSync(join(SHARED, 'predictions', `${name}.json`), 'utf8')) as Record<
            string,
            Array<{ state: BeliefState }>
          >;
          const expected = JSON.parse(
            gunzipSync(
              readFileSync(join(SHARED, 'fixtures', 'normalized', `${name}.states.v${version}.json.gz`)),
            ).toString('utf8'),
          ) as Record<string, BeliefState[]>;
          const mismatches: string[] = [];
          for (const [id, turns] of Object.entries(predictions)) {
            turns.forEach((t, i) => {
              // JSON text comparison: key order inside each state matters (domain estimation ties)
              if (JSON.stringify(normalizeState(t.state, version)) !== JSON.stringify(expected[id]![i]))
                mismatches.push(`${id}[${i}]`);
            });
          }
          expect(mismatches).toEqual([]);
          expect(Object.keys(predictions)).toEqual(Object.keys(expected));
        });
      }
    }
  },
);
