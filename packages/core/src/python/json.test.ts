import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  PyFloat,
  PyInt,
  PythonJsonError,
  type PythonReprable,
  parsePythonJson,
  pythonJsonDumps,
  pythonJsonString,
  pythonRepr,
  pythonReprSymbol,
  pythonStr,
  pythonStrRepr,
  toPlainJson,
} from './json';

// Every expected string below is what CPython 3.11 prints for the same call (json.loads / json.dumps / repr / str),
// written out by hand from Python's documented rules and checked against a local python3; the Python expression is
// given beside each case. The last block re-checks a mixed document against the local CPython when one is installed.

describe('parsePythonJson (json.loads)', () => {
  it('keeps ints and floats apart: 10 -> int, 10.0 and 1e3 -> float, big ints exact', () => {
    expect(parsePythonJson('10')).toEqual(new PyInt(10n)); // type(json.loads('10')) is int
    expect(parsePythonJson('10.0')).toBe(10); // float
    expect(parsePythonJson('1e3')).toBe(1000); // float: an exponent makes a float
    expect(parsePythonJson('-0')).toEqual(new PyInt(0n)); // int -0 == 0
    expect(Object.is(parsePythonJson('-0.0'), -0)).toBe(true);
    expect(parsePythonJson('1e400')).toBe(Infinity); // float('1e400') == inf
    expect((parsePythonJson('12345678901234567890') as PyInt).value).toBe(12345678901234567890n);
  });

  it('str() of parsed numbers as Python prints them', () => {
    // str(json.loads(t)) for each t
    expect(pythonStr(parsePythonJson('10'))).toBe('10');
    expect(pythonStr(parsePythonJson('10.0'))).toBe('10.0');
    expect(pythonStr(parsePythonJson('1e400'))).toBe('inf');
    expect(pythonStr(parsePythonJson('-0.0'))).toBe('-0.0');
    expect(pythonStr(parsePythonJson('-0'))).toBe('0');
    expect(pythonStr(parsePythonJson('12345678901234567890'))).toBe('12345678901234567890');
  });

  it('keeps key order (integer-like keys too); a duplicate key keeps its first position with the last value', () => {
    const v = parsePythonJson('{"98.088": 1, "2": 2, "1": 3, "98.088": 4}') as Map<string, unknown>;
    expect([...v.keys()]).toEqual(['98.088', '2', '1']);
    expect(v.get('98.088')).toEqual(new PyInt(4n));
    // repr(json.loads('{"a":1,"b":2,"a":3}')) == "{'a': 3, 'b': 2}"
    expect(pythonRepr(parsePythonJson('{"a":1,"b":2,"a":3}'))).toBe("{'a': 3, 'b': 2}");
  });

  it('accepts NaN / Infinity / -Infinity, escapes and surrogate pairs like Python', () => {
    expect(parsePythonJson('NaN')).toBeNaN();
    expect(parsePythonJson('[Infinity, -Infinity]')).toEqual([Infinity, -Infinity]);
    expect(parsePythonJson('"\\ud83d\\ude00"')).toBe('😀');
    expect(parsePythonJson('"\\/\\u00e9\\b\\f\\n\\r\\t\\"\\\\"')).toBe('/é\b\f\n\r\t"\\');
    expect(parsePythonJson(' \t\n\r[ ]\n')).toEqual([]);
  });

  it("rejects what json.loads rejects, with Python's message and position", () => {
    // json.loads(t) raises JSONDecodeError(msg, t, pos); str(e) == f"{msg}: line {l} column {c} (char {pos})"
    const cases: Array<[string, string]> = [
      ['', 'Expecting value: line 1 column 1 (char 0)'],
      ['{', 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
      ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
      ['[1,]', 'Expecting value: line 1 column 4 (char 3)'],
      ['[1 2]', "Expecting ',' delimiter: line 1 column 4 (char 3)"],
      ['{"a":1,}', 'Expecting property name enclosed in double quotes: line 1 column 8 (char 7)'],
      ['01', 'Extra data: line 1 column 2 (char 1)'],
      ['1.', 'Extra data: line 1 column 2 (char 1)'],
      ['-', 'Expecting value: line 1 column 1 (char 0)'],
      ['"a\u0001"', 'Invalid control character at: line 1 column 3 (char 2)'],
      ['{"a": 1} x', 'Extra data: line 1 column 10 (char 9)'],
      ["{'a': 1}", 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
      ['Nan', 'Expecting value: line 1 column 1 (char 0)'],
      ['"\\x"', 'Invalid \\escape: line 1 column 2 (char 1)'],
      ['"\\u12"', 'Invalid \\uXXXX escape: line 1 column 3 (char 2)'],
      ['"abc', 'Unterminated string starting at: line 1 column 1 (char 0)'],
      ['\ufeff{}', 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)'],
      ['[\n  1,\n  }', 'Expecting value: line 3 column 3 (char 9)'],
    ];
    for (const [text, message] of cases) {
      let error: unknown;
      try {
        parsePythonJson(text);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(text)).toBeInstanceOf(PythonJsonError);
      expect((error as Error).message, JSON.stringify(text)).toBe(message);
    }
    try {
      parsePythonJson('[\n  1,\n  }');
    } catch (e) {
      const err = e as PythonJsonError;
      expect([err.msg, err.position, err.lineno, err.colno]).toEqual(['Expecting value', 9, 3, 3]);
    }
  });

  it('options: ints as numbers, plain objects (with __proto__ as a key), object_pairs_hook, BOM skipping', () => {
    expect(parsePythonJson('[1, 2.5]', { ints: 'number' })).toEqual([1, 2.5]);
    const obj = parsePythonJson('{"b": 1, "__proto__": {"x": 1}}', { objects: 'object', ints: 'number' }) as Record<
      string,
      unknown
    >;
    expect(Object.keys(obj)).toEqual(['b', '__proto__']);
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    const pairs = parsePythonJson('{"a": 1, "a": 2}', { objects: (p) => p, ints: 'number' });
    expect(pairs).toEqual([
      ['a', 1],
      ['a', 2],
    ]);
    expect(parsePythonJson('\ufeff[]', { bom: 'skip' })).toEqual([]);
  });

  it('deep nesting fails cleanly instead of overflowing the stack', () => {
    expect(parsePythonJson('[[[]]]', { maxDepth: 3 })).toEqual([[[]]]);
    expect(() => parsePythonJson('[[[[]]]]', { maxDepth: 3 })).toThrow(PythonJsonError);
    const deep = `${'['.repeat(1000)}${']'.repeat(1000)}`;
    expect(() => parsePythonJson(deep)).not.toThrow();
    expect(() => parsePythonJson(`[${deep}]`)).toThrow(/Maximum nesting depth/);
  });

  it('toPlainJson: dicts to objects, ints to numbers', () => {
    expect(toPlainJson(parsePythonJson('{"a": [1, 2.5, {"b": null}], "__proto__": 3}'))).toEqual(
      Object.defineProperty({ a: [1, 2.5, { b: null }] }, '__proto__', { value: 3, enumerable: true }),
    );
  });
});

describe('pythonJsonDumps (json.dumps)', () => {
  it('json.dumps(v, indent=1): floats as repr, ints bare, ensure_ascii, empty containers inline', () => {
    const v = new Map<string, unknown>([
      ['a', 1],
      ['b', [new PyInt(1), 'é', []]],
      ['c', new Map()],
      ['d', Number.NaN],
      ['e', '\x7f"\\'],
    ]);
    // json.dumps({"a": 1.0, "b": [1, "é", []], "c": {}, "d": float("nan"), "e": '\x7f"\\'}, indent=1)
    expect(pythonJsonDumps(v, { indent: 1 })).toBe(
      '{\n "a": 1.0,\n "b": [\n  1,\n  "\\u00e9",\n  []\n ],\n "c": {},\n "d": NaN,\n "e": "\\u007f\\"\\\\"\n}',
    );
    // json.dumps([0, 0.0, 0.5]) — plain numbers are floats by default; PyInt is an int
    expect(pythonJsonDumps([new PyInt(0), 0, 0.5])).toBe('[0, 0.0, 0.5]');
  });

  it('number policies and markers', () => {
    const nums = [1, -0, 0.5, 1e16, 1e-7, 12345678901234];
    // json.dumps([1.0, -0.0, 0.5, 1e16, 1e-07, 12345678901234.0])
    expect(pythonJsonDumps(nums)).toBe('[1.0, -0.0, 0.5, 1e+16, 1e-07, 12345678901234.0]');
    // 'int': integral numbers are ints: json.dumps([1, 0, 0.5, 10000000000000000, 1e-07, 12345678901234])
    expect(pythonJsonDumps(nums, { numbers: 'int' })).toBe('[1, 0, 0.5, 10000000000000000, 1e-07, 12345678901234]');
    // 'guess': -0 and |x| >= 1e16 stay floats: json.dumps([1, -0.0, 0.5, 1e16, 1e-07, 12345678901234])
    expect(pythonJsonDumps(nums, { numbers: 'guess' })).toBe('[1, -0.0, 0.5, 1e+16, 1e-07, 12345678901234]');
    // integral doubles beyond 2**53 as ints keep their exact value (int(2.0**64), not JS's shortest 18446744073709552000):
    // json.dumps([18446744073709551616, 9007199254740994, -9007199254740991])
    expect(pythonJsonDumps([2 ** 64, 2 ** 53 + 2, -(2 ** 53 - 1)], { numbers: 'int' })).toBe(
      '[18446744073709551616, 9007199254740994, -9007199254740991]',
    );
    expect(pythonRepr([2 ** 64, -0], { numbers: 'int' })).toBe('[18446744073709551616, 0]');
    // markers win over the policy: json.dumps([1.0, 2, 3, -inf])
    expect(pythonJsonDumps([new PyFloat(1), new PyInt(2), 3n, new PyFloat(-Infinity)], { numbers: 'int' })).toBe(
      '[1.0, 2, 3, -Infinity]',
    );
    // a function of the key path: json.dumps({"n": 2, "x": [1.0]})
    const byPath = (_: number, path: ReadonlyArray<string | number>) => (path[0] === 'n' ? 'int' : 'float');
    expect(pythonJsonDumps({ n: 2, x: [1] }, { numbers: byPath })).toBe('{"n": 2, "x": [1.0]}');
  });

  it('ensure_ascii on and off', () => {
    // json.dumps('a"b\\c\n\t\r\b\f\x01\x7f é € 😀')
    expect(pythonJsonDumps('a"b\\c\n\t\r\b\f\u0001\u007f é € 😀')).toBe(
      '"a\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u007f \\u00e9 \\u20ac \\ud83d\\ude00"',
    );
    // json.dumps('é\u2028\x7f\x00😀', ensure_ascii=False) == '"é\u2028\x7f\\u0000😀"'
    expect(pythonJsonString('é\u2028\x7f\x00😀', false)).toBe('"é\u2028\x7f\\u0000😀"');
    // deviation: a lone surrogate is escaped (Python keeps it raw, then cannot encode it as UTF-8)
    expect(pythonJsonString('a\ud800b\udfff\ud83d\ude00', false)).toBe('"a\\ud800b\\udfff😀"');
    expect(pythonJsonDumps({ é: 'é' }, { ensureAscii: false })).toBe('{"é": "é"}');
  });

  it('indent as a number, 0 or a string; separators; layout', () => {
    const v = { a: [new PyInt(1), { b: 2 }], c: [] };
    // json.dumps({"a": [1, {"b": 2.0}], "c": []}, indent=2)
    expect(pythonJsonDumps(v, { indent: 2 })).toBe(
      '{\n  "a": [\n    1,\n    {\n      "b": 2.0\n    }\n  ],\n  "c": []\n}',
    );
    // indent=0: newlines, no indentation
    expect(pythonJsonDumps(v, { indent: 0 })).toBe('{\n"a": [\n1,\n{\n"b": 2.0\n}\n],\n"c": []\n}');
    // indent="\t"
    expect(pythonJsonDumps(v, { indent: '\t' })).toBe(
      '{\n\t"a": [\n\t\t1,\n\t\t{\n\t\t\t"b": 2.0\n\t\t}\n\t],\n\t"c": []\n}',
    );
    // json.dumps([1, 2], separators=(",", ":"))
    expect(pythonJsonDumps([new PyInt(1), new PyInt(2)], { separators: [',', ':'] })).toBe('[1,2]');
    // json.dumps({"a": [1, 2], "b": {"c": None, "d": True, "e": False}})
    expect(pythonJsonDumps({ a: [1, 2], b: { c: null, d: true, e: false } }, { numbers: 'int' })).toBe(
      '{"a": [1, 2], "b": {"c": null, "d": true, "e": false}}',
    );
    expect(pythonJsonDumps({})).toBe('{}');
    expect(pythonJsonDumps([])).toBe('[]');
  });

  it('dict keys are coerced like Python: int, float, bool, None', () => {
    // json.dumps({1: 2, 1.5: 3, True: 4, None: 5, float("nan"): 1}) — in Python True == 1 merges into key 1;
    // a Map keeps them apart, so the bool key is written separately.
    const m = new Map<unknown, unknown>([
      [new PyInt(1), new PyInt(2)],
      [1.5, new PyInt(3)],
      [null, new PyInt(5)],
      [Number.NaN, new PyInt(1)],
      [false, new PyInt(0)],
    ]);
    expect(pythonJsonDumps(m)).toBe('{"1": 2, "1.5": 3, "null": 5, "NaN": 1, "false": 0}');
    expect(() => pythonJsonDumps(new Map([[[1], 1]]))).toThrow(/keys must be str, int, float, bool or None/);
  });

  it('allow_nan=False, unknown objects, default=, circular references, undefined', () => {
    // json.dumps(float("nan"), allow_nan=False) -> ValueError: Out of range float values are not JSON compliant
    expect(() => pythonJsonDumps(Number.NaN, { allowNan: false })).toThrow(/Out of range float values/);
    expect(() => pythonJsonDumps(new Date(0))).toThrow(/Object of type Date is not JSON serializable/);
    expect(pythonJsonDumps([new Set([1, 2])], { default: (v) => [...(v as Set<number>)] })).toBe('[[1.0, 2.0]]');
    const loop: unknown[] = [];
    loop.push(loop);
    expect(() => pythonJsonDumps(loop)).toThrow(/Circular reference/);
    const shared = [1];
    expect(pythonJsonDumps([shared, shared])).toBe('[[1.0], [1.0]]'); // the same list twice is not circular
    expect(pythonJsonDumps({ a: undefined, b: [undefined] })).toBe('{"b": [null]}');
  });

  it('round-trips parsePythonJson output exactly', () => {
    const text = '{"2": 1, "1": [1.0, -0.0, 1e-05, 100, 12345678901234567890, NaN, "\\u00e9\\n"], "x": {}}';
    expect(pythonJsonDumps(parsePythonJson(text))).toBe(text);
  });
});

describe('pythonRepr / pythonStr / pythonStrRepr', () => {
  it('lists and dicts as Python str() renders them', () => {
    // str([10, 2.5, True, None, "a"])
    expect(pythonStr(parsePythonJson('[10, 2.5, true, null, "a"]'))).toBe("[10, 2.5, True, None, 'a']");
    // str({"x": "it's", "y": [1.0, 1e-05]})
    expect(pythonStr(parsePythonJson('{"x": "it\'s", "y": [1.0, 1e-05]}'))).toBe("{'x': \"it's\", 'y': [1.0, 1e-05]}");
    expect(pythonStr('plain')).toBe('plain');
    // repr of a plain object in JS key order, of {} and of nested Maps
    expect(pythonRepr({})).toBe('{}');
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
  });

  it('number policies: float (default), int, guess; markers', () => {
    const nums = [1, -0, 1.5, 1e16, 1e-5];
    // repr([1.0, -0.0, 1.5, 1e16, 1e-05])
    expect(pythonRepr(nums)).toBe('[1.0, -0.0, 1.5, 1e+16, 1e-05]');
    // repr([1, 0, 1.5, 10000000000000000, 1e-05])
    expect(pythonRepr(nums, { numbers: 'int' })).toBe('[1, 0, 1.5, 10000000000000000, 1e-05]');
    // repr([1, -0.0, 1.5, 1e16, 1e-05])
    expect(pythonRepr(nums, { numbers: 'guess' })).toBe('[1, -0.0, 1.5, 1e+16, 1e-05]');
    // repr([1.0, 7, 8, nan, inf])
    expect(pythonRepr([new PyFloat(1), new PyInt(7), 8n, Number.NaN, Infinity], { numbers: 'int' })).toBe(
      '[1.0, 7, 8, nan, inf]',
    );
    expect(pythonRepr(undefined)).toBe('None');
  });

  it('string repr: quote choice and escapes', () => {
    expect(pythonStrRepr('abc')).toBe("'abc'");
    expect(pythonStrRepr("it's")).toBe('"it\'s"'); // a single quote and no double quote -> double quotes
    expect(pythonStrRepr(`say "hi"`)).toBe(`'say "hi"'`);
    expect(pythonStrRepr('say "hi" it\'s')).toBe("'say \"hi\" it\\'s'"); // both -> single quotes, ' escaped
    expect(pythonStrRepr('a\\b\n\r\t')).toBe("'a\\\\b\\n\\r\\t'");
    expect(pythonStrRepr('\x00\x1f\x7f\x80\x9f')).toBe("'\\x00\\x1f\\x7f\\x80\\x9f'"); // C0, DEL, C1 controls
    expect(pythonStrRepr('tab\there\x7f\xa0é\u200b')).toBe("'tab\\there\\x7f\\xa0é\\u200b'"); // NBSP is Zs, ZWSP is Cf
    expect(pythonStrRepr('café – 東京 😀')).toBe("'café – 東京 😀'"); // printable non-ASCII kept
    expect(pythonStrRepr('\u2028\u{e0001}')).toBe("'\\u2028\\U000e0001'"); // Zl; an astral Cf
    expect(pythonStrRepr('\ud800')).toBe("'\\ud800'"); // a lone surrogate (Cs)
    expect(pythonStrRepr('\u0378')).toBe("'\\u0378'"); // unassigned (Cn)
  });

  it('objects implementing pythonReprSymbol render themselves (nested values with the same options)', () => {
    class Tuple implements PythonReprable {
      constructor(readonly items: unknown[]) {}
      [pythonReprSymbol](repr: (v: unknown) => string): string {
        return this.items.length === 1 ? `(${repr(this.items[0])},)` : `(${this.items.map(repr).join(', ')})`;
      }
    }
    // repr({"t": (1,), "u": (1, "a")})
    expect(pythonRepr({ t: new Tuple([1]), u: new Tuple([1, 'a']) }, { numbers: 'guess' })).toBe(
      "{'t': (1,), 'u': (1, 'a')}",
    );
    expect(() => pythonRepr(new Date(0))).toThrow(/unsupported value/);
  });
});

const hasPython = spawnSync('python3', ['-c', 'import json'], { encoding: 'utf8' }).status === 0;

describe.skipIf(!hasPython)('against the local CPython', () => {
  it('loads -> dumps (compact, indent=2, ensure_ascii=False) and repr agree on a mixed document', () => {
    const text =
      '{"s": "x\\u00e9\\n\\"\\u2028\\ud83d\\ude00\\u0000\'", "n": [0, -3, 12345678901234567890, 0.1, 1e22, 1e16, 123456.789, 5e-324, -0.0, 1.0], "z": NaN, "2": {}, "1": [], "t": [true, false, null]}';
    const py = spawnSync(
      'python3',
      [
        '-c',
        'import json,sys; d=json.loads(sys.stdin.read()); print(json.dumps(d)); print(json.dumps(d, indent=2, ensure_ascii=False)); print(repr(d))',
      ],
      { input: text, encoding: 'utf8' },
    );
    expect(py.status).toBe(0);
    const lines = py.stdout.trimEnd().split('\n');
    const value = parsePythonJson(text);
    expect(pythonJsonDumps(value)).toBe(lines[0]);
    expect(pythonJsonDumps(value, { indent: 2, ensureAscii: false })).toBe(lines.slice(1, -1).join('\n'));
    expect(pythonRepr(value)).toBe(lines.at(-1));
  });
});
