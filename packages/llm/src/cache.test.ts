import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiskCache, parseEntry } from './cache';
import { listFiles, tempDir } from './fixtures/helpers';
import { buildRequest, requestKey } from './request';

const req = (i: number) => buildRequest([{ role: 'user', content: `question ${i}` }], undefined, { model: 'm', temperature: 0 });
const answer = (i: number) => ({ text: `answer ${i}`, finishReason: 'stop' as const, usage: { promptTokens: 5, completionTokens: 2 } });

describe('DiskCache', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it('stores and returns an answer under the request key, in a sharded directory', async () => {
    const cache = new DiskCache(dir);
    const key = await cache.set(req(1), answer(1));
    expect(key).toBe(requestKey(req(1)));
    expect(cache.pathOf(key)).toBe(join(dir, 'v1', key.slice(0, 2), `${key}.json`));
    expect(await cache.get(key)).toEqual(answer(1));
    expect(await cache.get(requestKey(req(2)))).toBeUndefined();
    // no temporary files left behind
    expect((await listFiles(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('treats a half-written entry as a miss', async () => {
    const cache = new DiskCache(dir);
    const key = await cache.set(req(1), answer(1));
    const file = cache.pathOf(key);
    const full = await readFile(file, 'utf8');
    for (const cut of [0, 1, Math.floor(full.length / 2), full.length - 3]) {
      await writeFile(file, full.slice(0, cut));
      expect(await cache.get(key)).toBeUndefined();
    }
  });

  it('treats a corrupt entry (valid JSON, damaged answer, wrong key, wrong version) as a miss', async () => {
    const cache = new DiskCache(dir);
    const key = await cache.set(req(1), answer(1));
    const file = cache.pathOf(key);
    const entry = JSON.parse(await readFile(file, 'utf8'));
    const variants = [
      { ...entry, response: { ...entry.response, text: 'answer 2' } }, // bit rot in the answer: checksum fails
      { ...entry, key: requestKey(req(2)) }, // entry of another request
      { ...entry, v: 2 },
      { ...entry, check: undefined },
      { ...entry, response: { ...entry.response, finishReason: 'weird' } },
      [entry],
      null,
    ];
    for (const v of variants) {
      await writeFile(file, JSON.stringify(v));
      expect(await cache.get(key)).toBeUndefined();
    }
    // and the intact entry still reads
    await writeFile(file, JSON.stringify(entry));
    expect(await cache.get(key)).toEqual(answer(1));
    expect(parseEntry('not json', key)).toBeUndefined();
  });

  it('spreads entries over at most 256 shard directories', async () => {
    const cache = new DiskCache(dir);
    const n = 2000;
    const keys: string[] = [];
    for (let i = 0; i < n; i += 500) {
      keys.push(...(await Promise.all(Array.from({ length: 500 }, (_, j) => cache.set(req(i + j), answer(i + j))))));
    }
    const shards = await readdir(join(dir, 'v1'));
    expect(shards.length).toBeLessThanOrEqual(256);
    expect(shards.every((s) => /^[0-9a-f]{2}$/.test(s))).toBe(true);
    const counts = await Promise.all(shards.map(async (s) => (await readdir(join(dir, 'v1', s))).length));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(n);
    expect(Math.max(...counts)).toBeLessThan(30);
    for (const i of [0, 1234, n - 1]) expect(await cache.get(keys[i]!)).toEqual(answer(i));
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
        const child = spawn(process.execPath, ['--conditions=@eval/source', '--import', 'tsx', '--input-type=module', '-e', script, dir, order], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
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
    expect((await listFiles(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
