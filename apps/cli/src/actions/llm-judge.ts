import { join, resolve } from 'node:path';
import { EvalError, FileDigests, type ReadOptions, type RunLlm, writeFileAtomic, writeJsonAtomic } from '@eval/core';
import {
  findJudgeOutputs,
  importRecordedOutputs,
  judgeReportJson,
  judgeResultJson,
  judgeToDirectory,
  loadTemplates,
  methodRoles,
  readJudgeInput,
  reportJudgeOutputs,
  serializeTurnRecords,
  type EvaluateOptions,
  type JudgeInput,
  type JudgeRunRecord,
  runBenchmark,
} from '@eval/llm-judge';
import type {
  LlmJudgeConvertFlags,
  LlmJudgeImportFlags,
  LlmJudgeMetricFlags,
  LlmJudgeReportFlags,
  LlmJudgeRunFlags,
} from '../flags/llm-judge';
import { formatTable } from '../format';
import { llmOptionsFromFlags, readOptionsFromFlags } from '../llm-options';
import { withLlm } from '../llm-run';
import {
  METRIC_HEADER,
  type RepeatStats,
  importTable,
  judgeRepeatStats,
  metricRow,
  repeatTable,
  reportText,
} from '../render/llm-judge';
import { judgeLlmFlags, type PanelJudge, panelAgreement, panelJudgeJson, panelJudges } from '../panel';
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

// ---------------------------------------------------------------------------------------------------------------
// run
// ---------------------------------------------------------------------------------------------------------------

export async function llmJudgeRun(flags: LlmJudgeRunFlags): Promise<void> {
  const judges = panelJudges(flags, flags.templates);
  if (judges.length > 1 && flags.journal !== undefined)
    throw new UsageError('--journal names one journal: a judge panel keeps one per judge in its output directory');
  // the output directory is always a run: its inputs are hashed from the bytes read here (no second read at the end)
  const digests = new FileDigests();
  const read = { ...readOptionsFromFlags(flags), onRead: digests.onRead };
  const input = await readJudgeInput(flags, { read, dataFlag: '--data' });
  for (const line of input.warningLines) warn(line);
  if (judges.length === 1) {
    const done = await judgeOnce(flags, judges[0]!, input, digests, 0);
    if (done) await emit(flags.format === 'json' ? done.json : done.text);
    return;
  }
  // a panel: one judge run per judge, each in <out>/<label> (and <run>/<label>), one cache, one budget
  const panel: Array<{ judge: PanelJudge; out: string; run: string; done: JudgedOnce }> = [];
  let spent = 0;
  for (const judge of judges) {
    const out = join(flags.out, judge.label);
    const run = flags.run !== undefined ? join(flags.run, judge.label) : resolve(out);
    const llmSummary = flags.llmSummary?.replace(/(\.json)?$/, `.${judge.label}.json`);
    const judgeFlags = { ...judgeLlmFlags(flags, judge, spent), out, run, llmSummary, summary: undefined };
    const done = await judgeOnce(judgeFlags, judge, input, digests, judges.length);
    if (!done) continue;
    spent += done.cost;
    panel.push({ judge, out, run, done });
  }
  if (panel.length < judges.length) return; // a dry run
  const agreement = await panelAgreement(
    panel.map((p) => ({ label: p.judge.label, dir: p.run })),
    [],
    runBenchmark,
    flags.format ?? 'table',
  );
  if (flags.summary)
    await writeJsonAtomic(
      flags.summary,
      panel.map((p) => ({ judge: p.judge.label, ...p.done.summary })),
    );
  if (flags.format === 'json')
    return emit(
      JSON.stringify(
        {
          judges: panel.map((p) => ({
            ...panelJudgeJson(p.judge),
            out: resolve(p.out),
            run: resolve(p.run),
            result: JSON.parse(p.done.json),
          })),
          agreement: agreement.json,
        },
        null,
        2,
      ),
    );
  await emit([...panel.map((p) => `judge ${p.judge.label}:\n${p.done.text}\n`), agreement.text].join('\n'));
}

interface JudgedOnce {
  text: string;
  json: string;
  summary: Record<string, unknown>;
  cost: number;
}

/** One judge's run into `flags.out`; undefined after a dry run (its text printed). */
async function judgeOnce(
  flags: LlmJudgeRunFlags,
  judge: PanelJudge,
  input: JudgeInput,
  digests: FileDigests,
  panelSize: number,
): Promise<JudgedOnce | undefined> {
  const method = flags.method;
  const llmOptions = llmOptionsFromFlags({ ...flags, model: judge.model, baseUrl: judge.baseUrl });
  if (flags.namespace !== undefined) llmOptions.namespace = flags.namespace;
  const options = evaluateOptions(flags);
  const templates = await loadTemplates(methodRoles(method), { dir: judge.templates, flag: '--templates' });
  return withLlm(
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
      if (judged.status === 'dry-run') {
        const text = flags.format === 'json' ? JSON.stringify(judged.summary, null, 2) : judged.text;
        await emit(panelSize > 1 && flags.format !== 'json' ? `judge ${judge.label}:\n${text}` : text);
        return undefined;
      }
      if (judged.status === 'incomplete') {
        for (const line of judged.failures) warn(line);
        if (flags.summary) await writeJsonAtomic(flags.summary, judged.summary);
        throw judged.error;
      }
      const e = judged.run.evaluation;
      // the output directory is the run (unless --run names another); its record is of calls that were paid for
      const sampling = { temperature: flags.temperature ?? 0, seed: flags.seed, maxTokens: flags.maxTokens };
      await writeRun({ run: flags.run ?? resolve(flags.out), system: flags.system }, judged.record, digests, {
        resourceFromFlag: judge.templates !== undefined,
        llm: () => runLlmRecord(llm, { sampling, pricesFile: flags.prices }),
        ...(panelSize > 1 ? { judge: judge.label } : {}),
      });
      if (flags.summary) await writeJsonAtomic(flags.summary, judged.summary);
      for (const line of judged.warnings) warn(line);
      const u = judged.run.llm;
      const stats = judged.repeats as RepeatStats | undefined;
      const text = [
        formatTable(METRIC_HEADER, [metricRow(e)]),
        ...(stats ? ['', repeatTable(method, stats)] : []),
        '',
        `${u.calls} call(s), ${u.cacheHits} from cache, ${u.failedCalls} failed; ${u.totalTokens} tokens; cost ${u.costKnown ? `$${u.cost.toFixed(4)}` : 'unknown'}`,
        `outputs: ${judged.written.join(', ')}`,
        `result: ${judged.resultFile}`,
      ].join('\n');
      return {
        text,
        json: judgeResultJson(judged),
        summary: judged.summary as Record<string, unknown>,
        cost: llm.usage().cost,
      };
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// import
// ---------------------------------------------------------------------------------------------------------------

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
      importTable(result.files),
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
  const { partial } = report;
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
  await emit(reportText(report), flags.out);
}

/**
 * Writes a run record when one is asked for (`--run DIR` or `$DIALEVAL_RUNS`). `llm` (for commands that called an
 * LLM) describes the calls.
 */
async function writeRun(
  flags: RunFlags,
  record: JudgeRunRecord,
  digests: FileDigests | undefined,
  more: { resourceFromFlag?: boolean; llm?: () => Promise<RunLlm>; judge?: string } = {},
): Promise<void> {
  const init = record.init;
  const run = await openRun(flags, {
    ...init,
    ...(more.judge !== undefined ? { options: { ...init.options, judge: more.judge } } : {}),
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
