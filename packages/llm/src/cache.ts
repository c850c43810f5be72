import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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
 * Disk cache of answers, one file per request under `<dir>/v1/<k0k1>/<k2k3>/<key>.json` (65,536 shards, so a
 * directory never holds more than a handful of files even with millions of entries).
 *
 * Writes go to a unique temporary file in the same directory and are renamed over the target (atomic on POSIX
 * and NTFS): readers and a second process sharing the directory see either no entry or a whole one. Two processes
 * writing the same key write the same answer. An entry that does not parse, or whose key, request hash or response
 * checksum does not match, is a miss, never an answer.
 */
export class DiskCache {
  readonly dir: string;
  private readonly madeDirs = new Set<string>();

  constructor(dir: string) {
    this.dir = dir;
  }

  pathOf(key: string): string {
    return join(this.dir, 'v1', key.slice(0, 2), key.slice(2, 4), `${key}.json`);
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    let text: string;
    try {
      text = await readFile(this.pathOf(key), 'utf8');
    } catch {
      return undefined;
    }
    return parseEntry(text, key);
  }

  async set(request: CanonicalRequest, response: CachedResponse, source: 'live' | 'batch' = 'live'): Promise<string> {
    const key = requestKey(request);
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
    const dir = join(this.dir, 'v1', key.slice(0, 2), key.slice(2, 4));
    if (!this.madeDirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.madeDirs.add(dir);
    }
    const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.${(counter++).toString(36)}.tmp`;
    try {
      await writeFile(tmp, `${JSON.stringify(entry)}\n`);
      await rename(tmp, file);
    } catch (error) {
      await rm(tmp, { force: true }).catch(() => {});
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        // The shard directory was removed under us (cache cleared by another process): recreate once.
        this.madeDirs.delete(dir);
        await mkdir(dir, { recursive: true });
        await writeFile(tmp, `${JSON.stringify(entry)}\n`);
        await rename(tmp, file);
      } else {
        throw error;
      }
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
  if (!entry.request || typeof entry.request !== 'object') return undefined;
  try {
    if (requestKey(entry.request) !== key) return undefined;
  } catch {
    return undefined;
  }
  return r;
}
