import { join, resolve } from 'node:path';
import { EvalError, FileDigests, type ReadOptions, writeFileAtomic, writeJsonAtomic } from '@eval/core';
import {
  findJudgeOutputs,
  importRecordedOutputs,
  judgeReportJson,
  loadTemplates,
  readJudgeInput,
  reportJudgeOutputs,
  serializeTurnRecords,
} from '@eval/llm-judge';
import type { LlmJudgeConvertFlags, LlmJudgeImportFlags, LlmJudgeReportFlags } from '../flags/llm-judge';
import { importTable, reportText } from '../render/llm-judge';
import { runRequested } from '../run-record';
import { UsageError, emit } from '../util';
import { evaluateOptions, warn, writeJudgeRun } from './llm-judge-run';

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
    await writeJudgeRun({ run: dir, system: flags.system }, record, digests);
  }

  if (flags.format === 'json') return emit(judgeReportJson(report, { perTurn: flags.perTurn }), flags.out);
  await emit(reportText(report), flags.out);
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
