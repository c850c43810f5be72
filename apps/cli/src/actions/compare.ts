import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type FoundRunBenchmark,
  type LoadedRun,
  type RunBenchmarkRef,
  compareRuns,
  loadRunBenchmark,
  readRun,
  runBenchmarkOf,
  verdictSentences,
} from '@eval/core';
import type { CompareCommandOptions } from '../flags/compare';
import { type Declared, formatCsv, formatTableOrMarkdown } from '../render/compare';
import { UsageError, emit } from '../util';

/** How the CLI loads the benchmark packages it depends on itself (the built-in benchmarks). */
const ownPackages = {
  resolve: (name: string) => createRequire(import.meta.url).resolve(name),
  import: (name: string) => import(name),
};

/**
 * The descriptor that recomputes a run's metrics: `--recompute MODULE`, else the one its run record names (see
 * `loadRunBenchmark`: the user's project first, then the CLI's own packages). A run whose descriptor cannot be found
 * is refused unless `fallbackItemMeans` (then the metrics are the means of the item values).
 */
export async function findRunBenchmark(
  manifest: RunBenchmarkRef,
  opts: { recompute?: string; fallbackItemMeans?: boolean } = {},
): Promise<FoundRunBenchmark> {
  const { recompute } = opts;
  if (recompute !== undefined) {
    let mod: unknown;
    try {
      mod = await import(pathToFileURL(resolve(recompute)).href);
    } catch (error) {
      throw new UsageError(`--recompute ${recompute}: cannot load the module (${(error as Error).message})`);
    }
    const benchmark = runBenchmarkOf(mod) ?? runBenchmarkOf({ runBenchmark: (mod as { default?: unknown }).default });
    if (!benchmark)
      throw new UsageError(
        `--recompute ${recompute}: the module exports no \`runBenchmark\` (or default) with \`benchmark\` and \`recompute\``,
      );
    return { benchmark, source: recompute, fallback: false };
  }
  return loadRunBenchmark(manifest, { fallbackToItemMeans: opts.fallbackItemMeans === true, own: ownPackages });
}

async function loadRuns(dirs: string[]): Promise<LoadedRun[]> {
  for (const dir of dirs) {
    const s = await stat(dir).catch(() => undefined);
    if (!s) throw new UsageError(`${dir}: no such run directory`);
    if (!s.isDirectory())
      throw new UsageError(`${dir}: not a directory (compare takes run directories: run.json + items.jsonl)`);
  }
  return Promise.all(dirs.map((d) => readRun(d)));
}

/** A resampling progress line on stderr when it is a terminal (nothing in pipes), `<what> N%`. */
export function progressOnTty(what = 'compare: resampling'): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (done < total && now - last < 200) return;
    last = now;
    process.stderr.write(done < total ? `\r${what} ${Math.floor((100 * done) / total)}%` : '\r\x1b[K');
  };
}

/** `dialeval compare A B [C ...]`. */
export async function runCompare(dirs: string[], opts: CompareCommandOptions): Promise<void> {
  const format = opts.format;
  if (dirs.length < 2) throw new UsageError('compare needs at least two run directories');
  const resamples = opts.resamples ?? 10_000;
  const seed = opts.seed ?? 0;
  const runs = await loadRuns(dirs);
  const { benchmark, source } = await findRunBenchmark(runs[0]!.manifest, opts);
  const comparison = compareRuns(runs, benchmark, {
    resamples,
    seed,
    allPairs: Boolean(opts.allPairs),
    force: Boolean(opts.force),
    metrics: opts.metric,
    unit: opts.unit,
    onProgress: progressOnTty(),
  });
  const declared: Declared = runs[0]!.manifest.metrics;
  if (format === 'json')
    await emit(
      JSON.stringify(
        { ...comparison, recomputedBy: source, verdicts: verdictSentences(comparison, declared) },
        null,
        2,
      ),
      opts.out,
    );
  else if (format === 'csv') await emit(formatCsv(comparison, declared), opts.out);
  else await emit(formatTableOrMarkdown(comparison, source, format === 'markdown', declared), opts.out);
}
