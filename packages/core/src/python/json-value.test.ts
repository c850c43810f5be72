import { describe, expect, it } from 'vitest';
import { pyIntOfJson, pyTruthy } from './json-value';

// Moved from @eval/memory (HaluMem reads judge scores with int() and record flags with truthiness).
describe('pyIntOfJson (Python int() of a JSON value, memory spec §5.3)', () => {
  const ok: Array<[unknown, number]> = [
    [2, 2],
    ['2', 2],
    [' 2 ', 2],
    ['\n1\t', 1],
    ['+0', 0],
    ['-1', -1],
    ['1_0', 10],
    [1.9, 1],
    [-1.9, -1],
    [true, 1],
    [false, 0],
    ['٢', 2], // ARABIC-INDIC DIGIT TWO: Python accepts Unicode decimal digits
    ['\x852\u3000', 2], // int() skips Unicode whitespace such as \x85 and \u3000
  ];
  it.each(ok)('int(%j) = %d', (value, expected) => {
    expect(pyIntOfJson(value)).toEqual({ ok: true, value: expected });
  });
  const bad: unknown[] = [
    '2.0',
    '2|1|0',
    '',
    ' ',
    '1__0',
    '_1',
    '1_',
    '0x10',
    null,
    undefined,
    [2],
    { score: 2 },
    '\ufeff2',
    '\x1c2\x1f',
  ];
  // '\x1c2\x1f': \x1c-\x1f are whitespace for str.strip() but not for int() (CPython 3.11: ValueError; see
  // int_whitespace in @eval/core's cpython-cases.json).
  it.each(bad.map((b) => [b]))('int(%j) raises', (value) => {
    expect(pyIntOfJson(value).ok).toBe(false);
  });
});

describe('pyTruthy', () => {
  it('truthiness', () => {
    expect([null, undefined, false, 0, '', [], {}].map(pyTruthy)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect([true, 1, 'false', [0], { a: 1 }].map(pyTruthy)).toEqual([true, true, true, true, true]);
  });
});
