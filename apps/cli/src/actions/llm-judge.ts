import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { EvalError, FileDigests, readJson, writeFileAtomic, writeJsonAtomic, type ReadOptions } from '@eval/core';
import type { Llm } from '@eval/llm';
import {
  JUDGE_METHODS,
  METHODS,
  convertRawPredictions,
  convertStatePredictions,
  evaluateOutputs,
  evaluationToJson,
  humanCheck,
  importRecordedOutputs,
  isJudgeMethod,
  llmJudgeRunItems,
  llmJudgeRunMetrics,
  llmJudgeRunVariant,
  loadMultiwozDialogues,
  loadTemplates,
  methodRoles,
  parseRawPredictions,
  readDialogueSource,
  readHumanJudgements,
  readOutputFiles,
  readTurnRecords,
  ruleJudgements,
  ruleMetrics,
  runJudge,
  serializeOutputEntries,
  serializeTurnRecords,
  stringifyJson,
  TEMPLATE_RESOURCE,
  type ConversionWarnings,
  type EvaluateOptions,
  type JudgeMethod,
  type JudgeMetrics,
  type MethodEvaluation,
  type MethodOutputs,
  type PromptTemplate,
  type TemplateRole,
  type TurnRecord,
} from '@eval/llm-judge';
import type {
  LlmJudgeConvertFlags,
  LlmJudgeImportFlags,
  LlmJudgeInputFlags,
  LlmJudgeMetricFlags,
  LlmJudgeReportFlags,
  LlmJudgeRunFlags,
} from '../flags/llm-judge';
import { llmOptionsFromFlags, readOptionsFromFlags } from '../llm-options';
import { withLlm } from '../llm-run';
import { selfAgreement, spread, type SelfAgreement, type Spread } from '../repeats';
import { runLlmRecord } from '../run-llm';
import { openRun, runRequested } from '../run-record';
import { describeResource } from '../run-resource';
import { UsageError, emit } from '../util';
import { formatTable } from '../format';

/** File stem of a method's outputs (`ours_acc_outputs.json`, `twodim_cot_comp_outputs.json`, `direct_outputs.json`). */
const STEM: Record<JudgeMethod, string> = { ours: 'ours', 'twodim-cot': 'twodim_cot', direct: 'direct', cot: 'cot' };

function outputFiles(dir: string, method: JudgeMethod): string[] {
  const stem = STEM[method];
  return METHODS[method].kind === 'two-step'
    ? [join(dir, `${stem}_acc_outputs.json`), join(dir, `${stem}_comp_outputs.json`)]
    : [join(dir, `${stem}_outputs.json`)];
}

function evaluateOptions(flags: LlmJudgeMetricFlags): EvaluateOptions {
  return {
    onParseFailure: (flags.onParseFailure ?? 'reference') as EvaluateOptions['onParseFailure'],
    completenessValueAware: Boolean(flags.completenessValueAware),
    gptJga: (flags.gptJga ?? 'before-turn') as EvaluateOptions['gptJga'],
    ruleJga: (flags.ruleJga ?? 'fixed') as EvaluateOptions['ruleJga'],
    ruleNormalization: (flags.ruleNormalization ?? 'method') as EvaluateOptions['ruleNormalization'],
  };
}

const pct = (x: number | null) => (x === null ? '—' : x.toFixed(2));

function warn(line: string): void {
  process.stderr.write(`dialeval llm-judge: ${line}\n`);
}

function warnConversion(w: ConversionWarnings): void {
  const unknown = Object.entries(w.unknownSlots);
  if (unknown.length > 0) {
    warn(
      `${unknown.reduce((s, [, n]) => s + n, 0)} predicted slot-values use ${unknown.length} name(s) outside the 30-slot schema (judged wrong by the rules): ${unknown
        .slice(0, 8)
        .map(([k, n]) => `${k} (${n})`)
        .join(', ')}${unknown.length > 8 ? ', ...' : ''}`,
    );
  }
  if (w.unknownDialogues.length > 0)
    warn(`${w.unknownDialogues.length} prediction flag(s) name dialogues not in the dialogue source (ignored)`);
  if (w.unknownTurns.length > 0)
    warn(
      `${w.unknownTurns.length} prediction flag(s) name turns the dialogues do not have (ignored): ${w.unknownTurns.slice(0, 5).join(', ')}`,
    );
  if (w.dialoguesWithoutPredictions.length > 0)
    warn(`${w.dialoguesWithoutPredictions.length} source dialogue(s) have no predictions`);
}

/** Loads the per-turn records named by the input flags (a record file, or predictions converted on the fly). */
async function loadRecords(
  flags: LlmJudgeInputFlags,
  read: ReadOptions = {},
): Promise<{ records: TurnRecord[]; source: Record<string, string>; warnings?: ConversionWarnings }> {
  const given = [flags.records, flags.rawPredictions, flags.states].filter((x) => x !== undefined).length;
  if (given !== 1)
    throw new UsageError(
      'give exactly one input: --records FILE, --raw-predictions FILE (with --dialogues) or --states FILE',
    );
  if (flags.dialoguesM24 && !flags.dialogues) throw new UsageError('--dialogues-m24 goes with --dialogues');
  if (flags.records) {
    if (flags.dialogues || flags.data)
      throw new UsageError('--dialogues/--data are for converting predictions; --records are used as they are');
    return { records: await readTurnRecords(flags.records, read), source: { records: resolve(flags.records) } };
  }
  if (flags.rawPredictions) {
    if (!flags.dialogues)
      throw new UsageError(
        '--raw-predictions needs --dialogues (TRADE test_dials.json or a per-turn record file giving the turn structure)',
      );
    const dialogues = await readDialogueSource(flags.dialogues, flags.dialoguesM24);
    const { records, warnings } = convertRawPredictions(
      parseRawPredictions(await readJson(flags.rawPredictions, undefined, read), flags.rawPredictions),
      dialogues,
    );
    return {
      records,
      warnings,
      source: { rawPredictions: resolve(flags.rawPredictions), dialogues: resolve(flags.dialogues) },
    };
  }
  const states = flags.states!;
  const predictions = await readJson(states, undefined, read);
  if (!predictions || typeof predictions !== 'object' || Array.isArray(predictions)) {
    throw new UsageError(`${states}: expected the @eval/multiwoz input format {dialogue id: [turn, ...]}`);
  }
  const dialogues = flags.dialogues
    ? await readDialogueSource(flags.dialogues, flags.dialoguesM24)
    : await loadMultiwozDialogues({ dir: flags.data, ids: Object.keys(predictions as object), flag: '--data' });
  const { records, warnings } = convertStatePredictions(predictions as never, dialogues, { file: states });
  return {
    records,
    warnings,
    source: {
      states: resolve(states),
      dialogues: flags.dialogues ? resolve(flags.dialogues) : 'multiwoz resource (MultiWOZ 2.1 test set)',
    },
  };
}

const METRIC_HEADER = [
  'method',
  'turns',
  'skipped',
  'TSA',
  'TSA M21',
  'TSA M24',
  'coh. M21',
  'coh. M24',
  'GPT-JGA',
  'JGA M21',
  'JGA M24',
];

function metricRow(name: string, m: JudgeMetrics, skipped: number): string[] {
  return [
    name,
    String(m.turns),
    String(skipped),
    pct(m.tsaGpt),
    pct(m.tsaRuleMwz21),
    pct(m.tsaRuleMwz24),
    pct(m.coherenceMwz21),
    pct(m.coherenceMwz24),
    pct(m.gptJga),
    pct(m.ruleJgaMwz21),
    pct(m.ruleJgaMwz24),
  ];
}

function failureLines(e: MethodEvaluation): string[] {
  const s = e.summary;
  const out: string[] = [];
  const parse = s.parseFailures.accuracy + s.parseFailures.completeness + s.parseFailures.singleStep;
  if (parse > 0) {
    out.push(
      `${e.method}: ${parse} unparseable output(s) (accuracy ${s.parseFailures.accuracy}, completeness ${s.parseFailures.completeness}, single-step ${s.parseFailures.singleStep})`,
    );
  }
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
// run
// ---------------------------------------------------------------------------------------------------------------

export async function llmJudgeRun(flags: LlmJudgeRunFlags): Promise<void> {
  if (!isJudgeMethod(flags.method)) throw new UsageError(`--method must be one of ${JUDGE_METHODS.join(', ')}`);
  const method = flags.method;
  const llmOptions = llmOptionsFromFlags(flags);
  if (flags.namespace !== undefined) llmOptions.namespace = flags.namespace;
  const options = evaluateOptions(flags);
  const repeats = flags.repeats ?? 1;
  const templates = await loadTemplates(methodRoles(method), { dir: flags.templates, flag: '--templates' });
  // the output directory is always a run: its inputs are hashed from the bytes read here (no second read at the end)
  const digests = new FileDigests();
  const { records, source, warnings } = await loadRecords(flags, {
    ...readOptionsFromFlags(flags),
    onRead: digests.onRead,
  });
  if (warnings) warnConversion(warnings);
  if (records.length === 0) throw new UsageError('no turns to judge');
  const out = resolve(flags.out);
  const stem = STEM[method];
  const journal = flags.journal ?? join(out, `${stem}.journal.jsonl`);
  await withLlm(
    llmOptions,
    'run the same command again: it makes exactly the failed and missing calls (answered ones come from the journal and the cache)',
    async (llm) => {
      const run = await runJudge({
        method,
        records,
        templates,
        llm,
        systemMessage: flags.systemMessage,
        chat: { temperature: flags.temperature ?? 0 },
        journal: llm.dryRun ? undefined : journal,
        repeats,
        ...options,
      });
      const u = run.llm;
      if (llm.dryRun) {
        const d = u.dryRun!;
        const { realistic, upper } = d.estimate;
        const cost = (x: number) =>
          d.costKnown ? `$${x.toFixed(4)}` : `unknown (no price for ${llmOptions.model}; pass --prices FILE)`;
        const text = [
          `dry run of ${METHODS[method].title} on ${records.length} turn(s)${repeats > 1 ? ` x ${repeats} repeats` : ''}: ${d.calls} call(s) to send, ${d.cacheHits} answered from the cache`,
          `realistic: ${realistic.calls} call(s), ~${realistic.promptTokens} prompt + ~${realistic.completionTokens} completion tokens, estimated cost: ${cost(realistic.cost)} (${realistic.explanation})`,
          `upper bound: ${upper.calls} call(s), ~${upper.promptTokens} prompt + ~${upper.completionTokens} completion tokens, at most ${cost(upper.cost)} (${upper.explanation})`,
          `requests written to ${d.requestsFile}`,
        ].join('\n');
        if (flags.format === 'json')
          await emit(JSON.stringify({ method, turns: records.length, repeats, dryRun: d }, null, 2));
        else await emit(text);
        return;
      }
      if (run.failedCalls.length > 0 || !run.evaluation) {
        // A failed call is not a judgement and a stopped run is not a result: nothing goes to the final paths (a later
        // `report` could not tell it from a complete run); the answered calls are in the journal and the cache.
        for (const f of run.failedCalls.slice(0, 10))
          warn(
            `error: dialogue ${f.dialogueId} turn ${f.turnIndex} (${f.stage} call${repeats > 1 ? `, repeat ${f.repeat}` : ''}): ${f.error}`,
          );
        if (run.failedCalls.length > 10) warn(`error: ${run.failedCalls.length - 10} more failed call(s)`);
        if (flags.summary)
          await writeJsonAtomic(flags.summary, {
            method,
            title: METHODS[method].title,
            model: llmOptions.model,
            input: source,
            turns: records.length,
            repeats,
            complete: false,
            failedCalls: run.failedCalls,
            notRun: run.notRun,
            llm: u,
            options,
          });
        const why = [
          run.failedCalls.length > 0
            ? `${run.failedCalls.length} call(s) failed after every retry (their turns are not scored)`
            : '',
          run.notRun > 0
            ? `${run.notRun} call(s) not made (${u.stoppedByBudget ? 'budget reached' : 'run stopped'})`
            : '',
        ].filter(Boolean);
        throw new EvalError(
          'run_incomplete',
          `llm-judge run incomplete: ${why.join('; ')}; no outputs or result written in ${out}; the ${u.done} answered call(s) are kept in ${journal}: run the same command again to make exactly the missing calls`,
        );
      }
      const written: string[] = [];
      for (const r of run.repeats ?? [{ repeat: 0, outputs: run.outputs }]) {
        // repeat 0 at the reference's file names; further repeats beside them (<name>.repeat<r>.json)
        const named = (file: string) => (r.repeat === 0 ? file : file.replace(/\.json$/, `.repeat${r.repeat}.json`));
        if ('accuracy' in r.outputs) {
          const [accFile, compFile] = outputFiles(out, method).map(named) as [string, string];
          await writeFileAtomic(accFile, serializeOutputEntries(r.outputs.accuracy));
          await writeFileAtomic(compFile, serializeOutputEntries(r.outputs.completeness));
          written.push(accFile, compFile);
        } else {
          const file = named(outputFiles(out, method)[0]!);
          await writeFileAtomic(file, serializeOutputEntries(r.outputs.outputs));
          written.push(file);
        }
      }
      const repeatStats = run.repeats ? judgeRepeatStats(run.repeats.map((r) => r.evaluation!)) : undefined;
      const summary = {
        method,
        title: METHODS[method].title,
        model: llmOptions.model,
        input: source,
        turns: records.length,
        outputs: written,
        failedCalls: run.failedCalls,
        notRun: run.notRun,
        llm: u,
        options,
        ...(repeatStats ? { repeats: repeatStats } : {}),
        ...(warnings ? { conversionWarnings: warnings } : {}),
      };
      const result = { ...summary, evaluation: evaluationToJson(run.evaluation) };
      const resultFile = join(out, `${stem}_result.json`);
      await writeFileAtomic(resultFile, `${stringifyJson(result, 2)}\n`);
      await writeJudgeRun({
        flags,
        dir: out,
        evaluation: run.evaluation,
        outputs: run.outputs,
        files: written,
        resultFile,
        options,
        source,
        templates,
        llm,
        llmOptions,
        digests,
      });
      if (flags.summary)
        await writeJsonAtomic(flags.summary, {
          ...summary,
          metrics: run.evaluation.metrics,
          evaluationSummary: { ...run.evaluation.summary, failures: run.evaluation.summary.failures.length },
        });
      for (const line of failureLines(run.evaluation)) warn(line);
      if (flags.format === 'json') {
        await emit(
          stringifyJson(
            {
              method,
              metrics: run.evaluation.metrics,
              summary: run.evaluation.summary,
              llm: u,
              outputs: written,
              result: resultFile,
              ...(repeatStats ? { repeats: repeatStats } : {}),
            },
            2,
          ),
        );
        return;
      }
      await emit(
        [
          formatTable(METRIC_HEADER, [metricRow(method, run.evaluation.metrics, run.evaluation.summary.skippedTurns)]),
          ...(repeatStats ? ['', repeatTable(method, repeatStats)] : []),
          '',
          `${u.calls} call(s), ${u.cacheHits} from cache, ${u.failedCalls} failed; ${u.totalTokens} tokens; cost ${u.costKnown ? `$${u.cost.toFixed(4)}` : 'unknown'}`,
          `outputs: ${written.join(', ')}`,
          `result: ${resultFile}`,
        ].join('\n'),
      );
    },
  );
}

const REPEAT_FIGURES = [
  'tsaGpt',
  'tsaRuleMwz21',
  'tsaRuleMwz24',
  'coherenceMwz21',
  'coherenceMwz24',
  'gptJga',
  'ruleJgaMwz21',
  'ruleJgaMwz24',
] as const;

/** Each figure's mean and std across repeats, and the judge's self-agreement on the turns judged in every repeat. */
function judgeRepeatStats(evaluations: MethodEvaluation[]): {
  n: number;
  figures: Record<string, Spread>;
  selfAgreement: SelfAgreement;
} {
  const figures: Record<string, Spread> = {};
  for (const f of REPEAT_FIGURES) figures[f] = spread(evaluations.map((e) => e.metrics[f]));
  const flags = evaluations[0]!.records.map((r) => r.flag);
  const byRepeat = evaluations.map((e) => new Map(e.turns.map((t) => [t.flag, t.judge] as const)));
  return {
    n: evaluations.length,
    figures,
    selfAgreement: selfAgreement(flags.map((flag) => byRepeat.map((m) => m.get(flag)))),
  };
}

function repeatTable(method: string, stats: ReturnType<typeof judgeRepeatStats>): string {
  const ms = (s: Spread) =>
    s.mean === null ? '—' : `${s.mean.toFixed(2)} ± ${s.std === null ? '—' : s.std.toFixed(2)}`;
  const a = stats.selfAgreement;
  return [
    `over ${stats.n} repeats (mean ± std):`,
    formatTable(['method', ...REPEAT_FIGURES], [[method, ...REPEAT_FIGURES.map((f) => ms(stats.figures[f]!))]]),
    `judge self-agreement: ${a.agreement === null ? '—' : `${(a.agreement * 100).toFixed(2)}%`} of ${a.items} turn(s) judged alike in every repeat; Fleiss' kappa ${a.fleissKappa === null ? '—' : a.fleissKappa.toFixed(4)}`,
  ].join('\n');
}

/** The options of an evaluation that can change a number, for the run record (defaults included). */
function runOptions(method: JudgeMethod, options: EvaluateOptions): Record<string, unknown> {
  return { method, ...options };
}

/** `llm-judge run`: its output directory (or `--run DIR`) becomes a run (run.json + items.jsonl beside the outputs). */
async function writeJudgeRun(a: {
  flags: LlmJudgeRunFlags;
  dir: string;
  evaluation: MethodEvaluation;
  outputs: MethodOutputs;
  files: string[];
  resultFile: string;
  options: EvaluateOptions;
  source: Record<string, string>;
  templates: Record<string, PromptTemplate>;
  llm: Llm;
  llmOptions: ReturnType<typeof llmOptionsFromFlags>;
  digests: FileDigests;
}): Promise<void> {
  const { flags, evaluation: e } = a;
  const input = a.source.records ?? a.source.rawPredictions ?? a.source.states;
  const run = await openRun(
    { run: flags.run ?? a.dir, system: flags.system },
    {
      benchmark: 'llm-judge',
      variant: llmJudgeRunVariant(e.method, a.options),
      input,
      options: {
        ...runOptions(e.method, a.options),
        model: a.llmOptions.model,
        temperature: flags.temperature ?? 0,
        systemMessage: flags.systemMessage ?? 'reference',
      },
      packages: ['@eval/llm'],
    },
  );
  if (!run) return;
  for (const [role, path] of Object.entries(a.source)) if (existsSync(path)) await run.addInput(role, path, a.digests);
  const sources = Object.values(a.templates)
    .map((t) => t.source)
    .filter((s) => existsSync(s));
  if (sources.length > 0)
    run.addResource(await describeResource(TEMPLATE_RESOURCE, dirname(sources[0]!), flags.templates !== undefined));
  for (const f of a.files) run.addArtifact(f, 'llm-dst-eval-output');
  run.addArtifact(a.resultFile, 'dialeval-llm-judge-result');
  // the items keep each turn's place in the outputs written above (repeat 0's, at the reference's names)
  const [first, second] = outputFiles(a.dir, e.method);
  const outputs: MethodOutputs =
    'outputs' in a.outputs
      ? { ...a.outputs, file: first }
      : { ...a.outputs, files: { accuracy: first, completeness: second } };
  await run.finish({
    items: llmJudgeRunItems(e, { outputs, gptJga: a.options.gptJga, runDir: run.dir }),
    metrics: llmJudgeRunMetrics(e),
    llm: await runLlmRecord(a.llm, {
      sampling: { temperature: flags.temperature ?? 0, seed: flags.seed, maxTokens: flags.maxTokens },
      pricesFile: flags.prices,
    }),
  });
}

/** `llm-judge report --run DIR` (or `$DIALEVAL_RUNS`): one run per method (`DIR` for one method, `DIR/<method>` for several). */
async function writeReportRuns(
  flags: LlmJudgeReportFlags,
  evaluations: MethodEvaluation[],
  sources: Array<{ method: JudgeMethod; files: string[] }>,
  outputs: MethodOutputs[],
  options: EvaluateOptions,
  digests: FileDigests | undefined,
): Promise<void> {
  if (flags.run !== undefined && evaluations.length === 0)
    throw new UsageError('--run records judge outputs: give output directories or --outputs METHOD=FILES');
  for (const [i, e] of evaluations.entries()) {
    const files = sources[i]!.files;
    const dir = flags.run !== undefined && evaluations.length > 1 ? join(flags.run, e.method) : flags.run;
    const run = await openRun(
      { run: dir, system: flags.system },
      {
        benchmark: 'llm-judge',
        variant: llmJudgeRunVariant(e.method, options),
        input: dirname(resolve(files[0]!)),
        options: runOptions(e.method, options),
      },
    );
    if (!run) continue;
    for (const [j, f] of files.entries())
      await run.addInput(
        files.length === 2 ? (j === 0 ? 'accuracy-outputs' : 'completeness-outputs') : 'outputs',
        f,
        digests,
      );
    if (flags.records) await run.addInput('records', flags.records, digests);
    // outputs[i] names its files (readOutputFiles): the items keep each turn's place in them
    await run.finish({
      items: llmJudgeRunItems(e, { outputs: outputs[i]!, gptJga: options.gptJga, runDir: run.dir }),
      metrics: llmJudgeRunMetrics(e),
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// import
// ---------------------------------------------------------------------------------------------------------------

const ALL_ROLES: TemplateRole[] = [
  'ours-accuracy',
  'ours-completeness',
  'twodim-cot-accuracy',
  'twodim-cot-completeness',
  'direct',
  'cot',
];

export async function llmJudgeImport(files: string[], flags: LlmJudgeImportFlags): Promise<void> {
  const roles = flags.role ? [flags.role as TemplateRole] : ALL_ROLES;
  const templates = await loadTemplates(roles, { dir: flags.templates, flag: '--templates' });
  const result = await importRecordedOutputs({
    files,
    templates,
    role: flags.role as TemplateRole | undefined,
    model: flags.model,
    namespace: flags.namespace,
    cacheDir: flags.cacheDir,
    systemMessage: flags.systemMessage,
    chat: { temperature: flags.temperature ?? 0 },
    verifyOnly: flags.verifyOnly,
  });
  if (flags.format === 'json') return emit(JSON.stringify(result, null, 2));
  await emit(
    [
      formatTable(
        ['file', 'role', 'entries', 'verified', 'placeholders', 'failed calls', 'written', 'unchanged', 'replaced'],
        result.files.map((f) => [
          f.file,
          f.role,
          f.entries,
          f.verified,
          f.placeholders,
          f.failedCalls,
          f.written,
          f.unchanged,
          f.replaced,
        ]),
      ),
      '',
      flags.verifyOnly
        ? 'every recorded prompt re-renders byte for byte (nothing written: --verify-only)'
        : `every recorded prompt re-renders byte for byte; answers filed under model ${result.model} in ${result.cacheDir}\n` +
          `re-aggregate without any LLM call: dialeval llm-judge run --method <m> --records <records> --model ${result.model}${flags.namespace ? ` --namespace ${flags.namespace}` : ''} --cache replay${flags.cacheDir ? ` --cache-dir ${flags.cacheDir}` : ''} --out DIR`,
    ].join('\n'),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// report
// ---------------------------------------------------------------------------------------------------------------

function parseOutputsSpec(spec: string): { method: JudgeMethod; files: string[] } {
  const eq = spec.indexOf('=');
  const name = eq > 0 ? spec.slice(0, eq) : '';
  if (!isJudgeMethod(name))
    throw new UsageError(
      `--outputs expects METHOD=FILE[,FILE] with METHOD one of ${JUDGE_METHODS.join(', ')}, got "${spec}"`,
    );
  const files = spec
    .slice(eq + 1)
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const want = METHODS[name].kind === 'two-step' ? 2 : 1;
  if (files.length !== want) {
    throw new UsageError(
      want === 2
        ? `--outputs ${name}= needs two files: the accuracy outputs, then the completeness outputs`
        : `--outputs ${name}= needs one file`,
    );
  }
  return { method: name, files };
}

export async function llmJudgeReport(dirs: string[], flags: LlmJudgeReportFlags): Promise<void> {
  const options = evaluateOptions(flags);
  const sources: Array<{ method: JudgeMethod; files: string[] }> = [];
  for (const dir of dirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new UsageError(`${dir} is not a directory (give judge-output files with --outputs METHOD=FILES)`);
    let found = 0;
    for (const method of JUDGE_METHODS) {
      const files = outputFiles(dir, method);
      const present = files.filter((f) => existsSync(f));
      if (present.length === files.length) {
        sources.push({ method, files });
        found++;
      } else if (present.length > 0) {
        throw new UsageError(
          `${dir}: ${present[0]} is there but ${files.find((f) => !existsSync(f))} is not (a two-step method needs both files)`,
        );
      }
    }
    if (found === 0)
      throw new UsageError(
        `${dir}: no judge outputs found (expected e.g. ours_acc_outputs.json + ours_comp_outputs.json, direct_outputs.json)`,
      );
  }
  for (const spec of flags.outputs ?? []) sources.push(parseOutputsSpec(spec));
  if (sources.length === 0 && !flags.records)
    throw new UsageError('nothing to report: give output directories, --outputs METHOD=FILES or --records FILE');
  const seen = new Set<string>();
  for (const s of sources) {
    if (seen.has(s.method)) throw new UsageError(`method ${s.method} is given twice`);
    seen.add(s.method);
  }

  // a run record hashes the files from the bytes read here, and takes its items from the outputs read here
  const digests = runRequested(flags) ? new FileDigests() : undefined;
  const read: ReadOptions | undefined = digests ? { onRead: digests.onRead } : undefined;
  const evaluations: MethodEvaluation[] = [];
  const outputs: MethodOutputs[] = [];
  for (const s of sources) {
    const o = await readOutputFiles(s.method, s.files, read);
    if (digests) outputs.push(o); // kept for the run's items only
    evaluations.push(evaluateOutputs(s.method, o, options));
  }

  // rule-only rows: from --records, else from the turns of the first method's input
  const ruleRecords = flags.records
    ? await readTurnRecords(flags.records, read)
    : evaluations[0]
      ? collectRecords(evaluations[0])
      : [];

  const partial = evaluations.flatMap((e, i) =>
    incompleteness(e, sources[i]!.files, flags.records ? ruleRecords : undefined),
  );
  if (partial.length > 0) {
    if (!flags.allowPartial) {
      throw new EvalError(
        'partial_result',
        `refusing to report incomplete judge outputs: ${partial.join('; ')}; run \`dialeval llm-judge run\` again to finish them, or pass --allow-partial for partial figures`,
      );
    }
    warn(`PARTIAL: these figures are computed over incomplete judge outputs: ${partial.join('; ')}`);
  }
  const rules = ruleRecords.length > 0 ? ruleMetrics(ruleRecords, { ruleJga: options.ruleJga }) : undefined;

  let human: ReturnType<typeof humanCheck> | undefined;
  if (flags.human) {
    if (evaluations.length === 0) throw new UsageError('--human needs judge outputs to compare');
    const labels = await readHumanJudgements(flags.human);
    const n = flags.turns ?? evaluations[0]!.summary.totalTurns;
    const norm = options.ruleNormalization === 'single-step' ? 'single-step' : 'two-step';
    const judged = ruleRecords.length > 0 ? ruleRecords : collectRecords(evaluations[0]!);
    const m24 = ruleJudgements(judged, norm).map((j, i) => ({ flag: judged[i]!.flag, ruleMwz24: j.mwz24 }));
    human = humanCheck({
      turns: n,
      human: labels,
      judges: evaluations.map((e) => ({ name: e.method, turns: e.turns })),
      rule: m24,
    });
    if (human.unknownFlags.length > 0)
      warn(
        `${human.unknownFlags.length} annotated flag(s) are not among the judged turns (ignored): ${human.unknownFlags.slice(0, 5).join(', ')}`,
      );
  }

  for (const e of evaluations) for (const line of failureLines(e)) warn(line);
  await writeReportRuns(flags, evaluations, sources, outputs, options, digests);

  if (flags.format === 'json') {
    const body = {
      options,
      methods: evaluations.map((e) => evaluationToJson(e, { perTurn: Boolean(flags.perTurn) })),
      ...(rules ? { rules } : {}),
      ...(human ? { humanCheck: human } : {}),
      ...(partial.length > 0 ? { partial } : {}),
    };
    await emit(stringifyJson(body, 2), flags.out);
    return;
  }
  const lines: string[] =
    partial.length > 0
      ? ['PARTIAL: the judge outputs are incomplete; these figures are not those of a complete run', '']
      : [];
  if (evaluations.length > 0) {
    lines.push(
      formatTable(
        METRIC_HEADER,
        evaluations.map((e) => metricRow(e.method, e.metrics, e.summary.skippedTurns)),
      ),
    );
  }
  if (rules) {
    if (lines.length) lines.push('');
    lines.push(
      formatTable(
        ['rule judgement', 'turns', 'TSA (two-step norm.)', 'TSA (single-step norm.)', `rule JGA (${options.ruleJga})`],
        [
          [
            'RULE-M21',
            String(rules.turns),
            pct(rules.tsa['two-step'].mwz21),
            pct(rules.tsa['single-step'].mwz21),
            pct(rules.ruleJga.mwz21),
          ],
          [
            'RULE-M24',
            String(rules.turns),
            pct(rules.tsa['two-step'].mwz24),
            pct(rules.tsa['single-step'].mwz24),
            pct(rules.ruleJga.mwz24),
          ],
        ],
      ),
    );
  }
  if (human) {
    lines.push(
      '',
      `agreement with ${human.annotated} human judgements (N = ${human.turns}; turns where a judge agrees with RULE-M24 count as right, as in the paper)`,
      formatTable(
        ['judge', 'accuracy', '|D|', '|D∩A|', 'agree', 'kappa (annotated)', 'J1H1', 'J1H0', 'J0H1', 'J0H0'],
        human.rows.map((r) => [
          r.name,
          pct(r.accuracy),
          String(r.disagreements),
          String(r.annotatedDisagreements),
          String(r.agreeWithHuman),
          r.kappa === null ? '—' : r.kappa.toFixed(4),
          String(r.confusion.bothRight),
          String(r.confusion.judgeRightHumanWrong),
          String(r.confusion.judgeWrongHumanRight),
          String(r.confusion.bothWrong),
        ]),
      ),
    );
  }
  await emit(lines.join('\n'), flags.out);
}

/**
 * Why a method's outputs are not a complete run, if they are not: calls that failed (the empty output the reference
 * writes for them), dialogues with turns missing (a run stopped part-way), or turns of `--records` not judged.
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

/** Every turn record of an evaluation's input, in its order (judged or not). */
function collectRecords(e: MethodEvaluation): TurnRecord[] {
  return e.records;
}

// ---------------------------------------------------------------------------------------------------------------
// convert
// ---------------------------------------------------------------------------------------------------------------

export async function llmJudgeConvert(flags: LlmJudgeConvertFlags): Promise<void> {
  if (flags.records)
    throw new UsageError('convert reads predictions (--raw-predictions or --states); --records are already converted');
  const { records, warnings, source } = await loadRecords(flags);
  if (warnings) warnConversion(warnings);
  await writeFileAtomic(flags.out, serializeTurnRecords(records));
  if (flags.summary) await writeJsonAtomic(flags.summary, { input: source, records: records.length, warnings });
  await emit(
    `${records.length} turn record(s) of ${new Set(records.map((r) => r.dialogueId)).size} dialogue(s) written to ${resolve(flags.out)}`,
  );
}
