import { describe, expect, it } from 'vitest';
import { SHARED, itMultiwoz } from '../../test/helpers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { bleuFromStats, corpusBleu, segmentBleuStats, tokenize13a } from './bleu';

describe('sacreBLEU 13a tokenizer (spec § 5.2)', () => {
  it('splits punctuation and symbols, keeps apostrophes, and splits . , only next to non-digits', () => {
    expect(tokenize13a("it's NAME, 3.50 pounds.")).toBe("it's NAME , 3.50 pounds .");
    expect(tokenize13a('a-b 12-3 (x) [y] {z} a/b a:b')).toBe('a-b 12 - 3 ( x ) [ y ] { z } a / b a : b');
    expect(tokenize13a('x &amp; y &quot;q&quot;<skipped>')).toBe('x & y " q "');
    expect(tokenize13a('  ')).toBe('');
  });
});

describe('corpus BLEU (exp smoothing, brevity penalty)', () => {
  it('statistics of one segment, counted by hand', () => {
    // hyp: the cat sat (3 tokens), ref: the cat sat down (4 tokens)
    expect(segmentBleuStats('the cat sat', 'the cat sat down')).toEqual({
      sysLen: 3,
      refLen: 4,
      correct: [3, 2, 1, 0],
      total: [3, 2, 1, 0],
    });
  });

  it('score from statistics: exp smoothing only where a precision is 0 and n-grams exist', () => {
    // precisions 100, 100, 100, then total[3] = 0 stops the loop: prec4 = 0 -> log = -9999999999 -> score ~ 0
    const s = segmentBleuStats('the cat sat', 'the cat sat down');
    expect(bleuFromStats(s)).toBe(Math.exp(1 - 4 / 3) * Math.exp((Math.log(100) * 3 - 9999999999) / 4));
    // hand-made statistics: correct 4-grams 0 with 2 present -> prec4 = 100 / (2 * 2)
    const p = [(100 * 6) / 8, (100 * 3) / 6, (100 * 1) / 4, 100 / (2 * 2)];
    const expected = Math.exp((Math.log(p[0]!) + Math.log(p[1]!) + Math.log(p[2]!) + Math.log(p[3]!)) / 4);
    expect(bleuFromStats({ sysLen: 8, refLen: 8, correct: [6, 3, 1, 0], total: [8, 6, 4, 2] })).toBe(expected);
    expect(bleuFromStats({ sysLen: 8, refLen: 8, correct: [0, 0, 0, 0], total: [8, 6, 4, 2] })).toBe(0);
  });

  it('identical corpora score 100; counts are clipped by the reference', () => {
    expect(corpusBleu(['a b c d e', 'f g h i'], ['a b c d e', 'f g h i']).score).toBeCloseTo(100, 12);
    expect(segmentBleuStats('the the the', 'the cat').correct[0]).toBe(1);
  });

  itMultiwoz(
    'the statistics of a segment do not depend on the segments counted before it (no state between calls)',
    () => {
      const shared = SHARED;
      const hyps = JSON.parse(
        gunzipSync(readFileSync(join(shared, 'fixtures', 'normalized', 'augpt.responses.json.gz'))).toString('utf8'),
      ) as Record<string, string[]>;
      const refs = JSON.parse(
        gunzipSync(readFileSync(join(shared, 'fixtures', 'normalized', 'ubar.responses.json.gz'))).toString('utf8'),
      ) as Record<string, string[]>;
      const pairs = Object.keys(hyps)
        .flatMap((id) => hyps[id]!.map((h, i) => [h, refs[id]?.[i] ?? ''] as const))
        .slice(0, 3000);
      const before = pairs.map(([h, r]) => segmentBleuStats(h, r));
      // a segment with 9,000 new tokens in between
      segmentBleuStats(Array.from({ length: 9000 }, (_, i) => `w${i}`).join(' '), 'x');
      const after = pairs.map(([h, r]) => segmentBleuStats(h, r));
      expect(after).toEqual(before);
      // by hand: unigrams min(3,2)+min(1,2) = 3; bigrams aa min(2,1) + ab 1 = 2; trigram aab 1; 4-gram none
      expect(segmentBleuStats('a a a b', 'a a b b')).toEqual({
        sysLen: 4,
        refLen: 4,
        correct: [3, 2, 1, 0],
        total: [4, 3, 2, 1],
      });
    },
  );
});
