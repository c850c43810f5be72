import type { ChatOptions } from '@eval/core';
import { EvalError } from '@eval/core';
import { jobKey, type Llm, type RunJobsResult, type RunSummary } from '@eval/llm';
import { evaluateOutputs, type EvaluateOptions, type MethodEvaluation, type MethodOutputs } from './evaluate';
import { METHODS, methodRoles, type JudgeMethod, type TemplateRole } from './methods';
import type { OutputEntry } from './recorded';
import { checkRecordOrder, type TurnRecord } from './records';
import {
  judgeMessages,
  REFERENCE_SYSTEM_MESSAGE,
  REFERENCE_TEMPERATURE,
  renderPrompt,
  SKIPPED_ACCURACY_OUTPUT,
} from './render';
import type { PromptTemplate } from './templates';

export type CallStage = 'accuracy' | 'completeness' | 'single-step';

export interface RunJudgeOptions extends EvaluateOptions {
  method: JudgeMethod;
  /** Per-turn records in the reference layout (dialogues contiguous, turns in order from 0). */
  records: readonly TurnRecord[];
  /** The method's templates (see `loadTemplates`). */
  templates: Partial<Record<TemplateRole, PromptTemplate>>;
  /** The LLM runtime (`createLlm` from `@eval/llm`): cache, concurrency, retries, budget, dry run, batch. */
  llm: Llm;
  /** System message (default: the reference's "You are a helpful assistant"). */
  systemMessage?: string;
  /**
   * Per-call options. Default `{ temperature: 0 }` (the reference's setting); pass `{}` to use the runtime's
   * defaults instead.
   */
  chat?: ChatOptions;
  /** JSONL journal: a re-run skips the calls already answered (and retries the failed ones). */
  journal?: string;
  /** Run name (journal records, dry-run file name); default `llm-judge-<method>`. */
  name?: string;
  /** Stops the run (items not started are counted as not run). */
  signal?: AbortSignal;
  /**
   * Judge every turn this many times (default 1), each repeat a separate call with its index in the cache key
   * (repeat 0 keeps the key of a single run); the judge's self-agreement shows how much of a difference is noise.
   */
  repeats?: number;
}

/**
 * Errors no retry can fix and that say nothing about the turn: no API key, a replay-mode cache miss, an endpoint that
 * rejects the key (401/403) or does not know the model (404), a refused connection or an unknown host.
 */
export function isConfigurationError(error: unknown): boolean {
  if (!EvalError.isInstance(error)) return false;
  if (['missing_api_key', 'cache_miss', 'llm_config'].includes(error.code)) return true;
  if (error.code !== 'llm_call_failed') return false;
  const status = (error as { status?: number }).status;
  return status === 401 || status === 403 || status === 404 || /ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(error.message);
}

export interface CallFailure {
  /** Repeat index of the failed call (0 without repeats). */
  repeat: number;
  flag: string;
  /** The dialogue and turn of the failed call. */
  dialogueId: string;
  turnIndex: number;
  stage: CallStage;
  error: string;
}

export interface JudgeRun {
  method: JudgeMethod;
  /** The judge outputs in the reference's native form (write them with `serializeOutputEntries`). */
  outputs: MethodOutputs;
  /** The evaluation of the outputs; absent in a dry run or when the budget stopped the run before every call. */
  evaluation?: MethodEvaluation;
  /** Calls that failed for good (recorded, never aborting the run; their turns are reported as skipped). */
  failedCalls: CallFailure[];
  /** Calls planned but not made (dry run, budget). */
  notRun: number;
  llm: RunSummary;
  /** With `repeats` > 1: every repeat's outputs and evaluation (repeat 0 first, the same as `outputs`/`evaluation`). */
  repeats?: Array<{ repeat: number; outputs: MethodOutputs; evaluation?: MethodEvaluation }>;
}

interface Job {
  id: string;
  stage: CallStage;
  record: TurnRecord;
  prompt: string;
}

/**
 * Runs an LLM judging method over per-turn records through `@eval/llm` (every call cached, retried, journaled),
 * then integrates and scores the outputs. Two-step methods make an accuracy call per turn (skipped, as the
 * reference does, when the predicted turn label is empty) and a completeness call per turn; single-step methods
 * one call per turn. A failed call is recorded (output `''`, as the reference writes it) and its turn reported as
 * skipped; it never aborts the run.
 */
export async function runJudge(options: RunJudgeOptions): Promise<JudgeRun> {
  const { method, records, llm } = options;
  const info = METHODS[method];
  if (!info) throw new EvalError('usage_error', `unknown method "${method}"`);
  checkRecordOrder(records);
  for (const role of methodRoles(method)) {
    if (!options.templates[role])
      throw new EvalError('usage_error', `the ${role} template is needed for method ${method}`);
  }
  const systemMessage = options.systemMessage ?? REFERENCE_SYSTEM_MESSAGE;
  const chat: ChatOptions = options.chat ?? { temperature: REFERENCE_TEMPERATURE };

  const jobs: Job[] = [];
  const placeholders: TurnRecord[] = [];
  for (const record of records) {
    if (info.kind === 'two-step') {
      if (record.predictTurnLabel.size === 0) placeholders.push(record);
      else
        jobs.push({
          id: `accuracy:${record.flag}`,
          stage: 'accuracy',
          record,
          prompt: renderPrompt(options.templates[info.accuracy]!, record),
        });
      jobs.push({
        id: `completeness:${record.flag}`,
        stage: 'completeness',
        record,
        prompt: renderPrompt(options.templates[info.completeness]!, record),
      });
    } else {
      jobs.push({
        id: `single-step:${record.flag}`,
        stage: 'single-step',
        record,
        prompt: renderPrompt(options.templates[info.prompt]!, record),
      });
    }
  }

  // A configuration error (no key, a rejected key, an unknown model, nothing listening, a replay-cache miss) says
  // nothing about the turn: the run stops at the first one instead of recording it for every call.
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  let fatal: unknown;
  let ran: RunJobsResult<string>;
  try {
    ran = await llm.runJobs<Job, string>({
      name: options.name ?? `llm-judge-${method}`,
      items: jobs,
      id: (job) => job.id,
      journal: options.journal,
      signal: controller.signal,
      repeats: options.repeats,
      run: async (job, ctx) => {
        try {
          const res = await ctx.model.chat(judgeMessages(job.prompt, systemMessage), { ...chat, signal: ctx.signal });
          return res.text;
        } catch (error) {
          if (isConfigurationError(error)) {
            fatal ??= error;
            controller.abort(error);
          }
          throw error;
        }
      },
    });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  if (fatal) throw fatal;
  const { results, summary } = ran;

  const byKey = new Map(results.map((r) => [jobKey(r.id, r.repeat ?? 0), r]));
  const failedCalls: CallFailure[] = [];
  let notRun = 0;
  const outputsOf = (repeat: number): { outputs: MethodOutputs; notRun: number } => {
    let missing = 0;
    const entryOf = (job: Job, index: number): OutputEntry | undefined => {
      const r = byKey.get(jobKey(job.id, repeat));
      if (!r) {
        missing++;
        return undefined;
      }
      if (!r.ok) {
        failedCalls.push({
          repeat,
          flag: job.record.flag,
          dialogueId: job.record.dialogueId,
          turnIndex: job.record.turnIndex,
          stage: job.stage,
          error: r.error,
        });
        return { record: job.record, output: '', prompt: job.prompt, index };
      }
      return { record: job.record, output: r.value, prompt: job.prompt, index };
    };
    if (info.kind === 'two-step') {
      // the reference writes the skipped accuracy calls first, then the answers
      const accuracy: OutputEntry[] = placeholders.map((record, index) => ({
        record,
        output: SKIPPED_ACCURACY_OUTPUT,
        prompt: '',
        index,
      }));
      const completeness: OutputEntry[] = [];
      for (const job of jobs) {
        const list = job.stage === 'accuracy' ? accuracy : completeness;
        const e = entryOf(job, list.length);
        if (e) list.push(e);
      }
      return { outputs: { accuracy, completeness }, notRun: missing };
    }
    const list: OutputEntry[] = [];
    for (const job of jobs) {
      const e = entryOf(job, list.length);
      if (e) list.push(e);
    }
    return { outputs: { outputs: list }, notRun: missing };
  };

  const runs: NonNullable<JudgeRun['repeats']> = [];
  for (let repeat = 0; repeat < Math.max(1, options.repeats ?? 1); repeat++) {
    const r = outputsOf(repeat);
    notRun += r.notRun;
    runs.push({
      repeat,
      outputs: r.outputs,
      ...(r.notRun === 0 ? { evaluation: evaluateOutputs(method, r.outputs, options) } : {}),
    });
  }
  const run: JudgeRun = { method, outputs: runs[0]!.outputs, failedCalls, notRun, llm: summary };
  if (notRun === 0) run.evaluation = runs[0]!.evaluation;
  if (runs.length > 1) run.repeats = runs;
  return run;
}
