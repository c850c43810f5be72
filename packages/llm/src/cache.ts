import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatUsage, FinishReason } from '@eval/core';
import { FileSystemError } from '@eval/core';
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
  /** First member, so that an entry's key can be read without parsing the line. */
  key: string;
  v: 1;
  request: CanonicalRequest;
  response: CachedResponse;
  /** sha256 of the canonical JSON of `response`: a damaged entry fails this check. */
  check: string;
  createdAt: string;
  source?: 'live' | 'batch';
  /** The method (run name) that asked, for completion-token statistics; not part of the key. */
  label?: string;
}

/** Sub-directory of the cache directory holding the segment files. */
export const CACHE_LAYOUT = 'v2';
/** A writer starts a new segment once its current one passes this size. */
const SEGMENT_MAX_BYTES = 64 * 1024 * 1024;
/** A writer closes its segment after this long without writes (and reopens it on the next write). */
const IDLE_CLOSE_MS = 2000;
/** On a miss, the segments are looked at again (entries written by other processes) at most this often. */
const REFRESH_MS = 250;
const LINE_PREFIX = '{"key":"';
const KEY_END = LINE_PREFIX.length + 64;
const HEX64 = /^[0-9a-f]{64}$/;

interface Segment {
  name: string;
  path: string;
  /** Bytes indexed so far: the end of the last complete line seen. */
  end: number;
}

interface Location {
  seg: Segment;
  offset: number;
  /** Length of the line without its newline. */
  length: number;
}

let segmentCounter = 0;

/**
 * Disk cache of answers. Entries are JSON lines appended to segment files under `<dir>/v2/`: each writer (a
 * `DiskCache` instance, i.e. a run) appends to a segment of its own, `<time>-<pid>-<random>.jsonl`, so that
 * concurrent processes never write to the same file, and a run adds one file to the directory, not one per answer
 * (creating a file costs far more than appending a line, on every file system). `set` resolves once its line is
 * written (to the operating system: a killed process loses nothing it wrote; there is no fsync, a lost entry only
 * costs a new request).
 *
 * Readers index the segments (key -> file, offset, length) on first use, reading only the key at the start of each
 * line, and read an entry from disk when it is asked for. A line that is cut short (a writer killed mid-write), does
 * not parse, belongs to another key or fails its checksum is a miss, never an answer. Entries written by other
 * processes (or other instances) after the index was built are picked up on a miss, at most every 250 ms; a replay
 * miss always looks again before giving up. When a key has several entries (`refresh` mode, two processes answering
 * the same request), the one written last wins: the writer's own, else the one in the newest segment.
 */
export class DiskCache {
  readonly dir: string;
  /** Where the segment files are. */
  readonly segmentsDir: string;
  private readonly index = new Map<string, Location>();
  private readonly segments = new Map<string, Segment>();
  private loaded = false;
  private lastRefresh = 0;
  // The writer's side.
  private own: Segment | undefined;
  private fd: number | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  private readonly segmentMaxBytes: number;

  /** `segmentMaxBytes`: size after which a writer starts a new segment (default 64 MiB). */
  constructor(dir: string, options: { segmentMaxBytes?: number } = {}) {
    this.dir = dir;
    this.segmentsDir = join(dir, CACHE_LAYOUT);
    this.segmentMaxBytes = options.segmentMaxBytes ?? SEGMENT_MAX_BYTES;
  }

  /**
   * The cached answer of `key`, or `undefined`. `refresh: true` looks for entries other writers added since the
   * last look even if the last look was less than 250 ms ago.
   */
  async get(key: string, options?: { refresh?: boolean }): Promise<CachedResponse | undefined> {
    if (!this.loaded) this.scan();
    let loc = this.index.get(key);
    if (!loc && (options?.refresh || Date.now() - this.lastRefresh >= REFRESH_MS)) {
      this.scan();
      loc = this.index.get(key);
    }
    if (!loc) return undefined;
    const text = readAt(loc);
    return text === undefined ? undefined : parseEntry(text, key);
  }

  /** Stores an answer; `key` may be given when the caller already computed `requestKey(request)`. */
  async set(
    request: CanonicalRequest,
    response: CachedResponse,
    source: 'live' | 'batch' = 'live',
    key: string = requestKey(request),
    label?: string,
  ): Promise<string> {
    const clean: CachedResponse = { text: response.text, finishReason: response.finishReason };
    if (response.usage) clean.usage = response.usage;
    if (response.model) clean.model = response.model;
    const entry: CacheEntryFile = {
      key,
      v: 1,
      request,
      response: clean,
      check: sha256(canonicalJson(clean)),
      createdAt: new Date().toISOString(),
      source,
    };
    if (label) entry.label = label;
    try {
      this.append(key, Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8'));
    } catch (error) {
      throw FileSystemError.from(
        error,
        (error as NodeJS.ErrnoException).path ?? this.segmentsDir,
        'cannot write to the LLM cache at',
      );
    }
    return key;
  }

  /**
   * Completion tokens of the cached answers by method label and model (`<model>\u0000<label>` -> count and sum),
   * for budget and dry-run estimates. Reads every segment: callers keep the result.
   */
  completionStats(): Map<string, { n: number; sum: number }> {
    const out = new Map<string, { n: number; sum: number }>();
    let names: string[];
    try {
      names = readdirSync(this.segmentsDir).filter((n) => n.endsWith('.jsonl'));
    } catch {
      return out;
    }
    for (const name of names) {
      let text: string;
      try {
        text = readFileSync(join(this.segmentsDir, name), 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n')) {
        if (!line.includes('"label":')) continue;
        try {
          const e = JSON.parse(line) as CacheEntryFile;
          const c = e.response?.usage?.completionTokens;
          if (typeof e.label !== 'string' || typeof e.request?.model !== 'string' || typeof c !== 'number') continue;
          if (e.check !== sha256(canonicalJson(e.response))) continue;
          const key = `${e.request.model}\u0000${e.label}`;
          const o = out.get(key) ?? { n: 0, sum: 0 };
          o.n++;
          o.sum += c;
          out.set(key, o);
        } catch {
          // damaged line: not evidence
        }
      }
    }
    return out;
  }

  /** Closes the segment being written (it is reopened on the next write). */
  async close(): Promise<void> {
    this.closeWriter();
  }

  /**
   * Brings the index up to date with the segment files: new segments, and what was appended to the others since
   * the last look. Synchronous: it reads only what is new, and an index that changes in the middle of a lookup
   * would be worse than a short pause.
   */
  private scan(): void {
    this.loaded = true;
    this.lastRefresh = Date.now();
    let names: string[];
    try {
      names = readdirSync(this.segmentsDir);
    } catch {
      return; // no cache yet
    }
    // Segment names start with their creation time: in name order, a later entry of a key replaces an earlier one.
    names.sort();
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      let seg = this.segments.get(name);
      if (!seg) {
        seg = { name, path: join(this.segmentsDir, name), end: 0 };
        this.segments.set(name, seg);
      }
      if (seg === this.own) continue; // indexed as it is written
      this.readTail(seg);
    }
  }

  /** Indexes the complete lines appended to `seg` since the last look. */
  private readTail(seg: Segment): void {
    let fd: number | undefined;
    try {
      fd = openSync(seg.path, 'r');
      const size = fstatSync(fd).size;
      if (size < seg.end) seg.end = 0; // replaced or truncated: index it again (stale locations fail their checks)
      if (size === seg.end) return;
      const buf = Buffer.allocUnsafe(size - seg.end);
      let n = 0;
      while (n < buf.length) {
        const r = readSync(fd, buf, n, buf.length - n, seg.end + n);
        if (r === 0) break;
        n += r;
      }
      seg.end += this.indexLines(seg, n === buf.length ? buf : buf.subarray(0, n), seg.end);
    } catch {
      // vanished or unreadable: its entries are misses
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Adds the complete lines of `buf` (found at `base` in `seg`) to the index; returns the bytes they span. */
  private indexLines(seg: Segment, buf: Buffer, base: number): number {
    let pos = 0;
    for (;;) {
      const nl = buf.indexOf(10, pos);
      if (nl < 0) return pos;
      if (
        nl - pos > KEY_END &&
        buf[pos + KEY_END] === 0x22 &&
        buf.toString('latin1', pos, pos + LINE_PREFIX.length) === LINE_PREFIX
      ) {
        const key = buf.toString('latin1', pos + LINE_PREFIX.length, pos + KEY_END);
        // This writer's own entries are the newest it knows of (`refresh` mode): another segment does not replace them.
        if (HEX64.test(key) && !(this.own && this.index.get(key)?.seg === this.own))
          this.index.set(key, { seg, offset: base + pos, length: nl - pos });
      }
      pos = nl + 1;
    }
  }

  /**
   * Appends one line to this writer's segment. Synchronous on purpose: appending a few kB to an open file costs
   * 2-3 us (it goes to the page cache), while handing it to the thread pool costs ~30 us of main-thread time per
   * write (promise, callback, wake-up), which was the largest cost of a cached call at hundreds of calls per second.
   */
  private append(key: string, data: Buffer): void {
    const { fd, seg } = this.writer(data.length);
    let written = 0;
    try {
      while (written < data.length) written += writeSync(fd, data, written, data.length - written);
    } catch (error) {
      // A failed or partial write: never append after it; the next write starts a new segment.
      this.closeWriter();
      this.own = undefined;
      throw error;
    }
    this.index.set(key, { seg, offset: seg.end, length: data.length - 1 });
    seg.end += data.length;
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = undefined;
        this.closeWriter();
      }, IDLE_CLOSE_MS);
      this.idleTimer.unref();
    }
  }

  /** The open segment to append `bytes` to: opened (or reopened after being idle) on demand, rolled over when full. */
  private writer(bytes: number): { fd: number; seg: Segment } {
    if (this.own && this.own.end > 0 && this.own.end + bytes > this.segmentMaxBytes) {
      this.closeWriter();
      this.own = undefined; // full: start another
    }
    if (this.fd !== undefined && this.own) return { fd: this.fd, seg: this.own };
    if (!this.own) {
      const name = `${Date.now().toString(36).padStart(9, '0')}-${process.pid}-${(segmentCounter++).toString(36).padStart(4, '0')}${Math.random().toString(36).slice(2, 8)}.jsonl`;
      this.own = { name, path: join(this.segmentsDir, name), end: 0 };
      this.segments.set(name, this.own);
    }
    const seg = this.own;
    let fd: number;
    try {
      fd = openSync(seg.path, 'a');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // First write to this cache (or the cache directory was removed under us).
      mkdirSync(this.segmentsDir, { recursive: true });
      fd = openSync(seg.path, 'a');
    }
    try {
      // Reopened after being idle: if the file was removed or cut meanwhile, its size says where the next line goes.
      seg.end = fstatSync(fd).size;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.fd = fd;
    return { fd, seg };
  }

  private closeWriter(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
  }
}

/** Reads the line at `loc`; `undefined` when it is not (or no longer) all there, its newline included. */
function readAt(loc: Location): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(loc.seg.path, 'r');
    const size = loc.length + 1;
    const buf = Buffer.allocUnsafe(size);
    let n = 0;
    while (n < size) {
      const r = readSync(fd, buf, n, size - n, loc.offset + n);
      if (r === 0) return undefined;
      n += r;
    }
    if (buf[loc.length] !== 10) return undefined;
    return buf.toString('utf8', 0, loc.length);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
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
