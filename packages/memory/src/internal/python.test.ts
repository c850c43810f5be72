import { describe, expect, it } from 'vitest';
import { pyStrip } from '@eval/core/python';
import { pyFormat, pyStr, pythonJsonDumps } from './python';

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

describe("small Python helpers (this binding; strip is core's)", () => {
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
