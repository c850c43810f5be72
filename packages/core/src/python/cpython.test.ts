import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FormatError,
  PythonEvalError,
  PythonJsonError,
  PythonRandom,
  PythonValueError,
  evalPythonLiteral,
  parsePythonJson,
  pyInt,
  pyIsDigit,
  pyIsSpace,
  pyLen,
  pyReplace,
  pyRstrip,
  pySlice,
  pySplit,
  pyStrip,
  pyZfill,
  pythonFloatRepr,
  pythonFormat,
  pythonJsonDumps,
  pythonMean,
  pythonRepr,
  pythonRound,
  pythonStr,
} from './index';

// Every expected value comes from `cpython-cases.json`, written by `python3 scripts/record-cpython.py`
// (`pnpm record:cpython`): CPython's own outputs for the same inputs. Floats are recorded as their repr.
interface Outcome {
  value?: string;
  error?: string;
  message?: string;
}
interface Cases {
  python: string;
  unicode: string;
  float_repr: Array<{ in: string; out: string }>;
  round: Array<{ in: [string, number]; out: string }>;
  mean: Array<{ in: string[]; out: string }>;
  isspace: Array<[number, number]>;
  isdigit: Array<[number, number]>;
  str_methods: Array<{ in: string; strip: string; rstrip: string; split: string[]; isspace: boolean; len: number }>;
  strip_chars: Array<{ in: [string, string]; out: string }>;
  slice: Array<{ in: [string, number, number]; out: string; len: number }>;
  int: Array<{ in: string; out: Outcome }>;
  replace: Array<{ in: [string, string, string]; out: string }>;
  zfill: Array<{ in: [string, number]; out: string }>;
  format: Array<{ in: [string, unknown[] | Record<string, unknown>]; out: Outcome }>;
  repr: Array<{ in: string; repr: string; str: string }>;
  json_loads: Array<{ in: string; out: Outcome & { msg?: string; pos?: number; lineno?: number; colno?: number } }>;
  json_dumps: Array<{
    in: string;
    options: { indent?: number | string; separators?: [string, string]; ensure_ascii?: boolean; sort_keys?: boolean };
    out: string;
  }>;
  literal_eval: Array<{ in: string; out: Outcome }>;
  random: Array<{ seed: { int?: string; str?: string }; out: Record<string, unknown> }>;
}

const cases = JSON.parse(readFileSync(new URL('./cpython-cases.json', import.meta.url), 'utf8')) as Cases;

/** A float from its Python repr (`nan`, `inf`, `-0.0`, `1e-05`, ...). */
function float(repr: string): number {
  if (repr === 'nan') return Number.NaN;
  if (repr === 'inf') return Number.POSITIVE_INFINITY;
  if (repr === '-inf') return Number.NEGATIVE_INFINITY;
  return Number(repr);
}

function inRanges(cp: number, ranges: Array<[number, number]>): boolean {
  return ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
}

describe(`CPython ${cases.python} recorded outputs`, () => {
  it('repr(float): shortest digits, 1e-05 / 1e+16 exponent boundaries, nan/inf/-0.0', () => {
    for (const c of cases.float_repr) expect(pythonFloatRepr(float(c.in)), c.in).toBe(c.out);
  });

  it('round(x, n): exact binary value, ties to even (round(2.675, 2) == 2.67)', () => {
    for (const c of cases.round)
      expect(pythonFloatRepr(pythonRound(float(c.in[0]), c.in[1])), JSON.stringify(c.in)).toBe(c.out);
  });

  it('statistics.mean of floats', () => {
    for (const c of cases.mean) expect(pythonFloatRepr(pythonMean(c.in.map(float))), JSON.stringify(c.in)).toBe(c.out);
  });

  it('str.isspace() for every code point', () => {
    const wrong: number[] = [];
    for (let cp = 0; cp < 0x110000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (pyIsSpace(String.fromCodePoint(cp)) !== inRanges(cp, cases.isspace)) wrong.push(cp);
    }
    expect(wrong).toEqual([]);
  });

  it('str.isdigit() for every code point of the BMP and the recorded digit ranges', () => {
    const wrong: number[] = [];
    for (let cp = 0; cp < 0x10000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (pyIsDigit(String.fromCodePoint(cp)) !== inRanges(cp, cases.isdigit)) wrong.push(cp);
    }
    for (const [lo, hi] of cases.isdigit)
      for (let cp = lo; cp <= hi; cp++) if (!pyIsDigit(String.fromCodePoint(cp))) wrong.push(cp);
    expect(wrong).toEqual([]);
  });

  it('str.strip() / rstrip() / split() / isspace() / len() with Python whitespace (\\x1c-\\x1f, \\x85, \\u3000; not \\ufeff)', () => {
    for (const c of cases.str_methods) {
      expect(pyStrip(c.in), JSON.stringify(c.in)).toBe(c.strip);
      expect(pyRstrip(c.in), JSON.stringify(c.in)).toBe(c.rstrip);
      expect(pySplit(c.in), JSON.stringify(c.in)).toEqual(c.split);
      expect(pyIsSpace(c.in), JSON.stringify(c.in)).toBe(c.isspace);
      expect(pyLen(c.in), JSON.stringify(c.in)).toBe(c.len);
    }
  });

  it('str.strip(chars)', () => {
    for (const c of cases.strip_chars) expect(pyStrip(c.in[0], c.in[1]), JSON.stringify(c.in)).toBe(c.out);
  });

  it('slicing and len() by code point', () => {
    for (const c of cases.slice) {
      expect(pySlice(c.in[0], c.in[1], c.in[2]), JSON.stringify(c.in)).toBe(c.out);
      expect(pyLen(c.in[0])).toBe(c.len);
    }
  });

  it('int(str), including ValueError cases', () => {
    for (const c of cases.int) {
      if (c.out.error) {
        expect(() => pyInt(c.in), JSON.stringify(c.in)).toThrow(PythonValueError);
        expect(() => pyInt(c.in), JSON.stringify(c.in)).toThrow(c.out.message);
      } else expect(pyInt(c.in).toString(), JSON.stringify(c.in)).toBe(c.out.value);
    }
  });

  it('str.replace(old, new), including an empty old', () => {
    for (const c of cases.replace) expect(pyReplace(c.in[0], c.in[1], c.in[2]), JSON.stringify(c.in)).toBe(c.out);
  });

  it('str.zfill(width)', () => {
    for (const c of cases.zfill) expect(pyZfill(c.in[0], c.in[1]), JSON.stringify(c.in)).toBe(c.out);
  });

  it('str.format: {} / {0} / {name}, {{ }}, !r !s !a, and its errors', () => {
    for (const c of cases.format) {
      const [template, args] = c.in;
      const run = () => pythonFormat(template, args, { numbers: 'guess' });
      if (c.out.error) {
        expect(run, template).toThrow(FormatError);
        expect(run, template).toThrow(c.out.message);
      } else expect(run(), template).toBe(c.out.value);
    }
  });

  it('repr() and str() of json.loads values (quotes, escapes, non-printable characters, ints vs floats)', () => {
    for (const c of cases.repr) {
      const value = parsePythonJson(c.in);
      expect(pythonRepr(value), c.in).toBe(c.repr);
      expect(pythonStr(value), c.in).toBe(c.str);
    }
  });

  it('json.loads: values, and errors with the message, position, line and column of JSONDecodeError', () => {
    for (const c of cases.json_loads) {
      if (c.out.error) {
        let error: unknown;
        try {
          parsePythonJson(c.in);
        } catch (e) {
          error = e;
        }
        expect(error, JSON.stringify(c.in)).toBeInstanceOf(PythonJsonError);
        const e = error as PythonJsonError;
        expect([e.msg, e.position, e.lineno, e.colno], JSON.stringify(c.in)).toEqual([
          c.out.msg,
          c.out.pos,
          c.out.lineno,
          c.out.colno,
        ]);
      } else expect(pythonRepr(parsePythonJson(c.in)), c.in).toBe(c.out.value);
    }
  });

  it('json.dumps: indent, separators, ensure_ascii, sort_keys, float repr and escapes', () => {
    for (const c of cases.json_dumps) {
      const o = c.options;
      const got = pythonJsonDumps(parsePythonJson(c.in), {
        indent: o.indent,
        separators: o.separators,
        ensureAscii: o.ensure_ascii,
        sortKeys: o.sort_keys,
      });
      expect(got, `${c.in} ${JSON.stringify(o)}`).toBe(c.out);
    }
  });

  it('ast.literal_eval: nested tuples, sets, dicts, negative numbers, string prefixes and escapes; errors raise', () => {
    for (const c of cases.literal_eval) {
      if (c.out.error) expect(() => evalPythonLiteral(c.in), `${c.in} (${c.out.error})`).toThrow(PythonEvalError);
      else expect(pythonRepr(evalPythonLiteral(c.in), { numbers: 'guess' }), c.in).toBe(c.out.value);
    }
  });

  it('random: Mersenne Twister seeded by ints (incl. > 2**64, negative) and strs; random, getrandbits, choice, randint, sample, shuffle', () => {
    for (const c of cases.random) {
      const r = new PythonRandom(c.seed.int !== undefined ? BigInt(c.seed.int) : c.seed.str!);
      const got: Record<string, unknown> = {};
      got.getrandbits32 = Array.from({ length: 5 }, () => r.getrandbits(32));
      got.random = Array.from({ length: 3 }, () => pythonFloatRepr(r.random()));
      got.getrandbits64 = r.getrandbitsBig(64).toString();
      const range = (n: number) => Array.from({ length: n }, (_, i) => i);
      got.choice = Array.from({ length: 5 }, () => r.choice(range(10)));
      got.randint = Array.from({ length: 5 }, () => r.randint(1, 6));
      got.sample_pool = r.sample(range(50), 6);
      got.sample_pool_large_k = r.sample(range(100), 30);
      got.sample_set = r.sample(range(1000), 3);
      got.shuffle = r.shuffle([...'abcdefghij']);
      expect(got, JSON.stringify(c.seed)).toEqual(c.out);
    }
  });
});
