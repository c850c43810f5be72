import { pyCollapseWhitespace } from '@eval/core/python';
import { describe, expect, it } from 'vitest';
import { msttr, richness, richnessTokenize } from './richness';

describe('lexical_diversity tokenisation (spec § 6)', () => {
  it('removes punctuation, keeps quotes and &, lower-cases placeholders, keeps empty tokens', () => {
    expect(richnessTokenize('ok:) see you')).toEqual(['ok', 'see', 'you']);
    expect(richnessTokenize('see you :)')).toEqual(['see', 'you', '']);
    expect(richnessTokenize('')).toEqual(['']);
    expect(richnessTokenize('it\'s "great" & NAME.')).toEqual(['its', '"great"', '&', 'name']);
  });

  it('equals removing each punctuation string in turn, as lexical_diversity does', () => {
    const PUNCTUATION = [
      '``',
      "''",
      "'",
      '.',
      ',',
      '?',
      '!',
      ')',
      '(',
      '%',
      '/',
      '-',
      '_',
      '-LRB-',
      '-RRB-',
      'SYM',
      ':',
      ';',
    ];
    const reference = (text: string) => {
      for (const p of PUNCTUATION) text = text.split(p).join('');
      return pyCollapseWhitespace(text, ' ').toLowerCase().split(' ');
    };
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const alphabet = [
      '`',
      "'",
      '.',
      ',',
      '?',
      '!',
      ')',
      '(',
      '%',
      '/',
      '-',
      '_',
      'L',
      'R',
      'B',
      'S',
      'Y',
      'M',
      ':',
      ';',
      ' ',
      'a',
      'é',
      '\t',
    ];
    const cases = ['S.YM', 'SY:M', '-L-RB-', "`'`", "``'", '-LRB- x -RRB-', 'a``b', 'S-Y_M:;'];
    for (let n = 0; n < 5000; n++)
      cases.push(
        Array.from(
          { length: 1 + Math.floor(random() * 12) },
          () => alphabet[Math.floor(random() * alphabet.length)],
        ).join(''),
      );
    for (const c of cases) expect(richnessTokenize(c), JSON.stringify(c)).toEqual(reference(c));
  });
});

describe('richness figures', () => {
  it('hand-derived example', () => {
    // tokens: [a b a] [b a]; uni a:3 b:2 (total 5); bigrams (a,b):1 (b,a):2; trigram (a,b,a)
    const r = richness(['a b a', 'b a']);
    const ent = -((3 / 5) * (Math.log(3 / 5) / Math.LN2) + (2 / 5) * (Math.log(2 / 5) / Math.LN2));
    const cond = -((1 / 5) * (Math.log(1 / 3) / Math.LN2) + (2 / 5) * (Math.log(2 / 2) / Math.LN2));
    expect(r).toEqual({
      entropy: ent,
      cond_entropy: cond,
      avg_lengths: 2.5,
      msttr: 2 / 5,
      num_unigrams: 2,
      num_bigrams: 2,
      num_trigrams: 1,
    });
  });

  it('MSTTR-50: whole-text TTR below 51 tokens, else the mean over complete windows (tail dropped)', () => {
    const tokens = Array.from({ length: 120 }, (_, i) => (i < 50 ? `w${i}` : i < 100 ? 'x' : `t${i}`));
    expect(msttr(tokens)).toBe((50 / 50 + 1 / 50) / 2);
    expect(msttr(['a', 'a', 'b'])).toBe(2 / 3);
    expect(msttr([])).toBe(0);
  });

  it('a repeated response counts as the same text written anew (no shortcut changes a figure)', () => {
    // "x." tokenises as "x" but is a different string, so the second list has no repeated response
    const base = [
      'the hotel is in the north',
      'ok',
      '',
      'the hotel is cheap',
      'is there anything else',
      'ok ok',
      'the north',
    ];
    const repeats: string[] = [];
    const fresh: string[] = [];
    let seed = 3;
    for (let n = 0; n < 400; n++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const r = base[seed % base.length]!;
      repeats.push(r);
      fresh.push(`${r}${'.'.repeat(n + 1)}`);
    }
    expect(new Set(fresh).size).toBe(fresh.length);
    expect(richness(repeats)).toEqual(richness(fresh));
  });

  it('an empty input is an error (the reference divides by zero)', () => {
    expect(() => richness([])).toThrow(/at least one response/);
  });
});
