import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '@eval/core';
import { describe, expect, it } from 'vitest';
import {
  cgaDirFor,
  goldAt,
  groupIdOf,
  parseGroupJson,
  readPredictions,
  readSettingDir,
  withReplayedGold,
} from './data';
import { replayCga } from './common-ground';
import { CGT, PREDICTIONS, itCgt } from './test/shared';

const turn = (text: unknown) => ({
  input: { role: 'user', content: 'q' },
  output: { text, model: 'm', role: 'assistant' },
});
// Written entry by entry: a JS object would move integer-like keys ("7") to the front.
const file = (
  rows: Record<string, { gold: unknown; answers: unknown[] }> | Array<[string, { gold: unknown; answers: unknown[] }]>,
) =>
  `{${(Array.isArray(rows) ? rows : Object.entries(rows))
    .map(([k, r]) => `${JSON.stringify(k)}: ${JSON.stringify({ gold: r.gold, gpt_chat: r.answers.map(turn) })}`)
    .join(', ')}}`;

function thrown(f: () => unknown): InputError {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

describe('parseGroupJson (evaluation input, spec section 2.2)', () => {
  it('rows follow the file key order, integer-like keys included; the prediction is the last chat output', () => {
    const text = file([
      ['98.088', { gold: ['blue=10', 'red=10'], answers: ['{"red": 20}', '{"red": 10}'] }],
      ['7', { gold: [], answers: ['{}'] }],
      ['12.0', { gold: ['red=10'], answers: ['{"Red Block": 10}'] }],
    ]);
    const g = parseGroupJson(text, { file: 'x_group_3.json' });
    expect(g.id).toBe('3');
    expect(g.rows.map((r) => r.key)).toEqual(['98.088', '7', '12.0']);
    expect([...g.rows[0]!.pred]).toEqual([['red', '10']]);
    expect([...g.rows[0]!.gold]).toEqual([
      ['blue', '10'],
      ['red', '10'],
    ]);
    expect([...g.rows[2]!.pred]).toEqual([['red', '10']]);
  });

  it('an answer that is not a JSON object is an input error naming file, record and field (the reference crashes)', () => {
    const text = file({
      '5.5': { gold: [], answers: ['{}'] },
      '9.25': { gold: ['red=10'], answers: ['hello', 'The red block is 10.'] },
    });
    const e = thrown(() => parseGroupJson(text, { file: 'g_group_1.json' }));
    expect(e.file).toBe('g_group_1.json');
    expect(e.record).toBe('9.25');
    expect(e.field).toEqual(['gpt_chat', 1, 'output', 'text']);
    expect(e.message).toMatch(
      /g_group_1\.json, record "9\.25", field gpt_chat\[1\]\.output\.text: the answer is not JSON/,
    );
    expect(e.message).toMatch(/--invalid-prediction empty/);
  });

  it("invalidPrediction: 'empty' scores such answers as {} and marks them", () => {
    const text = file({
      '1.0': { gold: ['red=10'], answers: ['[1, 2]'] },
      '2.0': { gold: ['red=10'], answers: [null] },
    });
    const g = parseGroupJson(text, { invalidPrediction: 'empty' });
    expect(g.rows.map((r) => r.pred.size)).toEqual([0, 0]);
    expect(g.rows.map((r) => r.invalid?.reason)).toEqual(['not_object', 'not_text']);
  });

  it('structural problems are input errors with the zod path', () => {
    expect(
      thrown(() => parseGroupJson(file({ '1.0': { gold: 'red=10', answers: ['{}'] } }), { file: 'f.json' })).message,
    ).toMatch(/f\.json, record "1\.0", field gold: /);
    expect(
      thrown(() => parseGroupJson(file({ '1.0': { gold: ['red=10'], answers: [] } }), { file: 'f.json' })).message,
    ).toMatch(/field gpt_chat: no chat turns/);
    expect(
      thrown(() => parseGroupJson(file({ '1.0': { gold: ['red=10', 'blue'], answers: ['{}'] } }), { file: 'f.json' }))
        .message,
    ).toMatch(/field gold\[1\]: gold item "blue" has no "="/);
    expect(thrown(() => parseGroupJson('[1]', { file: 'f.json' })).message).toMatch(/f\.json: expected a JSON object/);
    expect(thrown(() => parseGroupJson('{"1.0": ', { file: 'f.json' })).code).toBe('invalid_json');
  });

  it('groupIdOf reads the group number from the fixed file-name pattern', () => {
    expect(groupIdOf('mmdp_gpt_output_gpt-3.5-0125_segmented_group_10.json')).toBe('10');
    expect(groupIdOf('/x/y_group_07.json')).toBe('7');
    expect(groupIdOf('notes.json')).toBeUndefined();
  });
});

describe('reading folders', () => {
  itCgt('a setting folder: groups in numeric order (1..10, not 1, 10, 2)', async () => {
    const s = await readSettingDir(join(PREDICTIONS, 'dp-gpt4o'));
    expect(s.name).toBe('dp-gpt4o');
    expect(s.groups.map((g) => g.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
  });

  itCgt('a folder of setting folders: every sub-folder with group files, sorted by name', async () => {
    const all = await readPredictions(PREDICTIONS);
    expect(all.map((s) => s.name)).toEqual([
      'dp-gpt3.5',
      'dp-gpt4o',
      'text-gpt3.5',
      'text-mm-gpt3.5',
      'vision-4o-mini',
    ]);
  });

  itCgt('a single group file is one setting with one group', async () => {
    const [s] = await readPredictions(
      join(PREDICTIONS, 'dp-gpt4o', 'mmdp_gpt_output_gpt-3.5-0125_segmented_group_9.json'),
    );
    expect(s!.name).toBe('dp-gpt4o');
    expect(s!.groups.map((g) => [g.id, g.rows.length])).toEqual([['9', 4]]);
  });

  it('onRead sees every group file with the bytes as read, in group order (a run record hashes them)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cgt-onread-'));
    const dir = join(root, 'setting-a');
    mkdirSync(dir);
    const texts = [
      file({ a: { gold: ['red=10'], answers: ['{"red": 10}'] } }),
      file({ b: { gold: [], answers: ['{}'] } }),
    ];
    const names = ['out_group_2.json', 'out_group_10.json'];
    names.forEach((n, i) => writeFileSync(join(dir, n), texts[i]!));
    const seen: Array<[string, string]> = [];
    const [setting] = await readPredictions(root, {
      onRead: (f, bytes) => seen.push([f, Buffer.from(bytes).toString('utf8')]),
    });
    expect(setting!.groups.map((g) => g.id)).toEqual(['2', '10']);
    expect(seen).toEqual(names.map((n, i) => [join(dir, n), texts[i]]));
  });

  it('missing or empty folders are input errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cgt-empty-'));
    await expect(readPredictions(dir)).rejects.toThrow(/no group files/);
    await expect(readPredictions(join(dir, 'nope'))).rejects.toThrow(/directory not found/);
  });
});

describe('gold from the CGA annotations', () => {
  itCgt('cgaDirFor picks the variant sub-folder of a resource-set layout, else the folder itself', async () => {
    expect(await cgaDirFor(CGT)).toBe(join(CGT, 'cga_originals'));
    expect(await cgaDirFor(CGT, 'new')).toBe(join(CGT, 'cga_new'));
    expect(await cgaDirFor(join(CGT, 'cga_new'))).toBe(join(CGT, 'cga_new'));
  });

  it('goldAt needs the row key to be an end time of the annotations', () => {
    const h = replayCga(
      'Begin Time - ss.msec,End Time - ss.msec,Common Ground\n1,2,S0: STATEMENT(red = 10)\n2,3,ACCEPT(S0)',
    );
    expect(goldAt(h, '3.0')).toEqual(new Map([['red', '10']]));
    expect(() => goldAt(h, '4.0', { file: 'p.json', cgaFile: 'G.csv' })).toThrow(
      /p\.json, record "4\.0": no STATEMENT\/ACCEPT of G\.csv ends at this time/,
    );
    expect(() => goldAt(h, 'abc')).toThrow(/row key is not a time/);
  });

  itCgt('withReplayedGold on cga_new changes the gold of some rows (auto-accepted statements)', async () => {
    const s = await readSettingDir(join(PREDICTIONS, 'dp-gpt4o'));
    const replayed = await withReplayedGold(s.groups, join(CGT, 'cga_new'));
    const changed = replayed.flatMap((g, i) =>
      g.rows.filter((r, j) => [...r.gold].sort().join() !== [...s.groups[i]!.rows[j]!.gold].sort().join()),
    );
    expect(changed.length).toBeGreaterThan(0);
  });

  it('a missing CSV is an input error naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cgt-cga-'));
    mkdirSync(join(dir, 'x'));
    writeFileSync(join(dir, 'x', 'a_group_1.json'), file({ '1.0': { gold: [], answers: ['{}'] } }));
    const s = await readSettingDir(join(dir, 'x'));
    await expect(withReplayedGold(s.groups, dir)).rejects.toThrow(/Group_01_CGA\.csv: file not found/);
  });
});
