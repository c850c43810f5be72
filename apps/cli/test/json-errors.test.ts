import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli';

// One broken JSON text, given to every benchmark's reader. Line 3 is `  "b" 2`: after the property name "b" (columns
// 3-5) and a space, column 7 holds `2` where Python's json.loads expects the ':' delimiter.
const BROKEN_JSON = '{\n  "a": 1,\n  "b" 2\n}\n';
const JSON_MESSAGE = `invalid JSON at line 3 column 7: expected ':' after the property name, found "2"`;
// The same mistake in a JSONL file: lines 1-2 are blank (skipped), line 3 is `  {"b" 2}`, whose `2` is column 8.
const BROKEN_JSONL = '\n\n  {"b" 2}\n';
const JSONL_MESSAGE = `record 3: invalid JSON at line 3 column 8: expected ':' after the property name, found "2"`;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dialeval-json-errors-'));
  writeFileSync(join(dir, 'broken.json'), BROKEN_JSON);
  writeFileSync(join(dir, 'setting_group_1.json'), BROKEN_JSON); // cgt reads group files by this name pattern
  mkdirSync(join(dir, 'episode'));
  writeFileSync(join(dir, 'episode', 'interactions.json'), BROKEN_JSON);
  writeFileSync(join(dir, 'broken.jsonl'), BROKEN_JSONL);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('one JSON reader: the same syntax error reads the same through every benchmark', () => {
  const jsonCases: Array<[string, (d: string) => string[], string]> = [
    ['cgt', (d) => ['cgt', join(d, 'setting_group_1.json')], 'setting_group_1.json'],
    ['multiwoz', (d) => ['multiwoz', join(d, 'broken.json')], 'broken.json'],
    [
      'llm-judge convert',
      (d) => [
        'llm-judge',
        'convert',
        '--dialogues',
        join(d, 'broken.json'),
        '--raw-predictions',
        join(d, 'broken.json'),
        '--out',
        join(d, 'x.json'),
      ],
      'broken.json',
    ],
    ['memory aggregate', (d) => ['memory', 'aggregate', join(d, 'broken.json')], 'broken.json'],
    [
      'scorekeeping score',
      (d) => ['scorekeeping', 'score', join(d, 'episode', 'interactions.json')],
      join('episode', 'interactions.json'),
    ],
  ];

  it.each(jsonCases)('%s: file, line, column and what was expected; exit 2', async (_name, args, file) => {
    const r = await runCli(args(dir));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, file)}: ${JSON_MESSAGE}`);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(join(dir, 'x.json'))).toBe(false); // nothing written
  });

  it('memory judge (JSONL, streamed): the line is the record, with the same wording', async () => {
    const out = join(dir, 'stat.json');
    const r = await runCli(['memory', 'judge', join(dir, 'broken.jsonl'), '--out', out, '--model', 'm', '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'broken.jsonl')}, ${JSONL_MESSAGE}`);
    expect(existsSync(out)).toBe(false);
  });
});
