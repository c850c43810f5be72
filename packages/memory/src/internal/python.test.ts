import { describe, expect, it } from 'vitest';
import { pyFormat, pyInt, pyStr, pyStrip, pyTruthy, pythonJsonDumps } from './python';

describe('pyInt (Python int() semantics, spec §5.3)', () => {
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
    expect(pyInt(value)).toEqual({ ok: true, value: expected });
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
    expect(pyInt(value).ok).toBe(false);
  });
});

describe('pyFormat (str.format)', () => {
  it('replaces named fields and unescapes doubled braces', () => {
    expect(pyFormat('{{\n  "a": "{x}"\n}}', { x: 'v{y}' })).toBe('{\n  "a": "v{y}"\n}');
  });
  it('formats non-strings like str()', () => {
    expect(pyFormat('{a}|{b}|{c}|{d}', { a: null, b: true, c: 2, d: ["it's", 1] })).toBe('None|True|2|["it\'s", 1]');
  });
  it('raises on missing fields and stray braces', () => {
    expect(() => pyFormat('{missing}', {})).toThrow(/KeyError/);
    expect(() => pyFormat('a } b', {})).toThrow(/Single '}'/);
    // CPython 3.11: 'a { b'.format() -> "expected '}' before end of string"; 'a {'.format() -> "Single '{' ..."
    expect(() => pyFormat('a { b', {})).toThrow(/expected '}' before end of string/);
    expect(() => pyFormat('a {', {})).toThrow(/Single '{'/);
  });
});

describe('small Python helpers', () => {
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
  it('strip and str', () => {
    expect(pyStrip('\u3000 x \x1f')).toBe('x');
    expect(pyStrip('\ufeffx')).toBe('\ufeffx');
    expect(pyStr({ a: 'b' })).toBe("{'a': 'b'}");
  });
  it('json.dumps(indent=4) number formatting', () => {
    const text = pythonJsonDumps(
      { a: 0, importance: 1, b: [1.5, 1e-7], c: {}, d: [], e: 'é"' },
      { floatKeys: new Set(['a', 'importance']) },
    );
    expect(text).toBe(
      '{\n    "a": 0.0,\n    "importance": 1.0,\n    "b": [\n        1.5,\n        1e-07\n    ],\n    "c": {},\n    "d": [],\n    "e": "é\\""\n}',
    );
  });
});
