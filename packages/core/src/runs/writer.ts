import {
  closeSync,
  createReadStream,
  fsync,
  mkdirSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { EvalError, FileSystemError, InputError } from '../errors';
import { removeStaleTempFiles } from '../io';
import { sha256Hex } from '../resources/index';
import type {
  RunArtifact,
  RunFailure,
  RunInput,
  RunItem,
  RunLlm,
  RunManifest,
  RunMetric,
  RunResource,
  RunStatus,
} from './schema';
import { checkRunManifest } from './check';
import { serializeItems } from './items-text';
import { RUN_SCHEMA_VERSION } from './version';

// node:crypto is loaded on first use: commands that write no run record never need it.
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

/** File names of the run record inside a run directory. */
export const RUN_FILES = {
  manifest: 'run.json',
  items: 'items.jsonl',
  /** Written by `startRun`, removed when `run.json` is written: marks a run that started and has not finished. */
  started: '.run-started.json',
} as const;

/** How many failures `finish` records in the manifest when the caller gives none (all are in `items.jsonl`). */
const MAX_FAILURES = 20;

export interface RunWriterInit {
  benchmark: string;
  /** Whatever changes the numbers (method, normalisation version, mode); runs compare only within one variant. */
  variant: string;
  /** The evaluated system's name. */
  system: string;
  /** The argument vector (never a secret). */
  command?: string[];
  /** Options that can change a number, defaults included (more with `setOption`). */
  options?: Record<string, unknown>;
  tool?: { cli?: string; packages?: Record<string, string> };
  /** Unique run id (default: timestamp + random suffix). */
  id?: string;
}

export interface RunFinish {
  /**
   * The items, in order: an array, or any iterable (a generator that builds each item as it is needed is read once
   * and serialised item by item, so the items need not all be in memory at once).
   */
  items: Iterable<RunItem>;
  metrics: Record<string, RunMetric>;
  llm?: RunLlm;
  /** Default: the first 20 items with `error`, as `{ id, reason: error }`. */
  failures?: RunFailure[];
  /** Units that should have been evaluated and were not (missing outputs, a stopped run): not in `items`. */
  skipped?: number;
  /** Default: `partial` when any item has `error` or `skipped` > 0, else `complete`. */
  status?: RunStatus;
}

/** Files up to this size are read whole and hashed off the main thread (WebCrypto); larger ones are streamed. */
const WHOLE_FILE_HASH_LIMIT = 64 * 1024 * 1024;

/**
 * sha256 (hex) of bytes, computed on libuv's thread pool so that it overlaps the caller's own work. WebCrypto copies
 * the bytes when it is called, so the caller's buffer is not held until the digest is done.
 */
export function sha256OffThread(data: Uint8Array): Promise<string> {
  return nodeCrypto()
    .webcrypto.subtle.digest('SHA-256', data)
    .then((digest) => Buffer.from(digest).toString('hex'));
}

/** Size and sha256 (hex) of a file's bytes. */
export interface FileDigest {
  size: number;
  sha256: string;
}

/** `FileDigests.onRead` hashes files up to this size on the next turn of the event loop, larger ones at once. */
const DEFERRED_HASH_LIMIT = 1024 * 1024;

/**
 * The size and sha256 of the files a command reads, taken from the bytes it read: pass `onRead` to the readers
 * (`ReadOptions.onRead`, `readJson(file, schema, { onRead })`), then `RunWriter.addInput(role, path, digests)`. Each
 * file is hashed from the reader's own buffer (no second read, no copy), and the digest is of exactly the bytes that
 * were evaluated. A file the command did not read through `onRead` is read and hashed on demand.
 */
export class FileDigests {
  /** By resolved path: the digest, or the bytes read and not hashed yet. */
  private readonly seen = new Map<string, FileDigest | Uint8Array>();
  /** Paths whose bytes wait for the next turn of the event loop to be hashed. */
  private pending: string[] = [];

  constructor() {
    // node:crypto takes ~2 ms to load: loaded on the next turn of the event loop, which comes while the command's
    // first file is being read (the thread pool reading, the main thread otherwise idle), not when its bytes arrive
    setImmediate(nodeCrypto);
  }

  /**
   * The `ReadOptions.onRead` hook (the last read of a path wins). Small files' bytes are hashed on the main thread on
   * the next turn of the event loop, not in the hook: a reader that reads its files one after another has issued the
   * next read by then, so the hashing fills the wait for it instead of delaying it. A file over 1 MiB is hashed at
   * once: holding its bytes until then would add them to the peak memory while the reader decodes and parses them.
   * (Handing bytes to the thread pool, WebCrypto, would copy them first, which costs as much as hashing them.)
   */
  readonly onRead = (file: string, bytes: Uint8Array): void => {
    const path = resolve(file);
    if (bytes.length > DEFERRED_HASH_LIMIT) {
      this.seen.set(path, { size: bytes.length, sha256: sha256Hex(bytes) });
      return;
    }
    this.seen.set(path, bytes);
    if (this.pending.push(path) === 1) setImmediate(this.hashPending);
  };

  private readonly hashPending = (): void => {
    const paths = this.pending;
    this.pending = [];
    for (const path of paths) this.digestOf(path);
  };

  /** The digest of `path`'s bytes read through `onRead` (hashed now if they were not yet), or undefined. */
  private digestOf(path: string): FileDigest | undefined {
    const entry = this.seen.get(path);
    if (!(entry instanceof Uint8Array)) return entry;
    const digest = { size: entry.length, sha256: sha256Hex(entry) };
    this.seen.set(path, digest);
    return digest;
  }

  /** Size and sha256 of `file`: of the bytes read through `onRead`, else of the file as it is now on disk. */
  async get(file: string): Promise<FileDigest> {
    return this.digestOf(resolve(file)) ?? hashFile(file);
  }
}

/** sha256 and size of a file: read and hashed off the main thread, or streamed when it is large. */
async function hashFile(path: string): Promise<FileDigest> {
  const hash = nodeCrypto().createHash('sha256');
  let size = 0;
  try {
    const { size: bytes } = await stat(path);
    if (bytes <= WHOLE_FILE_HASH_LIMIT) {
      const data = await readFile(path);
      return { size: data.length, sha256: await sha256OffThread(data) };
    }
    for await (const chunk of createReadStream(path)) {
      size += (chunk as Buffer).length;
      hash.update(chunk as Buffer);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError('file not found', { file: path, code: 'file_not_found', cause: error });
    throw new InputError(`cannot read file (${code ?? String(error)})`, { file: path, cause: error });
  }
  return { size, sha256: hash.digest('hex') };
}

/**
 * sha256 of a resource set's file list: lines `<path> <sha256>\n` sorted by path (code-unit order), hashed as UTF-8.
 * Two directories with the same files and contents give the same digest, whatever the order they were listed in.
 */
export function resourceFileListSha256(files: Array<{ path: string; sha256: string }>): string {
  const lines = files.map((f) => `${f.path} ${f.sha256}\n`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return nodeCrypto().createHash('sha256').update(lines.join(''), 'utf8').digest('hex');
}

/**
 * A file's location as a run records it (artifacts, and the files items point to): relative to the run directory with
 * `/` separators when the file is inside it (the run can be moved or copied whole), else absolute.
 */
export function runLocation(runDir: string, file: string): string {
  const abs = resolve(file);
  const dir = resolve(runDir);
  // POSIX: a path inside the directory starts with it and a separator (both are resolved: no `.`, `..` or doubled `/`),
  // and the rest is what `relative` would give; checked directly, as runs record many locations (an artifact and an
  // item's transcript per episode). Elsewhere (case-insensitive Windows paths) `relative` decides.
  if (sep === '/') {
    const inside = abs.length > dir.length + 1 && abs.startsWith(dir === '/' ? dir : `${dir}/`);
    const rel = inside ? abs.slice(dir === '/' ? 1 : dir.length + 1) : '';
    return inside && !rel.startsWith('..') ? rel : abs;
  }
  const rel = relative(dir, abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : abs;
}

/** The path of a location {@link runLocation} recorded for the run at `runDir`. */
export function resolveRunLocation(runDir: string, location: string): string {
  return isAbsolute(location) ? location : resolve(runDir, location);
}

function defaultRunId(now: Date): string {
  // the suffix only has to differ between runs started in the same second: Math.random (seeded from the OS by V8)
  // does that without starting the CSPRNG, which costs a run ~1 ms the first time
  const suffix = Math.floor(Math.random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, '0');
  return `${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${suffix}`;
}

/**
 * Writes one run (spec `runs.md` sections 1-3). Create it with {@link startRun}, record inputs, resources, options and
 * native artifacts while the command runs, then `finish` with the items and headline metrics: `items.jsonl` first,
 * `run.json` last and atomically, so a directory without `run.json` is always an unfinished run.
 */
export class RunWriter {
  readonly dir: string;
  private readonly init: RunWriterInit;
  private readonly createdAt: string;
  private readonly id: string;
  private readonly inputs: RunInput[] = [];
  private readonly resources: RunResource[] = [];
  private readonly artifacts: RunArtifact[] = [];
  /** Artifacts `finish` writes (`addArtifact` with content). */
  private readonly pending: Array<[file: string, content: string | Uint8Array]> = [];
  private readonly options: Record<string, unknown>;
  private finished = false;
  /** Created by `startRun` (no earlier process can have left temporary files in it): `finish` does not sweep it. */
  private readonly fresh: boolean;
  /** Whether `startRun` left the start marker. */
  private readonly marker: boolean;
  /** Whether `finish` waits for each file to reach the disk (fsync) before it makes any visible. */
  private readonly durable: boolean;

  /** @internal use {@link startRun} */
  constructor(dir: string, init: RunWriterInit, now: Date, fresh = false, marker = true, durable = true) {
    this.dir = dir;
    this.fresh = fresh;
    this.marker = marker;
    this.durable = durable;
    this.init = init;
    this.createdAt = now.toISOString();
    this.id = init.id ?? defaultRunId(now);
    this.options = { ...(init.options ?? {}) };
  }

  /**
   * Records an input file: role, the path as given, its size and sha256 (of the bytes the command read when `digests`
   * saw it read, else of the file read now).
   */
  async addInput(role: string, path: string, digests?: FileDigests): Promise<void> {
    const { size, sha256 } = await (digests ? digests.get(path) : hashFile(path));
    this.inputs.push({ role, path, size, sha256 });
  }

  /** Records a resource set (see {@link resourceFileListSha256} for its `sha256`). */
  addResource(r: RunResource): void {
    this.resources.push({ ...r });
  }

  /**
   * Records a native output file; stored relative to the run directory when inside it, else absolute. With `content`,
   * `finish` writes the file (atomically, before `items.jsonl` and `run.json` and together with them, so their waits
   * for the disk overlap); without, the caller has written it.
   */
  addArtifact(path: string, format: string, content?: string | Uint8Array): void {
    if (content !== undefined) this.pending.push([path, content]);
    this.artifacts.push({ path: runLocation(this.dir, path), format });
  }

  /** Records (or overrides) an option that can change a number. */
  setOption(name: string, value: unknown): void {
    this.options[name] = value;
  }

  /**
   * Writes `items.jsonl`, then `run.json` atomically, and returns the manifest. Each file becomes visible complete
   * (temporary file, rename) and `run.json` last; durable runs (the default) are on disk first (see
   * {@link StartRunOptions.durable}).
   */
  async finish(r: RunFinish): Promise<RunManifest> {
    if (this.finished) throw new EvalError('run_finished', `run ${this.dir} is already finished`);
    // One pass over the items: ids checked, failures kept, the items serialised in batches (see serializeItems) and
    // written to the temporary file of items.jsonl as it goes (no array of all items or lines, no joined copy). A
    // duplicate id stops the pass: the temporary files are removed and nothing becomes visible.
    const seen = new Map<string, number>();
    const failed: RunItem[] = [];
    let count = 0;
    const writeItems = (write: (chunk: string) => void) => {
      let batch: RunItem[] = [];
      for (const item of r.items) {
        const first = seen.get(item.id);
        if (first !== undefined)
          throw new EvalError(
            'duplicate_item',
            `run ${this.dir}: items ${first + 1} and ${count + 1} share the id "${item.id}"`,
          );
        seen.set(item.id, count++);
        if (item.error !== undefined) failed.push(item);
        if (batch.push(item) === ITEM_BATCH) {
          write(serializeItems(batch));
          batch = [];
        }
      }
      if (batch.length > 0) write(serializeItems(batch));
    };
    let written: RunManifest | undefined;
    const manifestText = () => {
      const skipped = r.skipped ?? 0;
      const status: RunStatus = r.status ?? (failed.length > 0 || skipped > 0 ? 'partial' : 'complete');
      const manifest: RunManifest = {
        schemaVersion: RUN_SCHEMA_VERSION,
        id: this.id,
        benchmark: this.init.benchmark,
        variant: this.init.variant,
        system: this.init.system,
        createdAt: this.createdAt,
        finishedAt: new Date().toISOString(),
        status,
        tool: {
          ...(this.init.tool?.cli !== undefined ? { cli: this.init.tool.cli } : {}),
          packages: { ...(this.init.tool?.packages ?? {}) },
          node: process.version,
          platform: `${process.platform}-${process.arch}`,
        },
        command: [...(this.init.command ?? [])],
        inputs: this.inputs,
        resources: this.resources.map((x) => pick(x, RESOURCE_KEYS)),
        options: this.options,
        ...(r.llm ? { llm: pickLlm(r.llm) } : {}),
        metrics: Object.fromEntries(Object.entries(r.metrics).map(([name, x]) => [name, pick(x, METRIC_KEYS)])),
        counts: { items: count, evaluated: count - failed.length, failed: failed.length, skipped },
        failures: (r.failures ?? failed.slice(0, MAX_FAILURES).map((i) => ({ id: i.id, reason: i.error! }))).map((x) =>
          pick(x, FAILURE_KEYS),
        ),
        artifacts: this.artifacts,
      };
      // the schema's rules, checked by hand (check.ts): writing a run loads no zod; the readers validate with the schema
      const problem = checkRunManifest(manifest);
      if (problem)
        throw new EvalError('invalid_run', `run ${this.dir}: invalid manifest at ${problem.path}: ${problem.message}`);
      written = manifest;
      return `${JSON.stringify(manifest, null, 2)}\n`;
    };
    await writeInOrder(
      [
        ...this.pending,
        [join(this.dir, RUN_FILES.items), { chunks: writeItems }],
        [join(this.dir, RUN_FILES.manifest), { later: manifestText }],
      ],
      {
        made: [resolve(this.dir)],
        unswept: this.fresh ? [resolve(this.dir)] : [],
        sync: this.durable,
      },
    );
    // (a new directory started without a marker has none to remove)
    if (!this.fresh || this.marker) removeIfPresent(join(this.dir, RUN_FILES.started));
    this.finished = true;
    return written!;
  }
}

// The caller's objects as the schema's parse returned them: its keys only, in its order (unknown keys dropped).
const METRIC_KEYS = ['value', 'n', 'ci', 'ciMethod', 'unit', 'digits', 'part'] as const;
const RESOURCE_KEYS = ['name', 'commit', 'sha256', 'source'] as const;
const FAILURE_KEYS = ['id', 'reason'] as const;
const LLM_KEYS = [
  'endpointHost',
  'model',
  'modelReported',
  'sampling',
  'calls',
  'tokens',
  'costUsd',
  'prices',
  'batch',
  'cache',
] as const;

function pick<T extends object>(x: T, keys: ReadonlyArray<keyof T>): T {
  if (x === null || typeof x !== 'object') return x;
  const out = {} as T;
  for (const k of keys) if (Object.hasOwn(x, k)) out[k] = x[k];
  return out;
}

function pickLlm(l: RunLlm): RunLlm {
  const out = pick(l, LLM_KEYS);
  if (l.calls) out.calls = pick(l.calls, ['made', 'cached', 'failed', 'retried']);
  if (l.tokens) out.tokens = pick(l.tokens, ['prompt', 'completion']);
  return out;
}

let tmpCounter = 0;

const fsyncAsync = (fd: number) =>
  new Promise<void>((done, fail) => fsync(fd, (error) => (error ? fail(error) : done())));

/**
 * What {@link writeInOrder} writes to a file: bytes, a text, a text made when its turn comes (`later`: after the files
 * before it are written), or chunks handed over as they are made (`chunks`).
 */
type FileContent = string | Uint8Array | { later: () => string } | { chunks: (write: (chunk: string) => void) => void };

/**
 * Writes files as `writeFileAtomic` does (a temporary file in the same directory, fsync, rename; stale temporary
 * files of dead processes swept), renaming them in the given order only once every one of them is on disk: a later
 * file (`run.json`) is never visible before an earlier one (`items.jsonl`) is complete and durable. The writes and
 * renames block (small steps, cheaper than thread-pool round trips); the fsyncs, which wait for the disk, run together
 * on the thread pool, so the files' waits overlap instead of adding up. `made`: directories known to exist (not made
 * again); `unswept`: directories not to sweep for stale temporary files (a run directory `startRun` created);
 * `sync: false`: no fsync (the files are still complete when renamed, and renamed in order, for every reader on this
 * machine; the disk gets them when the OS writes them back).
 */
async function writeInOrder(
  files: Array<[file: string, content: FileContent]>,
  {
    made = [],
    unswept = [],
    sync = true,
  }: { made?: ReadonlyArray<string>; unswept?: ReadonlyArray<string>; sync?: boolean } = {},
): Promise<void> {
  const open: Array<{ file: string; tmp: string; fd?: number }> = [];
  // The fsyncs start together once every file is written: one started while later files are still being created
  // and written makes those wait for the disk too (measured: slower, most of all with many small files). Every one
  // settles before any descriptor is closed (a failed or pending fsync must not see its descriptor closed, or reused).
  const syncs: Array<{ file: string; done: Promise<unknown> }> = [];
  const cleanUp = async () => {
    await Promise.allSettled(syncs.map((x) => x.done));
    for (const f of open) {
      try {
        if (f.fd !== undefined) closeSync(f.fd);
      } catch {
        // the error being reported is what matters
      }
      try {
        unlinkSync(f.tmp);
      } catch {
        // not created, or gone
      }
    }
  };
  let current = '';
  try {
    for (const dir of new Set(files.map(([file]) => resolve(file, '..')))) {
      if (made.includes(dir)) continue;
      current = dir;
      mkdirSync(dir, { recursive: true });
    }
    for (const [file, content] of files) {
      current = file;
      const f: { file: string; tmp: string; fd?: number } = {
        file,
        tmp: join(resolve(file, '..'), `.${basename(file)}.${process.pid}.${Date.now()}.${tmpCounter++}.tmp`),
      };
      open.push(f);
      const fd = openSync(f.tmp, 'w');
      f.fd = fd;
      if (typeof content === 'string') writeText(fd, content);
      else if (content instanceof Uint8Array)
        for (let at = 0; at < content.length; ) at += writeSync(fd, content, at, content.length - at);
      else if ('chunks' in content) content.chunks((chunk) => writeText(fd, chunk));
      else writeText(fd, content.later());
    }
    if (sync) for (const f of open) syncs.push({ file: f.file, done: fsyncAsync(f.fd!) });
    const dirs = [...new Set(open.map((f) => resolve(f.file, '..')))];
    const swept = dirs.filter((d) => !unswept.includes(d)).map((d) => ({ file: d, done: removeStaleTempFiles(d) }));
    const all = [...syncs, ...swept];
    const synced = await Promise.allSettled(all.map((x) => x.done));
    const failed = synced.findIndex((r) => r.status === 'rejected');
    if (failed >= 0) {
      current = all[failed]!.file;
      throw (synced[failed] as PromiseRejectedResult).reason;
    }
    for (const f of open) {
      closeSync(f.fd!);
      f.fd = undefined;
    }
    for (const f of open) {
      current = f.file;
      renameSync(f.tmp, f.file);
    }
  } catch (error) {
    await cleanUp();
    throw FileSystemError.from(error, current);
  }
}

/** Items serialised (and written) together: a batch's items are held until its text is written. */
const ITEM_BATCH = 256;

/** Writes a text as UTF-8, whole (a short write is continued). */
function writeText(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** Deletes a file; one that is not there is fine (`rm({ force })` without loading its recursive machinery). */
function removeIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw FileSystemError.from(error, file);
  }
}

export interface StartRunOptions {
  /**
   * Leave the start marker (`.run-started.json`, default true): until `finish`, `listRuns` and the report show the
   * directory as an unfinished run with its benchmark, variant and system. A caller that starts the run only to record
   * results it already has (it finishes at once) can leave it out: a run stopped before `finish` then leaves an empty
   * directory (nothing recorded, nothing listed), and never a complete-looking one.
   */
  marker?: boolean;
  /**
   * Wait for every file to reach the disk (fsync) before `finish` makes any of them visible (default true): a finished
   * run survives a power loss or an OS crash that comes right after. With `durable: false` the files are written the
   * same way (complete before renamed, `run.json` last), so a stopped or killed process never leaves a
   * complete-looking run, but the OS writes them to the disk later (seconds). After a power loss in that window a run
   * can be damaged: `readRun` then fails with an error naming the file (an unreadable `run.json`, a broken line, an
   * `items.jsonl` holding fewer items than `run.json` counts), never returns it as a result. For a run that is
   * cheaper to write again than to wait for (it is recomputed from files in a second: `dialeval cgt`, `multiwoz`).
   */
  durable?: boolean;
}

/**
 * Starts a run in `dir` (created with its parents): removes a stale `run.json` first, so a crashed rewrite never
 * looks complete, and leaves a marker that makes `listRuns` show the directory as `unfinished` until `finish`.
 */
export async function startRun(dir: string, init: RunWriterInit, options: StartRunOptions = {}): Promise<RunWriter> {
  // blocking calls: three small steps at a command's start, each cheaper than a thread-pool round trip
  let created: string | undefined;
  try {
    created = mkdirSync(dir, { recursive: true });
  } catch (error) {
    // EEXIST: `dir` is a file; ENOTDIR: a parent is
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new InputError('run directory is a file', { file: dir, cause: error });
    throw FileSystemError.from(error, dir, 'cannot create directory');
  }
  // a directory made just now holds no run.json (and no temporary files to sweep at the end)
  if (created === undefined) removeIfPresent(join(dir, RUN_FILES.manifest));
  const now = new Date();
  const writer = new RunWriter(
    dir,
    init,
    now,
    created !== undefined,
    options.marker !== false,
    options.durable !== false,
  );
  if (options.marker === false) return writer;
  // A plain write: the marker is a hint for `listRuns` (a torn one only loses the row's labels), so it is not worth a
  // temporary file and an fsync on every run; `run.json` is what is written atomically (durably unless told not to).
  const marker = {
    benchmark: init.benchmark,
    variant: init.variant,
    system: init.system,
    createdAt: now.toISOString(),
  };
  try {
    writeFileSync(join(dir, RUN_FILES.started), `${JSON.stringify(marker, null, 2)}\n`);
  } catch (error) {
    throw FileSystemError.from(error, join(dir, RUN_FILES.started));
  }
  return writer;
}
