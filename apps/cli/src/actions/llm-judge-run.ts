import { join, resolve } from 'node:path';
import { FileDigests, type RunLlm, writeJsonAtomic } from '@eval/core';
import {
  type EvaluateOptions,
  type JudgeInput,
  type JudgeRunRecord,
  judgeResultJson,
  judgeToDirectory,
  loadTemplates,
  methodRoles,
  readJudgeInput,
  runBenchmark,
} from '@eval/llm-judge';
import type { LlmJudgeMetricFlags, LlmJudgeRunFlags } from '../flags/llm-judge';
import { formatTable } from '../format';
import { llmOptionsFromFlags, readOptionsFromFlags } from '../llm-options';
import { withLlm } from '../llm-run';
import { humanJudges, judgeLlmFlags, type PanelJudge, panelAgreement, panelJudgeJson, panelJudges } from '../panel';
import { METRIC_HEADER, type RepeatStats, judgeRepeatStats, metricRow, repeatTable } from '../render/llm-judge';
import { runLlmRecord } from '../run-llm';
import { type RunFlags, openRun } from '../run-record';
import { describeResource } from '../run-resource';
import { UsageError, emit } from '../util';

/** Options of every subcommand that integrates judge outputs into metrics. */
export const evaluateOptions = (f: LlmJudgeMetricFlags): EvaluateOptions => ({
  onParseFailure: f.onParseFailure ?? 'reference',
  completenessValueAware: Boolean(f.completenessValueAware),
  gptJga: f.gptJga ?? 'before-turn',
  ruleJga: f.ruleJga ?? 'fixed',
  ruleNormalization: f.ruleNormalization ?? 'method',
});

/** A warning on stderr. */
export const warn = (line: string) => process.stderr.write(`dialeval llm-judge: ${line}\n`);

/**
 * `llm-judge run`: one judge into `--out`; several (`--judge` or `--templates` more than once) make a panel, each
 * judge into `<out>/<label>` (its run there, or in `<run>/<label>`), ended by the judges' agreement.
 */
export async function llmJudgeRun(flags: LlmJudgeRunFlags): Promise<void> {
  const judges = panelJudges(flags, flags.templates);
  const humans = await humanJudges(flags.human);
  const several = judges.length > 1;
  if (several && flags.journal !== undefined)
    throw new UsageError('--journal names one journal: a judge panel keeps one per judge in its output directory');
  // the output directory is always a run: its inputs are hashed from the bytes read here (no second read at the end)
  const digests = new FileDigests();
  const read = { ...readOptionsFromFlags(flags), onRead: digests.onRead };
  const input = await readJudgeInput(flags, { read, dataFlag: '--data' });
  for (const line of input.warningLines) warn(line);
  if (!several && humans.length === 0) {
    const done = await judgeOnce(flags, judges[0]!, input, digests, 0);
    if (done) await emit(flags.format === 'json' ? done.json : done.text);
    return;
  }
  // a panel: one judge run per judge, each in <out>/<label> (and <run>/<label>), one cache, one budget; or one judge
  // checked against people (in <out>, as ever)
  const panel: Array<{ judge: PanelJudge; out: string; run: string; done: JudgedOnce }> = [];
  let spent = 0;
  for (const judge of judges) {
    const out = several ? join(flags.out, judge.label) : flags.out;
    const run = flags.run !== undefined && several ? join(flags.run, judge.label) : (flags.run ?? resolve(out));
    const llmSummary = several ? flags.llmSummary?.replace(/(\.json)?$/, `.${judge.label}.json`) : flags.llmSummary;
    const summary = several ? undefined : flags.summary;
    const judgeFlags = { ...judgeLlmFlags(flags, judge, spent), out, run, llmSummary, summary };
    const done = await judgeOnce(judgeFlags, judge, input, digests, judges.length);
    if (!done) continue;
    spent += done.cost;
    panel.push({ judge, out, run, done });
  }
  if (panel.length < judges.length) return; // a dry run
  const agreement = await panelAgreement(
    panel.map((p) => ({ label: p.judge.label, dir: p.run })),
    humans,
    runBenchmark,
    flags.format ?? 'table',
  );
  if (flags.summary && several)
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
  const texts = panel.map((p) => (several ? `judge ${p.judge.label}:\n${p.done.text}\n` : `${p.done.text}\n`));
  await emit([...texts, agreement.text].join('\n'));
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
      await writeJudgeRun({ run: flags.run ?? resolve(flags.out), system: flags.system }, judged.record, digests, {
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

/**
 * Writes a run record when one is asked for (`--run DIR` or `$DIALEVAL_RUNS`). `llm` (for commands that called an
 * LLM) describes the calls.
 */
export async function writeJudgeRun(
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
