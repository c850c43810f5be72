import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parsePyJson, PyFloat, pyDumps } from './pyjson';

const hasPython = spawnSync('python3', ['-c', 'import json'], { encoding: 'utf8' }).status === 0;

describe('pyDumps (Python json.dumps)', () => {
  it('uses ", " and ": " separators, bare NaN, ints vs floats', () => {
    expect(pyDumps({ a: [1, 2], b: { c: null, d: true, e: false } })).toBe(
      '{"a": [1, 2], "b": {"c": null, "d": true, "e": false}}',
    );
    expect(
      pyDumps([new PyFloat(1), new PyFloat(0), 0, new PyFloat(Number.NaN), 0.8, new PyFloat(-Infinity), 1e-7]),
    ).toBe('[1.0, 0.0, 0, NaN, 0.8, -Infinity, 1e-07]');
    expect(pyDumps([0.1 + 0.2, (100 * (2 * 0.8 * 0.8)) / 1.6])).toBe('[0.30000000000000004, 80.00000000000001]');
    expect(pyDumps({})).toBe('{}');
    expect(pyDumps([])).toBe('[]');
  });

  it('escapes like ensure_ascii=True', () => {
    expect(pyDumps('a"b\\c\n\t\r\b\f\u0001\u007f é € 😀')).toBe(
      '"a\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u007f \\u00e9 \\u20ac \\ud83d\\ude00"',
    );
  });

  it('indent=2 as Python pretty-prints', () => {
    expect(pyDumps({ a: [1, { b: 2 }], c: [] }, { indent: 2 })).toBe(
      '{\n  "a": [\n    1,\n    {\n      "b": 2\n    }\n  ],\n  "c": []\n}',
    );
  });

  it.skipIf(!hasPython)('matches the local CPython on a mixed document (compact and indent=2)', () => {
    const doc = {
      s: 'x\u00e9\n"\u2028😀\u0000',
      n: [0, -3, 12345678901234, 0.1, 1e22, 1e16, 123456.789, 5e-324],
      f: [1.0, 0.0],
      nan: Number.NaN,
      e: {},
      l: [],
    };
    const py = spawnSync(
      'python3',
      [
        '-c',
        'import json,sys; d=json.loads(sys.stdin.read()); d["f"]=[1.0,0.0]; d["nan"]=float("nan"); d["n"][4]=1e22; d["n"][5]=1e16; d["n"][7]=5e-324; print(json.dumps(d)); print(json.dumps(d, indent=2))',
      ],
      { input: JSON.stringify({ ...doc, nan: null }), encoding: 'utf8' },
    );
    expect(py.status).toBe(0);
    const [compact, ...rest] = py.stdout.trimEnd().split('\n');
    const value = {
      ...doc,
      f: [new PyFloat(1), new PyFloat(0)],
      n: [0, -3, 12345678901234, 0.1, new PyFloat(1e22), new PyFloat(1e16), 123456.789, 5e-324],
    };
    expect(pyDumps(value)).toBe(compact);
    expect(pyDumps(value, { indent: 2 })).toBe(rest.join('\n'));
  });
});

describe('parsePyJson', () => {
  it('accepts NaN, Infinity and -Infinity and keeps key order', () => {
    const v = parsePyJson('{"b": NaN, "a": [Infinity, -Infinity, 1.5e3, "x\\u00e9"]}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['b', 'a']);
    expect(Number.isNaN(v.b)).toBe(true);
    expect(v.a).toEqual([Infinity, -Infinity, 1500, 'xé']);
  });

  it('names the file, line and column of a syntax error', () => {
    // '{\n  "a": 1,\n  "b": }': line 3 is '  "b": }', the '}' is its 8th character, where a value was expected
    expect(() => parsePyJson('{\n  "a": 1,\n  "b": }', 'f.json')).toThrow(
      'f.json: invalid JSON at line 3 column 8: expected a value, found "}"',
    );
    expect(() => parsePyJson('[1, 2', 'g.json')).toThrow(
      "g.json: invalid JSON at line 1 column 6: expected ',' or a closing bracket, found the end of the input",
    );
    expect(() => parsePyJson('{} x')).toThrow(
      'invalid JSON at line 1 column 4: expected the end of the input after the JSON value, found "x"',
    );
  });
});
