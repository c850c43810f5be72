import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../errors';
import { parseJson, readJsonl, validate } from '../io';
import type { RunItem, RunManifest, RunMetric, RunStatus } from './schema';
import { RUN_SCHEMA_VERSION } from './version';
import { RUN_FILES } from './writer';

/** The zod schemas, loaded on first use (`@eval/core` itself loads without zod). */
const loadRunSchemas = (): Promise<typeof import('./schema')> => import('./schema');

/** Every `schemaVersion` this reader understands. */
export const KNOWN_RUN_SCHEMA_VERSIONS: readonly number[] = [RUN_SCHEMA_VERSION];

export interface LoadedRun {
  dir: string;
  manifest: RunManifest;
  /** The lines of `items.jsonl`, in file order. */
  items: RunItem[];
}

async function parseManifest(text: string, file: string): Promise<RunManifest> {
  const value = parseJson(text, file);
  const version = (value as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (
    typeof value === 'object' &&
    value !== null &&
    version !== undefined &&
    !KNOWN_RUN_SCHEMA_VERSIONS.includes(version as number)
  ) {
    throw new InputError(
      `unknown run schema version ${JSON.stringify(version)} (this reader knows ${KNOWN_RUN_SCHEMA_VERSIONS.join(', ')}; a newer dialeval may read it)`,
      { file, field: ['schemaVersion'], code: 'input_schema_version' },
    );
  }
  const { runManifestSchema } = await loadRunSchemas();
  return validate(runManifestSchema, value, { file });
}

/** Reads and validates `DIR/run.json`. A directory without it is an unfinished run: an {@link InputError} says so. */
export async function readRunManifest(dir: string): Promise<RunManifest> {
  const file = join(dir, RUN_FILES.manifest);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new InputError(
        `no ${RUN_FILES.manifest}: not a run directory, or an unfinished run (run.json is written last)`,
        {
          file,
          code: 'input_unfinished_run',
          cause: error,
        },
      );
    }
    throw new InputError(`cannot read file (${code ?? String(error)})`, { file, cause: error });
  }
  return parseManifest(text, file);
}

/**
 * Reads a run: `run.json` (validated, known `schemaVersion`) and every line of `items.jsonl` (validated; a broken line
 * or a duplicate id is an {@link InputError} naming the file, the line and the field; so is an `items.jsonl` with
 * fewer or more lines than `run.json` counts: a damaged run).
 */
export async function readRun(dir: string): Promise<LoadedRun> {
  const manifest = await readRunManifest(dir);
  const file = join(dir, RUN_FILES.items);
  const items: RunItem[] = [];
  const lineOf = new Map<string, number>();
  const { runItemSchema } = await loadRunSchemas();
  for await (const { line, value } of readJsonl(file, runItemSchema)) {
    const first = lineOf.get(value.id);
    if (first !== undefined) {
      throw new InputError(`duplicate item id ${JSON.stringify(value.id)} (first on line ${first})`, {
        file,
        record: line,
        field: ['id'],
        code: 'input_duplicate_id',
      });
    }
    lineOf.set(value.id, line);
    items.push(value);
  }
  // run.json is written after items.jsonl: fewer items than it counts is a file cut short (a copy broken off) or
  // edited, never a run to compare
  if (items.length !== manifest.counts.items) {
    throw new InputError(
      `has ${items.length} item line(s) where run.json's counts.items is ${manifest.counts.items}: the run is damaged (cut short or edited); write it again`,
      { file, code: 'input_damaged_run' },
    );
  }
  return { dir, manifest, items };
}

/** One row of the leaderboard. */
export interface RunListing {
  /** The run directory (the listed directory joined with its relative path). */
  dir: string;
  /** The manifest's status; `unfinished` when there is no `run.json`; `invalid` when it cannot be read. */
  status: RunStatus | 'unfinished' | 'invalid';
  id?: string;
  benchmark?: string;
  variant?: string;
  system?: string;
  createdAt?: string;
  finishedAt?: string;
  metrics: Record<string, RunMetric>;
  counts?: RunManifest['counts'];
  costUsd?: number;
  model?: string;
  /** Why a run is `invalid`. */
  error?: string;
}

export interface ListRunsOptions {
  /** Only runs of this benchmark. */
  benchmark?: string;
  /**
   * `date` (createdAt), `system`, `benchmark`, `variant`, `status`, `cost`, or a metric name (runs without it go
   * last). Default: benchmark, variant, system, date.
   */
  sortBy?: string;
  /** Default: true when sorting by a metric, `date` or `cost`, else false. */
  descending?: boolean;
}

const SKIP_DIRS = new Set(['node_modules', '.git']);

/** Finds run directories (with `run.json`, or unfinished: `items.jsonl` or the start marker) below `root`. */
async function findRunDirs(root: string): Promise<Array<{ dir: string; finished: boolean }>> {
  const found: Array<{ dir: string; finished: boolean }> = [];
  const visit = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (dir === root) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new InputError(
          code === 'ENOENT' ? 'directory not found' : `cannot list directory (${code ?? String(error)})`,
          {
            file: dir,
            code: code === 'ENOENT' ? 'file_not_found' : 'input_error',
          },
        );
      }
      return;
    }
    const names = new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
    if (names.has(RUN_FILES.manifest)) {
      found.push({ dir, finished: true });
      return; // a run's own subdirectories hold native outputs, not runs
    }
    if (names.has(RUN_FILES.items) || names.has(RUN_FILES.started)) found.push({ dir, finished: false });
    await Promise.all(
      entries.filter((e) => e.isDirectory() && !SKIP_DIRS.has(e.name)).map((e) => visit(join(dir, e.name))),
    );
  };
  await visit(root);
  return found;
}

async function listOne(entry: { dir: string; finished: boolean }): Promise<RunListing> {
  if (!entry.finished) {
    const row: RunListing = { dir: entry.dir, status: 'unfinished', metrics: {} };
    try {
      const marker = JSON.parse(await readFile(join(entry.dir, RUN_FILES.started), 'utf8')) as Record<string, unknown>;
      for (const key of ['benchmark', 'variant', 'system', 'createdAt'] as const) {
        if (typeof marker[key] === 'string') row[key] = marker[key];
      }
    } catch {
      // no marker (items.jsonl only): nothing more is known
    }
    return row;
  }
  try {
    const m = await readRunManifest(entry.dir);
    return {
      dir: entry.dir,
      status: m.status,
      id: m.id,
      benchmark: m.benchmark,
      variant: m.variant,
      system: m.system,
      createdAt: m.createdAt,
      finishedAt: m.finishedAt,
      metrics: m.metrics,
      counts: m.counts,
      ...(m.llm ? { costUsd: m.llm.costUsd, model: m.llm.model } : {}),
    };
  } catch (error) {
    return { dir: entry.dir, status: 'invalid', metrics: {}, error: (error as Error).message };
  }
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping the order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const cmp = (a: string | number | undefined, b: string | number | undefined): number => {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
};

function sortKey(row: RunListing, by: string): string | number | undefined {
  switch (by) {
    case 'date':
      return row.createdAt;
    case 'system':
    case 'benchmark':
    case 'variant':
    case 'status':
      return row[by];
    case 'cost':
      return row.costUsd;
    default: {
      const v = row.metrics[by]?.value;
      return v === null || v === undefined || Number.isNaN(v) ? undefined : v;
    }
  }
}

/**
 * Lists every run below `dir` (reading only `run.json` files, in parallel): finished runs with their manifest's
 * status and headline metrics, directories without `run.json` as `unfinished`, unreadable manifests as `invalid`.
 */
export async function listRuns(dir: string, options: ListRunsOptions = {}): Promise<RunListing[]> {
  const found = await findRunDirs(dir);
  let rows = await mapLimited(found, 64, listOne);
  if (options.benchmark !== undefined) rows = rows.filter((r) => r.benchmark === options.benchmark);
  const by = options.sortBy;
  if (by === undefined) {
    const desc = options.descending ?? false;
    rows.sort(
      (a, b) =>
        (desc ? -1 : 1) *
          (cmp(a.benchmark, b.benchmark) ||
            cmp(a.variant, b.variant) ||
            cmp(a.system, b.system) ||
            cmp(a.createdAt, b.createdAt)) || cmp(a.dir, b.dir),
    );
  } else {
    const desc = options.descending ?? !['system', 'benchmark', 'variant', 'status'].includes(by);
    rows.sort((a, b) => {
      const ka = sortKey(a, by);
      const kb = sortKey(b, by);
      if (ka === undefined || kb === undefined) return cmp(ka, kb) || cmp(a.dir, b.dir); // missing last either way
      return (desc ? -1 : 1) * cmp(ka, kb) || cmp(a.dir, b.dir);
    });
  }
  return rows;
}
