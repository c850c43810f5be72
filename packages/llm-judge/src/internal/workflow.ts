/**
 * What `dialeval llm-judge` does between reading its flags and printing: reading the turns to judge, judging them into
 * an output directory laid out as the reference's (`ours_acc_outputs.json`, ..., `<method>_result.json`), finding the
 * judge outputs of a report and putting the report's figures together. The CLI only parses flags and prints.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  type ChatOptions,
  EvalError,
  type ReadOptions,
  type RunItem,
  type RunMetric,
  readJson,
  writeFileAtomic,
} from '@eval/core';
import type { Llm } from '@eval/llm';
import { ruleJudgements, ruleMetrics, type RuleMetrics } from '../metrics';
import { llmJudgeRunItems, llmJudgeRunMetrics, llmJudgeRunSetup } from '../runs';
import {
  type ConversionWarnings,
  convertRawPredictions,
  convertStatePredictions,
  parseRawPredictions,
  readDialogueSource,
} from './convert';
import {
  evaluateOutputs,
  evaluationToJson,
  readOutputFiles,
  type EvaluateOptions,
  type MethodEvaluation,
  type MethodOutputs,
} from './evaluate';
import { stringifyJson } from './json';
import { humanCheck, readHumanJudgements, type HumanCheckResult } from './meta';
import { JUDGE_METHODS, METHODS, isJudgeMethod, type JudgeMethod } from './methods';
import { loadMultiwozDialogues } from './multiwoz-source';
import { serializeOutputEntries } from './recorded';
import { readTurnRecords, type TurnRecord } from './records';
import { runJudge, type CallFailure, type JudgeRun } from './run';
import { type PromptTemplate, TEMPLATE_RESOURCE } from './templates';
import type { TemplateRole } from './methods';

/** File stem of a method's outputs (`ours_acc_outputs.json`, `twodim_cot_comp_outputs.json`, `direct_outputs.json`). */
const STEM: Record<JudgeMethod, string> = { ours: 'ours', 'twodim-cot': 'twodim_cot', direct: 'direct', cot: 'cot' };

/** A method's output files in `dir` at the reference's names: accuracy then completeness (two-step), or the one file. */
export function judgeOutputFiles(dir: string, method: JudgeMethod): string[] {
  const stem = STEM[method];
  return METHODS[method].kind === 'two-step'
    ? [join(dir, `${stem}_acc_outputs.json`), join(dir, `${stem}_comp_outputs.json`)]
    : [join(dir, `${stem}_outputs.json`)];
}

const usage = (message: string) => new EvalError('usage_error', message);

/**
 * What the run record of one method's evaluation holds, for the caller that opens it: what to open it with
 * (`init`: benchmark, package, cluster unit, variant, options, main input), the inputs and artifacts to describe, the
 * metrics and the items (given the run directory, so that items keep each turn's place in the output files).
 */
export interface JudgeRunRecord {
  init: ReturnType<typeof llmJudgeRunSetup> & { input?: string };
  inputs: Array<{ role: string; path: string }>;
  /** The resource set the run read (the templates' directory), when it read files of one. */
  resource?: { name: string; dir: string };
  artifacts: Array<{ path: string; format: string }>;
  metrics: Record<string, RunMetric>;
  items(runDir: string): RunItem[];
}

function runRecord(
  e: MethodEvaluation,
  outputs: MethodOutputs,
  options: EvaluateOptions,
  more: Omit<JudgeRunRecord, 'metrics' | 'items' | 'init'> & { input?: string; options?: Record<string, unknown> },
): JudgeRunRecord {
  const setup = llmJudgeRunSetup(e.method, options);
  return {
    init: { ...setup, options: { ...setup.options, ...more.options }, input: more.input },
    inputs: more.inputs,
    ...(more.resource ? { resource: more.resource } : {}),
    artifacts: more.artifacts,
    metrics: llmJudgeRunMetrics(e),
    items: (runDir) => llmJudgeRunItems(e, { outputs, gptJga: options.gptJga, runDir }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// the turns to judge
// ---------------------------------------------------------------------------------------------------------------

/**
 * Where the turns to judge come from, exactly one of: a per-turn record file (`records`); raw DST predictions
 * (`rawPredictions`) with their dialogue source (`dialogues`, MultiWOZ 2.4 labels from `dialoguesM24`); or predicted
 * states in the `@eval/multiwoz` input format (`states`), with a dialogue source or the `multiwoz` resource (`data`).
 * Messages name them as the CLI's flags (`--records`, ...).
 */
export interface JudgeInputSource {
  records?: string;
  rawPredictions?: string;
  states?: string;
  dialogues?: string;
  dialoguesM24?: string;
  data?: string;
}

export interface JudgeInput {
  records: TurnRecord[];
  /** The input files (absolute paths) by role: `records`, `rawPredictions`, `dialogues`, `states`. */
  source: Record<string, string>;
  /** What a conversion of predictions left out or could not place. */
  warnings?: ConversionWarnings;
  /** The same, one line each for a person (empty when there is nothing to say). */
  warningLines: string[];
}

/**
 * Reads the turns to judge: a record file as it is, or predictions converted as the reference converts them.
 * `dataFlag` names the resource option in "missing resource" messages.
 */
export async function readJudgeInput(
  input: JudgeInputSource,
  options: { read?: ReadOptions; dataFlag?: string } = {},
): Promise<JudgeInput> {
  const read = options.read ?? {};
  if ([input.records, input.rawPredictions, input.states].filter((x) => x !== undefined).length !== 1)
    throw usage('give exactly one input: --records FILE, --raw-predictions FILE (with --dialogues) or --states FILE');
  if (input.dialoguesM24 && !input.dialogues) throw usage('--dialogues-m24 goes with --dialogues');
  if (input.records) {
    if (input.dialogues || input.data)
      throw usage('--dialogues/--data are for converting predictions; --records are used as they are');
    return {
      records: await readTurnRecords(input.records, read),
      source: { records: resolve(input.records) },
      warningLines: [],
    };
  }
  if (input.rawPredictions) {
    if (!input.dialogues)
      throw usage(
        '--raw-predictions needs --dialogues (TRADE test_dials.json or a per-turn record file giving the turn structure)',
      );
    const dialogues = await readDialogueSource(input.dialogues, input.dialoguesM24);
    const raw = parseRawPredictions(await readJson(input.rawPredictions, undefined, read), input.rawPredictions);
    const { records, warnings } = convertRawPredictions(raw, dialogues);
    return {
      records,
      warnings,
      warningLines: conversionWarningLines(warnings),
      source: { rawPredictions: resolve(input.rawPredictions), dialogues: resolve(input.dialogues) },
    };
  }
  const states = input.states!;
  const predictions = await readJson(states, undefined, read);
  if (!predictions || typeof predictions !== 'object' || Array.isArray(predictions))
    throw usage(`${states}: expected the @eval/multiwoz input format {dialogue id: [turn, ...]}`);
  const dialogues = input.dialogues
    ? await readDialogueSource(input.dialogues, input.dialoguesM24)
    : await loadMultiwozDialogues({ dir: input.data, ids: Object.keys(predictions), flag: options.dataFlag });
  const { records, warnings } = convertStatePredictions(predictions as never, dialogues, { file: states });
  return {
    records,
    warnings,
    warningLines: conversionWarningLines(warnings),
    source: {
      states: resolve(states),
      dialogues: input.dialogues ? resolve(input.dialogues) : 'multiwoz resource (MultiWOZ 2.1 test set)',
    },
  };
}

/** The warnings of a conversion, one line each (empty when there is nothing to say). */
function conversionWarningLines(w: ConversionWarnings): string[] {
  const out: string[] = [];
  const unknown = Object.entries(w.unknownSlots);
  if (unknown.length > 0)
    out.push(
      `${unknown.reduce((s, [, n]) => s + n, 0)} predicted slot-values use ${unknown.length} name(s) outside the 30-slot schema (judged wrong by the rules): ${unknown
        .slice(0, 8)
        .map(([k, n]) => `${k} (${n})`)
        .join(', ')}${unknown.length > 8 ? ', ...' : ''}`,
    );
  if (w.unknownDialogues.length > 0)
    out.push(`${w.unknownDialogues.length} prediction flag(s) name dialogues not in the dialogue source (ignored)`);
  if (w.unknownTurns.length > 0)
    out.push(
      `${w.unknownTurns.length} prediction flag(s) name turns the dialogues do not have (ignored): ${w.unknownTurns.slice(0, 5).join(', ')}`,
    );
  if (w.dialoguesWithoutPredictions.length > 0)
    out.push(`${w.dialoguesWithoutPredictions.length} source dialogue(s) have no predictions`);
  return out;
}

/** What an evaluation left out or could not read (unparseable outputs, failed calls, skipped turns, unknown slots). */
function evaluationWarningLines(e: MethodEvaluation): string[] {
  const s = e.summary;
  const out: string[] = [];
  const parse = s.parseFailures.accuracy + s.parseFailures.completeness + s.parseFailures.singleStep;
  if (parse > 0)
    out.push(
      `${e.method}: ${parse} unparseable output(s) (accuracy ${s.parseFailures.accuracy}, completeness ${s.parseFailures.completeness}, single-step ${s.parseFailures.singleStep})`,
    );
  if (s.llmFailures > 0) out.push(`${e.method}: ${s.llmFailures} failed LLM call(s)`);
  if (s.skippedTurns > 0)
    out.push(
      `${e.method}: ${s.skippedTurns} of ${s.totalTurns} turn(s) skipped: ${s.failures
        .slice(0, 5)
        .map((f) => `${f.flag} (${f.stage}: ${f.reason})`)
        .join('; ')}${s.failures.length > 5 ? '; ...' : ''}`,
    );
  const unknown = Object.keys(s.unknownSlots);
  if (unknown.length > 0)
    out.push(
      `${e.method}: predicted slot names outside the schema (judged wrong): ${unknown.slice(0, 8).join(', ')}${unknown.length > 8 ? ', ...' : ''}`,
    );
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// judging into a directory
// ---------------------------------------------------------------------------------------------------------------

export interface JudgeDirectoryOptions extends EvaluateOptions {
  method: JudgeMethod;
  input: JudgeInput;
  templates: Partial<Record<TemplateRole, PromptTemplate>>;
  llm: Llm;
  /** The output directory: the outputs at the reference's names, `<method>_result.json`. */
  out: string;
  /** Resume journal (default `<out>/<stem>.journal.jsonl`). */
  journal?: string;
  systemMessage?: string;
  chat?: ChatOptions;
  repeats?: number;
  /** The model's name, for the result file. */
  model?: string;
  /** With `repeats` > 1: the figures over repeats (mean, spread, self-agreement) that the result file records as `repeats`. */
  summarizeRepeats?: (evaluations: MethodEvaluation[]) => unknown;
}

/** A judged directory: the run, the files written and what the result file and a summary record. */
export interface JudgedDirectory {
  run: JudgeRun & { evaluation: MethodEvaluation };
  /** Every output file written (repeat 0 at the reference's names, then `<name>.repeat<r>.json`). */
  written: string[];
  /** `<out>/<method>_result.json`. */
  resultFile: string;
  /** Repeat 0's outputs with their files named (for the run record's item locations). */
  outputs: MethodOutputs;
  /** The run as `--summary` records it (settings, usage, files). */
  summary: Record<string, unknown>;
  /** What `summarizeRepeats` gave, with repeats. */
  repeats?: unknown;
  /** What the evaluation left out or could not read, one line each. */
  warnings: string[];
  /** The output directory's run record (its items locate each turn in the outputs written, repeat 0's). */
  record: JudgeRunRecord;
}

export type JudgeDirectoryResult =
  | { status: 'dry-run'; run: JudgeRun; text: string; summary: Record<string, unknown> }
  | {
      status: 'incomplete';
      run: JudgeRun;
      journal: string;
      summary: Record<string, unknown>;
      /** One line per failed call (the first ten, then how many more). */
      failures: string[];
      error: EvalError;
    }
  | ({ status: 'complete' } & JudgedDirectory);

/**
 * Judges every turn of `input` with `llm` (cached, journaled, resumable) and, when every call was answered, writes the
 * outputs at the reference's names and `<method>_result.json` into `out`. A dry run writes nothing and describes its
 * estimate; an incomplete run (failed or missing calls) writes nothing to the final paths and returns the error to
 * raise (the answered calls are in the journal and the cache).
 */
export async function judgeToDirectory(options: JudgeDirectoryOptions): Promise<JudgeDirectoryResult> {
  const { method, input, llm } = options;
  const { records, source, warnings } = input;
  if (records.length === 0) throw usage('no turns to judge');
  const out = resolve(options.out);
  const journal = options.journal ?? join(out, `${STEM[method]}.journal.jsonl`);
  const repeats = options.repeats ?? 1;
  const evaluate: EvaluateOptions = {
    onParseFailure: options.onParseFailure,
    completenessValueAware: options.completenessValueAware,
    gptJga: options.gptJga,
    ruleJga: options.ruleJga,
    ruleNormalization: options.ruleNormalization,
  };
  const run = await runJudge({
    method,
    records,
    templates: options.templates,
    llm,
    systemMessage: options.systemMessage,
    chat: options.chat,
    journal: llm.dryRun ? undefined : journal,
    repeats,
    ...evaluate,
  });
  const u = run.llm;
  const base = {
    method,
    title: METHODS[method].title,
    model: options.model,
    input: source,
    turns: records.length,
  };
  if (llm.dryRun) {
    const d = u.dryRun!;
    const { realistic, upper } = d.estimate;
    const cost = (x: number) =>
      d.costKnown ? `$${x.toFixed(4)}` : `unknown (no price for ${options.model}; pass --prices FILE)`;
    const text = [
      `dry run of ${METHODS[method].title} on ${records.length} turn(s)${repeats > 1 ? ` x ${repeats} repeats` : ''}: ${d.calls} call(s) to send, ${d.cacheHits} answered from the cache`,
      `realistic: ${realistic.calls} call(s), ~${realistic.promptTokens} prompt + ~${realistic.completionTokens} completion tokens, estimated cost: ${cost(realistic.cost)} (${realistic.explanation})`,
      `upper bound: ${upper.calls} call(s), ~${upper.promptTokens} prompt + ~${upper.completionTokens} completion tokens, at most ${cost(upper.cost)} (${upper.explanation})`,
      `requests written to ${d.requestsFile}`,
    ].join('\n');
    return { status: 'dry-run', run, text, summary: { method, turns: records.length, repeats, dryRun: d } };
  }
  if (run.failedCalls.length > 0 || !run.evaluation) {
    // A failed call is not a judgement and a stopped run is not a result: nothing goes to the final paths (a later
    // `report` could not tell it from a complete run); the answered calls are in the journal and the cache.
    const why = [
      run.failedCalls.length > 0
        ? `${run.failedCalls.length} call(s) failed after every retry (their turns are not scored)`
        : '',
      run.notRun > 0 ? `${run.notRun} call(s) not made (${u.stoppedByBudget ? 'budget reached' : 'run stopped'})` : '',
    ].filter(Boolean);
    return {
      status: 'incomplete',
      run,
      journal,
      failures: failedCallLines(run.failedCalls, repeats),
      summary: {
        ...base,
        repeats,
        complete: false,
        failedCalls: run.failedCalls,
        notRun: run.notRun,
        llm: u,
        options: evaluate,
      },
      error: new EvalError(
        'run_incomplete',
        `llm-judge run incomplete: ${why.join('; ')}; no outputs or result written in ${out}; the ${u.done} answered call(s) are kept in ${journal}: run the same command again to make exactly the missing calls`,
      ),
    };
  }
  const written: string[] = [];
  for (const r of run.repeats ?? [{ repeat: 0, outputs: run.outputs }]) {
    // repeat 0 at the reference's file names; further repeats beside them (<name>.repeat<r>.json)
    const named = (file: string) => (r.repeat === 0 ? file : file.replace(/\.json$/, `.repeat${r.repeat}.json`));
    const files = judgeOutputFiles(out, method).map(named);
    const lists = 'accuracy' in r.outputs ? [r.outputs.accuracy, r.outputs.completeness] : [r.outputs.outputs];
    for (const [i, list] of lists.entries()) {
      await writeFileAtomic(files[i]!, serializeOutputEntries(list));
      written.push(files[i]!);
    }
  }
  const repeatStats = run.repeats ? options.summarizeRepeats?.(run.repeats.map((r) => r.evaluation!)) : undefined;
  const summary = {
    ...base,
    outputs: written,
    failedCalls: run.failedCalls,
    notRun: run.notRun,
    llm: u,
    options: evaluate,
    ...(repeatStats !== undefined ? { repeats: repeatStats } : {}),
    ...(warnings ? { conversionWarnings: warnings } : {}),
  };
  const resultFile = join(out, `${STEM[method]}_result.json`);
  await writeFileAtomic(
    resultFile,
    `${stringifyJson({ ...summary, evaluation: evaluationToJson(run.evaluation) }, 2)}\n`,
  );
  const [first, second] = judgeOutputFiles(out, method);
  const templatesDir = Object.values(options.templates)
    .map((t) => t.source)
    .filter((f) => existsSync(f))
    .map((f) => dirname(f))[0];
  const outputs: MethodOutputs =
    'outputs' in run.outputs
      ? { ...run.outputs, file: first }
      : { ...run.outputs, files: { accuracy: first, completeness: second } };
  return {
    status: 'complete',
    run: run as JudgeRun & { evaluation: MethodEvaluation },
    written,
    resultFile,
    outputs,
    ...(repeatStats !== undefined ? { repeats: repeatStats } : {}),
    warnings: evaluationWarningLines(run.evaluation),
    record: runRecord(run.evaluation, outputs, evaluate, {
      input: source.records ?? source.rawPredictions ?? source.states,
      options: {
        model: options.model,
        temperature: options.chat?.temperature ?? 0,
        systemMessage: options.systemMessage ?? 'reference',
      },
      inputs: Object.entries(source)
        .filter(([, path]) => existsSync(path))
        .map(([role, path]) => ({ role, path })),
      resource: templatesDir ? { name: TEMPLATE_RESOURCE, dir: templatesDir } : undefined,
      artifacts: [
        ...written.map((path) => ({ path, format: 'llm-dst-eval-output' })),
        { path: resultFile, format: 'dialeval-llm-judge-result' },
      ],
    }),
    summary: {
      ...summary,
      metrics: run.evaluation.metrics,
      evaluationSummary: { ...run.evaluation.summary, failures: run.evaluation.summary.failures.length },
    },
  };
}

/** One line per failed call (at most `limit`, then a count of the rest). */
function failedCallLines(failed: readonly CallFailure[], repeats = 1, limit = 10): string[] {
  const out = failed
    .slice(0, limit)
    .map(
      (f) =>
        `error: dialogue ${f.dialogueId} turn ${f.turnIndex} (${f.stage} call${repeats > 1 ? `, repeat ${f.repeat}` : ''}): ${f.error}`,
    );
  if (failed.length > limit) out.push(`error: ${failed.length - limit} more failed call(s)`);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// report
// ---------------------------------------------------------------------------------------------------------------

/** One method's judge-output files. */
export interface JudgeOutputSource {
  method: JudgeMethod;
  files: string[];
}

function parseOutputsSpec(spec: string): JudgeOutputSource {
  const eq = spec.indexOf('=');
  const name = eq > 0 ? spec.slice(0, eq) : '';
  if (!isJudgeMethod(name))
    throw usage(`--outputs expects METHOD=FILE[,FILE] with METHOD one of ${JUDGE_METHODS.join(', ')}, got "${spec}"`);
  const files = spec
    .slice(eq + 1)
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const want = METHODS[name].kind === 'two-step' ? 2 : 1;
  if (files.length !== want)
    throw usage(
      want === 2
        ? `--outputs ${name}= needs two files: the accuracy outputs, then the completeness outputs`
        : `--outputs ${name}= needs one file`,
    );
  return { method: name, files };
}

/**
 * The judge outputs to report: every method whose files are in one of `dirs` (at the reference's names), then each
 * `METHOD=FILE[,FILE]` of `specs`. A method given twice, a directory without outputs or with half a two-step method's
 * files are refused.
 */
export function findJudgeOutputs(dirs: readonly string[], specs: readonly string[] = []): JudgeOutputSource[] {
  const sources: JudgeOutputSource[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw usage(`${dir} is not a directory (give judge-output files with --outputs METHOD=FILES)`);
    let found = 0;
    for (const method of JUDGE_METHODS) {
      const files = judgeOutputFiles(dir, method);
      const present = files.filter((f) => existsSync(f));
      if (present.length === files.length) {
        sources.push({ method, files });
        found++;
      } else if (present.length > 0) {
        throw usage(
          `${dir}: ${present[0]} is there but ${files.find((f) => !existsSync(f))} is not (a two-step method needs both files)`,
        );
      }
    }
    if (found === 0)
      throw usage(
        `${dir}: no judge outputs found (expected e.g. ours_acc_outputs.json + ours_comp_outputs.json, direct_outputs.json)`,
      );
  }
  for (const spec of specs) sources.push(parseOutputsSpec(spec));
  const seen = new Set<string>();
  for (const s of sources) {
    if (seen.has(s.method)) throw usage(`method ${s.method} is given twice`);
    seen.add(s.method);
  }
  return sources;
}

export interface JudgeReportOptions extends EvaluateOptions {
  sources: readonly JudgeOutputSource[];
  /** Per-turn records: the rule-only rows, and the turns every method must have judged. */
  records?: string;
  /** Human judgements: the human-check table. */
  human?: string;
  /** N of the human-check formula (default: the turns of the first method's input). */
  turns?: number;
  read?: ReadOptions;
}

export interface JudgeReport {
  options: EvaluateOptions;
  evaluations: MethodEvaluation[];
  /** Each method's outputs as read (in `sources` order), with their files named. */
  outputs: MethodOutputs[];
  /** Rule-only metrics over `records`, else over the first method's turns. */
  rules?: RuleMetrics;
  human?: HumanCheckResult;
  /** Why some outputs are not a complete run (failed calls, missing turns, turns of `records` not judged). */
  partial: string[];
  /** What the evaluations left out or could not read, annotated turns not judged: one line each. */
  warnings: string[];
  /** One run record per method (in `sources` order). */
  records: JudgeRunRecord[];
}

/** Evaluates judge outputs for a report: each method's metrics, the rule rows, the human check. No LLM call. */
export async function reportJudgeOutputs(options: JudgeReportOptions): Promise<JudgeReport> {
  const evaluate: EvaluateOptions = {
    onParseFailure: options.onParseFailure ?? 'reference',
    completenessValueAware: options.completenessValueAware ?? false,
    gptJga: options.gptJga ?? 'before-turn',
    ruleJga: options.ruleJga ?? 'fixed',
    ruleNormalization: options.ruleNormalization ?? 'method',
  };
  if (options.sources.length === 0 && !options.records)
    throw usage('nothing to report: give output directories, --outputs METHOD=FILES or --records FILE');
  const evaluations: MethodEvaluation[] = [];
  const outputs: MethodOutputs[] = [];
  for (const s of options.sources) {
    const o = await readOutputFiles(s.method, s.files, options.read);
    outputs.push(o);
    evaluations.push(evaluateOutputs(s.method, o, evaluate));
  }
  // rule-only rows: from the records, else from the turns of the first method's input
  const given = options.records ? await readTurnRecords(options.records, options.read) : undefined;
  const ruleRecords = given ?? evaluations[0]?.records ?? [];
  const partial = evaluations.flatMap((e, i) => incompleteness(e, options.sources[i]!.files, given));
  const rules = ruleRecords.length > 0 ? ruleMetrics(ruleRecords, { ruleJga: evaluate.ruleJga }) : undefined;
  let human: HumanCheckResult | undefined;
  if (options.human) {
    if (evaluations.length === 0) throw usage('--human needs judge outputs to compare');
    const labels = await readHumanJudgements(options.human);
    const norm = evaluate.ruleNormalization === 'single-step' ? 'single-step' : 'two-step';
    const m24 = ruleJudgements(ruleRecords, norm).map((j, i) => ({ flag: ruleRecords[i]!.flag, ruleMwz24: j.mwz24 }));
    human = humanCheck({
      turns: options.turns ?? evaluations[0]!.summary.totalTurns,
      human: labels,
      judges: evaluations.map((e) => ({ name: e.method, turns: e.turns })),
      rule: m24,
    });
  }
  const warnings: string[] = [];
  if (human && human.unknownFlags.length > 0)
    warnings.push(
      `${human.unknownFlags.length} annotated flag(s) are not among the judged turns (ignored): ${human.unknownFlags.slice(0, 5).join(', ')}`,
    );
  for (const e of evaluations) warnings.push(...evaluationWarningLines(e));
  return {
    options: evaluate,
    evaluations,
    outputs,
    ...(rules ? { rules } : {}),
    ...(human ? { human } : {}),
    partial,
    warnings,
    records: evaluations.map((e, i) => {
      const files = options.sources[i]!.files;
      const roles = files.length === 2 ? ['accuracy-outputs', 'completeness-outputs'] : ['outputs'];
      return runRecord(e, outputs[i]!, evaluate, {
        input: dirname(resolve(files[0]!)),
        inputs: [
          ...files.map((path, j) => ({ role: roles[j]!, path })),
          ...(options.records ? [{ role: 'records', path: options.records }] : []),
        ],
        artifacts: [],
      });
    }),
  };
}

/**
 * Why a method's outputs are not a complete run, if they are not: calls that failed (the empty output the reference
 * writes for them), dialogues with turns missing (a run stopped part-way), or turns of `records` not judged.
 */
function incompleteness(e: MethodEvaluation, files: string[], records: TurnRecord[] | undefined): string[] {
  const out: string[] = [];
  const where = `${e.method} (${files.join(', ')})`;
  if (e.summary.llmFailures > 0)
    out.push(`${where}: ${e.summary.llmFailures} turn(s) whose LLM call failed (empty output)`);
  const turns = new Map<string, number[]>();
  for (const r of e.records) turns.set(r.dialogueId, [...(turns.get(r.dialogueId) ?? []), r.turnIndex]);
  const gaps = [...turns].filter(([, t]) => t.some((x, i) => x !== i)).map(([d]) => d);
  if (gaps.length > 0)
    out.push(
      `${where}: turns missing in ${gaps.length} dialogue(s) (${gaps.slice(0, 3).join(', ')}${gaps.length > 3 ? ', ...' : ''})`,
    );
  if (records) {
    const have = new Set(e.records.map((r) => r.flag));
    const missing = records.filter((r) => !have.has(r.flag));
    if (missing.length > 0)
      out.push(
        `${where}: ${missing.length} of the ${records.length} turns of --records are not judged (e.g. ${missing[0]!.flag})`,
      );
  }
  return out;
}

/** A report as JSON (`--format json`). */
export function judgeReportJson(report: JudgeReport, options: { perTurn?: boolean } = {}): string {
  const body = {
    options: report.options,
    methods: report.evaluations.map((e) => evaluationToJson(e, { perTurn: Boolean(options.perTurn) })),
    ...(report.rules ? { rules: report.rules } : {}),
    ...(report.human ? { humanCheck: report.human } : {}),
    ...(report.partial.length > 0 ? { partial: report.partial } : {}),
  };
  return stringifyJson(body, 2);
}

/** Metrics of a judged directory as `--format json` prints them. */
export function judgeResultJson(judged: JudgedDirectory): string {
  const e = judged.run.evaluation;
  return stringifyJson(
    {
      method: judged.run.method,
      metrics: e.metrics,
      summary: e.summary,
      llm: judged.run.llm,
      outputs: judged.written,
      result: judged.resultFile,
      ...(judged.repeats !== undefined ? { repeats: judged.repeats } : {}),
    },
    2,
  );
}
