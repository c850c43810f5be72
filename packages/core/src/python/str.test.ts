import { describe, expect, it } from 'vitest';
import {
  PY_WHITESPACE,
  PY_WHITESPACE_ASCII,
  PythonValueError,
  pyInt,
  pyIsDigit,
  pyLen,
  pySlice,
  pySplit,
  pyStrip,
  pyZfill,
} from './str';

// Expected values are CPython 3.11 semantics as documented (str.split/strip/isdigit/zfill, int()), derived by hand.
describe('Python str semantics', () => {
  it('split()/strip() use Python whitespace: \\x1c-\\x1f and \\x85 are whitespace, \\ufeff is not', () => {
    expect(pySplit('  a\tb\x1cc\x85d  ')).toEqual(['a', 'b', 'c', 'd']);
    expect(pySplit('a\ufeffb')).toEqual(['a\ufeffb']);
    expect(pySplit('   ')).toEqual([]);
    expect(pyStrip('\x1f x \u3000')).toBe('x');
    expect(pyStrip('\ufeffx')).toBe('\ufeffx');
  });

  it('int() accepts surrounding whitespace, a sign, underscores between digits and non-ASCII decimal digits', () => {
    expect(pyInt(' 17 ')).toBe(17n);
    expect(pyInt('+5')).toBe(5n);
    expect(pyInt('-05')).toBe(-5n);
    expect(pyInt('1_000')).toBe(1000n);
    expect(pyInt('\u0663')).toBe(3n); // ARABIC-INDIC DIGIT THREE
    expect(pyInt('\u{1d7d9}')).toBe(1n); // MATHEMATICAL DOUBLE-STRUCK DIGIT ONE (runs of ten)
    for (const bad of ['', ' ', '1_', '_1', '1__0', '12abc', '\u00b2', '1.5', '+']) {
      expect(() => pyInt(bad), bad).toThrow(PythonValueError);
    }
  });

  it('isdigit() is true for decimal digits and for superscripts/circled digits (which int() rejects)', () => {
    expect(pyIsDigit('0930')).toBe(true);
    expect(pyIsDigit('\u00b2')).toBe(true);
    expect(pyIsDigit('\u2460')).toBe(true);
    expect(pyIsDigit('')).toBe(false);
    expect(pyIsDigit('9a')).toBe(false);
    expect(pyIsDigit('-1')).toBe(false);
  });

  it('zfill keeps a leading sign; lengths and slices count code points', () => {
    expect(pyZfill('9', 2)).toBe('09');
    expect(pyZfill('-9', 3)).toBe('-09');
    expect(pyZfill('123', 2)).toBe('123');
    expect(pyLen('a\u{1f642}b')).toBe(3);
    expect(pySlice('a\u{1f642}bc', 1, 3)).toBe('\u{1f642}b');
  });
});

describe('PY_WHITESPACE_ASCII', () => {
  it('matches exactly the ASCII characters of PY_WHITESPACE', () => {
    const ascii = new RegExp(`^[${PY_WHITESPACE_ASCII}]$`);
    const full = new RegExp(`^[${PY_WHITESPACE}]$`, 'u');
    for (let c = 0; c < 128; c++) expect(ascii.test(String.fromCharCode(c))).toBe(full.test(String.fromCharCode(c)));
  });
});
