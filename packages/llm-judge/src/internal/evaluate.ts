import { EvalError, type ReadOptions } from '@eval/core';
import {
  integrateSingleStep,
  integrateTwoStep,
  type IntegrateOptions,
  type IntegrationResult,
  type TrackedSets,
  type TurnFailure,
} from './integrate';
import {
  judgeTurns,
  methodNormalization,
  metricsOf,
  ruleJointOf,
  type JudgedTurn,
  type JudgeMetrics,
  type MetricOptions,
  type RuleJoint,
} from '../metrics';
import { METHODS, type JudgeMethod } from './methods';
import { readOutputEntries, type OutputEntry } from './recorded';
import type { TurnRecord } from './records';

export interface EvaluateOptions extends IntegrateOptions, MetricOptions {}

export interface EvaluationSummary {
  /** Turns in the input (completeness / single-step file). */
  totalTurns: number;
  /** Turns judged (emitted). */
  judgedTurns: number;
  /** Turns left out (unparseable output or failed call). */
  skippedTurns: number;
  /** Outputs that could not be parsed, per stage. */
  parseFailures: { accuracy: number; completeness: number; singleStep: number };
  /** Calls that failed (empty output). */
  llmFailures: number;
  failures: TurnFailure[];
  parsedVia: Record<string, number>;
  /** Predicted slot names outside the 30-slot schema (counted warnings: the rules judge such turns wrong). */
  unknownSlots: Record<string, number>;
}

export interface MethodEvaluation {
  method: JudgeMethod;
  kind: 'two-step' | 'single-step';
  turns: JudgedTurn[];
  /** Every turn of the input (judged or skipped), in the reference's order. */
  records: TurnRecord[];
  /** The rule joint match of each of `records` that was judged (null for the others), worked out once for the metrics and the run's items. */
  ruleJoint: Array<RuleJoint | null>;
  metrics: JudgeMetrics;
  perDialogue: Array<{ dialogueId: string; metrics: JudgeMetrics }>;
  /** Flags of judged turns whose judgement differs from the MWZ2.1 / MWZ2.4 rule judgement, in turn order. */
  incoherent: { mwz21: string[]; mwz24: string[] };
  summary: EvaluationSummary;
}

/** Turns an integration result into the method's evaluation: rule judgements, metrics (overall and per dialogue). */
export function evaluateIntegration(
  method: JudgeMethod,
  integration: IntegrationResult,
  options: EvaluateOptions = {},
): MethodEvaluation {
  const normalization = methodNormalization(integration.kind, options.ruleNormalization);
  const turns = judgeTurns(integration.turns, normalization);
  const emitted = new Set(turns.map((t) => t.flag));
  const ruleJoint = integration.allTurns.map((r) => (emitted.has(r.flag) ? ruleJointOf(r) : null));
  const metrics = metricsOf(turns, integration.allTurns, options, ruleJoint);
  const perDialogue: MethodEvaluation['perDialogue'] = [];
  const byDialogue = new Map<
    string,
    { turns: JudgedTurn[]; all: typeof integration.allTurns; joints: Array<RuleJoint | null> }
  >();
  integration.allTurns.forEach((r, i) => {
    let g = byDialogue.get(r.dialogueId);
    if (!g) byDialogue.set(r.dialogueId, (g = { turns: [], all: [], joints: [] }));
    g.all.push(r);
    g.joints.push(ruleJoint[i]!);
  });
  for (const t of turns) byDialogue.get(t.dialogueId)!.turns.push(t);
  for (const [dialogueId, g] of byDialogue)
    perDialogue.push({ dialogueId, metrics: metricsOf(g.turns, g.all, options, g.joints) });
  const failures = integration.failures;
  return {
    method,
    kind: integration.kind,
    turns,
    records: integration.allTurns,
    ruleJoint,
    metrics,
    perDialogue,
    incoherent: {
      mwz21: turns.filter((t) => t.ruleMwz21 !== t.judge).map((t) => t.flag),
      mwz24: turns.filter((t) => t.ruleMwz24 !== null && t.ruleMwz24 !== t.judge).map((t) => t.flag),
    },
    summary: {
      totalTurns: integration.allTurns.length,
      judgedTurns: turns.length,
      skippedTurns: integration.allTurns.length - turns.length,
      parseFailures: {
        accuracy: failures.filter((f) => f.kind === 'parse' && f.stage === 'accuracy').length,
        completeness: failures.filter((f) => f.kind === 'parse' && f.stage === 'completeness').length,
        singleStep: failures.filter((f) => f.kind === 'parse' && f.stage === 'single-step').length,
      },
      llmFailures: failures.filter((f) => f.kind === 'llm').length,
      failures,
      parsedVia: integration.parsedVia,
      unknownSlots: integration.unknownSlots,
    },
  };
}

/** Judge outputs of one method: the two files of a two-step method, or the one file of a single-step method. */
export type MethodOutputs =
  | {
      accuracy: readonly OutputEntry[];
      completeness: readonly OutputEntry[];
      files?: { accuracy?: string; completeness?: string };
    }
  | { outputs: readonly OutputEntry[]; file?: string };

/** Integrates and scores one method's outputs (in the reference's native `[record, output, prompt]` form). */
export function evaluateOutputs(
  method: JudgeMethod,
  outputs: MethodOutputs,
  options: EvaluateOptions = {},
): MethodEvaluation {
  const info = METHODS[method];
  if (info.kind === 'two-step') {
    if (!('completeness' in outputs))
      throw new EvalError('usage_error', `${method} is a two-step method: give its accuracy and completeness outputs`);
    return evaluateIntegration(method, integrateTwoStep(outputs, options), options);
  }
  if (!('outputs' in outputs))
    throw new EvalError('usage_error', `${method} is a single-step method: give its one output file`);
  return evaluateIntegration(method, integrateSingleStep(outputs, options), options);
}

/**
 * Reads recorded output files as {@link evaluateOutputs} takes them: for a two-step method `[accuracyFile,
 * completenessFile]`, for a single-step method `[outputFile]` (`read` as for {@link readOutputEntries}).
 */
export async function readOutputFiles(
  method: JudgeMethod,
  files: readonly string[],
  read?: ReadOptions,
): Promise<MethodOutputs> {
  const info = METHODS[method];
  const want = info.kind === 'two-step' ? 2 : 1;
  if (files.length !== want) {
    throw new EvalError(
      'usage_error',
      info.kind === 'two-step'
        ? `${method} needs two output files: accuracy, then completeness (got ${files.length})`
        : `${method} needs one output file (got ${files.length})`,
    );
  }
  if (info.kind === 'two-step') {
    const [accuracy, completeness] = await Promise.all(files.map((f) => readOutputEntries(f, read)));
    return { accuracy: accuracy!, completeness: completeness!, files: { accuracy: files[0], completeness: files[1] } };
  }
  return { outputs: await readOutputEntries(files[0]!, read), file: files[0] };
}

/** Reads and scores recorded output files ({@link readOutputFiles}, then {@link evaluateOutputs}). No LLM call. */
export async function evaluateOutputFiles(
  method: JudgeMethod,
  files: readonly string[],
  options: EvaluateOptions = {},
): Promise<MethodEvaluation> {
  return evaluateOutputs(method, await readOutputFiles(method, files), options);
}

const sorted = (xs: readonly string[]) => [...xs].sort();
const sortedSets = (s: TrackedSets) => ({
  incorrect: sorted(s.incorrect),
  missed: sorted(s.missed),
  correct: sorted(s.correct),
});

/** A JSON-ready view of an evaluation (sets sorted, records reduced to their flag). */
export function evaluationToJson(e: MethodEvaluation, options: { perTurn?: boolean } = {}): Record<string, unknown> {
  return {
    method: e.method,
    title: METHODS[e.method].title,
    kind: e.kind,
    metrics: e.metrics,
    summary: { ...e.summary },
    incoherent: e.incoherent,
    perDialogue: e.perDialogue,
    ...(options.perTurn === false
      ? {}
      : {
          perTurn: e.turns.map((t) => ({
            flag: t.flag,
            judge: t.judge,
            incorrect: sorted(t.incorrect),
            missed: sorted(t.missed),
            before: sortedSets(t.before),
            after: sortedSets(t.after),
            ruleMwz21: t.ruleMwz21,
            ruleMwz24: t.ruleMwz24,
            ...(t.failure ? { failure: t.failure } : {}),
          })),
        }),
  };
}
