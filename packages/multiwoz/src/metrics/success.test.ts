import { describe, expect, it } from 'vitest';
import { describeDatabase, sharedDatabase } from '../../test/helpers';
import { VenueDatabase } from '../internal/database';
import type { BeliefState } from '../internal/normalize';
import { aggregateSuccess, dialogSuccess, estimateActiveDomains, type Goal } from './success';

describe('active domain estimation (spec § 7.1.1), hand-derived', () => {
  it('follows the changed domain; ties go to the first domain in state order; removals do not count', () => {
    const states: BeliefState[] = [
      {}, // nothing yet: [] and the stale old state is kept
      { hotel: { area: 'north' } }, // hotel changed
      { hotel: { area: 'north' }, train: { day: 'monday' } }, // train changed (current hotel not in changed)
      { hotel: { area: 'north' }, train: { day: 'monday' } }, // no change: stays train
      { hotel: { area: 'south', stars: '4' }, train: { day: 'monday', dest: 'ely' } }, // both changed, train current kept
      { train: { day: 'monday', dest: 'ely' } }, // removal only: no change
    ];
    expect(estimateActiveDomains(states)).toEqual([[], ['hotel'], ['train'], ['train'], ['train'], ['train']]);
  });

  it('max by number of slots picks the first maximal; after a multi-domain change, a quiet turn switches to the other one', () => {
    const states: BeliefState[] = [
      { restaurant: { area: 'north' }, hotel: { area: 'north' } }, // both changed, equal size: restaurant (first)
      { restaurant: { area: 'north' }, hotel: { area: 'north' } }, // no change, old changed = [restaurant, hotel] -> hotel
    ];
    expect(estimateActiveDomains(states)).toEqual([['restaurant'], ['hotel']]);
  });
});

describeDatabase('dialogue success (spec § 7.3), hand-built dialogue against the real database', () => {
  const db = new VenueDatabase(sharedDatabase('2022'));
  const goal: Goal = {
    hotel: {
      informable: { area: 'north', type: 'guesthouse', pricerange: 'cheap' },
      requestable: ['PHONE', 'REFERENCE'],
    },
    taxi: { informable: { leave: '10:00' }, requestable: ['PHONE'] },
  };
  const offered = db.query('hotel', { area: 'north', type: 'guesthouse', pricerange: 'cheap' });

  it('inform when the offered venues are goal venues; success needs every requested slot, REFERENCE only when booked', () => {
    const utterances = [
      'NAME is a nice place.',
      'the phone is PHONE, your reference is REFERENCE.',
      'the taxi number is PHONE.',
    ];
    const states: BeliefState[] = [
      { hotel: { area: 'north', type: 'guesthouse', pricerange: 'cheap' } },
      { hotel: { area: 'north' } },
      {},
    ];
    const domains = [['hotel'], ['hotel'], ['taxi']];
    const booked = [[], ['hotel'], ['hotel']];
    const r = dialogSuccess(goal, booked, utterances, states, domains, db);
    expect(offered.length).toBeGreaterThan(0);
    expect(r.match).toEqual({ hotel: true, taxi: true, total: true });
    expect(r.success).toEqual({ hotel: true, taxi: true, total: true });
    expect(r.domains.hotel!.offered).toEqual(offered);
    expect(r.domains.taxi!.offered).toBe('MATCHED');
  });

  it('REFERENCE before the booking does not count; the failure names the missing slot', () => {
    const r = dialogSuccess(
      goal,
      [[], [], []],
      ['NAME is nice.', 'phone PHONE, ref REFERENCE.', 'taxi PHONE.'],
      [{ hotel: { area: 'north', type: 'guesthouse', pricerange: 'cheap' } }, {}, {}],
      [['hotel'], ['hotel'], ['taxi']],
      db,
    );
    expect(r.success).toEqual({ hotel: false, taxi: true, total: false });
    expect(r.domains.hotel!.missing).toEqual(['REFERENCE']);
    expect(r.domains.hotel!.reason).toMatch(/not provided: REFERENCE/);
  });

  it('inform fails without an offer (success is then {}), and with an offer outside the goal venues', () => {
    const none = dialogSuccess(goal, [[]], ['hello'], [{}], [['hotel']], db);
    expect(none.match).toEqual({ hotel: false, taxi: true, total: false });
    expect(none.success).toEqual({});
    expect(none.domains.hotel!.reason).toMatch(/no venue offered: no NAME placeholder/);
    const nothing = dialogSuccess(
      goal,
      [[]],
      ['try NAME'],
      [{ hotel: { name: 'no such hotel anywhere' } }],
      [['hotel']],
      db,
    );
    expect(nothing.domains.hotel!.reason).toMatch(/the state matched no database entry in the 1 turn/);
    const wrong = dialogSuccess(goal, [[]], ['try NAME'], [{ hotel: { area: 'south' } }], [['hotel']], db);
    expect(wrong.match.hotel).toBe(false);
    expect(wrong.domains.hotel!.reason).toMatch(/not matching the goal/);
  });

  it('aggregation: per-domain denominators, total over all dialogues, Python round half-even (12.25 -> 12.2)', () => {
    // 49 of 400 dialogues informed: 12.25 exactly -> round(12.25, 1) = 12.2 in Python
    const runs = Array.from({ length: 400 }, (_, i) => ({
      match: { train: i < 49, total: i < 49 },
      success: {} as Record<string, boolean>,
    }));
    expect(aggregateSuccess(runs)).toEqual({ inform: { train: 12.2, total: 12.2 }, success: { train: 0, total: 0 } });
    const mixed: Array<{ match: Record<string, boolean>; success: Record<string, boolean> }> = [
      { match: { hotel: true, total: true }, success: { hotel: true, total: true } },
      { match: { hotel: true, taxi: false, total: false }, success: {} },
    ];
    expect(aggregateSuccess(mixed)).toEqual({
      inform: { hotel: 100, total: 50, taxi: 0 },
      success: { hotel: 50, total: 50, taxi: 0 },
    });
  });
});
