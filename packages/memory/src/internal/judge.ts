/**
 * The four HaluMem judges run through `@eval/llm`: reference call parameters, first-fenced JSON extraction with
 * retries that also cover bad or missing JSON, the mapping of judge JSON to record fields with the reference's failure
 * values, a per-user result cache with resume, and the pooled micro-average (spec §5).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { ChatModel } from '@eval/core';
import { EvalError, InputError, writeFileAtomic, type ReadOptions } from '@eval/core';
import type { JobResult, Llm, RunSummary } from '@eval/llm';
import { OVERALL_SCORE_FLOAT_KEYS, aggregateEvalResults, type AggregateOptions, type OverallScore } from '../metrics';
import { computeTimeConsuming, emptyRecords, loadEvalRecords, readRunArtifact } from './files';
import { buildJudgeInputs, renderJudgePrompt, type JudgeInput, type JudgeInputs, type Routing } from './inputs';
import {
  JudgeJsonError,
  accuracyFields,
  extractJudgeJson,
  integrityFields,
  questionFields,
  updateFields,
} from './parse';
import { pythonJsonDumps } from './python';
import type { EvalRecords, RunArtifactUser } from './schema';

/** Call parameters of the judges. */
export interface JudgeSettings {
  /** `$OPENAI_TEMPERATURE`; the reference default (`.env-example`) is 0.0 (its `.env copy` has 0.5). */
  temperature?: number;
  /** `$OPENAI_MAX_TOKENS` (16384); `null` sends no max tokens. */
  maxTokens?: number | null;
  /** Attempts per judgement, the first included (`RETRY_TIMES` = 3), covering a missing or invalid JSON block. */
  attempts?: number;
  /** Seed of the first attempt (the reference sends none); retry k is sent with `(seed ?? 0) + k`. */
  seed?: number;
}

/** HaluMem's judge settings (`.env-example`): temperature 0.0, max_tokens 16384, 3 attempts. Timeout 300 s. */
export const REFERENCE_JUDGE_SETTINGS = { temperature: 0, maxTokens: 16384, attempts: 3, timeoutMs: 300_000 } as const;

/**
 * One judgement: sends the prompt as a single user message (no system message), extracts the FIRST fenced ```json
 * block and parses it. A missing block or invalid JSON is retried up to `attempts` in all, as the reference's tenacity
 * wrapper does; each retry bumps `seed` so that a disk cache does not hand back the same unusable answer. Errors of the
 * call itself (after `@eval/llm`'s own retries), budget stops and dry-run deferrals are thrown.
 */
export async function callJudge(
  model: ChatModel,
  prompt: string,
  settings: JudgeSettings = {},
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const attempts = settings.attempts ?? REFERENCE_JUDGE_SETTINGS.attempts;
  const temperature = settings.temperature ?? REFERENCE_JUDGE_SETTINGS.temperature;
  const maxTokens = settings.maxTokens === undefined ? REFERENCE_JUDGE_SETTINGS.maxTokens : settings.maxTokens;
  let last = 'no answer';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const result = await model.chat([{ role: 'user', content: prompt }], {
      temperature,
      ...(maxTokens === null ? {} : { maxTokens }),
      ...(attempt > 1
        ? { seed: (settings.seed ?? 0) + attempt - 1 }
        : settings.seed !== undefined
          ? { seed: settings.seed }
          : {}),
      signal,
    });
    try {
      return extractJudgeJson(result.text);
    } catch (error) {
      if (!(error instanceof JudgeJsonError)) throw error;
      last = error.message;
    }
  }
  throw new EvalError('judge_unusable', `judge answer unusable after ${attempts} attempt(s): ${last}`);
}

/**
 * Errors that stop a judge run rather than being recorded as a failed judgement: no API key, a cache miss in replay
 * mode, a closed runtime, an endpoint that rejects the key (401/403) or does not know the model (404), a refused
 * connection or an unknown host.
 */
export function isRunFatal(error: unknown): boolean {
  if (!EvalError.isInstance(error)) return false;
  if (['missing_api_key', 'cache_miss', 'closed', 'llm_config'].includes(error.code)) return true;
  const status = (error as { status?: number }).status;
  return (
    error.code === 'llm_call_failed' &&
    (status === 401 || status === 403 || status === 404 || /ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(error.message))
  );
}

/** Appends the judge fields to a copy of the input's record (failure values when `result` is undefined). */
export function judgedRecord(input: JudgeInput, result: Record<string, unknown> | undefined): Record<string, unknown> {
  switch (input.kind) {
    case 'integrity':
      return { ...input.record, ...integrityFields(result) };
    case 'accuracy':
      return { ...input.record, ...accuracyFields(result) };
    case 'update':
      return { ...input.record, ...updateFields(result) };
    case 'question':
      return { ...input.record, ...questionFields(result) };
  }
}

/** The judge inputs that need an LLM call (the shortcuts do not). */
export function judgeJobs(inputs: JudgeInputs): JudgeInput[] {
  return [
    ...inputs.integrity.filter((i) => !i.emptyExtraction),
    ...inputs.accuracy,
    ...inputs.update.filter((i) => !i.emptyRetrieval),
    ...inputs.question,
  ];
}

/**
 * Assembles one user's records as `process_user` does: integrity records with an empty extraction (score 0, no call)
 * first, then the judged ones; judged records in input order (the reference appends in completion order, which the
 * aggregate does not depend on). `results` maps input ids to the judge JSON, or to `undefined` for a failure.
 */
export function assembleUserRecords(
  inputs: JudgeInputs,
  results: ReadonlyMap<string, Record<string, unknown> | undefined>,
): EvalRecords {
  const out = emptyRecords();
  const judged = (input: JudgeInput) => {
    if (!results.has(input.id)) throw new EvalError('internal', `no judge result for ${input.id}`);
    return judgedRecord(input, results.get(input.id));
  };
  for (const i of inputs.integrity)
    if (i.emptyExtraction) out.memory_integrity_records.push({ ...i.record, memory_integrity_score: 0 } as never);
  for (const i of inputs.integrity) if (!i.emptyExtraction) out.memory_integrity_records.push(judged(i) as never);
  for (const i of inputs.accuracy) out.memory_accuracy_records.push(judged(i) as never);
  for (const i of inputs.update) {
    out.memory_update_records.push(
      (i.emptyRetrieval ? { ...i.record, memory_update_type: 'Omission' } : judged(i)) as never,
    );
  }
  for (const i of inputs.question) out.question_answering_records.push(judged(i) as never);
  return out;
}

export interface JudgeUserOptions {
  routing?: Routing;
  settings?: JudgeSettings;
  /** Journal of this user's judgements (resume within a user). */
  journal?: string;
  signal?: AbortSignal;
  /** Judge every input this many times (default 1; the repeat index is part of the cache key, repeat 0 is a single run's). */
  repeats?: number;
}

export interface JudgeUserResult {
  uuid: string;
  userName: string;
  /** All judgements have a result (value or failure); false after a budget stop, an abort or a dry run. */
  complete: boolean;
  records: EvalRecords;
  /** Judgements whose answer stayed unusable after every attempt (stored with the reference's failure values). */
  failed: number;
  /**
   * Judgements whose call failed for good (HTTP errors, timeouts after every retry): not a judge answer, so never
   * stored as a failure value; the user stays incomplete and the next run retries exactly these (from the journal).
   */
  callFailures: Array<{ id: string; error: string }>;
  /** Judgements not run (budget, abort, dry run). */
  notRun: number;
  calls: number;
  summary: RunSummary;
  /** With `repeats` > 1 and complete: the records of repeats 1, 2, ... (repeat 0 is `records`). */
  repeatRecords?: EvalRecords[];
  /** With `repeats` > 1: per judged input, its judgement in each repeat (the record fields as JSON; undefined: none). */
  labels?: Array<Array<string | undefined>>;
}

/** Judges one run-artifact user through `llm.runJobs` (cached, resumable, one failure never aborts the run). */
export async function judgeUser(
  user: RunArtifactUser,
  llm: Pick<Llm, 'runJobs'>,
  options: JudgeUserOptions = {},
): Promise<JudgeUserResult> {
  const inputs = buildJudgeInputs(user, { routing: options.routing });
  const jobs = judgeJobs(inputs);
  // An error that no retry can fix and that says nothing about the item (no key, a replay-cache miss, a rejected key or
  // unknown model) stops the run instead of being stored as a failed judgement in every record.
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  let fatal: unknown;
  let results: Array<JobResult<Record<string, unknown> | null>>;
  let summary: RunSummary;
  try {
    ({ results, summary } = await llm.runJobs<JudgeInput, Record<string, unknown> | null>({
      name: `memory-judge ${user.user_name}`,
      items: jobs,
      id: (input) => input.id,
      // ctx.model is already bound to the run's abort signal
      run: async (input, ctx) => {
        try {
          return await callJudge(ctx.model, renderJudgePrompt(input), options.settings);
        } catch (error) {
          // The judge answered, but never usably: the reference stores its failure values (journaled as null).
          if (EvalError.isInstance(error) && error.code === 'judge_unusable') return null;
          if (isRunFatal(error)) {
            fatal ??= error;
            controller.abort(error);
          }
          throw error;
        }
      },
      journal: options.journal,
      signal: controller.signal,
      repeats: options.repeats,
    }));
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  if (fatal) throw fatal;
  const repeats = Math.max(1, options.repeats ?? 1);
  const maps = Array.from({ length: repeats }, () => new Map<string, Record<string, unknown> | undefined>());
  let failed = 0;
  const callFailures: Array<{ id: string; error: string }> = [];
  for (const r of results) {
    const repeat = r.repeat ?? 0;
    const map = maps[repeat]!;
    if (!r.ok) callFailures.push({ id: repeat === 0 ? r.id : `${r.id}#${repeat}`, error: r.error });
    else if (r.value === null) {
      map.set(r.id, undefined);
      failed++;
    } else map.set(r.id, r.value);
  }
  const complete = maps.every((map) => jobs.every((j) => map.has(j.id)));
  const done = maps.reduce((n, m) => n + m.size, 0);
  const out: JudgeUserResult = {
    uuid: user.uuid,
    userName: user.user_name,
    complete,
    records: complete ? assembleUserRecords(inputs, maps[0]!) : emptyRecords(),
    failed,
    callFailures,
    notRun: jobs.length * repeats - done - callFailures.length,
    calls: jobs.length * repeats,
    summary,
  };
  if (repeats > 1) {
    if (complete) out.repeatRecords = maps.slice(1).map((m) => assembleUserRecords(inputs, m));
    const label = (input: JudgeInput, map: Map<string, Record<string, unknown> | undefined>) => {
      return map.has(input.id) ? JSON.stringify(judgedFields(input, map.get(input.id))) : undefined;
    };
    out.labels = jobs.map((input) => maps.map((m) => label(input, m)));
  }
  return out;
}

/** The judge fields of one judgement (failure values when `result` is undefined), without the input's record. */
function judgedFields(input: JudgeInput, result: Record<string, unknown> | undefined): Record<string, unknown> {
  switch (input.kind) {
    case 'integrity':
      return integrityFields(result);
    case 'accuracy':
      return accuracyFields(result);
    case 'update':
      return updateFields(result);
    case 'question':
      return questionFields(result);
  }
}

/** The per-user cache file format (HaluMem's `tmp2/<uuid>.json`): `json.dump(..., ensure_ascii=False, indent=4)`. */
export function formatUserRecords(records: EvalRecords): string {
  return pythonJsonDumps(records, { indent: 4, floatKeys: OVERALL_SCORE_FLOAT_KEYS });
}

/** HaluMem's `<frame>_eval_stat_result.json`: `{overall_score, *_records}` with `indent=4`. */
export function formatStatResult(overall: OverallScore, records: EvalRecords): string {
  return pythonJsonDumps({ overall_score: overall, ...records }, { indent: 4, floatKeys: OVERALL_SCORE_FLOAT_KEYS });
}

/** Where `judgeRunArtifact` writes by default: `<frame>_eval_results.jsonl` → `<frame>_eval_stat_result.json`. */
export function defaultStatResultPath(artifact: string): string {
  const base = basename(artifact);
  const stem = base.endsWith('_eval_results.jsonl')
    ? base.slice(0, -'_eval_results.jsonl'.length)
    : base.replace(/\.jsonl(\.gz)?$|\.json$/, '');
  return join(dirname(artifact), `${stem}_eval_stat_result.json`);
}

/** The per-user cache directory next to the output: `<out without .json>.tmp2/`. */
export function defaultWorkDir(out: string): string {
  return `${out.replace(/\.json$/, '')}.tmp2`;
}

export interface JudgeRunOptions {
  /** The run artifact (JSONL, one user per line), streamed one user at a time. */
  artifact: string;
  llm: Llm;
  /** The stat result file (default {@link defaultStatResultPath}). Not written in a dry run or an incomplete run. */
  out?: string;
  /** Per-user cache directory (default {@link defaultWorkDir}); an existing HaluMem `tmp2/` works too. */
  workDir?: string;
  routing?: Routing;
  settings?: JudgeSettings;
  /**
   * Judge at most this many users (an exact limit). The reference's `if idx > user_num: break` runs after a user is
   * processed, so it judges up to user_num + 1 = 21 users; pass 21 to reproduce that.
   */
  maxUsers?: number;
  aggregate?: AggregateOptions;
  signal?: AbortSignal;
  /** How the artifact is read (e.g. `allowInvalidUtf8`: replace invalid UTF-8 instead of failing). */
  read?: ReadOptions;
  /**
   * Judge every input this many times (default 1). Repeat 0 is written as without repeats; repeat r's per-user files go
   * to `<workDir>/repeat-<r>/` and its stat result to `<out without .json>.repeat<r>.json`.
   */
  repeats?: number;
  /** Called after each user (cached, judged or left incomplete). */
  onUser?: (event: {
    index: number;
    uuid: string;
    userName: string;
    status: 'cached' | 'judged' | 'incomplete';
    failed: number;
    callFailures: Array<{ id: string; error: string }>;
  }) => void;
}

export interface JudgeRunResult {
  /** False when some judgements were not run (dry run, budget, abort): no stat result is written. */
  complete: boolean;
  out: string;
  workDir: string;
  users: Array<{
    uuid: string;
    userName: string;
    status: 'cached' | 'judged' | 'incomplete';
    failed: number;
    calls: number;
    /** Judgements whose call failed for good (the user is incomplete; the next run retries them). */
    callFailures: Array<{ id: string; error: string }>;
  }>;
  /** Pooled over every per-user file of the work directory (as the reference pools `tmp2/`). */
  overall?: OverallScore;
  records?: EvalRecords;
  failedJudgements: number;
  /** Judgements whose call failed for good, over all users (none of them is scored). */
  callFailures: number;
  summaries: RunSummary[];
  /** With `repeats` > 1 and complete: the overall scores of repeats 1, 2, ... (repeat 0 is `overall`). */
  repeatOverall?: OverallScore[];
  /** With `repeats` > 1: each judgement of the users judged in this run, per repeat (see {@link JudgeUserResult.labels}). */
  labels?: Array<Array<string | undefined>>;
}

const SETTINGS_FILE = '.memory-judge-settings';

/**
 * Marker file a judge run leaves in its work directory while some users are not judged (call failures, budget, abort):
 * `aggregate` refuses such a directory unless told to accept partial figures. Removed when a run completes.
 */
export const INCOMPLETE_MARKER = '.memory-judge-incomplete';

/** The reason a work directory is marked incomplete (its marker's text), or undefined. */
export async function incompleteWorkDir(dir: string): Promise<string | undefined> {
  const file = join(dir, INCOMPLETE_MARKER);
  if (!existsSync(file)) return undefined;
  return (await readFile(file, 'utf8')).trim() || 'marked incomplete';
}

async function checkWorkDirSettings(workDir: string, settings: Record<string, unknown>): Promise<void> {
  const file = join(workDir, SETTINGS_FILE);
  const text = JSON.stringify(settings);
  if (existsSync(file)) {
    const previous = await readFile(file, 'utf8');
    if (previous.trim() !== text) {
      throw new InputError(
        `the work directory holds results judged with other settings (${previous.trim()}; now ${text}): pass another --work-dir or remove it`,
        { file: workDir, code: 'input_settings_mismatch' },
      );
    }
    return;
  }
  await writeFileAtomic(file, `${text}\n`);
}

/**
 * Judges a run artifact as `evaluation.py` does: users in file order, a user whose `<workDir>/<uuid>.json` exists is
 * skipped (cache), each judged user is written there atomically; then every `*.json` of the work directory is pooled
 * and aggregated, `time_consuming` is computed over all users of the artifact, and the stat result is written.
 */
export async function judgeRunArtifact(options: JudgeRunOptions): Promise<JudgeRunResult> {
  const out = resolve(options.out ?? defaultStatResultPath(options.artifact));
  const workDir = resolve(options.workDir ?? defaultWorkDir(out));
  const dryRun = options.llm.dryRun;
  if (!dryRun) {
    await mkdir(workDir, { recursive: true });
    await checkWorkDirSettings(workDir, {
      model: options.llm.options.model,
      routing: options.routing ?? 'reference',
      temperature: options.settings?.temperature ?? REFERENCE_JUDGE_SETTINGS.temperature,
      maxTokens:
        options.settings?.maxTokens === undefined ? REFERENCE_JUDGE_SETTINGS.maxTokens : options.settings.maxTokens,
    });
  }
  const repeats = Math.max(1, options.repeats ?? 1);
  const result: JudgeRunResult = {
    complete: true,
    out,
    workDir,
    users: [],
    failedJudgements: 0,
    callFailures: 0,
    summaries: [],
  };
  let index = 0;
  for await (const { user } of readRunArtifact(options.artifact, options.read)) {
    if (options.maxUsers !== undefined && index >= options.maxUsers) break;
    index++;
    const userFile = join(workDir, `${user.uuid}.json`);
    // repeat r > 0 of a user: <workDir>/repeat-<r>/<uuid>.json (not pooled with repeat 0)
    const repeatFiles = Array.from({ length: repeats - 1 }, (_, r) =>
      join(workDir, `repeat-${r + 1}`, `${user.uuid}.json`),
    );
    if (existsSync(userFile) && repeatFiles.every((f) => existsSync(f))) {
      result.users.push({
        uuid: user.uuid,
        userName: user.user_name,
        status: 'cached',
        failed: 0,
        calls: 0,
        callFailures: [],
      });
      options.onUser?.({
        index,
        uuid: user.uuid,
        userName: user.user_name,
        status: 'cached',
        failed: 0,
        callFailures: [],
      });
      continue;
    }
    const judged = await judgeUser(user, options.llm, {
      routing: options.routing,
      settings: options.settings,
      journal: dryRun ? undefined : join(workDir, `${user.uuid}.journal.jsonl`),
      signal: options.signal,
      repeats,
    });
    if (judged.labels) (result.labels ??= []).push(...judged.labels);
    result.summaries.push(judged.summary);
    result.failedJudgements += judged.failed;
    result.callFailures += judged.callFailures.length;
    const status = judged.complete ? 'judged' : 'incomplete';
    if (judged.complete && !dryRun) {
      for (const [r, file] of repeatFiles.entries())
        await writeFileAtomic(file, formatUserRecords(judged.repeatRecords![r]!));
      await writeFileAtomic(userFile, formatUserRecords(judged.records));
    } else result.complete = false;
    result.users.push({
      uuid: user.uuid,
      userName: user.user_name,
      status,
      failed: judged.failed,
      calls: judged.calls,
      callFailures: judged.callFailures,
    });
    options.onUser?.({
      index,
      uuid: user.uuid,
      userName: user.user_name,
      status,
      failed: judged.failed,
      callFailures: judged.callFailures,
    });
    if (options.signal?.aborted || judged.summary.stoppedByBudget) {
      result.complete = false;
      break;
    }
  }
  if (!result.complete || dryRun) {
    result.complete = false;
    if (!dryRun) {
      const open = result.users.filter((u) => u.status === 'incomplete');
      const lines = open.map((u) => `user ${u.userName} (${u.uuid}): ${u.callFailures.length} failed call(s)`);
      await writeFileAtomic(join(workDir, INCOMPLETE_MARKER), `${['judge run incomplete', ...lines].join('\n')}\n`);
    }
    return result;
  }
  await rm(join(workDir, INCOMPLETE_MARKER), { force: true });
  const { records } = await loadEvalRecords(workDir);
  const timeConsuming = await computeTimeConsuming(options.artifact, options.read);
  const overall = aggregateEvalResults(records, { ...options.aggregate, timeConsuming });
  await writeFileAtomic(out, `${formatStatResult(overall, records)}`);
  result.overall = overall;
  result.records = records;
  for (let r = 1; r < repeats; r++) {
    // repeat r's stat result beside the first: <out without .json>.repeat<r>.json
    const rec = (await loadEvalRecords(join(workDir, `repeat-${r}`))).records;
    const o = aggregateEvalResults(rec, { ...options.aggregate, timeConsuming });
    await writeFileAtomic(out.replace(/(\.json)?$/, `.repeat${r}.json`), `${formatStatResult(o, rec)}`);
    (result.repeatOverall ??= []).push(o);
  }
  return result;
}
