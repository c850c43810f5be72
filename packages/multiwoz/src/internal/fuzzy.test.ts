import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { hasReferenceData, itWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import { levenshteinRatio, matchingBlocks, partialRatio, partialRatioAtLeast } from './fuzzy';

const CASES = referencePath('multiwoz/fixtures/partial_ratio_cases.json.gz');
const itWithCases = itWithReferenceData('multiwoz/fixtures/partial_ratio_cases.json.gz');

interface Cases {
  db_pairs: Array<[string, string, number]>;
  random: Array<[string, string, number, Array<[number, number, number]>, number]>;
}
const cases = (
  hasReferenceData('multiwoz/fixtures/partial_ratio_cases.json.gz')
    ? JSON.parse(gunzipSync(readFileSync(CASES)).toString('utf8'))
    : undefined
) as Cases;

describe('partial_ratio = fuzzywuzzy 0.18 + python-Levenshtein 0.12 (fixtures/partial_ratio_cases)', () => {
  itWithCases('48,382 (database value, state value) pairs: identical scores', () => {
    const bad = cases.db_pairs.filter(([a, b, s]) => partialRatio(a, b) !== s);
    expect(bad.slice(0, 5)).toEqual([]);
    expect(cases.db_pairs).toHaveLength(48382);
  });

  itWithCases('30,000 random pairs: identical scores, matching blocks and Levenshtein ratios', () => {
    const bad = cases.random.filter(
      ([a, b, s, blocks, ratio]) =>
        partialRatio(a, b) !== s ||
        JSON.stringify(matchingBlocks(a, b)) !== JSON.stringify(blocks) ||
        levenshteinRatio(a, b) !== ratio,
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
    expect(matchingBlocks('abc', 'abc')).toEqual([
      [0, 0, 3],
      [3, 3, 0],
    ]);
  });

  it('the pruned test (whole-string and best-window bounds) agrees with the full score on random pairs', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const alphabet = ['a', 'b', 'c', 'e', ' ', 'r', 't', "'", 'é', '😀'];
    const word = (n: number) =>
      Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    for (let k = 0; k < 3000; k++) {
      const a = word(1 + Math.floor(random() * 12));
      // the longer string often contains (a near copy of) the shorter one, so that scores near the minimum occur
      const b =
        random() < 0.5
          ? word(Math.floor(random() * 8)) +
            a.slice(0, a.length - Math.floor(random() * 2)) +
            word(Math.floor(random() * 8))
          : word(1 + Math.floor(random() * 20));
      for (const min of [90, 80, 60])
        expect(partialRatioAtLeast(a, b, min), `${a} | ${b} | ${min}`).toBe(partialRatio(a, b) >= min);
    }
  });

  itWithCases(
    'the pruned test partialRatioAtLeast(a, b, m) agrees with the reference score >= m on every fixture pair',
    () => {
      const all: Array<[string, string, number]> = [
        ...cases.db_pairs,
        ...cases.random.map(([a, b, s]) => [a, b, s] as [string, string, number]),
      ];
      for (const min of [90, 95, 50]) {
        const bad = all.filter(([a, b, s]) => partialRatioAtLeast(a, b, min) !== s >= min);
        expect(bad.slice(0, 5), `minimum ${min}`).toEqual([]);
      }
    },
  );
});
