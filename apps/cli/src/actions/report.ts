import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  EvalError,
  InputError,
  type JudgeAgreement,
  type LoadedRun,
  RUN_FILES,
  compareRuns,
  judgeAgreement,
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

/** A run's judge as the run record names it: the panel's label (`options.judge`), the judge model, the variant. */
function judgeOf(run: LoadedRun): string {
  const label = run.manifest.options?.judge;
  return JSON.stringify([
    typeof label === 'string' ? label : null,
    run.manifest.llm?.model ?? null,
    run.manifest.variant,
  ]);
}

/**
 * Runs that are one system's items judged by different judges: the same system name and the same item ids, and no
 * two with the same judge (panel label, judge model and variant).
 */
export function judgedByDifferentJudges(runs: ReadonlyArray<LoadedRun>): boolean {
  if (runs.length < 2) return false;
  if (new Set(runs.map((r) => r.manifest.system)).size > 1) return false;
  const ids = (r: LoadedRun) => JSON.stringify(r.items.map((i) => i.id).sort());
  const first = ids(runs[0]!);
  if (!runs.every((r) => ids(r) === first)) return false;
  return new Set(runs.map(judgeOf)).size === runs.length;
}

/** The judges' names: the panel's labels when every run has its own, else `judgeAgreement`'s (model, variant, dir). */
function panelLabels(runs: ReadonlyArray<LoadedRun>): string[] | undefined {
  const labels = runs.map((r) => r.manifest.options?.judge);
  if (!labels.every((l): l is string => typeof l === 'string' && l !== '')) return undefined;
  return new Set(labels).size === labels.length ? labels : undefined;
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
  let agreement: JudgeAgreement | undefined;
  if (runs.length > 1 && finished.length === runs.length) {
    const { benchmark } = await findRunBenchmark(finished[0]!.manifest, opts);
    if (judgedByDifferentJudges(finished)) {
      const names = panelLabels(finished);
      try {
        agreement = judgeAgreement(finished, benchmark, { resamples, seed, ...(names ? { names } : {}) });
      } catch (error) {
        // runs without a verdict to compare (no binary outcome) are still compared; the report says why no agreement
        if (!(EvalError.isInstance(error) && error.category === 'input')) throw error;
        notes.push(`No agreement of judges: ${error.message}.`);
      }
    }
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
    ...(agreement ? { agreement } : {}),
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
