import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../errors';
import { RUN_FILES, type RunItem, listRuns, readRun, readRunManifest, resourceFileListSha256, startRun } from './index';
import { createHash } from 'node:crypto';

const work = mkdtempSync(join(tmpdir(), 'eval-runs-'));
let counter = 0;
const fresh = () => join(work, `r${counter++}`);

async function caught(promise: Promise<unknown>): Promise<InputError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

async function writeRun(dir: string, opts: { benchmark?: string; system?: string; score?: number; error?: boolean; skipped?: number } = {}) {
  const w = await startRun(dir, { benchmark: opts.benchmark ?? 'toy', variant: 'v1', system: opts.system ?? 'sys' });
  const items: RunItem[] = [
    { id: 'q1', values: { correct: true } },
    opts.error ? { id: 'q2', values: {}, error: 'HTTP 500' } : { id: 'q2', values: { correct: false } },
  ];
  return w.finish({ items, metrics: { accuracy: { value: opts.score ?? 0.5, n: 2 } }, skipped: opts.skipped });
}

describe('RunWriter', () => {
  it('writes items.jsonl and run.json; readRun reads them back', async () => {
    const dir = fresh();
    const input = join(work, 'input.txt');
    writeFileSync(input, 'abc');
    const w = await startRun(dir, { benchmark: 'toy', variant: 'v1', system: 'sys', command: ['toy', 'input.txt'], options: { k: 1 } });
    expect(existsSync(join(dir, RUN_FILES.started))).toBe(true);
    await w.addInput('predictions', input);
    w.addResource({ name: 'toy-data', commit: 'abc123', sha256: resourceFileListSha256([{ path: 'a', sha256: 'x' }]) });
    w.addArtifact(join(dir, 'native', 'out.json'), 'toy-json');
    w.addArtifact('/elsewhere/out.json', 'toy-json');
    w.setOption('threshold', 0.5);
    const m = await w.finish({ items: [{ id: 'q1', values: { correct: true }, detail: { why: 'ok' } }], metrics: { accuracy: { value: 1, n: 1 } } });
    expect(m.status).toBe('complete');
    // sha256("abc") is the FIPS 180-2 test vector
    expect(m.inputs).toEqual([{ role: 'predictions', path: input, size: 3, sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' }]);
    expect(m.artifacts).toEqual([
      { path: 'native/out.json', format: 'toy-json' },
      { path: '/elsewhere/out.json', format: 'toy-json' },
    ]);
    expect(m.options).toEqual({ k: 1, threshold: 0.5 });
    expect(m.counts).toEqual({ items: 1, evaluated: 1, failed: 0, skipped: 0 });
    expect(m.tool.node).toBe(process.version);
    expect(existsSync(join(dir, RUN_FILES.started))).toBe(false);
    const loaded = await readRun(dir);
    expect(loaded.manifest).toEqual(m);
    expect(loaded.items).toEqual([{ id: 'q1', values: { correct: true }, detail: { why: 'ok' } }]);
    expect(readFileSync(join(dir, 'items.jsonl'), 'utf8')).toBe('{"id":"q1","values":{"correct":true},"detail":{"why":"ok"}}\n');
  });

  it('is partial when an item failed or units were skipped, with the failures listed', async () => {
    const failed = await writeRun(fresh(), { error: true });
    expect(failed.status).toBe('partial');
    expect(failed.counts).toEqual({ items: 2, evaluated: 1, failed: 1, skipped: 0 });
    expect(failed.failures).toEqual([{ id: 'q2', reason: 'HTTP 500' }]);
    expect((await writeRun(fresh(), { skipped: 3 })).status).toBe('partial');
  });

  it('removes a stale run.json when a run restarts, so a crashed rewrite is never complete', async () => {
    const dir = fresh();
    await writeRun(dir);
    await startRun(dir, { benchmark: 'toy', variant: 'v1', system: 'sys' });
    expect(existsSync(join(dir, 'run.json'))).toBe(false);
    const error = await caught(readRun(dir));
    expect(error.message).toMatch(/run\.json.*unfinished run/);
    expect((await listRuns(dir))[0]).toMatchObject({ status: 'unfinished', benchmark: 'toy', system: 'sys' });
  });

  it('refuses to write duplicate item ids', async () => {
    const w = await startRun(fresh(), { benchmark: 'toy', variant: '', system: 's' });
    await expect(w.finish({ items: [{ id: 'x', values: {} }, { id: 'x', values: {} }], metrics: {} })).rejects.toThrow(/items 1 and 2 share the id "x"/);
  });

  it('refuses to write a manifest the schema would reject, and writes nothing', async () => {
    const dir = fresh();
    const w = await startRun(dir, { benchmark: 'toy', variant: '', system: 's' });
    const items = [{ id: 'x', values: { ok: true } }];
    await expect(w.finish({ items, metrics: { Acc: { value: Number.NaN, n: 1 } } })).rejects.toThrow(/invalid manifest at metrics\.Acc\.value: expected a finite number/);
    await expect(w.finish({ items, metrics: { Acc: { value: 1, n: -1 } } })).rejects.toThrow(/invalid manifest at metrics\.Acc\.n: expected a non-negative number/);
    expect(existsSync(join(dir, 'run.json'))).toBe(false);
    expect(existsSync(join(dir, 'items.jsonl'))).toBe(false);
  });

  it('addInput names a missing file', async () => {
    const w = await startRun(fresh(), { benchmark: 'toy', variant: '', system: 's' });
    const error = await caught(w.addInput('predictions', join(work, 'missing.json')));
    expect(error.message).toMatch(/missing\.json: file not found/);
  });
});

describe('resourceFileListSha256', () => {
  it('hashes the sorted "path sha256" lines, independent of listing order', () => {
    const expected = createHash('sha256').update('a.json 11\nb/c.json 22\n').digest('hex');
    expect(resourceFileListSha256([{ path: 'b/c.json', sha256: '22' }, { path: 'a.json', sha256: '11' }])).toBe(expected);
  });
});

describe('readRun: bad input names file, line and field', () => {
  it('no run.json: an unfinished run', async () => {
    const dir = fresh();
    mkdirSync(dir);
    const error = await caught(readRun(dir));
    expect(error.file).toBe(join(dir, 'run.json'));
    expect(error.message).toMatch(/no run\.json: not a run directory, or an unfinished run/);
  });

  it('an unknown schema version says which versions are known', async () => {
    const dir = fresh();
    await writeRun(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...manifest, schemaVersion: 7 }));
    const error = await caught(readRunManifest(dir));
    expect(error.field).toEqual(['schemaVersion']);
    expect(error.message).toMatch(/field schemaVersion: unknown run schema version 7 \(this reader knows 1/);
  });

  it('an invalid manifest field', async () => {
    const dir = fresh();
    await writeRun(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...manifest, status: 'done' }));
    const error = await caught(readRun(dir));
    expect(error.file).toBe(join(dir, 'run.json'));
    expect(error.field).toEqual(['status']);
  });

  it('a broken items.jsonl line, an invalid item field, a duplicate id (both lines)', async () => {
    const dir = fresh();
    await writeRun(dir);
    const file = join(dir, 'items.jsonl');
    writeFileSync(file, '{"id":"q1","values":{}}\n{"id":"q2","values":\n');
    let error = await caught(readRun(dir));
    expect([error.file, error.record]).toEqual([file, 2]);
    expect(error.message).toMatch(/record 2: invalid JSON/);
    writeFileSync(file, '{"id":"q1","values":{}}\n{"id":"q2","values":{"x":"yes"}}\n');
    error = await caught(readRun(dir));
    expect([error.file, error.record, error.field]).toEqual([file, 2, ['values', 'x']]);
    writeFileSync(file, '{"id":"q1","values":{}}\n\n{"id":"q2","values":{}}\n{"id":"q1","values":{}}\n');
    error = await caught(readRun(dir));
    expect([error.file, error.record, error.field]).toEqual([file, 4, ['id']]);
    expect(error.message).toMatch(/record 4, field id: duplicate item id "q1" \(first on line 1\)/);
  });
});

describe('listRuns', () => {
  it('lists finished, partial, unfinished and invalid runs; filters and sorts', async () => {
    const root = fresh();
    await writeRun(join(root, 'toy', 'a', 't1'), { system: 'a', score: 0.25 });
    await writeRun(join(root, 'toy', 'b', 't1'), { system: 'b', score: 0.75, error: true });
    await writeRun(join(root, 'other', 'c', 't1'), { benchmark: 'other', system: 'c', score: 0.5 });
    await startRun(join(root, 'toy', 'd', 't1'), { benchmark: 'toy', variant: 'v1', system: 'd' }); // never finished
    mkdirSync(join(root, 'loose'), { recursive: true });
    writeFileSync(join(root, 'loose', 'items.jsonl'), ''); // items but no run.json
    mkdirSync(join(root, 'broken'));
    writeFileSync(join(root, 'broken', 'run.json'), '{"schemaVersion": 1}');
    const all = await listRuns(root);
    const byDir = Object.fromEntries(all.map((r) => [r.dir.slice(root.length + 1), r.status]));
    expect(byDir).toEqual({
      'toy/a/t1': 'complete',
      'toy/b/t1': 'partial',
      'other/c/t1': 'complete',
      'toy/d/t1': 'unfinished',
      loose: 'unfinished',
      broken: 'invalid',
    });
    const toy = await listRuns(root, { benchmark: 'toy', sortBy: 'accuracy' });
    expect(toy.map((r) => [r.system, r.status])).toEqual([
      ['b', 'partial'],
      ['a', 'complete'],
      ['d', 'unfinished'], // no metric: last
    ]);
    const ascending = await listRuns(root, { benchmark: 'toy', sortBy: 'accuracy', descending: false });
    expect(ascending.map((r) => r.system)).toEqual(['a', 'b', 'd']);
  });

  it('names a missing directory', async () => {
    const error = await caught(listRuns(join(work, 'nowhere')));
    expect(error.message).toMatch(/nowhere: directory not found/);
  });
});
