import { describe, expect, it } from 'vitest';
import { PyInt, PythonJsonError, parsePythonJson, pythonJsonDumps, pythonRepr, pythonStr, pythonStrRepr } from './python-json';

// Expected strings below are what CPython 3 prints for the same values (str(), repr(), json.dumps(indent=1)).
describe('parsePythonJson (json.loads)', () => {
  it('keeps ints and floats apart: 10 vs 10.0, 1e3 is a float', () => {
    expect(parsePythonJson('10')).toEqual(new PyInt(10n));
    expect(parsePythonJson('10.0')).toBe(10);
    expect(parsePythonJson('1e3')).toBe(1000);
    expect(pythonStr(parsePythonJson('10'))).toBe('10');
    expect(pythonStr(parsePythonJson('10.0'))).toBe('10.0');
    expect(pythonStr(parsePythonJson('1e400'))).toBe('inf');
    expect(pythonStr(parsePythonJson('-0.0'))).toBe('-0.0');
    expect(pythonStr(parsePythonJson('-0'))).toBe('0');
    expect(pythonStr(parsePythonJson('12345678901234567890'))).toBe('12345678901234567890');
  });

  it('keeps object key order, integer-like keys included; a duplicate key keeps its first position with the last value', () => {
    const v = parsePythonJson('{"98.088": 1, "2": 2, "1": 3, "98.088": 4}') as Map<string, unknown>;
    expect([...v.keys()]).toEqual(['98.088', '2', '1']);
    expect(pythonRepr(parsePythonJson('{"a":1,"b":2,"a":3}'))).toBe("{'a': 3, 'b': 2}");
  });

  it('accepts NaN / Infinity / -Infinity like Python, and surrogate-pair escapes', () => {
    expect(parsePythonJson('NaN')).toBeNaN();
    expect(parsePythonJson('[Infinity, -Infinity]')).toEqual([Infinity, -Infinity]);
    expect(parsePythonJson('"\\ud83d\\ude00"')).toBe('😀');
  });

  it('rejects what json.loads rejects, with a position', () => {
    for (const bad of ['', '{', '{"a" 1}', '[1,]', '01', '"a\u0001"', '{"a": 1} x', "{'a': 1}", 'Nan', '"\\x"']) {
      expect(() => parsePythonJson(bad), bad).toThrow(PythonJsonError);
    }
    expect(() => parsePythonJson('{"a": 1} x')).toThrow(/Extra data \(char 9\)/);
  });
});

describe('pythonRepr / pythonStr', () => {
  it('lists and dicts as Python str() renders them', () => {
    expect(pythonStr(parsePythonJson('[10, 2.5, true, null, "a"]'))).toBe("[10, 2.5, True, None, 'a']");
    expect(pythonStr(parsePythonJson('{"x": "it\'s", "y": [1.0, 1e-05]}'))).toBe('{\'x\': "it\'s", \'y\': [1.0, 1e-05]}');
    expect(pythonStr('plain')).toBe('plain');
  });

  it('string repr: quote choice and escapes', () => {
    expect(pythonStrRepr("it's")).toBe('"it\'s"');
    expect(pythonStrRepr('say "hi" it\'s')).toBe("'say \"hi\" it\\'s'");
    expect(pythonStrRepr('tab\there\x7f\xa0é\u200b')).toBe("'tab\\there\\x7f\\xa0é\\u200b'");
    expect(pythonStrRepr('😀')).toBe("'😀'");
    expect(pythonStrRepr('\ud800')).toBe("'\\ud800'");
  });
});

describe('pythonJsonDumps (json.dumps, indent=1)', () => {
  it('formats like Python: floats as repr, ints bare, ensure_ascii, empty containers inline', () => {
    const v = new Map<string, unknown>([
      ['a', 1],
      ['b', [new PyInt(1), 'é', []]],
      ['c', new Map()],
      ['d', Number.NaN],
      ['e', '\x7f"\\'],
    ]);
    expect(pythonJsonDumps(v as never, 1)).toBe(
      '{\n "a": 1.0,\n "b": [\n  1,\n  "\\u00e9",\n  []\n ],\n "c": {},\n "d": NaN,\n "e": "\\u007f\\"\\\\"\n}',
    );
    expect(pythonJsonDumps([new PyInt(0), 0, 0.5])).toBe('[0, 0.0, 0.5]');
  });
});
