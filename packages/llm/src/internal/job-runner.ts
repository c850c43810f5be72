import { setMaxListeners } from 'node:events';
import { resolve } from 'node:path';
import { EvalError, FileSystemError, InputError, writeJsonAtomic } from '@eval/core';
import { type BatchReport, runBatchRounds } from '../batch';
import type { DiskCache } from '../cache';
import { isCode, LlmCallError, LlmConfigError } from '../errors';
import { type JournalRecord, JournalWriter, readJournal } from '../journal';
import { BATCH_DISCOUNT } from '../prices';
import { formatCost, ProgressLine } from '../progress';
import {
  type CallCountEstimate,
  type JobFailure,
  type JobResult,
  jobKey,
  type ResolvedOptions,
  type RunJobsResult,
  type RunJobsSpec,
  type RunStop,
  type RunSummary,
} from '../types';
import type { Budget } from './budget';
import type { Phase, CallContext } from './calls';
import { type ConfigGuard, errorMessage } from './config-guard';
import { formatDryRun, type Planned, writeDryRun } from './dry-run';
import type { Pacer, PacingReport } from './pacer';
import { type OpenAITransport, redact } from './transport';
import { Stats, type Usage } from './usage';
import type { ChatModel } from '@eval/core';

/** The runtime's deadline (`deadlineMs`) passed: runs stop as on an interruption. */
export class DeadlineError extends EvalError {
  constructor(ms: number) {
    super('deadline', `the run deadline (${Math.round(ms / 1000)} s) passed`);
    this.name = 'DeadlineError';
  }
  static is(error: unknown): boolean {
    return EvalError.isInstance(error) && error.code === 'deadline';
  }
}

export interface JobRunnerDeps {
  options: ResolvedOptions;
  ready: Promise<void>;
  log: (line: string) => void;
  cache: DiskCache;
  usage: Usage;
  budget: Budget;
  guard: ConfigGuard;
  pacer: Pacer;
  pacing: () => PacingReport;
  global: Stats;
  makeModel: (sinks: Stats[], phase: Phase, ctx: CallContext, signal?: AbortSignal) => ChatModel;
  transport: () => OpenAITransport;
  secret: () => string | undefined;
  closeSignal: AbortSignal;
  /** Controllers of the runs in progress (stopped by `interrupt()`, the deadline and a configuration error). */
  activeRuns: Set<AbortController>;
  finishedSummaries: RunSummary[];
  runningSummaries: Set<() => RunSummary>;
  summaryFile: string | undefined;
}

/**
 * `runJobs`: every item (x repeats) through `run` with the run's model, at most `itemConcurrency` at once; the
 * journal skips finished items and records each result (fsync'd); the budget, an interruption, the deadline or a
 * configuration error stop it cleanly with a summary (written to the summary file).
 */
export function createJobRunner(d: JobRunnerDeps) {
  const { options: resolved, log, cache, usage, budget, guard, pacer, global } = d;
  const { makeModel, activeRuns, runningSummaries, finishedSummaries } = d;
  async function runJobs<I, R>(spec: RunJobsSpec<I, R>): Promise<RunJobsResult<R>> {
    await d.ready;
    const started = Date.now();
    if (
      !spec ||
      typeof spec.name !== 'string' ||
      !Array.isArray(spec.items) ||
      typeof spec.run !== 'function' ||
      typeof spec.id !== 'function'
    ) {
      throw new InputError('runJobs needs { name, items, id, run }');
    }
    const repeats = spec.repeats ?? 1;
    const method = spec.method ?? spec.name;
    if (!Number.isInteger(repeats) || repeats < 1)
      throw new InputError(`repeats must be a positive integer, got ${spec.repeats}`, { field: ['repeats'] });
    const ids = spec.items.map((item, i) => {
      const id = spec.id(item);
      if (typeof id !== 'string' || id === '')
        throw new InputError(`item ${i} has no id (id() must return a non-empty string)`, { record: i });
      return id;
    });
    const seen = new Set<string>();
    for (let i = 0; i < ids.length; i++) {
      if (seen.has(ids[i]!))
        throw new InputError(`duplicate item id "${ids[i]}": ids must be unique for the journal to resume`, {
          record: i,
        });
      seen.add(ids[i]!);
    }
    // Jobs: every item x repeat, repeats of an item together.
    const jobs: Array<{ item: number; repeat: number; key: string }> = [];
    const keys = new Set<string>();
    for (let i = 0; i < ids.length; i++) {
      for (let r = 0; r < repeats; r++) {
        const key = jobKey(ids[i]!, r);
        if (keys.has(key))
          throw new InputError(`item id "${ids[i]}" collides with the job key of a repeat ("${key}")`, { record: i });
        keys.add(key);
        jobs.push({ item: i, repeat: r, key });
      }
    }
    // A dry run reads the journal (finished items need no calls) but never writes it.
    const journalFile = spec.journal ? resolve(spec.journal) : undefined;
    const previous = journalFile ? await readJournal(journalFile) : undefined;
    if (previous && previous.dropped > 0) {
      log(
        `journal ${journalFile}: ${previous.dropped} line(s) failed their checksum and were dropped; their items are run again`,
      );
    }
    const retryFailed = spec.retryFailed ?? true;

    const stats = new Stats();
    const sinks = [global, stats];
    const jobPlan = new Map<string, Planned>();
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    const onOuterAbort = () => controller.abort(spec.signal?.reason ?? d.closeSignal.reason);
    spec.signal?.addEventListener('abort', onOuterAbort, { once: true });
    if (spec.signal?.aborted) onOuterAbort();
    d.closeSignal.addEventListener('abort', onOuterAbort, { once: true });
    activeRuns.add(controller);
    if (guard.stopped) controller.abort(guard.stopped);

    const results = new Array<JobResult<R> | undefined>(jobs.length);
    const failures: JobFailure[] = [];
    const notRunKeys: string[] = [];
    /** Dry run: jobs stopped at a request the dry run recorded (they would make calls). */
    const deferredJobs: number[] = [];
    let done = 0;
    let failed = 0;
    let skipped = 0;
    let stoppedByBudget = false;
    /** A filesystem error that stops the run (rethrown after the summary). */
    let fatal: unknown;
    const stopWithFatal = (error: unknown) => {
      if (fatal !== undefined) return;
      fatal = error;
      controller.abort(error);
    };
    const todo: number[] = [];
    const resultOf = (j: number, rec: JournalRecord, extra: { code?: string; status?: number } = {}): JobResult<R> => {
      const job = jobs[j]!;
      const base = repeats > 1 ? { id: ids[job.item]!, repeat: job.repeat } : { id: ids[job.item]! };
      if (rec.ok) return { ...base, ok: true, value: rec.value as R };
      const out: JobResult<R> = { ...base, ok: false, error: rec.error };
      const code = extra.code ?? rec.code;
      const status = extra.status ?? rec.status;
      if (code !== undefined) out.code = code;
      if (status !== undefined) out.status = status;
      return out;
    };
    for (let j = 0; j < jobs.length; j++) {
      const rec = previous?.records.get(jobs[j]!.key);
      if (rec && (rec.ok || !retryFailed)) {
        results[j] = resultOf(j, rec);
        skipped++;
        if (rec.ok) done++;
        else {
          failed++;
          failures.push({ key: jobs[j]!.key, error: rec.error });
        }
      } else {
        todo.push(j);
      }
    }

    const progress = new ProgressLine(
      () => {
        const u = stats.summary();
        return {
          name: spec.name,
          total: jobs.length,
          done,
          failed,
          skipped,
          calls: u.calls + u.batchCalls,
          cacheHits: u.cacheHits,
          tokens: u.totalTokens,
          cost: u.cost,
          costKnown: u.costKnown,
          startedAt: started,
        };
      },
      { enabled: resolved.progress },
    );

    const stopReason = (): RunStop | undefined => {
      if (guard.stopped && controller.signal.reason === guard.stopped) return 'config';
      if (DeadlineError.is(controller.signal.reason)) return 'deadline';
      if (fatal && controller.signal.reason === fatal) return 'filesystem';
      if (stoppedByBudget) return 'budget';
      if (controller.signal.aborted) return 'aborted';
      return undefined;
    };
    const snapshot = (): RunSummary => {
      const stopped = stopReason();
      const summary: RunSummary = {
        name: spec.name,
        items: jobs.length,
        done,
        failed,
        skipped,
        notRun: notRunKeys.length,
        stoppedByBudget,
        ...(stopped ? { stopped } : {}),
        ...(stopped === 'config' && guard.stopped
          ? { configError: { cause: guard.stopped.cause, message: guard.stopped.message, fix: guard.stopped.fix } }
          : {}),
        failures: [...failures],
        repeats,
        ...stats.summary(),
        elapsedMs: Date.now() - started,
        concurrency: { max: pacer.maxCap, min: pacer.minCap, final: pacer.limit },
        pacing: d.pacing(),
        model: resolved.model,
        cacheMode: resolved.cache,
      };
      if (journalFile) summary.journal = journalFile;
      if (previous?.dropped) summary.journalDropped = previous.dropped;
      return summary;
    };
    runningSummaries.add(snapshot);

    let batchReport: BatchReport | undefined;
    let writer: JournalWriter | undefined;
    try {
      if (resolved.batch && todo.length > 0) {
        try {
          batchReport = await runBatchRounds({
            items: todo.map((j) => jobs[j]!),
            run: async (job, record) => {
              const model = makeModel(
                [],
                { kind: 'collect', record },
                { repeat: job.repeat, label: method },
                controller.signal,
              );
              await spec.run(spec.items[job.item]!, { model, signal: controller.signal, repeat: job.repeat });
            },
            options: resolved.batch,
            cache,
            cacheDir: resolved.cacheDir,
            maxTokensParam: resolved.maxTokensParam,
            client: () => d.transport().client,
            reserve: (req) => budget.reserve(req, method, BATCH_DISCOUNT, false),
            settle: (reservation, actual) => budget.settle(reservation, actual),
            onAnswer: (req, res) => usage.account(sinks, req, res, BATCH_DISCOUNT, true, method),
            label: method,
            log,
            secret: d.secret,
            signal: controller.signal,
          });
        } catch (error) {
          // Interrupted or stopped: the summary says so. A key, model or URL the Batch API refuses is a
          // configuration error like any other; anything else is the run's failure.
          if (!controller.signal.aborted) {
            const config = guard.batchError(error);
            if (!config) throw error;
            guard.stop(config);
          }
        }
        if (batchReport?.stoppedByBudget) stoppedByBudget = true;
      }

      if (journalFile && !resolved.dryRun)
        writer = await JournalWriter.open(journalFile, previous?.endsWithNewline ?? true);
      const models = Array.from({ length: repeats }, (_, r) =>
        makeModel(sinks, { kind: 'live', plan: jobPlan }, { repeat: r, label: method }, controller.signal),
      );
      let next = 0;
      const worker = async () => {
        while (next < todo.length) {
          const j = todo[next++]!;
          const job = jobs[j]!;
          // Once the budget is reached no new item starts (after a batch phase, items still run: those the batch
          // answered complete from the cache, the others stop at their first uncached call).
          if (((stoppedByBudget || budget.hit) && !resolved.batch) || controller.signal.aborted) {
            if (budget.hit) stoppedByBudget = true;
            notRunKeys.push(job.key);
            continue;
          }
          let rec: JournalRecord;
          const extra: { code?: string; status?: number } = {};
          try {
            const value = await spec.run(spec.items[job.item]!, {
              model: models[job.repeat]!,
              signal: controller.signal,
              repeat: job.repeat,
            });
            const json = value === undefined ? null : (JSON.parse(JSON.stringify(value)) as R);
            rec = { id: job.key, ok: true, value: json };
          } catch (error) {
            if (isCode(error, 'budget_exceeded')) {
              stoppedByBudget = true;
              notRunKeys.push(job.key);
              continue;
            }
            if (isCode(error, 'fs_error')) {
              // The disk refuses (no space, no permission): stop rather than fail every item the same way.
              stopWithFatal(error);
              notRunKeys.push(job.key);
              continue;
            }
            // A call that failed for good is this item's failure even when the run stops meanwhile; anything else
            // thrown while the run is stopping (an aborted call) means the item was not run.
            const ownFailure = error instanceof LlmCallError || isCode(error, 'cache_miss');
            if (
              isCode(error, 'request_deferred') ||
              LlmConfigError.isInstance(error) ||
              (controller.signal.aborted && !ownFailure)
            ) {
              if (isCode(error, 'request_deferred')) deferredJobs.push(j);
              notRunKeys.push(job.key);
              continue;
            }
            if (EvalError.isInstance(error)) extra.code = error.code;
            if (error instanceof LlmCallError && error.status !== undefined) extra.status = error.status;
            rec = { id: job.key, ok: false, error: redact(errorMessage(error), d.secret()), ...extra };
          }
          if (writer) {
            try {
              await writer.append({ ...rec, t: new Date().toISOString() });
            } catch (error) {
              stopWithFatal(error);
              notRunKeys.push(job.key);
              continue;
            }
          }
          results[j] = resultOf(j, rec, extra);
          if (rec.ok) done++;
          else {
            failed++;
            failures.push({ key: job.key, error: rec.error });
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(resolved.itemConcurrency, Math.max(1, todo.length)) }, worker));
    } finally {
      progress.stop();
      await writer?.close().catch((error: unknown) => {
        fatal ??= FileSystemError.from(error, journalFile);
      });
      spec.signal?.removeEventListener('abort', onOuterAbort);
      d.closeSignal.removeEventListener('abort', onOuterAbort);
      activeRuns.delete(controller);
      runningSummaries.delete(snapshot);
    }

    const summary = snapshot();
    if (batchReport) summary.batch = batchReport;
    if (resolved.dryRun) {
      let calls: CallCountEstimate | undefined;
      if (spec.dryRunCalls) {
        calls = { realistic: 0, upper: 0 };
        for (const j of deferredJobs) {
          const c = spec.dryRunCalls(spec.items[jobs[j]!.item]!);
          calls.realistic += c.realistic;
          calls.upper += c.upper;
        }
      }
      summary.dryRun = await writeDryRun({
        name: spec.name,
        plan: jobPlan,
        cacheHits: stats.cacheHits,
        calls,
        options: resolved,
        usage,
      });
      log(formatDryRun(spec.name, summary.dryRun));
    }
    if (stoppedByBudget)
      log(
        `"${spec.name}" stopped by the budget (--max-cost ${formatCost(resolved.maxCost ?? 0)}): ${notRunKeys.length} item(s) not run; finished items are kept`,
      );
    finishedSummaries.push(summary);
    const summaryFile = spec.summaryFile ?? d.summaryFile;
    if (summaryFile) await writeJsonAtomic(resolve(summaryFile), summary);
    if (summary.stopped === 'config' && guard.stopped) throw guard.stopped;
    if (fatal !== undefined) throw fatal;
    return {
      results: results.filter((r): r is JobResult<R> => r !== undefined),
      summary,
      failed: failures.map((f) => f.key),
      notRun: notRunKeys,
    };
  }
  return runJobs;
}
