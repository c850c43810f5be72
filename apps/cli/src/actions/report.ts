import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  EvalError,
  InputError,
  type LoadedRun,
  RUN_FILES,
  compareRuns,
  readJsonl,
  readRun,
  type RunItem,
} from '@eval/core';
import { runItemSchema } from '@eval/core/schemas';
import { type ReportRun, writeReport } from '@eval/report';
import type { ReportCommandOptions } from '../flags/report';
import { UsageError } from '../util';
import { findRunBenchmark, progressOnTty } from './compare';

/** A run directory as the report shows it: finished runs through `readRun`; a directory without run.json as unfinished. */
export async function loadReportRun(dir: string): Promise<ReportRun & { loaded?: LoadedRun }> {
  const s = await stat(dir).catch(() => undefined);
  if (!s) throw new UsageError(`${dir}: no such run directory`);
  if (!s.isDirectory())
    throw new UsageError(`${dir}: not a directory (report takes run directories: run.json + items.jsonl)`);
  try {
    const loaded = await readRun(dir);
    return { path: dir, manifest: loaded.manifest, items: loaded.items, loaded };
  } catch (error) {
    if (!(EvalError.isInstance(error) && error.code === 'input_unfinished_run')) throw error;
  }
  const items: RunItem[] = [];
  const itemsFile = join(dir, RUN_FILES.items);
  if (await stat(itemsFile).catch(() => undefined)) {
    for await (const { value } of readJsonl(itemsFile, runItemSchema)) items.push(value);
  }
  let started: ReportRun['started'];
  try {
    const marker = JSON.parse(await readFile(join(dir, RUN_FILES.started), 'utf8')) as Record<string, unknown>;
    started = {};
    for (const key of ['benchmark', 'variant', 'system', 'createdAt'] as const)
      if (typeof marker[key] === 'string') started[key] = marker[key];
  } catch {
    // no marker: nothing more is known about the run
  }
  if (!started && items.length === 0)
    throw new InputError('not a run directory: no run.json, items.jsonl or start marker', {
      file: dir,
      code: 'input_not_a_run',
    });
  return { path: dir, manifest: null, items, started };
}

/**
 * Fills in the display detail a run keeps by location (transcripts, dialogue contexts: the benchmark package's
 * `runBenchmark.itemDetails`), for the report only: what compare and the metrics see is the run as recorded.
 */
async function withItemDetails(run: ReportRun & { loaded?: LoadedRun }): Promise<void> {
  const name = run.manifest?.benchmark ?? run.started?.benchmark;
  if (name === undefined || run.items.length === 0 || run.path === undefined) return;
  // an unfinished run has no record naming its package: the built-in one of that name, if any
  const { benchmark } = await findRunBenchmark(run.manifest ?? { benchmark: name, benchmarkPackage: `@eval/${name}` }, {
    fallbackItemMeans: true,
  });
  if (!benchmark.itemDetails) return;
  run.items = await benchmark.itemDetails(run.items, run.path, run.manifest ?? undefined);
}

/** `dialeval report RUN... [--out report.html] [--title ...]`. */
export async function runReport(dirs: string[], opts: ReportCommandOptions): Promise<void> {
  const { resamples, seed } = opts;
  const runs = await Promise.all(dirs.map(loadReportRun));
  await Promise.all(runs.map(withItemDetails));
  const benchmarks = [
    ...new Set(
      runs.map((r) => r.manifest?.benchmark ?? r.started?.benchmark).filter((b): b is string => b !== undefined),
    ),
  ];
  if (benchmarks.length > 1) {
    throw new InputError(
      `runs of different benchmarks cannot be mixed in one report: ${runs.map((r) => `${r.path} (${r.manifest?.benchmark ?? r.started?.benchmark ?? 'unknown'})`).join(', ')}`,
      { code: 'input_mismatch' },
    );
  }
  const finished = runs.flatMap((r) => (r.loaded ? [r.loaded] : []));
  const notes: string[] = [];
  let comparison;
  if (runs.length > 1 && finished.length === runs.length) {
    const { benchmark } = await findRunBenchmark(finished[0]!.manifest, opts);
    try {
      comparison = compareRuns(finished, benchmark, {
        resamples,
        seed,
        allPairs: Boolean(opts.allPairs),
        force: Boolean(opts.force),
        onProgress: progressOnTty('report: comparing, resampling'),
      });
    } catch (error) {
      // runs of one benchmark in different variants (methods, normalisations) are shown side by side, not compared
      if (!(EvalError.isInstance(error) && error.code === 'input_mismatch')) throw error;
      notes.push(
        `Not compared: ${error.message}. The runs are shown side by side; dialeval report --force compares them anyway.`,
      );
    }
  } else if (runs.length > 1) {
    notes.push('Not compared: an unfinished run cannot be compared. The runs are shown side by side.');
  }
  for (const note of notes) process.stderr.write(`dialeval report: ${note}\n`);
  const out = opts.out ?? 'report.html';
  await writeReport(out, {
    runs: runs.map(({ path, manifest, items, started }) => ({
      path,
      manifest,
      items,
      ...(started ? { started } : {}),
    })),
    ...(comparison ? { comparison } : {}),
    ...(notes.length ? { notes } : {}),
    ...(opts.title !== undefined ? { title: opts.title } : {}),
  });
  for (const r of runs) {
    const status = r.manifest ? r.manifest.status : 'unfinished';
    if (status !== 'complete')
      process.stderr.write(`dialeval report: ${r.path} is ${status}; the report shows it as such\n`);
  }
  process.stdout.write(`report written to ${resolve(out)}\n`);
}
