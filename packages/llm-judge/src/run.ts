import type { ChatOptions } from '@eval/core';
import { EvalError } from '@eval/core';
import type { Llm, RunSummary } from '@eval/llm';
import { evaluateOutputs, type EvaluateOptions, type MethodEvaluation, type MethodOutputs } from './evaluate';
import { METHODS, methodRoles, type JudgeMethod, type TemplateRole } from './methods';
import type { OutputEntry } from './recorded';
import { checkRecordOrder, type TurnRecord } from './records';
import { judgeMessages, REFERENCE_SYSTEM_MESSAGE, REFERENCE_TEMPERATURE, renderPrompt, SKIPPED_ACCURACY_OUTPUT } from './render';
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
}

export interface CallFailure {
  flag: string;
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
    if (!options.templates[role]) throw new EvalError('usage_error', `the ${role} template is needed for method ${method}`);
  }
  const systemMessage = options.systemMessage ?? REFERENCE_SYSTEM_MESSAGE;
  const chat: ChatOptions = options.chat ?? { temperature: REFERENCE_TEMPERATURE };

  const jobs: Job[] = [];
  const placeholders: TurnRecord[] = [];
  for (const record of records) {
    if (info.kind === 'two-step') {
      if (record.predictTurnLabel.size === 0) placeholders.push(record);
      else jobs.push({ id: `accuracy:${record.flag}`, stage: 'accuracy', record, prompt: renderPrompt(options.templates[info.accuracy]!, record) });
      jobs.push({ id: `completeness:${record.flag}`, stage: 'completeness', record, prompt: renderPrompt(options.templates[info.completeness]!, record) });
    } else {
      jobs.push({ id: `single-step:${record.flag}`, stage: 'single-step', record, prompt: renderPrompt(options.templates[info.prompt]!, record) });
    }
  }

  const { results, summary } = await llm.runJobs<Job, string>({
    name: options.name ?? `llm-judge-${method}`,
    items: jobs,
    id: (job) => job.id,
    journal: options.journal,
    run: async (job, ctx) => {
      const res = await ctx.model.chat(judgeMessages(job.prompt, systemMessage), { ...chat, signal: ctx.signal });
      return res.text;
    },
  });

  const byId = new Map(results.map((r) => [r.id, r]));
  const failedCalls: CallFailure[] = [];
  let notRun = 0;
  const entryOf = (job: Job, index: number): OutputEntry | undefined => {
    const r = byId.get(job.id);
    if (!r) {
      notRun++;
      return undefined;
    }
    if (!r.ok) {
      failedCalls.push({ flag: job.record.flag, stage: job.stage, error: r.error });
      return { record: job.record, output: '', prompt: job.prompt, index };
    }
    return { record: job.record, output: r.value, prompt: job.prompt, index };
  };

  let outputs: MethodOutputs;
  if (info.kind === 'two-step') {
    // the reference writes the skipped accuracy calls first, then the answers
    const accuracy: OutputEntry[] = placeholders.map((record, index) => ({ record, output: SKIPPED_ACCURACY_OUTPUT, prompt: '', index }));
    const completeness: OutputEntry[] = [];
    for (const job of jobs) {
      const list = job.stage === 'accuracy' ? accuracy : completeness;
      const e = entryOf(job, list.length);
      if (e) list.push(e);
    }
    outputs = { accuracy, completeness };
  } else {
    const list: OutputEntry[] = [];
    for (const job of jobs) {
      const e = entryOf(job, list.length);
      if (e) list.push(e);
    }
    outputs = { outputs: list };
  }

  const run: JudgeRun = { method, outputs, failedCalls, notRun, llm: summary };
  if (notRun === 0) run.evaluation = evaluateOutputs(method, outputs, options);
  return run;
}
