/**
 * The zod-free shapes report exactly what the zod schemas of `@eval/multiwoz/schemas` report (issue paths and
 * messages, in order) and return the same value, on valid inputs and on many mutated ones.
 */
import { InputError, seededRandom, validate } from '@eval/core';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { bookedShape, goalShape, goldStatesShape, referencesShape } from './data';
import { parsePredictions, predictionsShape } from './input';
import { goal21DomainShape } from './prepare';
import {
  bookedDomainsSchema,
  goal21DomainSchema,
  goalSchema,
  goldStatesSchema,
  predictionsSchema,
  referencesSchema,
} from './schemas';
import { type Shape, parseShape, validateShape } from './shape';

/** Deterministic PRNG: `@eval/core`'s mulberry32. */
const rng = seededRandom;

const ODD_VALUES: unknown[] = [
  null,
  0,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  'x',
  '',
  [],
  ['a'],
  [1],
  {},
  { a: 'b' },
  { a: 1 },
  undefined,
  new Date(0),
  Object.create(null),
  new Map(),
];

/** A copy of `value` with a few random nodes replaced by odd values, keys deleted or `__proto__` keys added. */
function mutate(value: unknown, random: () => number, rate: number): unknown {
  if (random() < rate) return ODD_VALUES[Math.floor(random() * ODD_VALUES.length)];
  if (Array.isArray(value)) {
    const out = value.map((v) => mutate(v, random, rate));
    if (random() < rate) out.push(ODD_VALUES[Math.floor(random() * ODD_VALUES.length)]);
    return out;
  }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (random() < rate / 2) continue; // key dropped
      Object.defineProperty(out, k, {
        value: mutate(v, random, rate),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    if (random() < rate / 2)
      Object.defineProperty(out, '__proto__', {
        value: mutate(value, random, rate),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    if (random() < rate / 2) out.extra = ODD_VALUES[Math.floor(random() * ODD_VALUES.length)];
    return out;
  }
  return value;
}

function zodIssues(
  schema: z.ZodType,
  value: unknown,
): { issues: Array<{ path: unknown[]; message: string }>; data?: unknown } {
  const r = schema.safeParse(value);
  if (r.success) return { issues: [], data: r.data };
  return {
    issues: r.error.issues.map((i) => ({
      path: i.path.map((p) => (typeof p === 'symbol' ? p.toString() : p)),
      message: i.message,
    })),
  };
}

function compare(shape: Shape<unknown>, schema: z.ZodType, valid: unknown, seed: number, cases = 400): number {
  const random = rng(seed);
  let invalid = 0;
  for (let n = 0; n < cases; n++) {
    const value = n === 0 ? valid : mutate(valid, random, 0.02 + (n % 10) * 0.03);
    const ours = parseShape(shape, value);
    const theirs = zodIssues(schema, value);
    expect(ours.issues, `case ${n}: ${JSON.stringify(value)}`).toEqual(theirs.issues);
    if (theirs.issues.length === 0) expect(JSON.stringify(ours.data)).toBe(JSON.stringify(theirs.data));
    else invalid++;
  }
  return invalid;
}

const turn = (response: unknown, extra: Record<string, unknown> = {}) => ({ response, ...extra });
const PREDICTIONS = {
  sng0073: [
    turn('i have [value_count] [restaurant_name]', {
      state: { restaurant: { food: 'thai', area: 'north' } },
      active_domains: ['restaurant'],
    }),
    turn('bye'),
  ],
  pmul4648: [
    turn('the [hotel_name] is [value_area]', { state: { hotel: { stars: '4' }, train: {} } }),
    turn('ok', { active_domains: [] }),
  ],
  mul0484: [turn('x', { state: {}, other: 1 })],
};
const GOALS = {
  restaurant: { informable: { food: 'thai', area: 'north' }, requestable: ['PHONE'], booking: [] },
  train: { informable: {}, requestable: [], booking: { people: '2' } },
};

describe('shapes = zod schemas (issues, messages, values)', () => {
  it('predictions', () => expect(compare(predictionsShape, predictionsSchema, PREDICTIONS, 1)).toBeGreaterThan(150));
  it('goals', () => expect(compare(goalShape, goalSchema, GOALS, 2)).toBeGreaterThan(150));
  it('booked domains', () =>
    expect(compare(bookedShape, bookedDomainsSchema, [[], ['hotel'], ['hotel', 'train']], 3)).toBeGreaterThan(150));
  it('references', () => expect(compare(referencesShape, referencesSchema, ['a b', 'c', ''], 4)).toBeGreaterThan(150));
  it('gold states', () =>
    expect(
      compare(
        goldStatesShape,
        goldStatesSchema,
        [{}, { hotel: { area: 'north' } }, { hotel: { area: 'east', stars: '4' }, taxi: {} }],
        5,
      ),
    ).toBeGreaterThan(150));
  it('MultiWOZ 2.1 goal domains', () =>
    expect(
      compare(
        goal21DomainShape,
        goal21DomainSchema,
        { info: { food: 'thai' }, reqt: ['phone'], book: { people: 2, invalid: false }, fail_info: {} },
        6,
      ),
    ).toBeGreaterThan(150));

  it('a symbol key of a record', () => {
    const value = { sng0073: [turn('a')], [Symbol('s')]: [turn('b')] };
    expect(parseShape(predictionsShape, value).issues).toEqual(zodIssues(predictionsSchema, value).issues);
  });

  it('the same InputError as validate() with the zod schema', () => {
    const bad = { restaurant: { informable: { food: 3 }, requestable: 'PHONE' } };
    const error = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e as InputError;
      }
      throw new Error('no error thrown');
    };
    const ours = error(() => validateShape(goalShape, bad, { file: 'goals.json', record: 'sng0073' }));
    const theirs = error(() => validate(goalSchema, bad, { file: 'goals.json', record: 'sng0073' }));
    expect(ours).toBeInstanceOf(InputError);
    expect(ours.message).toBe(theirs.message);
    expect(ours.issues).toEqual(theirs.issues);
    expect([ours.file, ours.record, ours.field]).toEqual([theirs.file, theirs.record, theirs.field]);
  });

  it('parsePredictions: a __proto__ dialogue is dropped as zod drops it', () => {
    const value = JSON.parse('{"sng0073": [{"response": "a"}], "__proto__": [{"response": 1}]}') as unknown;
    const parsed = parsePredictions(value);
    expect(Object.keys(parsed)).toEqual(['sng0073']);
  });
});
