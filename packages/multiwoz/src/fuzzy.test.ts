import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { hasReferenceData, itWithReferenceData, referencePath } from '../../../test-support/reference-data';
import { levenshteinRatio, matchingBlocks, partialRatio, partialRatioAtLeast } from './fuzzy';

const CASES = referencePath('multiwoz/fixtures/partial_ratio_cases.json.gz');
const itWithCases = itWithReferenceData('multiwoz/fixtures/partial_ratio_cases.json.gz');

interface Cases {
  db_pairs: Array<[string, string, number]>;
  random: Array<[string, string, number, Array<[number, number, number]>, number]>;
}
const cases = (hasReferenceData('multiwoz/fixtures/partial_ratio_cases.json.gz') ? JSON.parse(gunzipSync(readFileSync(CASES)).toString('utf8')) : undefined) as Cases;

describe('partial_ratio = fuzzywuzzy 0.18 + python-Levenshtein 0.12 (fixtures/partial_ratio_cases)', () => {
  itWithCases('48,382 (database value, state value) pairs: identical scores', () => {
    const bad = cases.db_pairs.filter(([a, b, s]) => partialRatio(a, b) !== s);
    expect(bad.slice(0, 5)).toEqual([]);
    expect(cases.db_pairs).toHaveLength(48382);
  });

  itWithCases('30,000 random pairs: identical scores, matching blocks and Levenshtein ratios', () => {
    const bad = cases.random.filter(
      ([a, b, s, blocks, ratio]) => partialRatio(a, b) !== s || JSON.stringify(matchingBlocks(a, b)) !== JSON.stringify(blocks) || levenshteinRatio(a, b) !== ratio,
    );
    expect(bad.slice(0, 5)).toEqual([]);
    expect(cases.random).toHaveLength(30000);
  });

  it('edge cases of spec § 9: equality before emptiness, empty vs non-empty is 0', () => {
    expect(partialRatio('', '')).toBe(100);
    expect(partialRatio('abc', '')).toBe(0);
    expect(partialRatio('', 'abc')).toBe(0);
    // spec § 4.3.1 note: why v2023 loses some bed-and-breakfast venues
    expect(partialRatio('alexander bed and breakfast', 'alexander b and b')).toBe(88);
    expect(matchingBlocks('', '')).toEqual([[0, 0, 0]]);
    expect(matchingBlocks('abc', 'abc')).toEqual([[0, 0, 3], [3, 3, 0]]);
  });

  itWithCases('the pruned test partialRatioAtLeast(a, b, m) agrees with the reference score >= m on every fixture pair', () => {
    const all: Array<[string, string, number]> = [...cases.db_pairs, ...cases.random.map(([a, b, s]) => [a, b, s] as [string, string, number])];
    for (const min of [90, 95, 50]) {
      const bad = all.filter(([a, b, s]) => partialRatioAtLeast(a, b, min) !== s >= min);
      expect(bad.slice(0, 5), `minimum ${min}`).toEqual([]);
    }
  });
});
