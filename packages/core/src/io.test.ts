import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EvalError, InputError, formatFieldPath } from './errors';
import {
  parseCsv,
  parseJson,
  readCsv,
  readJson,
  readJsonl,
  readJsonlAll,
  readText,
  validate,
  writeFileAtomic,
} from './io';

const dir = mkdtempSync(join(tmpdir(), 'eval-core-io-'));

describe('InputError', () => {
  it('names file, record and field from a zod issue', () => {
    const schema = z.object({ turns: z.array(z.object({ response: z.string() })) });
    const err = (() => {
      try {
        validate(schema, { turns: [{ response: 'a' }, { response: 3 }] }, { file: 'preds.json', record: 'SNG0073' });
      } catch (e) {
        return e as InputError;
      }
    })()!;
    expect(err).toBeInstanceOf(InputError);
    expect(EvalError.isInstance(err)).toBe(true);
    expect(err.code).toBe('input_error');
    expect(err.file).toBe('preds.json');
    expect(err.record).toBe('SNG0073');
    expect(err.field).toEqual(['turns', 1, 'response']);
    expect(err.message).toMatch(/^preds\.json, record "SNG0073", field turns\[1\]\.response: /);
  });

  it('lists several issues with their paths', () => {
    const schema = z.object({ a: z.string(), b: z.number() });
    const r = schema.safeParse({ a: 1, b: 'x' });
    const err = InputError.fromZod(r.error!, { file: 'f.json' });
    expect(err.issues.map((i) => i.path)).toEqual([['a'], ['b']]);
    expect(err.message).toMatch(/2 issues\): a: .*; b: /);
  });

  it('formats field paths', () => {
    expect(formatFieldPath(['a', 0, 'b c', 'd'])).toBe('a[0]["b c"].d');
  });
});

describe('readers', () => {
  it('reads gzip transparently', async () => {
    const f = join(dir, 'x.json.gz');
    writeFileSync(f, gzipSync(Buffer.from('{"a": [1, 2]}')));
    expect(await readText(f)).toBe('{"a": [1, 2]}');
    expect(await readJson(f, z.object({ a: z.array(z.number()) }))).toEqual({ a: [1, 2] });
  });

  it('JSONL errors carry the line number', async () => {
    const f = join(dir, 'x.jsonl');
    writeFileSync(f, '{"id": 1}\n\n{"id": "two"}\n');
    await expect(readJsonlAll(f, z.object({ id: z.number() }))).rejects.toThrow(/x\.jsonl, record 3, field id: /);
    const g = join(dir, 'bad.jsonl');
    writeFileSync(g, '{"id": 1}\n{oops\n');
    await expect(readJsonlAll(g)).rejects.toThrow(/bad\.jsonl, record 2: invalid JSON/);
    const lines: number[] = [];
    for await (const r of readJsonl(f)) lines.push(r.line);
    expect(lines).toEqual([1, 3]);
  });

  it('a missing file is an input error naming it', async () => {
    await expect(readJson(join(dir, 'absent.json'))).rejects.toThrow(/absent\.json: file not found/);
  });

  it('invalid JSON names the file', async () => {
    const f = join(dir, 'broken.json');
    writeFileSync(f, '{"a": ');
    await expect(readJson(f)).rejects.toMatchObject({ code: 'invalid_json', file: f });
  });

  it('a JSON syntax error names the line, the column and what was expected', async () => {
    // '{"a": 1,\n  "b": [1 2]}': line 2 is '  "b": [1 2]'; after '1' (column 9) a space, then '2' at column 11
    // where ',' or ']' must come.
    expect(() => parseJson('{"a": 1,\n  "b": [1 2]}', 'f.json')).toThrow(
      `f.json: invalid JSON at line 2 column 11: expected ',' or a closing bracket, found "2"`,
    );
    // NaN is not JSON (json.loads accepts it; the strict reader does not): '{"x": ' is 6 characters, so 'N' is column 7
    expect(() => parseJson('{"x": NaN}')).toThrow(`invalid JSON at line 1 column 7: expected a value, found "N"`);
    expect(() => parseJson('[1, 2')).toThrow(
      `invalid JSON at line 1 column 6: expected ',' or a closing bracket, found the end of the input`,
    );
    // JSONL: the record is the file's line; '{oops' fails at column 2 of line 2
    const g = join(dir, 'bad-col.jsonl');
    writeFileSync(g, '{"id": 1}\n{oops\n');
    await expect(readJsonlAll(g)).rejects.toThrow(
      `bad-col.jsonl, record 2: invalid JSON at line 2 column 2: expected a property name in double quotes, found "o"`,
    );
  });

  it('parses RFC 4180 CSV', async () => {
    expect(parseCsv('a,b\r\n"x, ""y""",2\n"multi\nline",\n')).toEqual([
      ['a', 'b'],
      ['x, "y"', '2'],
      ['multi\nline', ''],
    ]);
    const f = join(dir, 'x.csv');
    writeFileSync(f, 'h1,h2\n1,2\n');
    expect(await readCsv(f)).toEqual([{ h1: '1', h2: '2' }]);
    expect(() => parseCsv('a,"b\n', { file: 'q.csv' })).toThrow(/q\.csv, record 1: unterminated/);
  });
});

describe.each([['writeFileAtomic', writeFileAtomic]] as const)('%s', (name, write) => {
  it('writes through a temporary file and leaves no residue', async () => {
    const sub = join(dir, `atomic-${name}`);
    await write(join(sub, 'out.json'), 'one');
    await write(join(sub, 'out.json'), 'two');
    expect(readFileSync(join(sub, 'out.json'), 'utf8')).toBe('two');
    await write(join(sub, 'bytes.bin'), Uint8Array.from([0, 1, 2, 255]));
    expect([...readFileSync(join(sub, 'bytes.bin'))]).toEqual([0, 1, 2, 255]);
    expect(readdirSync(sub).sort()).toEqual(['bytes.bin', 'out.json']);
  });
});
