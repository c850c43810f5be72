import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, readJson } from '@eval/core';
import { describe, expect, it } from 'vitest';
import { readMultiwozData } from './data';

const BOOKED =
  '{\n  "sng01856": [\n    [],\n    [\n      "hotel"\n    ]\n  ],\n  "pmul1635": [[], ["hotel", "train"]]\n}\n';

describe('booked_domains.json', () => {
  function dataDir(booked: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'mwz-data-'));
    mkdirSync(join(dir, 'database'));
    for (const d of ['restaurant', 'attraction', 'hotel', 'train'])
      writeFileSync(join(dir, 'database', `${d}_db.json`), '[{"id": 1}]');
    writeFileSync(join(dir, 'goals.json'), '{}');
    writeFileSync(join(dir, 'booked_domains.json'), booked);
    return dir;
  }

  it('entries in file order, with a BOM too; an entry is validated when used, its error naming file and dialogue', async () => {
    for (const text of [BOOKED, `\ufeff${BOOKED}`]) {
      const data = await readMultiwozData({ dir: dataDir(text), success: true });
      expect(data.bookedDomains!.ids()).toEqual(['sng01856', 'pmul1635']);
      expect(data.bookedDomains!.get('pmul1635')).toEqual([[], ['hotel', 'train']]);
      expect(data.bookedDomains!.has('mul0001')).toBe(false);
      expect(data.bookedDomains!.get('mul0001')).toBeUndefined();
    }
    const dir = dataDir('{"a": [["x"]], "b": [[1]]}');
    const table = (await readMultiwozData({ dir, success: true })).bookedDomains!;
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

  it('a syntax error or a top-level value that is not an object is reported as the JSON reader does (file, line, column)', async () => {
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
      await expect(readMultiwozData({ dir, success: true })).rejects.toThrow((expected as InputError).message);
      await expect(readMultiwozData({ dir, success: true })).rejects.toMatchObject({ file });
    }
  });
});
