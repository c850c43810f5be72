import { join, resolve } from 'node:path';
import { EvalError, FileDigests, type ReadOptions, type RunLlm, writeFileAtomic, writeJsonAtomic } from '@eval/core';
import {
  findJudgeOutputs,
  importRecordedOutputs,
  judgeReportJson,
  judgeResultJson,
  judgeToDirectory,
  llmJudgeRunMetrics,
  loadTemplates,
  methodRoles,
  readJudgeInput,
  reportJudgeOutputs,
  serializeTurnRecords,
  type EvaluateOptions,
  type ImportFileReport,
  type JudgeRunRecord,
  type MethodEvaluation,
  runBenchmark,
} from '@eval/llm-judge';
import type {
  LlmJudgeConvertFlags,
  LlmJudgeImportFlags,
  LlmJudgeMetricFlags,
  LlmJudgeReportFlags,
  LlmJudgeRunFlags,
} from '../flags/llm-judge';
import { formatMetricValue, formatTable, percent } from '../format';
import { llmOptionsFromFlags, readOptionsFromFlags } from '../llm-options';
import { withLlm } from '../llm-run';
import { selfAgreement, spread, type SelfAgreement, type Spread } from '../repeats';
import { runLlmRecord } from '../run-llm';
import { type RunFlags, openRun, runRequested } from '../run-record';
import { describeResource } from '../run-resource';
import { UsageError, emit } from '../util';

const evaluateOptions = (f: LlmJudgeMetricFlags): EvaluateOptions => ({
  onParseFailure: f.onParseFailure ?? 'reference',
  completenessValueAware: Boolean(f.completenessValueAware),
  gptJga: f.gptJga ?? 'before-turn',
  ruleJga: f.ruleJga ?? 'fixed',
  ruleNormalization: f.ruleNormalization ?? 'method',
});

const warn = (line: string) => process.stderr.write(`dialeval llm-judge: ${line}\n`);

const METRIC_HEADER = 'method|turns|skipped|TSA|TSA M21|TSA M24|coh. M21|coh. M24|GPT-JGA|JGA M21|JGA M24'.split('|');

/** A method's row: its run metrics as the run record declares them (percent points, two decimals), `—` for none. */
function metricRow(e: MethodEvaluation): string[] {
  const shown = Object.values(llmJudgeRunMetrics(e)).map((m) => formatMetricValue(m.value, m) || '—');
  return [e.method, String(e.metrics.turns), String(e.summary.skippedTurns), ...shown];
}

// ---------------------------------------------------------------------------------------------------------------
// run
// ---------------------------------------------------------------------------------------------------------------

export async function llmJudgeRun(flags: LlmJudgeRunFlags): Promise<void> {
  const method = flags.method;
  const llmOptions = llmOptionsFromFlags(flags);
  if (flags.namespace !== undefined) llmOptions.namespace = flags.namespace;
  const options = evaluateOptions(flags);
  const templates = await loadTemplates(methodRoles(method), { dir: flags.templates, flag: '--templates' });
  // the output directory is always a run: its inputs are hashed from the bytes read here (no second read at the end)
  const digests = new FileDigests();
  const read = { ...readOptionsFromFlags(flags), onRead: digests.onRead };
  const input = await readJudgeInput(flags, { read, dataFlag: '--data' });
  for (const line of input.warningLines) warn(line);
  await withLlm(
    llmOptions,
    'run the same command again: it makes exactly the failed and missing calls (answered ones come from the journal and the cache)',
    async (llm) => {
      const judged = await judgeToDirectory({
        method,
        input,
        templates,
        llm,
        out: flags.out,
        journal: flags.journal,
        systemMessage: flags.systemMessage,
        chat: { temperature: flags.temperature ?? 0 },
        repeats: flags.repeats,
        model: llmOptions.model,
        summarizeRepeats: judgeRepeatStats,
        ...options,
      });
      if (judged.status === 'dry-run')
        return emit(flags.format === 'json' ? JSON.stringify(judged.summary, null, 2) : judged.text);
      if (judged.status === 'incomplete') {
        for (const line of judged.failures) warn(line);
        if (flags.summary) await writeJsonAtomic(flags.summary, judged.summary);
        throw judged.error;
      }
      const e = judged.run.evaluation;
      // the output directory is the run (unless --run names another); its record is of calls that were paid for
      const sampling = { temperature: flags.temperature ?? 0, seed: flags.seed, maxTokens: flags.maxTokens };
      await writeRun({ run: flags.run ?? resolve(flags.out), system: flags.system }, judged.record, digests, {
        resourceFromFlag: flags.templates !== undefined,
        llm: () => runLlmRecord(llm, { sampling, pricesFile: flags.prices }),
      });
      if (flags.summary) await writeJsonAtomic(flags.summary, judged.summary);
      for (const line of judged.warnings) warn(line);
      if (flags.format === 'json') return emit(judgeResultJson(judged));
      const u = judged.run.llm;
      const stats = judged.repeats as RepeatStats | undefined;
      await emit(
        [
          formatTable(METRIC_HEADER, [metricRow(e)]),
          ...(stats ? ['', repeatTable(method, stats)] : []),
          '',
          `${u.calls} call(s), ${u.cacheHits} from cache, ${u.failedCalls} failed; ${u.totalTokens} tokens; cost ${u.costKnown ? `$${u.cost.toFixed(4)}` : 'unknown'}`,
          `outputs: ${judged.written.join(', ')}`,
          `result: ${judged.resultFile}`,
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

type RepeatStats = { n: number; figures: Record<string, Spread>; selfAgreement: SelfAgreement };

/** Each figure's mean and std across repeats, and the judge's self-agreement on the turns judged in every repeat. */
function judgeRepeatStats(evaluations: MethodEvaluation[]): RepeatStats {
  const figures: Record<string, Spread> = {};
  for (const f of REPEAT_FIGURES) figures[f] = spread(evaluations.map((e) => e.metrics[f]));
  const byRepeat = evaluations.map((e) => new Map(e.turns.map((t) => [t.flag, t.judge] as const)));
  const labels = evaluations[0]!.records.map((r) => byRepeat.map((m) => m.get(r.flag)));
  return { n: evaluations.length, figures, selfAgreement: selfAgreement(labels) };
}

function repeatTable(method: string, stats: RepeatStats): string {
  const ms = (s: Spread) =>
    s.mean === null ? '—' : `${s.mean.toFixed(2)} ± ${s.std === null ? '—' : s.std.toFixed(2)}`;
  const a = stats.selfAgreement;
  return [
    `over ${stats.n} repeats (mean ± std):`,
    formatTable(['method', ...REPEAT_FIGURES], [[method, ...REPEAT_FIGURES.map((f) => ms(stats.figures[f]!))]]),
    `judge self-agreement: ${percent(a.agreement, 2)} of ${a.items} turn(s) judged alike in every repeat; Fleiss' kappa ${a.fleissKappa === null ? '—' : a.fleissKappa.toFixed(4)}`,
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// import
// ---------------------------------------------------------------------------------------------------------------

/** The fields of a file's import report, in the table's order. */
const IMPORT_COLUMNS = 'file role entries verified placeholders failedCalls written unchanged replaced'.split(
  ' ',
) as Array<keyof ImportFileReport>;

export async function llmJudgeImport(files: string[], flags: LlmJudgeImportFlags): Promise<void> {
  const templates = await loadTemplates(flags.role ? [flags.role] : 'all', {
    dir: flags.templates,
    flag: '--templates',
  });
  const result = await importRecordedOutputs({
    files,
    templates,
    role: flags.role,
    model: flags.model,
    namespace: flags.namespace,
    cacheDir: flags.cacheDir,
    systemMessage: flags.systemMessage,
    chat: { temperature: flags.temperature ?? 0 },
    verifyOnly: flags.verifyOnly,
  });
  if (flags.format === 'json') return emit(JSON.stringify(result, null, 2));
  const replay = `dialeval llm-judge run --method <m> --records <records> --model ${result.model}${flags.namespace ? ` --namespace ${flags.namespace}` : ''} --cache replay${flags.cacheDir ? ` --cache-dir ${flags.cacheDir}` : ''} --out DIR`;
  await emit(
    [
      formatTable(
        ['file', 'role', 'entries', 'verified', 'placeholders', 'failed calls', 'written', 'unchanged', 'replaced'],
        result.files.map((f) => IMPORT_COLUMNS.map((k) => f[k])),
      ),
      '',
      flags.verifyOnly
        ? 'every recorded prompt re-renders byte for byte (nothing written: --verify-only)'
        : `every recorded prompt re-renders byte for byte; answers filed under model ${result.model} in ${result.cacheDir}\nre-aggregate without any LLM call: ${replay}`,
    ].join('\n'),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// report
// ---------------------------------------------------------------------------------------------------------------

export async function llmJudgeReport(dirs: string[], flags: LlmJudgeReportFlags): Promise<void> {
  const sources = findJudgeOutputs(dirs, flags.outputs ?? []);
  if (flags.run !== undefined && sources.length === 0)
    throw new UsageError('--run records judge outputs: give output directories or --outputs METHOD=FILES');
  // a run record hashes the files from the bytes read here, and takes its items from the outputs read here
  const digests = runRequested(flags) ? new FileDigests() : undefined;
  const read: ReadOptions | undefined = digests ? { onRead: digests.onRead } : undefined;
  const report = await reportJudgeOutputs({
    ...evaluateOptions(flags),
    sources,
    records: flags.records,
    human: flags.human,
    turns: flags.turns,
    read,
  });
  const { partial, rules, human, options } = report;
  if (partial.length > 0) {
    if (!flags.allowPartial)
      throw new EvalError(
        'partial_result',
        `refusing to report incomplete judge outputs: ${partial.join('; ')}; run \`dialeval llm-judge run\` again to finish them, or pass --allow-partial for partial figures`,
      );
    warn(`PARTIAL: these figures are computed over incomplete judge outputs: ${partial.join('; ')}`);
  }
  for (const line of report.warnings) warn(line);
  // one run per method: `--run DIR` for one method, `DIR/<method>` for several
  for (const [i, record] of report.records.entries()) {
    const several = flags.run !== undefined && report.records.length > 1;
    const dir = several ? join(flags.run!, report.evaluations[i]!.method) : flags.run;
    await writeRun({ run: dir, system: flags.system }, record, digests);
  }

  if (flags.format === 'json') return emit(judgeReportJson(report, { perTurn: flags.perTurn }), flags.out);
  const lines: string[] =
    partial.length > 0
      ? ['PARTIAL: the judge outputs are incomplete; these figures are not those of a complete run', '']
      : [];
  if (report.evaluations.length > 0) lines.push(formatTable(METRIC_HEADER, report.evaluations.map(metricRow)));
  if (rules) {
    const fixed2 = (x: number | null) => formatMetricValue(x, { unit: '%', digits: 2 }) || '—';
    if (lines.length) lines.push('');
    lines.push(
      formatTable(
        ['rule judgement', 'turns', 'TSA (two-step norm.)', 'TSA (single-step norm.)', `rule JGA (${options.ruleJga})`],
        (['mwz21', 'mwz24'] as const).map((k) => [
          k === 'mwz21' ? 'RULE-M21' : 'RULE-M24',
          String(rules.turns),
          fixed2(rules.tsa['two-step'][k]),
          fixed2(rules.tsa['single-step'][k]),
          fixed2(rules.ruleJga[k]),
        ]),
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
          formatMetricValue(r.accuracy, { unit: '%', digits: 2 }) || '—',
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
 * Writes a run record when one is asked for (`--run DIR` or `$DIALEVAL_RUNS`). `llm` (for commands that called an
 * LLM) describes the calls.
 */
async function writeRun(
  flags: RunFlags,
  record: JudgeRunRecord,
  digests: FileDigests | undefined,
  more: { resourceFromFlag?: boolean; llm?: () => Promise<RunLlm> } = {},
): Promise<void> {
  const run = await openRun(flags, {
    ...record.init,
    descriptor: runBenchmark,
    ...(more.llm ? { packages: ['@eval/llm'] } : {}),
  });
  if (!run) return;
  for (const { role, path } of record.inputs) await run.addInput(role, path, digests);
  const { resource } = record;
  if (resource) run.addResource(await describeResource(resource.name, resource.dir, more.resourceFromFlag === true));
  for (const { path, format } of record.artifacts) run.addArtifact(path, format);
  await run.finish({
    items: record.items(run.dir),
    metrics: record.metrics,
    ...(more.llm ? { llm: await more.llm() } : {}),
  });
}

// ---------------------------------------------------------------------------------------------------------------
// convert
// ---------------------------------------------------------------------------------------------------------------

export async function llmJudgeConvert(flags: LlmJudgeConvertFlags): Promise<void> {
  if (flags.records)
    throw new UsageError('convert reads predictions (--raw-predictions or --states); --records are already converted');
  const { records, warnings, warningLines, source } = await readJudgeInput(flags, { dataFlag: '--data' });
  for (const line of warningLines) warn(line);
  await writeFileAtomic(flags.out, serializeTurnRecords(records));
  if (flags.summary) await writeJsonAtomic(flags.summary, { input: source, records: records.length, warnings });
  await emit(
    `${records.length} turn record(s) of ${new Set(records.map((r) => r.dialogueId)).size} dialogue(s) written to ${resolve(flags.out)}`,
  );
}
