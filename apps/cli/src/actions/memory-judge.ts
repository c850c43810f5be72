import { basename, dirname, join } from 'node:path';
import { type FileDigests, type RunLlm, writeJsonAtomic } from '@eval/core';
import {
  type AggregateOptions,
  describeJudgeRun,
  type EvalRecords,
  judgeRunArtifact,
  judgeUserLines,
  type MemoryVariantOptions,
  memoryRunItems,
  memoryRunMetrics,
  memoryRunSetup,
  type OverallScore,
  overallScoreJson,
  runBenchmark,
} from '@eval/memory';
import type { MemoryAggregationFlags, MemoryJudgeFlags } from '../flags/memory';
import { llmOptionsFromFlags, readOptionsFromFlags } from '../llm-options';
import { withLlm } from '../llm-run';
import { humanJudges, judgeLlmFlags, type PanelJudge, panelAgreement, panelJudgeJson, panelJudges } from '../panel';
import { memoryRepeatStats, memoryRepeatText, overallText } from '../render/memory';
import { runLlmRecord } from '../run-llm';
import { type RunFlags, openRun } from '../run-record';
import { emit } from '../util';

export const aggregateOptions = (f: MemoryAggregationFlags): AggregateOptions => ({
  acceptBooleanIncluded: Boolean(f.acceptBooleanIncluded),
  typeAccuracyExcludesInterference: Boolean(f.typeAccuracyExcludesInterference),
  onEmptyCategory: f.onEmpty === 'null' ? 'null' : 'error',
});

const tty = () => Boolean(process.stderr.isTTY) && !process.env.CI;
const stderr = (lines: string[]) => lines.forEach((l) => process.stderr.write(`${l}\n`));

/**
 * `memory judge`: one judge, as HaluMem judges; several (`--judge` more than once) make a panel, each judge's stat
 * file and run in `<out>/<label>/`, ended by the judges' agreement; `--human FILE` adds people as one more judge.
 */
export async function memoryJudge(artifact: string, flags: MemoryJudgeFlags): Promise<void> {
  const judges = panelJudges(flags);
  const humans = await humanJudges(flags.human);
  if (judges.length === 1 && humans.length === 0) {
    const done = await judgeOnce(artifact, flags, judges[0]!, false);
    if (done) await emit(flags.format === 'json' ? done.json : done.text);
    return;
  }
  const frame = basename(artifact).replace(/(_eval_results)?\.jsonl$/, '');
  const several = judges.length > 1;
  const outDir = flags.out ?? join(dirname(artifact), `${frame}_judges`);
  const runsFromEnv = flags.run === undefined && Boolean(process.env.DIALEVAL_RUNS);
  const panel: Array<{ judge: PanelJudge; done: JudgedOnce }> = [];
  let spent = 0;
  for (const judge of judges) {
    const out = several ? join(outDir, judge.label, `${frame}_eval_stat_result.json`) : flags.out;
    // the agreement reads each judge's run: --run DIR[/<label>], $DIALEVAL_RUNS, else beside the stat file
    const own = several ? join(outDir, judge.label) : undefined;
    const run = flags.run !== undefined && several ? join(flags.run, judge.label) : (flags.run ?? own);
    const judgeFlags: MemoryJudgeFlags = {
      ...judgeLlmFlags(flags, judge, spent),
      out,
      workDir: flags.workDir !== undefined && several ? join(flags.workDir, judge.label) : flags.workDir,
      run: runsFromEnv ? undefined : run,
      llmSummary: several ? flags.llmSummary?.replace(/(\.json)?$/, `.${judge.label}.json`) : flags.llmSummary,
      summary: several ? undefined : flags.summary,
    };
    const done = await judgeOnce(artifact, judgeFlags, judge, true, several ? judge.label : undefined);
    if (!done) continue; // a dry run
    spent += done.cost;
    panel.push({ judge, done });
  }
  if (panel.length < judges.length) return; // a dry run: no agreement
  const agreement = await panelAgreement(
    panel.map((p) => ({ label: p.judge.label, dir: p.done.runDir! })),
    humans,
    runBenchmark,
    flags.format === 'json' ? 'json' : 'table',
  );
  if (flags.summary && several)
    await writeJsonAtomic(
      flags.summary,
      panel.map((p) => ({ judge: p.judge.label, ...p.done.summary })),
    );
  if (flags.format === 'json') {
    const judgesJson = panel.map((p) => ({
      ...panelJudgeJson(p.judge),
      out: p.done.out,
      run: p.done.runDir,
      overall_score: JSON.parse(p.done.json),
    }));
    return emit(JSON.stringify({ judges: judgesJson, agreement: agreement.json }, null, 2));
  }
  const texts = panel.map((p) => (several ? `judge ${p.judge.label}:\n${p.done.text}\n` : `${p.done.text}\n`));
  await emit([...texts, agreement.text].join('\n'));
}

interface JudgedOnce {
  text: string;
  json: string;
  out: string;
  runDir?: string;
  summary: Record<string, unknown>;
  cost: number;
}

/** One judge over the artifact; undefined after a dry run (its text printed). `needRun`: always write a run record. */
async function judgeOnce(
  artifact: string,
  flags: MemoryJudgeFlags,
  judge: PanelJudge,
  needRun: boolean,
  label?: string,
): Promise<JudgedOnce | undefined> {
  const llmOptions = llmOptionsFromFlags({ ...flags, model: judge.model, baseUrl: judge.baseUrl });
  llmOptions.timeoutMs ??= 300_000;
  const routing = flags.routing ?? 'reference';
  const attempts = flags.attempts ?? 3;
  const settings = { temperature: flags.temperature ?? 0, maxTokens: flags.maxTokens ?? 16384, attempts };
  return withLlm(
    llmOptions,
    'run the same command again: judged users are cached in the work directory, judged calls in its journals; exactly the failed and missing judgements are asked',
    async (llm) => {
      const result = await judgeRunArtifact({
        artifact,
        llm,
        out: flags.out,
        workDir: flags.workDir,
        routing,
        maxUsers: flags.maxUsers,
        settings: { ...settings, seed: flags.seed },
        read: readOptionsFromFlags(flags),
        repeats: flags.repeats ?? 1,
        aggregate: aggregateOptions(flags),
        onUser: (e) => stderr(judgeUserLines(e, { status: tty() || e.status !== 'judged' })),
      });
      const { summary, dryRun, error } = describeJudgeRun(result, llm, { artifact, routing });
      if (flags.summary) await writeJsonAtomic(flags.summary, summary);
      if (dryRun !== undefined) {
        await emit(label !== undefined ? `judge ${label}:\n${dryRun}` : dryRun);
        return undefined;
      }
      if (error) throw error;
      const overall = result.overall!;
      const repeatStats = result.repeatOverall
        ? memoryRepeatStats([overall, ...result.repeatOverall], result.labels ?? [])
        : undefined;
      if (flags.summary && repeatStats) await writeJsonAtomic(flags.summary, { ...summary, repeats: repeatStats });
      if (repeatStats) process.stderr.write(`${memoryRepeatText(repeatStats)}\n`);
      let runDir: string | undefined;
      if (result.records) {
        const options = {
          model: llm.options.model,
          ...settings,
          maxUsers: flags.maxUsers ?? null,
          ...(label !== undefined ? { judge: label } : {}),
        };
        // a judge checked against people without --run keeps its run beside its stat file
        const run =
          flags.run ?? (needRun && !process.env.DIALEVAL_RUNS ? result.out.replace(/(\.json)?$/, '.run') : undefined);
        runDir = await writeMemoryRun(
          { ...flags, run },
          { ...flags, routing },
          options,
          result.records,
          overall,
          undefined,
          {
            input: artifact.replace(/_eval_results\.jsonl$/, ''),
            inputs: [{ role: 'run-artifact', path: artifact }],
            artifacts: [{ path: result.out, format: 'halumem-eval-stat-result' }],
            llm: () => {
              const sampling = { temperature: settings.temperature, maxTokens: settings.maxTokens, seed: flags.seed };
              return runLlmRecord(llm, { sampling, pricesFile: flags.prices });
            },
          },
        );
      }
      const cached = result.users.filter((u) => u.status === 'cached').length;
      const text = `judged ${result.users.length} user(s) (${cached} cached), ${result.failedJudgements} failed judgement(s) recorded as the reference does\nwrote ${result.out}\n\n${overallText(overall, result.records)}`;
      return { text, json: overallScoreJson(overall), out: result.out, runDir, summary, cost: llm.usage().cost };
    },
  );
}

/**
 * Writes a run record when one is asked for (`--run DIR` or `$DIALEVAL_RUNS`): the judged records as items,
 * `overall_score` as metrics. `llm` (a judge run) describes the calls. Returns the run's directory.
 */
export async function writeMemoryRun(
  flags: RunFlags,
  variant: MemoryVariantOptions & MemoryAggregationFlags,
  options: Record<string, unknown>,
  records: EvalRecords,
  overall: OverallScore,
  digests: FileDigests | undefined,
  more: {
    input?: string;
    inputs: Array<{ role: string; path: string }>;
    artifacts: Array<{ path: string; format: string }>;
    llm?: () => Promise<RunLlm>;
  },
): Promise<string | undefined> {
  const setup = memoryRunSetup(variant);
  const run = await openRun(flags, {
    ...setup,
    input: more.input,
    options: { ...options, ...setup.options },
    descriptor: runBenchmark,
    ...(more.llm ? { packages: ['@eval/llm'] } : {}),
  });
  if (!run) return undefined;
  for (const { role, path } of more.inputs) await run.addInput(role, path, digests);
  for (const { path, format } of more.artifacts) run.addArtifact(path, format);
  await run.finish({
    items: memoryRunItems(records, { acceptBooleanIncluded: variant.acceptBooleanIncluded }),
    metrics: memoryRunMetrics(overall),
    ...(more.llm ? { llm: await more.llm() } : {}),
  });
  return run.dir;
}
