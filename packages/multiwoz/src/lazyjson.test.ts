import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, readJson } from '@eval/core';
import { describe, expect, it } from 'vitest';
import { loadMultiwozData } from './data';
import { scanJsonObject } from './lazyjson';

/** What the scanner must agree with: `JSON.parse` accepts the text and gives a plain object. */
function parsesToObject(text: string): boolean {
  try {
    const v = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

function expectSameAsParse(text: string): void {
  const lazy = scanJsonObject(text);
  if (!parsesToObject(text)) {
    expect(lazy, text).toBeUndefined();
    return;
  }
  expect(lazy, text).toBeDefined();
  const full = JSON.parse(text) as Record<string, unknown>;
  expect(lazy!.keys()).toEqual(Object.keys(full));
  expect(lazy!.size).toBe(Object.keys(full).length);
  for (const k of Object.keys(full)) {
    expect(lazy!.has(k)).toBe(true);
    expect(lazy!.get(k)).toEqual(full[k]);
  }
}

const BOOKED =
  '{\n  "sng01856": [\n    [],\n    [\n      "hotel"\n    ]\n  ],\n  "pmul1635": [[], ["hotel", "train"]]\n}\n';
const MIXED =
  '{"a": {"x": [1, -2.5e+3, 0, true, false, null, "}{][", "q\\"}"], "y": {}}, "b\\u0041": [], "c": "s", "d": 0.5E-1, ' +
  '"e": [[["\\\\"]]], "": {"k": {"l": [{}]}}, "f": [[], ["a\\nb", "\\ud83d\\ude00"]], "7": 1, "2": 2}';

describe('scanJsonObject', () => {
  it('finds every top-level value of a valid object, in JSON.parse key order', () => {
    for (const text of [BOOKED, MIXED, '{}', ' { } ', '{"a":[]}', '\t{"a" : [ [ "x" ] ] }\r\n'])
      expectSameAsParse(text);
    expect(scanJsonObject(MIXED)!.keys().slice(0, 2)).toEqual(['2', '7']);
  });

  it('keeps the last value of a duplicate key at the first key position (as JSON.parse and Python json)', () => {
    const text = '{"a": [["x"]], "b": 1, "a": [["y"]]}';
    const lazy = scanJsonObject(text)!;
    expect(lazy.get('a')).toEqual([['y']]);
    expect(lazy.keys()).toEqual(['a', 'b']);
    expectSameAsParse(text);
  });

  it('reads braces and brackets inside strings as text', () => {
    const text = '{"k{": ["}", "]", "[{"], "z": {"]": "}"}}';
    expectSameAsParse(text);
    expect(scanJsonObject(text)!.get('k{')).toEqual(['}', ']', '[{']);
  });

  it('rejects what JSON.parse rejects: truncation, bad escapes, raw control characters, bad numbers, trailing data', () => {
    const bad = [
      '',
      '{',
      '{"a": [["x"]]',
      '{"a": [["x"]],}',
      '{"a": [["x"],]}',
      '{"a": "\\x"}',
      '{"a": "\\u12G4"}',
      '{"a\\q": 1}',
      '{"a": "tab\there"}',
      '{"a": 01}',
      '{"a": 1.}',
      '{"a": +1}',
      '{"a": .5}',
      '{"a": 1e}',
      '{"a": tru}',
      '{"a": NaN}',
      '{"a": 1} x',
      '{"a": 1}{}',
      '{"a" 1}',
      '{a: 1}',
      "{'a': 1}",
      '{"a": [1 2]}',
      '{"a": {"b"}}',
      '{"a": {"b": 1,}}',
      '{"a": [}',
      '\u00a0{}',
      '\ufeff{}',
    ];
    for (const text of bad) expectSameAsParse(text);
  });

  it('gives undefined for valid JSON that is not an object (the caller parses it fully)', () => {
    for (const text of ['[]', '1', '"{}"', 'null']) expect(scanJsonObject(text)).toBeUndefined();
  });

  it('agrees with JSON.parse on every truncation and on many one-character edits', () => {
    for (const base of [BOOKED, MIXED]) {
      for (let n = 0; n < base.length; n++) expectSameAsParse(base.slice(0, n));
      const chars = ['"', '\\', '{', '}', '[', ']', ',', ':', ' ', 'a', '0', '-', '.', 'e', '\n', '\u0001', 'u'];
      for (let i = 0; i < base.length; i++) {
        for (const c of chars) {
          expectSameAsParse(base.slice(0, i) + c + base.slice(i + 1));
          expectSameAsParse(base.slice(0, i) + c + base.slice(i));
        }
        expectSameAsParse(base.slice(0, i) + base.slice(i + 1));
      }
    }
  });

  it('handles nesting deeper than its initial stack', () => {
    const deep = `{"a": ${'['.repeat(1000)}${']'.repeat(1000)}}`;
    expectSameAsParse(deep);
    expectSameAsParse(`${deep.slice(0, -2)}}`);
  });
});

describe('booked_domains.json read lazily', () => {
  function dataDir(booked: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'mwz-lazy-'));
    mkdirSync(join(dir, 'database'));
    for (const d of ['restaurant', 'attraction', 'hotel', 'train'])
      writeFileSync(join(dir, 'database', `${d}_db.json`), '[{"id": 1}]');
    writeFileSync(join(dir, 'goals.json'), '{}');
    writeFileSync(join(dir, 'booked_domains.json'), booked);
    return dir;
  }

  it('gives the same entries as a full parse, with a BOM too, and validates entries when used', async () => {
    for (const text of [BOOKED, `\ufeff${BOOKED}`]) {
      const data = await loadMultiwozData({ dir: dataDir(text), success: true });
      expect(data.bookedDomains!.ids()).toEqual(['sng01856', 'pmul1635']);
      expect(data.bookedDomains!.get('pmul1635')).toEqual([[], ['hotel', 'train']]);
      expect(data.bookedDomains!.has('mul0001')).toBe(false);
      expect(data.bookedDomains!.get('mul0001')).toBeUndefined();
    }
    const dir = dataDir('{"a": [["x"]], "b": [[1]]}');
    const table = (await loadMultiwozData({ dir, success: true })).bookedDomains!;
    expect(table.get('a')).toEqual([['x']]);
    const error = (() => {
      try {
        table.get('b');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toContain('b');
    expect((error as InputError).file).toBe(join(dir, 'booked_domains.json'));
  });

  it('reports a syntax error anywhere in the file exactly as the full reader does (file, line, column)', async () => {
    for (const text of [
      `${BOOKED.slice(0, -3)}`,
      BOOKED.replace('"hotel"\n', '"hotel",\n'),
      BOOKED.replace('[[]', '[[}'),
      '[]',
      '{"a": [["x"]]} {}',
    ]) {
      const dir = dataDir(text);
      const file = join(dir, 'booked_domains.json');
      const expected = await readJson(file).then(
        (v) =>
          typeof v === 'object' && v !== null && !Array.isArray(v)
            ? undefined
            : new InputError('expected a JSON object keyed by dialogue id', { file }),
        (e: unknown) => e,
      );
      expect(expected).toBeInstanceOf(InputError);
      await expect(loadMultiwozData({ dir, success: true })).rejects.toThrow((expected as InputError).message);
      await expect(loadMultiwozData({ dir, success: true })).rejects.toMatchObject({ file });
    }
  });
});
