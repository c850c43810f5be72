import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChatUsage, FinishReason } from '@eval/core';
import { canonicalJson, sha256 } from './hash';
import type { CanonicalRequest } from './request';
import { requestKey } from './request';

export type CacheMode = 'use' | 'refresh' | 'off' | 'replay';
export const CACHE_MODES: readonly CacheMode[] = ['use', 'refresh', 'off', 'replay'];

/** What the cache stores of an answer. */
export interface CachedResponse {
  text: string;
  finishReason: FinishReason;
  usage?: ChatUsage;
  model?: string;
}

interface CacheEntryFile {
  v: 1;
  key: string;
  request: CanonicalRequest;
  response: CachedResponse;
  /** sha256 of the canonical JSON of `response`: a damaged entry fails this check. */
  check: string;
  createdAt: string;
  source?: 'live' | 'batch';
}

let counter = 0;

/**
 * Disk cache of answers, one file per request under `<dir>/v1/<k0k1>/<key>.json`: 256 shard directories, created
 * once each, so 10,000 entries make ~40 files per directory and a million ~4,000 (fine for ext4, APFS, NTFS).
 *
 * Writes go to a unique temporary file in the same directory and are renamed over the target (atomic on POSIX
 * and NTFS): readers and a second process sharing the directory see either no entry or a whole one. Two processes
 * writing the same key write the same answer. An entry that does not parse, or whose key or response checksum does
 * not match, is a miss, never an answer. (The stored request is for people and tools reading the cache; the answer
 * is found by its key, in the file name and in the entry.)
 */
export class DiskCache {
  readonly dir: string;
  private readonly madeDirs = new Set<string>();

  constructor(dir: string) {
    this.dir = dir;
  }

  pathOf(key: string): string {
    return join(this.dir, 'v1', key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    const file = this.pathOf(key);
    // A miss must be cheap: a failed read builds an exception with a stack trace, a failed existsSync does not.
    if (!existsSync(file)) return undefined;
    let text: string;
    try {
      // Entries are small (a few kB): a synchronous read costs a few microseconds, while the promise API needs four
      // thread-pool round trips (open, stat, read, close) and made cached re-runs several times slower.
      text = readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    return parseEntry(text, key);
  }

  /** Stores an answer; `key` may be given when the caller already computed `requestKey(request)`. */
  async set(request: CanonicalRequest, response: CachedResponse, source: 'live' | 'batch' = 'live', key: string = requestKey(request)): Promise<string> {
    const clean: CachedResponse = { text: response.text, finishReason: response.finishReason };
    if (response.usage) clean.usage = response.usage;
    if (response.model) clean.model = response.model;
    const entry: CacheEntryFile = {
      v: 1,
      key,
      request,
      response: clean,
      check: sha256(canonicalJson(clean)),
      createdAt: new Date().toISOString(),
      source,
    };
    const file = this.pathOf(key);
    const dir = join(this.dir, 'v1', key.slice(0, 2));
    const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.${(counter++).toString(36)}.tmp`;
    const data = `${JSON.stringify(entry)}\n`;
    // Asynchronous (thread pool): creating and renaming a file can take a millisecond on a busy disk, which must not
    // block the event loop while other calls are in flight.
    const write = async () => {
      if (!this.madeDirs.has(dir)) {
        await mkdir(dir, { recursive: true });
        this.madeDirs.add(dir);
      }
      await writeFile(tmp, data);
      await rename(tmp, file);
    };
    try {
      await write();
    } catch (error) {
      await rm(tmp, { force: true }).catch(() => {});
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // The shard directory was removed under us (cache cleared by another process): recreate it once.
      this.madeDirs.delete(dir);
      await write();
    }
    return key;
  }
}

const FINISH: ReadonlySet<string> = new Set(['stop', 'length', 'content_filter', 'tool_calls', 'other']);

/** Parses and verifies an entry; anything suspicious is `undefined` (a miss). */
export function parseEntry(text: string, key: string): CachedResponse | undefined {
  let entry: CacheEntryFile;
  try {
    entry = JSON.parse(text) as CacheEntryFile;
  } catch {
    return undefined;
  }
  if (!entry || typeof entry !== 'object' || entry.v !== 1 || entry.key !== key) return undefined;
  const r = entry.response;
  if (!r || typeof r !== 'object' || typeof r.text !== 'string' || !FINISH.has(r.finishReason)) return undefined;
  if (typeof entry.check !== 'string' || entry.check !== sha256(canonicalJson(r))) return undefined;
  return r;
}
