import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InputError } from '../errors';
import { readCsv, readJson } from '../io';
import {
  FileDigests,
  RUN_FILES,
  type RunFailure,
  type RunFinish,
  type RunItem,
  type RunLlm,
  type RunManifest,
  type RunMetric,
  type RunResource,
  type RunWriterInit,
  listRuns,
  readRun,
  readRunManifest,
  resourceFileListSha256,
  resolveRunLocation,
  runLocation,
  startRun,
} from '../index';
import { runManifestSchema } from './schema';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';

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

async function writeRun(
  dir: string,
  opts: { benchmark?: string; system?: string; score?: number; error?: boolean; skipped?: number } = {},
) {
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
    const w = await startRun(dir, {
      benchmark: 'toy',
      variant: 'v1',
      system: 'sys',
      command: ['toy', 'input.txt'],
      options: { k: 1 },
    });
    expect(existsSync(join(dir, RUN_FILES.started))).toBe(true);
    await w.addInput('predictions', input);
    w.addResource({ name: 'toy-data', commit: 'abc123', sha256: resourceFileListSha256([{ path: 'a', sha256: 'x' }]) });
    w.addArtifact(join(dir, 'native', 'out.json'), 'toy-json');
    w.addArtifact('/elsewhere/out.json', 'toy-json');
    w.setOption('threshold', 0.5);
    const m = await w.finish({
      items: [{ id: 'q1', values: { correct: true }, detail: { why: 'ok' } }],
      metrics: { accuracy: { value: 1, n: 1 } },
    });
    expect(m.status).toBe('complete');
    // sha256("abc") is the FIPS 180-2 test vector
    expect(m.inputs).toEqual([
      {
        role: 'predictions',
        path: input,
        size: 3,
        sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      },
    ]);
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
    expect(readFileSync(join(dir, 'items.jsonl'), 'utf8')).toBe(
      '{"id":"q1","values":{"correct":true},"detail":{"why":"ok"}}\n',
    );
  });

  it('is partial when an item failed or units were skipped, with the failures listed', async () => {
    const failed = await writeRun(fresh(), { error: true });
    expect(failed.status).toBe('partial');
    expect(failed.counts).toEqual({ items: 2, evaluated: 1, failed: 1, skipped: 0 });
    expect(failed.failures).toEqual([{ id: 'q2', reason: 'HTTP 500' }]);
    expect((await writeRun(fresh(), { skipped: 3 })).status).toBe('partial');
  });

  it('a run written into an existing directory sweeps the temporary files dead processes left there (a new directory has none)', async () => {
    const dir = fresh();
    mkdirSync(dir, { recursive: true });
    // a pid that surely belongs to no process any more: a child that has exited
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    const stale = `.items.jsonl.${dead}.1764000000000.0.tmp`;
    writeFileSync(join(dir, stale), 'half an items file');
    await writeRun(dir);
    expect(readdirSync(dir).sort()).toEqual(['items.jsonl', 'run.json']);
    const created = fresh();
    await writeRun(created);
    expect(readdirSync(created).sort()).toEqual(['items.jsonl', 'run.json']);
  });

  it('runLocation: relative with / inside the run directory, absolute outside; resolveRunLocation reads either back', () => {
    const run = join(work, 'loc-run');
    const inside = join(run, 'native', 'out.json');
    const outside = join(work, 'elsewhere', 'out.json');
    expect(runLocation(run, inside)).toBe('native/out.json');
    expect(runLocation(run, outside)).toBe(outside);
    expect(runLocation(run, run)).toBe(run);
    expect(runLocation(run, join(work, 'loc-run-2', 'x'))).toBe(join(work, 'loc-run-2', 'x'));
    for (const file of [inside, outside]) expect(resolveRunLocation(run, runLocation(run, file))).toBe(file);
  });

  it('runLocation gives what path.relative decides, for paths in, under, beside and above the run directory', () => {
    // the rule as path.relative states it (runLocation checks POSIX paths by their prefix instead)
    const byRelative = (runDir: string, file: string) => {
      const abs = resolve(file);
      const rel = relative(resolve(runDir), abs);
      return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : abs;
    };
    const run = join(work, 'loc-cmp', 'run');
    const files = [
      join(run, 'items.jsonl'),
      join(run, 'a', 'b', 'c.json'),
      join(run, '..foo'),
      join(run, '.hidden'),
      `${run}/x/../y.json`,
      run,
      `${run}/`,
      join(work, 'loc-cmp'),
      join(work, 'loc-cmp', 'run-2', 'x'),
      join(work, 'loc-cmp', 'ru'),
      join(work, 'loc-cmp', 'run.json'),
      '/',
      '/etc/passwd',
      'relative/file.json',
      '.',
      '..',
    ];
    for (const dir of [run, `${run}/`, `${run}/sub/..`, '/', 'relative-run', '.']) {
      for (const file of files) expect(runLocation(dir, file), `${dir} ${file}`).toBe(byRelative(dir, file));
    }
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
    await expect(
      w.finish({
        items: [
          { id: 'x', values: {} },
          { id: 'x', values: {} },
        ],
        metrics: {},
      }),
    ).rejects.toThrow(/items 1 and 2 share the id "x"/);
  });

  it('takes the items from any iterable, read once: a generator gives the same files as the array', async () => {
    const items: RunItem[] = [
      { id: 'q1', values: { correct: true }, detail: { why: 'ok' } },
      { id: 'q2', values: {}, error: 'HTTP 500' },
      { id: 'q3', values: { correct: false } },
    ];
    const [a, b] = [fresh(), fresh()];
    const init = { benchmark: 'toy', variant: 'v1', system: 'sys', id: 'fixed' };
    const ma = await (await startRun(a, init)).finish({ items, metrics: { accuracy: { value: 0.5, n: 2 } } });
    let reads = 0;
    const lazy = (function* () {
      for (const item of items) {
        reads++;
        yield item;
      }
    })();
    const mb = await (await startRun(b, init)).finish({ items: lazy, metrics: { accuracy: { value: 0.5, n: 2 } } });
    expect(reads).toBe(3);
    expect(readFileSync(join(b, 'items.jsonl'), 'utf8')).toBe(readFileSync(join(a, 'items.jsonl'), 'utf8'));
    expect({ ...mb, createdAt: '', finishedAt: '' }).toEqual({ ...ma, createdAt: '', finishedAt: '' });
    expect(mb.counts).toEqual({ items: 3, evaluated: 2, failed: 1, skipped: 0 });
    expect(mb.failures).toEqual([{ id: 'q2', reason: 'HTTP 500' }]);
    // a duplicate id from a generator is refused before anything is written
    const c = fresh();
    const dup = (function* () {
      yield { id: 'x', values: {} };
      yield { id: 'x', values: {} };
    })();
    await expect((await startRun(c, init)).finish({ items: dup, metrics: {} })).rejects.toThrow(
      /items 1 and 2 share the id "x"/,
    );
    expect(existsSync(join(c, 'items.jsonl'))).toBe(false);
    expect(existsSync(join(c, 'run.json'))).toBe(false);
    // items are written to a temporary file as they are serialised: a duplicate after the first chunk (and a native
    // output given to finish) leave nothing behind but the start marker
    const e = fresh();
    const late = (function* (): Generator<RunItem> {
      for (let i = 0; i < 3000; i++) yield { id: `i${i}`, values: { v: i }, detail: { text: 'x'.repeat(200) } };
      yield { id: 'i7', values: {} };
    })();
    const we = await startRun(e, init);
    we.addArtifact(join(e, 'native.txt'), 'text', 'native\n');
    await expect(we.finish({ items: late, metrics: {} })).rejects.toThrow(/items 8 and 3001 share the id "i7"/);
    expect(readdirSync(e)).toEqual(['.run-started.json']);
    // many items (written in several chunks): the same lines, in order, as one text
    const f = fresh();
    const many: RunItem[] = Array.from({ length: 3000 }, (_, i) => ({
      id: `i${i}`,
      values: { v: i, ok: i % 3 === 0 },
      detail: { text: `é${'y'.repeat(i % 300)}` },
    }));
    await (await startRun(f, init)).finish({ items: many, metrics: {} });
    expect(readFileSync(join(f, 'items.jsonl'), 'utf8')).toBe(`${many.map((i) => JSON.stringify(i)).join('\n')}\n`);
    // no item at all: an empty items.jsonl
    const d = fresh();
    await (await startRun(d, init)).finish({ items: [][Symbol.iterator](), metrics: {} });
    expect(readFileSync(join(d, 'items.jsonl'), 'utf8')).toBe('');
  });

  it('refuses to write a manifest the schema would reject, and writes nothing', async () => {
    const dir = fresh();
    const w = await startRun(dir, { benchmark: 'toy', variant: '', system: 's' });
    const items = [{ id: 'x', values: { ok: true } }];
    await expect(w.finish({ items, metrics: { Acc: { value: Number.NaN, n: 1 } } })).rejects.toThrow(
      /invalid manifest at metrics\.Acc\.value: /,
    );
    await expect(w.finish({ items, metrics: { Acc: { value: 1, n: -1 } } })).rejects.toThrow(
      /invalid manifest at metrics\.Acc\.n: /,
    );
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
    expect(
      resourceFileListSha256([
        { path: 'b/c.json', sha256: '22' },
        { path: 'a.json', sha256: '11' },
      ]),
    ).toBe(expected);
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

describe('readRun: a damaged run (items.jsonl cut short, or edited) is refused, never read as a result', () => {
  it('fewer or more item lines than run.json counts: an error naming items.jsonl, with both counts', async () => {
    const dir = fresh();
    await writeRun(dir);
    const file = join(dir, 'items.jsonl');
    const [first, second] = readFileSync(file, 'utf8').split('\n');
    // what a power loss can leave of a run written without fsync: run.json on disk, items.jsonl not (all of it)
    for (const [text, n] of [
      ['', 0],
      [`${first}\n`, 1],
      [`${first}\n${second}\n{"id":"q3","values":{}}\n`, 3],
    ] as const) {
      writeFileSync(file, text);
      const error = await caught(readRun(dir));
      expect(error.file).toBe(file);
      expect(error.code).toBe('input_damaged_run');
      expect(error.message).toBe(
        `${file}: has ${n} item line(s) where run.json's counts.items is 2: the run is damaged (cut short or edited); write it again`,
      );
    }
    writeFileSync(file, `${first}\n${second}\n`);
    expect((await readRun(dir)).items.map((i) => i.id)).toEqual(['q1', 'q2']);
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

describe('FileDigests: inputs hashed from the bytes the command read', () => {
  const sha = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

  it('readJson/readText/readCsv hand the bytes as read (gzip: the compressed file) to onRead', async () => {
    const json = join(work, 'digest-input.json');
    const gz = join(work, 'digest-input.json.gz');
    const csv = join(work, 'digest-input.csv');
    writeFileSync(json, '{"a": 1}\n');
    writeFileSync(gz, gzipSync(Buffer.from('{"b": 2}')));
    writeFileSync(csv, 'x,y\n1,2\n');
    const seen: Array<[string, string]> = [];
    const onRead = (file: string, bytes: Uint8Array) => seen.push([file, sha(bytes)]);
    expect(await readJson(json, undefined, { onRead })).toEqual({ a: 1 });
    expect(await readJson(gz, undefined, { onRead })).toEqual({ b: 2 });
    expect(await readCsv(csv, { onRead })).toEqual([{ x: '1', y: '2' }]);
    expect(seen).toEqual([
      [json, sha(readFileSync(json))],
      [gz, sha(readFileSync(gz))],
      [csv, sha(readFileSync(csv))],
    ]);
  });

  it('addInput records the digest of the bytes read, not of the file as it is later', async () => {
    const input = join(work, 'digest-changed.json');
    writeFileSync(input, '{"v": 1}');
    const digests = new FileDigests();
    await readJson(input, undefined, { onRead: digests.onRead });
    writeFileSync(input, '{"v": 22}'); // changed after the evaluation read it
    const w = await startRun(fresh(), { benchmark: 'toy', variant: '', system: 's' });
    await w.addInput('predictions', input, digests);
    const m = await w.finish({ items: [], metrics: {} });
    expect(m.inputs).toEqual([{ role: 'predictions', path: input, size: 8, sha256: sha('{"v": 1}') }]);
  });

  it('a file not read through onRead is hashed from disk; a relative path finds the bytes read by its absolute path', async () => {
    const input = join(work, 'digest-unread.txt');
    writeFileSync(input, 'abc');
    const digests = new FileDigests();
    expect(await digests.get(input)).toEqual({ size: 3, sha256: sha('abc') });
    digests.onRead(input, Buffer.from('other bytes'));
    expect(await digests.get(relative(process.cwd(), input))).toEqual({ size: 11, sha256: sha('other bytes') });
    const error = await caught(digests.get(join(work, 'digest-missing.txt')));
    expect(error.message).toMatch(/digest-missing\.txt: file not found/);
  });
});

describe("RunWriter.addArtifact with content: written by finish, with the run's own files", () => {
  it('writes the artifacts byte for byte (text and bytes, inside and outside the run), lists them in order, leaves no temporary file', async () => {
    const dir = fresh();
    const outside = join(work, 'artifact-outside', 'native.bin');
    const w = await startRun(dir, { benchmark: 'toy', variant: '', system: 's' });
    const text = 'line 1\nünïcode ✓\n';
    const bytes = Uint8Array.from([0, 255, 10, 13, 128]);
    w.addArtifact(join(dir, 'native.txt'), 'toy-text', text);
    w.addArtifact(outside, 'toy-bytes', bytes);
    // not written before finish: nothing for a reader to mistake for a complete run's output
    expect(existsSync(join(dir, 'native.txt'))).toBe(false);
    const m = await w.finish({ items: [{ id: 'a', values: { x: 1 } }], metrics: { x: { value: 1, n: 1 } } });
    expect(readFileSync(join(dir, 'native.txt'), 'utf8')).toBe(text);
    expect(new Uint8Array(readFileSync(outside))).toEqual(bytes);
    expect(m.artifacts).toEqual([
      { path: 'native.txt', format: 'toy-text' },
      { path: outside, format: 'toy-bytes' },
    ]);
    expect(readFileSync(join(dir, RUN_FILES.items), 'utf8')).toBe('{"id":"a","values":{"x":1}}\n');
    expect((await readRun(dir)).manifest.artifacts).toEqual(m.artifacts);
    expect(readdirSync(dir).sort()).toEqual([RUN_FILES.items, 'native.txt', RUN_FILES.manifest].sort());
    expect(readdirSync(join(work, 'artifact-outside'))).toEqual(['native.bin']);
  });

  it('an artifact that cannot be written fails finish with the path, and leaves no run.json (the run stays unfinished)', async () => {
    const dir = fresh();
    const blocker = join(work, `artifact-blocker-${counter}`);
    writeFileSync(blocker, 'a file, not a directory');
    const w = await startRun(dir, { benchmark: 'toy', variant: '', system: 's' });
    w.addArtifact(join(blocker, 'native.txt'), 'toy-text', 'x');
    await expect(w.finish({ items: [], metrics: {} })).rejects.toThrow(/artifact-blocker/);
    expect(existsSync(join(dir, RUN_FILES.manifest))).toBe(false);
    expect(existsSync(join(dir, RUN_FILES.items))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect((await listRuns(work)).find((r) => r.dir === dir)?.status).toBe('unfinished');
  });
});

describe('RunWriter: refuses what runManifestSchema refuses', () => {
  type Case = { name: string; init?: Partial<RunWriterInit>; finish?: Partial<RunFinish>; resource?: RunResource };
  const llm = {
    endpointHost: 'api.example.org',
    model: 'm',
    calls: { made: 2, cached: 1, failed: 0, retried: 0 },
    tokens: { prompt: 10, completion: 5 },
    costUsd: 0.01,
    batch: false,
  };
  const cases: Case[] = [
    { name: 'valid' },
    {
      name: 'valid llm, ci, unit, null value',
      finish: {
        llm,
        metrics: { a: { value: null, n: 0 }, b: { value: 1, n: 3, ci: [0.5, 1.5], ciMethod: 'bootstrap', unit: '%' } },
      },
    },
    { name: 'metric value NaN', finish: { metrics: { a: { value: Number.NaN, n: 1 } } } },
    { name: 'metric value Infinity', finish: { metrics: { a: { value: Number.POSITIVE_INFINITY, n: 1 } } } },
    { name: 'metric value a string', finish: { metrics: { a: { value: '1' as unknown as number, n: 1 } } } },
    { name: 'metric n negative', finish: { metrics: { a: { value: 1, n: -1 } } } },
    { name: 'metric n fractional', finish: { metrics: { a: { value: 1, n: 1.5 } } } },
    { name: 'metric ci with NaN', finish: { metrics: { a: { value: 1, n: 1, ci: [0, Number.NaN] } } } },
    {
      name: 'metric ci of one number',
      finish: { metrics: { a: { value: 1, n: 1, ci: [0] as unknown as [number, number] } } },
    },
    { name: 'metric unit a number', finish: { metrics: { a: { value: 1, n: 1, unit: 5 as unknown as string } } } },
    { name: 'empty id', init: { id: '' } },
    { name: 'empty benchmark', init: { benchmark: '' } },
    { name: 'status unknown', finish: { status: 'done' as RunFinish['status'] } },
    { name: 'llm calls negative', finish: { llm: { ...llm, calls: { ...llm.calls, made: -1 } } } },
    { name: 'llm calls fractional', finish: { llm: { ...llm, calls: { ...llm.calls, retried: 0.5 } } } },
    { name: 'llm tokens negative', finish: { llm: { ...llm, tokens: { prompt: -1, completion: 0 } } } },
    { name: 'llm cost NaN', finish: { llm: { ...llm, costUsd: Number.NaN } } },
    { name: 'llm batch not boolean', finish: { llm: { ...llm, batch: 'no' as unknown as boolean } } },
    { name: 'llm modelReported numbers', finish: { llm: { ...llm, modelReported: [1] as unknown as string[] } } },
    { name: 'failure id a number', finish: { failures: [{ id: 1 as unknown as string, reason: 'x' }] } },
    { name: 'resource source unknown', resource: { name: 'r', source: 'web' as RunResource['source'] } },
    { name: 'resource commit a number', resource: { name: 'r', commit: 5 as unknown as string } },
    { name: 'valid resource', resource: { name: 'r', commit: 'abc', sha256: 'def', source: 'cache' } },
  ];

  it.each(cases)('$name', async (c) => {
    const base = { benchmark: 'toy', variant: 'v', system: 's' };
    const w = await startRun(fresh(), { ...base, ...c.init });
    if (c.resource) w.addResource(c.resource);
    const finish: RunFinish = {
      items: [{ id: 'q1', values: { correct: true } }],
      metrics: { accuracy: { value: 1, n: 1 } },
      ...c.finish,
    };
    let written: RunManifest | undefined;
    let refused: unknown;
    try {
      written = await w.finish(finish);
    } catch (error) {
      refused = error;
    }
    // what the schema says of the same manifest: the valid one of this test with the case's parts in place
    const valid = await writeRun(fresh());
    const candidate = {
      ...valid,
      ...(c.init?.id !== undefined ? { id: c.init.id } : {}),
      ...(c.init?.benchmark !== undefined ? { benchmark: c.init.benchmark } : {}),
      ...(c.finish?.status !== undefined ? { status: c.finish.status } : {}),
      ...(c.finish?.llm ? { llm: c.finish.llm } : {}),
      metrics: finish.metrics,
      failures: c.finish?.failures ?? [],
      resources: c.resource ? [c.resource] : [],
    };
    const schemaOk = runManifestSchema.safeParse(candidate).success;
    expect(refused === undefined).toBe(schemaOk);
    if (refused) {
      expect((refused as Error).message).toMatch(/invalid manifest at /);
    } else {
      // what the writer returns and writes is what the schema's parse gives (unknown keys dropped, its key order)
      const onDisk = readFileSync(join(w.dir, 'run.json'), 'utf8');
      expect(onDisk).toBe(`${JSON.stringify(runManifestSchema.parse(written), null, 2)}\n`);
      expect((await readRun(w.dir)).manifest).toEqual(written);
    }
  });

  it('drops keys the schema does not know, as its parse did', async () => {
    const w = await startRun(fresh(), { benchmark: 'toy', variant: 'v', system: 's' });
    w.addResource({ name: 'r', extra: 1 } as RunResource);
    const metric = { unit: '%', n: 1, value: 1, note: 'x' } as RunMetric;
    const m = await w.finish({
      items: [],
      metrics: { a: metric },
      llm: { ...llm, secret: 'no' } as RunLlm,
      failures: [{ id: 'q', reason: 'r', at: 3 } as RunFailure],
    });
    const text = readFileSync(join(w.dir, 'run.json'), 'utf8');
    expect(text).not.toMatch(/extra|note|secret|"at"/);
    expect(Object.keys(m.metrics.a!)).toEqual(['value', 'n', 'unit']);
  });
});

describe('startRun', () => {
  it('a run directory that is a file (or under one) is an InputError', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, '');
    expect((await caught(startRun(file, { benchmark: 'toy', variant: '', system: 's' }))).message).toMatch(
      /a-file: run directory is a file/,
    );
    expect((await caught(startRun(join(file, 'sub'), { benchmark: 'toy', variant: '', system: 's' }))).message).toMatch(
      /run directory is a file/,
    );
  });
});

describe('startRun: the descriptor’s package and cluster unit', () => {
  it('records benchmarkPackage and cluster, and keeps metric digits and part and item cluster', async () => {
    const dir = fresh();
    const w = await startRun(dir, {
      benchmark: 'toy',
      variant: 'v',
      system: 's',
      package: 'toy-bench',
      cluster: { unit: 'dialogue' },
    });
    const m = await w.finish({
      items: [{ id: 'd1/t1', cluster: 'd1', values: { ok: true } }],
      metrics: {
        Acc: { value: 1, n: 1, unit: 'ratio', digits: 2 },
        'Acc (a)': { value: 1, n: 1, part: { of: 'Acc', by: 'domain', value: 'a' } },
      },
    });
    expect([m.benchmarkPackage, m.cluster]).toEqual(['toy-bench', { unit: 'dialogue' }]);
    expect(m.metrics.Acc?.digits).toBe(2);
    expect(m.metrics['Acc (a)']?.part).toEqual({ of: 'Acc', by: 'domain', value: 'a' });
    const loaded = await readRun(dir);
    expect(loaded.manifest).toEqual(m);
    expect(loaded.items[0]?.cluster).toBe('d1');
  });
});
