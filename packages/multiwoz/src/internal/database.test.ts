import { describe, expect } from 'vitest';
import { itDatabase, itMultiwoz, shared, sharedDatabase } from '../../test/helpers';
import { VenueDatabase } from './database';

interface Query {
  domain: string;
  constraints: Record<string, string>;
  origin: string;
  result: string[];
}

describe('venue database queries = mwzeval (fixtures/db_queries, 6000 queries per version)', () => {
  for (const version of ['2022', '2023'] as const) {
    itMultiwoz(`v${version}`, () => {
      const db = new VenueDatabase(sharedDatabase(version), { normalization: version });
      const queries = shared<Query[]>(`fixtures/db_queries.v${version}.json.gz`);
      const bad = queries.filter((q) => JSON.stringify(db.query(q.domain, q.constraints)) !== JSON.stringify(q.result));
      expect(bad.slice(0, 3)).toEqual([]);
      expect(queries).toHaveLength(6000);
      // memoised answers are copies: callers cannot corrupt the cache
      const q = queries.find((x) => x.result.length > 0)!;
      db.query(q.domain, q.constraints).push('x');
      expect(db.query(q.domain, q.constraints)).toEqual(q.result);
    });
  }

  itDatabase('columns after clean-up are the keys of the first item (spec § 7.2)', () => {
    const db = new VenueDatabase(sharedDatabase('2022'));
    expect([...db.columns('restaurant')].sort()).toEqual([
      'address',
      'area',
      'food',
      'id',
      'name',
      'phone',
      'postcode',
      'pricerange',
      'type',
    ]);
    expect([...db.columns('train')].sort()).toEqual([
      'arrive',
      'day',
      'departure',
      'destination',
      'duration',
      'leave',
      'price',
      'trainid',
    ]);
    expect([...db.columns('attraction')]).toContain('entrancefee');
  });

  itDatabase('dontcare-like values and non-column keys are ignored; domains without a database give []', () => {
    const db = new VenueDatabase(sharedDatabase('2022'));
    const all = db.query('hotel', {});
    expect(all).toHaveLength(db.size('hotel'));
    expect(db.query('hotel', { area: "don't care", bookday: 'monday', stay: '2' })).toEqual(all);
    expect(db.query('taxi', { leave: '10:00' })).toEqual([]);
  });
});
