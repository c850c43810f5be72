import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { EvalError, FileSystemError, InputError } from '../errors';
import { removeStaleTempFiles, tempPathFor } from '../io';
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
import { RUN_SCHEMA_VERSION } from './version';

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
  /**
   * The npm package whose `runBenchmark` descriptor recomputes this run's metrics (the descriptor's `package`):
   * recorded as `benchmarkPackage`, so that `compare`, `runs` and `report` find the descriptor of any benchmark.
   */
  package?: string;
  /** When items nest in larger units (the descriptor's `cluster`): what one cluster is. */
  cluster?: { unit: string };
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
   * and written item by item, so the items need not all be in memory at once).
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

/** Size and sha256 (hex) of a file's bytes. */
export interface FileDigest {
  size: number;
  sha256: string;
}

/**
 * The size and sha256 of the files a command reads, taken from the bytes it read: pass `onRead` to the readers
 * (`ReadOptions.onRead`, `readJson(file, schema, { onRead })`), then `RunWriter.addInput(role, path, digests)`. The
 * digest is of exactly the bytes that were evaluated, and the file is not read a second time. A file the command did
 * not read through `onRead` is read and hashed on demand.
 */
export class FileDigests {
  private readonly seen = new Map<string, FileDigest>();

  /** The `ReadOptions.onRead` hook (the last read of a path wins). */
  readonly onRead = (file: string, bytes: Uint8Array): void => {
    this.seen.set(resolve(file), { size: bytes.length, sha256: sha256Hex(bytes) });
  };

  /** Size and sha256 of `file`: of the bytes read through `onRead`, else of the file as it is now on disk. */
  async get(file: string): Promise<FileDigest> {
    return this.seen.get(resolve(file)) ?? hashFile(file);
  }
}

/** sha256 and size of a file, streamed. */
async function hashFile(path: string): Promise<FileDigest> {
  const hash = createHash('sha256');
  let size = 0;
  try {
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
  return createHash('sha256').update(lines.join(''), 'utf8').digest('hex');
}

/**
 * A file's location as a run records it (artifacts, and the files items point to): relative to the run directory with
 * `/` separators when the file is inside it (the run can be moved or copied whole), else absolute.
 */
export function runLocation(runDir: string, file: string): string {
  const abs = resolve(file);
  const rel = relative(resolve(runDir), abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : abs;
}

/** The path of a location {@link runLocation} recorded for the run at `runDir`. */
export function resolveRunLocation(runDir: string, location: string): string {
  return isAbsolute(location) ? location : resolve(runDir, location);
}

function defaultRunId(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomUUID().slice(0, 8)}`;
}

/** Items are written to `items.jsonl` in pieces of about this many characters. */
const ITEMS_CHUNK = 1 << 20;

/**
 * Writes one run. Create it with {@link startRun}, record inputs, resources, options and native artifacts while the
 * command runs, then `finish` with the items and headline metrics. The one invariant: every file is written to a
 * temporary file and made visible by a rename, the native artifacts and `items.jsonl` first and `run.json` last, so a
 * directory without `run.json` is always an unfinished run, and a stopped run never looks complete.
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

  /** @internal use {@link startRun} */
  constructor(dir: string, init: RunWriterInit, now: Date) {
    this.dir = dir;
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
   * `finish` writes the file (atomically, made visible before `items.jsonl` and `run.json`); without, the caller has
   * written it.
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
   * Writes the artifacts given with content, `items.jsonl`, then `run.json`, and returns the manifest. All of them are
   * written to temporary files and synced first; nothing becomes visible unless all were written and the manifest is
   * valid (a duplicate item id, an invalid metric: nothing is left behind). Then they are renamed in order,
   * `run.json` last.
   */
  async finish(r: RunFinish): Promise<RunManifest> {
    if (this.finished) throw new EvalError('run_finished', `run ${this.dir} is already finished`);
    const staged: Array<{ file: string; tmp: string }> = [];
    const stage = async (file: string, write: (fh: FileHandle) => Promise<void>) => {
      try {
        await mkdir(dirname(file), { recursive: true });
        const tmp = tempPathFor(file);
        staged.push({ file, tmp });
        const fh = await open(tmp, 'w');
        try {
          await write(fh);
          await fh.sync();
        } finally {
          await fh.close();
        }
      } catch (error) {
        throw FileSystemError.from(error, file);
      }
    };
    let current = this.dir;
    try {
      for (const [file, content] of this.pending) await stage(file, (fh) => fh.writeFile(content));

      // one pass over the items: ids checked, failures kept, lines written as they are made
      const seen = new Map<string, number>();
      const failed: RunItem[] = [];
      let count = 0;
      await stage(join(this.dir, RUN_FILES.items), async (fh) => {
        let text = '';
        for (const item of r.items) {
          const first = seen.get(item.id);
          if (first !== undefined)
            throw new EvalError(
              'duplicate_item',
              `run ${this.dir}: items ${first + 1} and ${count + 1} share the id "${item.id}"`,
            );
          seen.set(item.id, count++);
          if (item.error !== undefined) failed.push(item);
          text += `${JSON.stringify(item)}\n`;
          if (text.length >= ITEMS_CHUNK) {
            await fh.writeFile(text);
            text = '';
          }
        }
        if (text !== '') await fh.writeFile(text);
      });

      const manifest = await this.manifest(r, count, failed);
      await stage(join(this.dir, RUN_FILES.manifest), (fh) => fh.writeFile(`${JSON.stringify(manifest, null, 2)}\n`));

      await removeStaleTempFiles(this.dir);
      for (const { file, tmp } of staged.splice(0)) {
        current = file;
        await rename(tmp, file);
      }
      await rm(join(this.dir, RUN_FILES.started), { force: true });
      this.finished = true;
      return manifest;
    } catch (error) {
      await Promise.all(staged.map(({ tmp }) => rm(tmp, { force: true }).catch(() => {})));
      throw FileSystemError.from(error, current);
    }
  }

  /** The manifest of `finish`, as `runManifestSchema` parses it (unknown keys dropped, its key order). */
  private async manifest(r: RunFinish, count: number, failed: RunItem[]): Promise<RunManifest> {
    const skipped = r.skipped ?? 0;
    const manifest = {
      schemaVersion: RUN_SCHEMA_VERSION,
      id: this.id,
      benchmark: this.init.benchmark,
      ...(this.init.package !== undefined ? { benchmarkPackage: this.init.package } : {}),
      ...(this.init.cluster !== undefined ? { cluster: this.init.cluster } : {}),
      variant: this.init.variant,
      system: this.init.system,
      createdAt: this.createdAt,
      finishedAt: new Date().toISOString(),
      status: r.status ?? (failed.length > 0 || skipped > 0 ? 'partial' : 'complete'),
      tool: {
        ...(this.init.tool?.cli !== undefined ? { cli: this.init.tool.cli } : {}),
        packages: { ...(this.init.tool?.packages ?? {}) },
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
      },
      command: [...(this.init.command ?? [])],
      inputs: this.inputs,
      resources: this.resources,
      options: this.options,
      ...(r.llm ? { llm: r.llm } : {}),
      metrics: r.metrics,
      counts: { items: count, evaluated: count - failed.length, failed: failed.length, skipped },
      failures: r.failures ?? failed.slice(0, MAX_FAILURES).map((i) => ({ id: i.id, reason: i.error! })),
      artifacts: this.artifacts,
    };
    // zod is loaded when a run is written or read, not by every command that imports @eval/core
    const { runManifestSchema } = await import('./schema');
    const parsed = runManifestSchema.safeParse(manifest);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join('.') || '(root)';
    throw new EvalError('invalid_run', `run ${this.dir}: invalid manifest at ${path}: ${issue.message}`);
  }
}

/**
 * Starts a run in `dir` (created with its parents): removes a stale `run.json` first, so a crashed rewrite never
 * looks complete, and leaves a marker that makes `listRuns` show the directory as `unfinished` until `finish`.
 */
export async function startRun(dir: string, init: RunWriterInit): Promise<RunWriter> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    // EEXIST: `dir` is a file; ENOTDIR: a parent is
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new InputError('run directory is a file', { file: dir, cause: error });
    throw FileSystemError.from(error, dir, 'cannot create directory');
  }
  const now = new Date();
  const marker = {
    benchmark: init.benchmark,
    variant: init.variant,
    system: init.system,
    createdAt: now.toISOString(),
  };
  try {
    await rm(join(dir, RUN_FILES.manifest), { force: true });
    // a hint for `listRuns` (a torn one only loses the row's labels): a plain write
    await writeFile(join(dir, RUN_FILES.started), `${JSON.stringify(marker, null, 2)}\n`);
  } catch (error) {
    throw FileSystemError.from(error, dir);
  }
  return new RunWriter(dir, init, now);
}
