import { pythonStrRepr } from '@eval/core/python';
import { describe, expect, it } from 'vitest';
import { parseJsonPy, stringifyJson } from './json';
import { pythonFormat } from './python';
import { evalPythonLiteral } from './python';
import { PyDict, PyTuple, pythonRepr, toPlain } from './python';

// Expected values below are what CPython 3.11 prints for the same expressions (checked by hand with python3).
describe('Python repr', () => {
  it('quotes like Python: single quotes unless the text has a single quote and no double quote', () => {
    expect(pythonStrRepr('abc')).toBe("'abc'");
    expect(pythonStrRepr("i'm here")).toBe(`"i'm here"`);
    expect(pythonStrRepr(`say "hi"`)).toBe(`'say "hi"'`);
    expect(pythonStrRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
  });

  it('escapes backslash, \\n \\r \\t, control characters and non-printable code points; keeps printable non-ASCII', () => {
    expect(pythonStrRepr('a\\b\n\r\t')).toBe("'a\\\\b\\n\\r\\t'");
    expect(pythonStrRepr('\x00\x1f\x7f')).toBe("'\\x00\\x1f\\x7f'");
    expect(pythonStrRepr('café – 東京')).toBe("'café – 東京'");
    expect(pythonStrRepr('\u00a0\u200b\u2028')).toBe("'\\xa0\\u200b\\u2028'");
    expect(pythonStrRepr('\u{e0001}')).toBe("'\\U000e0001'");
  });

  it('dicts and lists in insertion order, integer-like keys included', () => {
    const d = new PyDict();
    d.set('b', 'x');
    d.set('2', 'y');
    expect(pythonRepr(d)).toBe("{'b': 'x', '2': 'y'}");
    expect(
      pythonRepr(
        new Map([
          [
            'Turn1',
            new Map([
              ['Agent', ''],
              ['user', "i'm"],
            ]),
          ],
        ]),
      ),
    ).toBe(`{'Turn1': {'Agent': '', 'user': "i'm"}}`);
    expect(pythonRepr({})).toBe('{}');
    expect(pythonRepr([1, 1.5, true, null, 'a'])).toBe("[1, 1.5, True, None, 'a']");
    expect(pythonRepr(new PyTuple([1]))).toBe('(1,)');
  });
});

describe('Python str.format', () => {
  it('named fields, doubled braces, conversions', () => {
    expect(pythonFormat('{{\n"a": {x}\n}}', { x: 'v' })).toBe('{\n"a": v\n}');
    expect(pythonFormat('{x!r}', { x: "i'm" })).toBe(`"i'm"`);
    expect(pythonFormat('{d}', { d: new PyDict() })).toBe('{}');
  });

  it('errors like Python: unknown names, stray braces; unsupported specs are reported', () => {
    expect(() => pythonFormat('{nope}', {})).toThrow(/KeyError: 'nope'/);
    expect(() => pythonFormat('a } b', {})).toThrow(/Single '}'/);
    expect(() => pythonFormat('a { b', {})).toThrow(/Single '{'|expected '}'/);
    expect(() => pythonFormat('{}', {})).toThrow(/Replacement index 0/);
    expect(() => pythonFormat('{x:>5}', { x: 'a' })).toThrow(/not supported/);
  });
});

describe('Python literal eval (no code execution)', () => {
  const ev = (s: string) => toPlain(evalPythonLiteral(s));

  it('literals, containers, implicit concatenation, comments, leading blanks', () => {
    expect(ev("{'a': 1, \"b\": [1, 2.5, -3], 'c': (1,), 'd': None, 'e': True}")).toEqual({
      a: 1,
      b: [1, 2.5, -3],
      c: [1],
      d: null,
      e: true,
    });
    expect(ev("'a' 'b'")).toBe('ab');
    expect(ev('  {1:2} # comment\n\n')).toEqual({ 1: 2 });
    expect(ev('\n\n{"a":\n  1}')).toEqual({ a: 1 });
    expect(ev("'\\x41\\101\\u00e9\\q'")).toBe('AAé\\q');
    expect(ev("r'\\n'")).toBe('\\n');
    expect(ev("'''a\nb'''")).toBe('a\nb');
    expect(ev('1_000')).toBe(1000);
    expect(ev('0x10')).toBe(16);
    expect(ev('1, 2')).toEqual([1, 2]);
    expect(ev('{1, 2}')).toEqual([1, 2]);
  });

  it('duplicate keys: last value, first position; 1 and True are the same key', () => {
    const d = evalPythonLiteral("{'a': 1, 'b': 2, 'a': 3}") as PyDict;
    expect(d.items()).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    expect((evalPythonLiteral("{1: 'x', True: 'y'}") as PyDict).items()).toEqual([[1, 'y']]);
  });

  it('what Python rejects is rejected', () => {
    for (const bad of [
      'true',
      'null',
      '{"a": true}',
      '\n  {1:2}',
      '{1:2}\n```',
      '[1 for x in y]',
      '{[1]: 2}',
      '01',
      "'abc",
      '{1:2};',
      '1 + 1',
      'f"{x}"',
    ]) {
      expect(() => evalPythonLiteral(bad), bad).toThrow();
    }
  });
});

describe('JSON (json.loads semantics, order kept)', () => {
  it('keeps the order of integer-like keys; NaN/Infinity accepted; control characters and trailing commas rejected', () => {
    const d = parseJsonPy('{"b": 1, "2": 2, "a": [NaN, -Infinity]}') as PyDict;
    expect(d.keys()).toEqual(['b', '2', 'a']);
    expect(stringifyJson(d)).toBe('{"b":1,"2":2,"a":[NaN,-Infinity]}');
    expect(() => parseJsonPy('{"a": "x\ny"}')).toThrow(/control character/);
    expect(() => parseJsonPy('[1,]')).toThrow();
    expect(() => parseJsonPy('\ufeff{}')).toThrow();
    expect(() => parseJsonPy('{} x')).toThrow(/Extra data/);
    expect(parseJsonPy('"\\/\\u00e9"')).toBe('/é');
  });
});
