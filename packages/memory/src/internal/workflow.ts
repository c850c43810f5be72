/**
 * What `dialeval memory` does between reading its flags and printing: loading the memory system a run drives, reading
 * judged records (pooled over files and directories), telling which judge runs are not finished, and describing a
 * judge run (its dry-run estimate, why it is incomplete, each user's outcome). The CLI only parses flags and prints.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ChatModel, EvalError, InputError, type ReadOptions } from '@eval/core';
import type { Llm } from '@eval/llm';
import type { OverallScore, TimeConsuming } from '../metrics';
import { ANSWER_PROMPT_SYSTEMS, type AnswerPromptSystem, loadAnswerPrompts } from './answer-prompts';
import { ExtractRetrieveBaseline } from './baselines/extract-retrieve';
import { FullContextBaseline } from './baselines/full-context';
import { emptyRecords, loadEvalRecords, poolRecords } from './files';
import { incompleteWorkDir, type JudgeRunOptions, type JudgeRunResult } from './judge';
import { OVERALL_SCORE_FLOAT_KEYS } from '../metrics';
import { pythonJsonDumps } from './python';
import type { EvalRecords } from './schema';
import type { MemorySystem } from './system';

const usage = (message: string) => new EvalError('usage_error', message);

// ---------------------------------------------------------------------------------------------------------------
// the memory system of a run
// ---------------------------------------------------------------------------------------------------------------

export interface LoadMemorySystemOptions {
  /** The model the built-in baselines answer with (and that a module's factory receives). */
  model?: ChatModel;
  /** Options for the system, as `key=value` (the baselines' `extraction`, `maxContextChars`, ...; a module's own). */
  systemOptions?: readonly string[];
  /** Per-call options of the baselines. */
  chat?: { temperature?: number; maxTokens?: number };
  /** HaluMem's answer prompt of this system (`PROMPT_<NAME>`), for the baselines. */
  answerPrompt?: string;
  /** Where HaluMem's answer prompts are (default `$DIALEVAL_HALUMEM_PROMPTS_DIR`; they are not shipped). */
  answerPromptsDir?: string;
}

export interface LoadedMemorySystem {
  system: MemorySystem;
  /** The HaluMem answer prompt the baseline answers with, and where it was read. */
  answerPrompt?: { name: string; dir: string };
}

function isMemorySystem(x: unknown): x is MemorySystem {
  const s = x as MemorySystem;
  return (
    Boolean(s) &&
    typeof s.addSession === 'function' &&
    typeof s.retrieve === 'function' &&
    typeof s.answer === 'function'
  );
}

function parseSystemOptions(list: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const i = item.indexOf('=');
    if (i <= 0) throw usage(`--system-option expects key=value, got "${item}"`);
    out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}

/**
 * The memory system a run drives: `full-context` or `extract-retrieve` (the built-in baselines, answering with
 * `model`), or the path of a module exporting `createMemorySystem` (or a default export): a {@link MemorySystem}, or a
 * function `({ model, options })` returning one. Messages name the CLI's flags (`--system-option`, ...).
 */
export async function loadMemorySystem(
  spec: string,
  options: LoadMemorySystemOptions = {},
): Promise<LoadedMemorySystem> {
  const { model } = options;
  const systemOptions = parseSystemOptions(options.systemOptions);
  if (options.answerPromptsDir !== undefined && options.answerPrompt === undefined)
    throw usage('--answer-prompts needs --answer-prompt MEMZERO|ZEP|MEMOS|MEMOBASE (which of the prompts to use)');
  let answerPrompt: { name: AnswerPromptSystem; dir: string; text: string } | undefined;
  if (options.answerPrompt !== undefined) {
    const name = options.answerPrompt as AnswerPromptSystem;
    if (!ANSWER_PROMPT_SYSTEMS.includes(name))
      throw usage(`--answer-prompt must be one of ${ANSWER_PROMPT_SYSTEMS.join(', ')}, got "${name}"`);
    const loaded = await loadAnswerPrompts(options.answerPromptsDir);
    answerPrompt = { name, dir: loaded.dir, text: loaded.answerPrompts[name] };
  }
  const described = answerPrompt
    ? { answerPrompt: { name: `PROMPT_${answerPrompt.name}`, dir: answerPrompt.dir } }
    : {};
  if (spec === 'full-context' || spec === 'extract-retrieve') {
    if (!model) throw usage(`--system ${spec} answers with a model: pass --model`);
    const num = (key: string) => {
      if (systemOptions[key] === undefined) return undefined;
      const n = Number(systemOptions[key]);
      if (!Number.isFinite(n) || n <= 0)
        throw usage(`--system-option ${key} expects a positive number, got "${systemOptions[key]}"`);
      return n;
    };
    const known =
      spec === 'full-context' ? ['extraction', 'maxContextChars'] : ['chunkTurns', 'extractFromGeneratedQa'];
    const unknown = Object.keys(systemOptions).filter((k) => !known.includes(k));
    if (unknown.length)
      throw usage(`unknown --system-option for ${spec}: ${unknown.join(', ')} (known: ${known.join(', ')})`);
    const common = { model, answerPrompt: answerPrompt?.text, ...options.chat };
    if (spec === 'full-context') {
      const extraction = systemOptions.extraction ?? 'user-turns';
      if (extraction !== 'user-turns' && extraction !== 'none')
        throw usage('--system-option extraction must be user-turns or none');
      return {
        system: new FullContextBaseline({ ...common, extraction, maxContextChars: num('maxContextChars') }),
        ...described,
      };
    }
    return {
      system: new ExtractRetrieveBaseline({
        ...common,
        chunkTurns: num('chunkTurns'),
        extractFromGeneratedQa: systemOptions.extractFromGeneratedQa === 'true',
      }),
      ...described,
    };
  }
  if (answerPrompt !== undefined)
    throw usage('--answer-prompt applies to the built-in baselines (full-context, extract-retrieve)');
  const file = resolve(spec);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new InputError(
      `cannot load the memory system module (${(error as Error).message}); --system takes full-context, extract-retrieve or a module path`,
      { file, cause: error },
    );
  }
  const exported = mod.createMemorySystem ?? mod.default;
  const value =
    typeof exported === 'function' && !isMemorySystem(exported)
      ? await (exported as (ctx: unknown) => unknown)({ model, options: systemOptions })
      : exported;
  if (!isMemorySystem(value))
    throw new InputError(
      'the module must export createMemorySystem (or a default export): a MemorySystem { name, addSession, retrieve, answer } or a function ({ model, options }) returning one',
      { file },
    );
  return { system: value };
}

// ---------------------------------------------------------------------------------------------------------------
// judged records
// ---------------------------------------------------------------------------------------------------------------

/**
 * Reads judged records from each path (a HaluMem stat result or per-user file, or a directory of them, see
 * `loadEvalRecords`) and pools them in order. `timeConsuming` is a single stat result file's stored one. `files` are
 * every file read (`read.onRead` sees each one's bytes: a run record hashes them).
 */
export async function readEvalRecords(
  paths: readonly string[],
  read?: ReadOptions,
): Promise<{ records: EvalRecords; timeConsuming?: TimeConsuming; files: string[] }> {
  const records = emptyRecords();
  let timeConsuming: TimeConsuming | undefined;
  const files: string[] = [];
  for (const p of paths) {
    const loaded = await loadEvalRecords(p, read);
    poolRecords(records, loaded.records);
    files.push(...loaded.files);
    timeConsuming = paths.length === 1 ? loaded.timeConsuming : undefined;
  }
  return { records, timeConsuming, files };
}

/** The judge work directories among `paths` that `memory judge` left unfinished, each with why (`path: reason`). */
export async function unfinishedJudgeRuns(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    const reason = existsSync(p) && statSync(p).isDirectory() ? await incompleteWorkDir(p) : undefined;
    if (reason) out.push(`${p}: ${reason.split('\n').join('; ')}`);
  }
  return out;
}

/** `overall_score` as HaluMem writes it (`json.dump(..., indent=4)`, its ints and floats). */
export function overallScoreJson(overall: OverallScore): string {
  return pythonJsonDumps(overall, { indent: 4, floatKeys: OVERALL_SCORE_FLOAT_KEYS });
}

// ---------------------------------------------------------------------------------------------------------------
// describing a judge run
// ---------------------------------------------------------------------------------------------------------------

/** `question/s3/q2` → `session 3 question 2 (question judge)` (the ids of the judge inputs). */
function describeJudgeItem(id: string): string {
  const m = /^(integrity|accuracy|update|question)\/s([^/]+)\/([mqe])(\d+)$/.exec(id);
  if (!m) return id;
  const what = m[3] === 'q' ? 'question' : m[3] === 'e' ? 'extracted memory' : 'memory point';
  return `session ${m[2]} ${what} ${m[4]} (${m[1]} judge)`;
}

type UserEvent = Parameters<NonNullable<JudgeRunOptions['onUser']>>[0];

/**
 * What a person wants to read about one user of a judge run: its outcome (with `status`; a progress display shows it
 * for every user, a log only for users not judged normally), then its failed calls (at most five).
 */
export function judgeUserLines(e: UserEvent, options: { status: boolean }): string[] {
  const lines: string[] = [];
  if (options.status)
    lines.push(
      `user ${e.index} ${e.userName} (${e.uuid}): ${e.status === 'cached' ? 'cached result found, skipped' : e.status}${e.failed ? `, ${e.failed} unusable judge answer(s) recorded as the reference does` : ''}${e.callFailures.length ? `, ${e.callFailures.length} judgement call(s) failed (not scored)` : ''}`,
    );
  for (const f of e.callFailures.slice(0, 5))
    lines.push(`error: user ${e.userName} (${e.uuid}) ${describeJudgeItem(f.id)}: ${f.error}`);
  if (e.callFailures.length > 5)
    lines.push(`error: user ${e.userName} (${e.uuid}): ${e.callFailures.length - 5} more failed judgement call(s)`);
  return lines;
}

/**
 * A judge run in words: what a summary file records of it (`summary`: the artifact, the files, each user's outcome,
 * failed calls, usage, `overall_score`); for a dry run, its estimate (`dryRun`); for a run that did not finish, the
 * error to raise (`error`: budget, failed calls, interruption; the finished judgements are kept for the next run).
 */
export function describeJudgeRun(
  result: JudgeRunResult,
  llm: Pick<Llm, 'dryRun' | 'options' | 'usage'>,
  run: { artifact: string; routing: string },
): { summary: Record<string, unknown>; dryRun?: string; error?: EvalError } {
  const model = llm.options.model;
  const summary = {
    artifact: resolve(run.artifact),
    out: result.out,
    workDir: result.workDir,
    complete: result.complete,
    dryRun: llm.dryRun,
    routing: run.routing,
    users: result.users,
    failedJudgements: result.failedJudgements,
    callFailures: result.users.flatMap((u) =>
      u.callFailures.map((f) => ({ uuid: u.uuid, user: u.userName, item: f.id, error: f.error })),
    ),
    llm: llm.usage(),
    runs: result.summaries,
    ...(result.overall ? { overall_score: result.overall } : {}),
  };
  if (llm.dryRun) {
    const dry = result.summaries.filter((s) => s.dryRun);
    const sum = (which: 'realistic' | 'upper', f: 'calls' | 'promptTokens' | 'completionTokens' | 'cost') =>
      result.summaries.reduce((a, s) => a + (s.dryRun?.estimate[which][f] ?? 0), 0);
    const known = result.summaries.every((s) => s.dryRun?.costKnown !== false);
    const usd = (x: number) => (known ? `$${x.toFixed(4)}` : `unknown (no price for ${model}; pass --prices FILE)`);
    const first = dry[0]?.dryRun?.estimate;
    const line = (which: 'realistic' | 'upper') =>
      `${which === 'realistic' ? 'realistic' : 'upper bound'}: ${sum(which, 'calls')} calls, ~${sum(which, 'promptTokens')} prompt + ~${sum(which, 'completionTokens')} completion tokens, ${usd(sum(which, 'cost'))}${first ? ` (${first[which].explanation})` : ''}`;
    return {
      summary,
      dryRun: [
        `dry run: ${result.users.filter((u) => u.status !== 'cached').length} user(s) planned, nothing judged or written`,
        line('realistic'),
        line('upper'),
      ].join('\n'),
    };
  }
  if (result.complete && result.overall) return { summary };
  const stopped = result.summaries.some((s) => s.stoppedByBudget)
    ? 'stopped by --max-cost'
    : result.callFailures > 0
      ? `incomplete: ${result.callFailures} judgement call(s) failed after every retry (not scored)`
      : 'interrupted';
  return {
    summary,
    error: new EvalError(
      'judge_incomplete',
      `judging ${stopped}: no stat result written; finished judgements are kept in ${result.workDir}; run the same command again to resume (it retries exactly the failed and missing judgements)`,
    ),
  };
}
