import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CACHE_LAYOUT, DiskCache, parseEntry } from './cache';
import { listFiles, tempDir } from './fixtures/helpers';
import { buildRequest, requestKey } from './request';

const req = (i: number) =>
  buildRequest([{ role: 'user', content: `question ${i}` }], undefined, { model: 'm', temperature: 0 });
const answer = (i: number) => ({
  text: `answer ${i}`,
  finishReason: 'stop' as const,
  usage: { promptTokens: 5, completionTokens: 2 },
});

describe('DiskCache', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  const segmentFiles = async () => (await listFiles(dir)).filter((f) => f.endsWith('.jsonl'));

  it('stores and returns an answer under the request key, as a line of a segment file', async () => {
    const cache = new DiskCache(dir);
    const key = await cache.set(req(1), answer(1));
    expect(key).toBe(requestKey(req(1)));
    expect(await cache.get(key)).toEqual(answer(1));
    expect(await cache.get(requestKey(req(2)))).toBeUndefined();
    const files = await segmentFiles();
    expect(files).toHaveLength(1);
    expect(dirname(files[0]!)).toBe(join(dir, CACHE_LAYOUT));
    const line = JSON.parse((await readFile(files[0]!, 'utf8')).trimEnd());
    expect(line).toMatchObject({ key, v: 1, request: req(1), response: answer(1), source: 'live' });
    // the key comes first: an index is built without parsing the lines
    expect((await readFile(files[0]!, 'utf8')).startsWith(`{"key":"${key}"`)).toBe(true);
    // a new reader (another run) finds it on disk
    expect(await new DiskCache(dir).get(key)).toEqual(answer(1));
    expect(await listFiles(dir)).toEqual(files);
  });

  it('appends every answer of a writer to one segment (one file per run, not per answer)', async () => {
    const cache = new DiskCache(dir);
    const n = 2000;
    const keys = await Promise.all(Array.from({ length: n }, (_, i) => cache.set(req(i), answer(i))));
    expect(await segmentFiles()).toHaveLength(1);
    const reader = new DiskCache(dir);
    for (const i of [0, 1234, n - 1]) {
      expect(await cache.get(keys[i]!)).toEqual(answer(i));
      expect(await reader.get(keys[i]!)).toEqual(answer(i));
    }
    let found = 0;
    for (let i = 0; i < n; i++) if ((await reader.get(keys[i]!))?.text === `answer ${i}`) found++;
    expect(found).toBe(n);
    await cache.close();
  });

  it('starts a new segment when the current one is full, and after the directory was removed', async () => {
    const cache = new DiskCache(dir, { segmentMaxBytes: 2000 });
    const keys: string[] = [];
    for (let i = 0; i < 20; i++) keys.push(await cache.set(req(i), answer(i)));
    const files = await segmentFiles();
    expect(files.length).toBeGreaterThan(1);
    let lines = 0;
    for (const f of files) {
      const text = await readFile(f, 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2000);
      lines += text.trimEnd().split('\n').length;
    }
    expect(lines).toBe(20);
    const reader = new DiskCache(dir);
    for (let i = 0; i < 20; i++) expect(await reader.get(keys[i]!)).toEqual(answer(i));
    await rm(join(dir, CACHE_LAYOUT), { recursive: true });
    expect(await cache.get(keys[0]!)).toBeUndefined();
    const again = await cache.set(req(0), answer(0));
    expect(await cache.get(again)).toEqual(answer(0));
    expect(await new DiskCache(dir).get(again)).toEqual(answer(0));
  });

  it('treats a half-written entry as a miss, and keeps the complete entries before it', async () => {
    const cache = new DiskCache(dir);
    const first = await cache.set(req(1), answer(1));
    const key = await cache.set(req(2), answer(2));
    await cache.close();
    const [file] = await segmentFiles();
    const full = await readFile(file!, 'utf8');
    const start = full.indexOf('\n') + 1; // the second line
    for (const cut of [
      start,
      start + 1,
      start + Math.floor((full.length - start) / 2),
      full.length - 3,
      full.length - 1,
    ]) {
      await writeFile(file!, full.slice(0, cut));
      expect(await cache.get(key)).toBeUndefined(); // the instance that wrote it
      expect(await new DiskCache(dir).get(key)).toBeUndefined(); // a later run
      expect(await new DiskCache(dir).get(first)).toEqual(answer(1));
    }
  });

  it('treats a corrupt entry (valid JSON, damaged answer, wrong key, wrong version) as a miss', async () => {
    const cache = new DiskCache(dir);
    const key = await cache.set(req(1), answer(1));
    await cache.close();
    const [file] = await segmentFiles();
    const entry = JSON.parse(await readFile(file!, 'utf8'));
    const variants = [
      { ...entry, response: { ...entry.response, text: 'answer 2' } }, // bit rot in the answer: checksum fails
      { ...entry, v: 2 },
      { ...entry, check: undefined },
      { ...entry, response: { ...entry.response, finishReason: 'weird' } },
      [entry],
      null,
    ];
    for (const v of variants) {
      await writeFile(file!, `${JSON.stringify(v)}\n`);
      expect(await new DiskCache(dir).get(key)).toBeUndefined();
    }
    // an entry that names this key first but is another request's (the key inside the parsed entry decides)
    const wrongKey = `{"key":"${key}","v":1,"request":${JSON.stringify(entry.request)},"response":${JSON.stringify(entry.response)},"check":"${entry.check}","key":"${requestKey(req(2))}"}`;
    await writeFile(file!, `${wrongKey}\n`);
    expect(await new DiskCache(dir).get(key)).toBeUndefined();
    expect(parseEntry(wrongKey, key)).toBeUndefined();
    // and the intact entry still reads
    await writeFile(file!, `${JSON.stringify(entry)}\n`);
    expect(await new DiskCache(dir).get(key)).toEqual(answer(1));
    expect(await cache.get(key)).toEqual(answer(1));
    expect(parseEntry('not json', key)).toBeUndefined();
  });

  it('sees entries other writers add later; the last written answer of a key wins', async () => {
    const a = new DiskCache(dir);
    const b = new DiskCache(dir);
    const k1 = await a.set(req(1), answer(1));
    expect(await b.get(k1, { refresh: true })).toEqual(answer(1));
    const k2 = await a.set(req(2), answer(2));
    expect(await b.get(k2, { refresh: true })).toEqual(answer(2));
    // `refresh` mode: b answers req(1) again; b reads its own answer, a (after a look) and a new reader read b's
    const newer = { ...answer(1), text: 'answer 1, again' };
    await b.set(req(1), newer);
    expect(await b.get(k1)).toEqual(newer);
    expect(await new DiskCache(dir).get(k1)).toEqual(newer);
    expect(await segmentFiles()).toHaveLength(2);
    await a.close();
    await b.close();
  });

  it('is safe when two processes write and read the same entries at once', async () => {
    // Two child processes write the same 300 keys (in opposite orders) while reading them back; every read is
    // either a miss or the whole answer, and at the end every entry is intact.
    const script = `
      const { DiskCache } = await import(${JSON.stringify(join(dirname(new URL(import.meta.url).pathname), 'cache.ts'))});
      const { buildRequest, requestKey } = await import(${JSON.stringify(join(dirname(new URL(import.meta.url).pathname), 'request.ts'))});
      const cache = new DiskCache(process.argv[1]);
      const order = [...Array(300).keys()];
      if (process.argv[2] === 'rev') order.reverse();
      let bad = 0;
      await Promise.all(order.map(async (i) => {
        const req = buildRequest([{ role: 'user', content: 'question ' + i }], undefined, { model: 'm', temperature: 0 });
        await cache.set(req, { text: 'answer ' + i, finishReason: 'stop', usage: { promptTokens: 5, completionTokens: 2 } });
        const other = buildRequest([{ role: 'user', content: 'question ' + (299 - i) }], undefined, { model: 'm', temperature: 0 });
        const got = await cache.get(requestKey(other));
        if (got !== undefined && got.text !== 'answer ' + (299 - i)) bad++;
      }));
      console.log(JSON.stringify({ bad }));
    `;
    const runChild = (order: string) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--conditions=@eval/source', '--import', 'tsx', '--input-type=module', '-e', script, dir, order],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`child failed (${code}): ${err}`))));
      });
    const outs = await Promise.all([runChild('fwd'), runChild('rev')]);
    for (const o of outs) expect(JSON.parse(o.trim())).toEqual({ bad: 0 });
    const cache = new DiskCache(dir);
    for (let i = 0; i < 300; i++) expect(await cache.get(requestKey(req(i)))).toEqual(answer(i));
    // one segment per process, each whole: 300 complete lines
    const files = await segmentFiles();
    expect(files).toHaveLength(2);
    for (const f of files) {
      const text = await readFile(f, 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      expect(
        text
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l).key)
          .sort(),
      ).toEqual(Array.from({ length: 300 }, (_, i) => requestKey(req(i))).sort());
    }
  });
});
