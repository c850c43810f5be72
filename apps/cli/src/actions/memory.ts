import { basename, dirname, resolve } from 'node:path';
import { EvalError, FileDigests, type RunLlm, writeFileAtomic, writeJsonAtomic } from '@eval/core';
import type { Llm } from '@eval/llm';
import {
  computeTimeConsuming,
  describeJudgeRun,
  evaluateMemory,
  formatStatResult,
  judgeRunArtifact,
  judgeUserLines,
  leaderboardRow,
  leaderboardTable,
  loadMemorySystem,
  memoryRunItems,
  memoryRunMetrics,
  memoryRunSetup,
  overallScoreJson,
  qaBreakdown,
  readEvalRecords,
  runMemorySystem,
  unfinishedJudgeRuns,
  type AggregateOptions,
  type EvalRecords,
  type MemoryVariantOptions,
  type OverallScore,
  runBenchmark,
} from '@eval/memory';
import type {
  MemoryAggregateFlags,
  MemoryAggregationFlags,
  MemoryJudgeFlags,
  MemoryLeaderboardFlags,
  MemoryRunFlags,
} from '../flags/memory';
import { csvLine, formatMarkdownTable, formatTable, percent } from '../format';
import { llmOptionsFromFlags, readOptionsFromFlags } from '../llm-options';
import { withLlm } from '../llm-run';
import { selfAgreement, spread, type SelfAgreement, type Spread } from '../repeats';
import { runLlmRecord } from '../run-llm';
import { type RunFlags, openRun, runRequested } from '../run-record';
import { UsageError, emit } from '../util';

const aggregateOptions = (f: MemoryAggregationFlags): AggregateOptions => ({
  acceptBooleanIncluded: Boolean(f.acceptBooleanIncluded),
  typeAccuracyExcludesInterference: Boolean(f.typeAccuracyExcludesInterference),
  onEmptyCategory: f.onEmpty === 'null' ? 'null' : 'error',
});

const tty = () => Boolean(process.stderr.isTTY) && !process.env.CI;
const stderr = (lines: string[]) => lines.forEach((l) => process.stderr.write(`${l}\n`));

// ---------------------------------------------------------------------------------------------------------------
// memory run
// ---------------------------------------------------------------------------------------------------------------

export async function memoryRun(flags: MemoryRunFlags): Promise<void> {
  if (flags.dryRun || flags.batch)
    throw new UsageError('--dry-run and --batch apply to judging; `memory run` drives the system live');
  if ((flags.repeats ?? 1) > 1)
    throw new UsageError(
      '--repeats is not supported by memory run (a run artifact holds one answer per question); repeat the judging with `memory judge --repeats` instead',
    );
  const resume = `run the same command again: finished users are kept in ${resolve(flags.out)}.partial`;
  if (flags.model) await withLlm(llmOptionsFromFlags(flags), resume, (llm) => runSystem(flags, llm));
  else await runSystem(flags);
}

async function runSystem(flags: MemoryRunFlags, llm?: Llm): Promise<void> {
  const { system, answerPrompt } = await loadMemorySystem(flags.system, {
    model: llm?.model,
    systemOptions: flags.systemOption,
    chat: { temperature: flags.temperature, maxTokens: flags.maxTokens },
    answerPrompt: flags.answerPrompt,
    answerPromptsDir: flags.answerPrompts,
  });
  const started = Date.now();
  const result = await runMemorySystem({
    dataset: flags.data,
    system,
    out: flags.out,
    fresh: flags.fresh,
    maxUsers: flags.maxUsers,
    topKUpdate: flags.topKUpdate ?? 10,
    topKQuestion: flags.topKQuestion ?? 20,
    read: readOptionsFromFlags(flags),
    onSession: tty()
      ? (e) => process.stderr.write(`\r\x1b[K${e.uuid.slice(0, 8)} session ${e.index + 1}/${e.total}`)
      : undefined,
    onUser: (e) => {
      if (tty()) process.stderr.write(`\r\x1b[K`);
      if (tty() || e.status === 'resumed')
        process.stderr.write(
          `user ${e.index} ${e.name} (${e.uuid}): ${e.status === 'resumed' ? 'already done, resumed' : `${e.sessions} sessions, ${e.questions} questions`}\n`,
        );
    },
  }).catch((error: unknown) => {
    if (error instanceof Error && EvalError.isInstance(error) && error.code === 'llm_call_failed')
      error.message += `; the users finished so far are kept in ${resolve(flags.out)}.partial: run the same command again to resume with this user`;
    throw error;
  });
  await system.close?.();
  if (flags.summary) {
    const { out, users, resumed, ...counts } = result;
    const failures = (system as { extractionFailures?: unknown }).extractionFailures;
    await writeJsonAtomic(flags.summary, {
      system: system.name,
      dataset: resolve(flags.data),
      out,
      users,
      resumedUsers: resumed,
      ...counts,
      elapsedMs: Date.now() - started,
      ...(answerPrompt ? { answerPrompt } : {}),
      ...(failures !== undefined ? { extractionFailures: failures } : {}),
      ...(llm ? { llm: llm.usage() } : {}),
    });
  }
  process.stdout.write(
    `${system.name}: ${result.users} user(s) run${result.resumed ? `, ${result.resumed} resumed` : ''}; ` +
      `${result.sessions} sessions, ${result.updatePoints} update points, ${result.questions} questions -> ${result.out}\n`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// memory judge
// ---------------------------------------------------------------------------------------------------------------

const pct = (x: number | null | undefined) => percent(x, 2);

function overallText(overall: OverallScore, records?: EvalRecords): string {
  const { memory_integrity: mi, memory_accuracy: ma, memory_update: mu, question_answering: qa } = overall;
  const both = (all: number | null, valid: number | null) => `${pct(all)}   valid ${pct(valid)}`;
  const lines = [
    'memory extraction',
    `  recall (R)            ${both(mi['recall(all)'], mi['recall(valid)'])}   (${mi.memory_valid_num}/${mi.memory_num} judged)`,
    `  weighted recall       ${both(mi['weighted_recall(all)'], mi['weighted_recall(valid)'])}`,
    `  target precision      ${both(ma['target_accuracy(all)'], ma['target_accuracy(valid)'])}   (${ma.target_memory_num} target memories)`,
    `  accuracy (Acc.)       ${both(ma['weighted_accuracy(all)'], ma['weighted_accuracy(valid)'])}   (${ma.memory_valid_num}/${ma.memory_num} judged)`,
    `  false-memory resist.  ${both(ma['interference_accuracy(all)'], ma['interference_accuracy(valid)'])}   (${ma.interference_memory_num} interference points)`,
    `  extraction F1         ${pct(overall.memory_extraction_f1)}`,
    'memory update',
    `  correct/halluc./omission/other  ${pct(mu['correct_update_memory_ratio(all)'])} / ${pct(mu['hallucination_update_memory_ratio(all)'])} / ${pct(mu['omission_update_memory_ratio(all)'])} / ${pct(mu['other_update_memory_ratio(all)'])}   (${mu.update_memory_valid_num}/${mu.update_memory_num} valid)`,
    'question answering',
    `  correct/halluc./omission        ${pct(qa['correct_qa_ratio(all)'])} / ${pct(qa['hallucination_qa_ratio(all)'])} / ${pct(qa['omission_qa_ratio(all)'])}   (${qa.qa_valid_num}/${qa.qa_num} valid)`,
    '',
    formatTable(
      ['memory type', 'integrity acc', 'update acc', 'memory acc', 'points'],
      Object.entries(overall.memory_type_accuracy).map(([type, t]) => [
        type,
        pct(t.memory_integrity_acc),
        pct(t.memory_update_acc),
        pct(t.memory_acc),
        t.total_num,
      ]),
    ),
  ];
  const questions = records?.question_answering_records ?? [];
  for (const by of questions.length > 0 ? (['question_type', 'difficulty'] as const) : []) {
    const groups = Object.entries(qaBreakdown(questions, by));
    const rows = groups.map(([k, g]) => [
      k,
      g.n,
      pct(g.correct_ratio),
      pct(g.hallucination_ratio),
      pct(g.omission_ratio),
    ]);
    lines.push('', formatTable([by.replace('_', ' '), 'n', 'correct', 'halluc.', 'omission'], rows));
  }
  const t = overall.time_consuming;
  if (t)
    lines.push(
      '',
      `time (minutes): add ${t.add_dialogue_duration_time.toFixed(3)}, search ${t.search_memory_duration_time.toFixed(3)}, total ${t.total_duration_time.toFixed(3)}`,
    );
  return lines.join('\n');
}

export async function memoryJudge(artifact: string, flags: MemoryJudgeFlags): Promise<void> {
  const llmOptions = llmOptionsFromFlags(flags);
  llmOptions.timeoutMs ??= 300_000;
  const routing = flags.routing ?? 'reference';
  const attempts = flags.attempts ?? 3;
  const settings = { temperature: flags.temperature ?? 0, maxTokens: flags.maxTokens ?? 16384, attempts };
  await withLlm(
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
      if (dryRun !== undefined) return emit(dryRun);
      if (error) throw error;
      const overall = result.overall!;
      const repeatStats = result.repeatOverall
        ? memoryRepeatStats([overall, ...result.repeatOverall], result.labels ?? [])
        : undefined;
      if (flags.summary && repeatStats) await writeJsonAtomic(flags.summary, { ...summary, repeats: repeatStats });
      if (repeatStats) process.stderr.write(`${memoryRepeatText(repeatStats)}\n`);
      if (result.records) {
        const options = { model: llm.options.model, ...settings, maxUsers: flags.maxUsers ?? null };
        await writeRun(flags, { ...flags, routing }, options, result.records, overall, undefined, {
          input: artifact.replace(/_eval_results\.jsonl$/, ''),
          inputs: [{ role: 'run-artifact', path: artifact }],
          artifacts: [{ path: result.out, format: 'halumem-eval-stat-result' }],
          llm: () => {
            const sampling = { temperature: settings.temperature, maxTokens: settings.maxTokens, seed: flags.seed };
            return runLlmRecord(llm, { sampling, pricesFile: flags.prices });
          },
        });
      }
      if (flags.format === 'json') return emit(overallScoreJson(overall));
      const cached = result.users.filter((u) => u.status === 'cached').length;
      await emit(
        `judged ${result.users.length} user(s) (${cached} cached), ${result.failedJudgements} failed judgement(s) recorded as the reference does\nwrote ${result.out}\n\n${overallText(overall, result.records)}`,
      );
    },
  );
}

const REPEAT_COLUMNS = 'R weightedR targetP acc FMR F1 updateC updateH updateO qaC qaH qaO'.split(' ');

type RepeatStats = { n: number; figures: Record<string, Spread>; selfAgreement: SelfAgreement };

/** The leaderboard figures' mean and std across repeats, and the judges' self-agreement over every judgement. */
function memoryRepeatStats(overall: OverallScore[], labels: Array<Array<string | undefined>>): RepeatStats {
  const rows = overall.map((o) => leaderboardRow('repeat', o) as unknown as Record<string, number | null>);
  const figures: Record<string, Spread> = {};
  for (const c of REPEAT_COLUMNS) figures[c] = spread(rows.map((r) => (typeof r[c] === 'number' ? r[c] : null)));
  return { n: overall.length, figures, selfAgreement: selfAgreement(labels) };
}

function memoryRepeatText(stats: RepeatStats): string {
  const ms = (s: Spread) =>
    s.mean === null ? '—' : `${s.mean.toFixed(4)} ± ${s.std === null ? '—' : s.std.toFixed(4)}`;
  const a = stats.selfAgreement;
  return [
    `over ${stats.n} repeats (mean ± std; leaderboard columns):`,
    formatTable(
      ['figure', 'mean ± std'],
      REPEAT_COLUMNS.map((c) => [c, ms(stats.figures[c]!)]),
    ),
    `judge self-agreement: ${pct(a.agreement)} of ${a.items} judgement(s) alike in every repeat; Fleiss' kappa ${a.fleissKappa === null ? '—' : a.fleissKappa.toFixed(4)}`,
  ].join('\n');
}

/**
 * Writes a run record when one is asked for (`--run DIR` or `$DIALEVAL_RUNS`): the judged records as items,
 * `overall_score` as metrics. `llm` (a judge run) describes the calls.
 */
async function writeRun(
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
): Promise<void> {
  const setup = memoryRunSetup(variant);
  const run = await openRun(flags, {
    ...setup,
    input: more.input,
    options: { ...options, ...setup.options },
    descriptor: runBenchmark,
    ...(more.llm ? { packages: ['@eval/llm'] } : {}),
  });
  if (!run) return;
  for (const { role, path } of more.inputs) await run.addInput(role, path, digests);
  for (const { path, format } of more.artifacts) run.addArtifact(path, format);
  await run.finish({
    items: memoryRunItems(records, { acceptBooleanIncluded: variant.acceptBooleanIncluded }),
    metrics: memoryRunMetrics(overall),
    ...(more.llm ? { llm: await more.llm() } : {}),
  });
}

// ---------------------------------------------------------------------------------------------------------------
// memory aggregate / leaderboard
// ---------------------------------------------------------------------------------------------------------------

/** Refuses unfinished judge work directories among `paths` unless `allowPartial` (then a PARTIAL line). */
async function checkFinished(paths: string[], allowPartial: boolean | undefined, what: string): Promise<string[]> {
  const partial = await unfinishedJudgeRuns(paths);
  if (partial.length > 0 && !allowPartial)
    throw new EvalError(
      'partial_result',
      `refusing to ${what} an incomplete judge run (some users are not judged yet): ${partial.join(' | ')}; run \`dialeval memory judge\` again to finish it, or pass --allow-partial for partial figures`,
    );
  if (partial.length > 0)
    process.stderr.write(
      `PARTIAL: these figures leave out users whose judging is not finished: ${partial.join(' | ')}\n`,
    );
  return partial;
}

export async function memoryAggregate(paths: string[], flags: MemoryAggregateFlags): Promise<void> {
  const partial = await checkFinished(paths, flags.allowPartial, 'aggregate');
  // a run record hashes the record files from the bytes read here (no second read at the end)
  const digests = runRequested(flags) ? new FileDigests() : undefined;
  const pooled = await readEvalRecords(paths, digests ? { onRead: digests.onRead } : undefined);
  const { records, files } = pooled;
  // time_consuming comes from the run artifact (--artifact), else from a single HaluMem stat file that stores it
  const timeConsuming = flags.artifact ? await computeTimeConsuming(flags.artifact) : pooled.timeConsuming;
  const overall = evaluateMemory(records, { ...aggregateOptions(flags), timeConsuming });
  if (flags.writeStat) await writeFileAtomic(flags.writeStat, formatStatResult(overall, records));
  await writeRun(flags, flags, {}, records, overall, digests, {
    input: paths.length === 1 ? paths[0]!.replace(/_eval_stat_result\.json$/, '') : undefined,
    inputs: [
      ...files.map((path) => ({ role: 'judged-records', path })),
      ...(flags.artifact ? [{ role: 'run-artifact', path: flags.artifact }] : []),
    ],
    artifacts: flags.writeStat ? [{ path: flags.writeStat, format: 'halumem-eval-stat-result' }] : [],
  });
  if (flags.format === 'json') return emit(overallScoreJson(overall), flags.out);
  if (flags.format === 'report') {
    const report = {
      overall_score: overall,
      question_type_breakdown: qaBreakdown(records.question_answering_records, 'question_type'),
      difficulty_breakdown: qaBreakdown(records.question_answering_records, 'difficulty'),
      leaderboard: leaderboardRow(paths.map((p) => basename(p)).join('+'), overall),
    };
    return emit(JSON.stringify(report, null, 2), flags.out);
  }
  const note = partial.length > 0 ? 'PARTIAL: judging is not finished; these figures leave out unjudged users\n\n' : '';
  return emit(`${note}${overallText(overall, records)}`, flags.out);
}

function systemName(path: string): string {
  const base = basename(path).replace(/\.json$/, '');
  if (base === 'tmp2') return basename(dirname(resolve(path)));
  return base.replace(/_eval_stat_result$/, '') || path;
}

/** CSV columns of the leaderboard (the fields of a leaderboard row, in order). */
const CSV_HEADER = 'system R weighted_R target_P target_n acc acc_n FMR F1 update_C update_H update_O qa_C qa_H qa_O';

export async function memoryLeaderboard(paths: string[], flags: MemoryLeaderboardFlags): Promise<void> {
  const names = flags.names ? flags.names.split(',').map((s) => s.trim()) : paths.map(systemName);
  if (names.length !== paths.length)
    throw new UsageError(`--names lists ${names.length} name(s) for ${paths.length} input(s)`);
  await checkFinished(paths, flags.allowPartial, 'compare');
  const rows = [];
  for (const [i, path] of paths.entries()) {
    const { records } = await readEvalRecords([path]);
    const overall = evaluateMemory(records, {
      acceptBooleanIncluded: Boolean(flags.acceptBooleanIncluded),
      onEmptyCategory: flags.onEmpty === 'error' ? 'error' : 'null',
      markValid: false,
    });
    rows.push(leaderboardRow(names[i]!, overall));
  }
  if (flags.format === 'json') return emit(JSON.stringify(rows, null, 2), flags.out);
  if (flags.format === 'csv')
    return emit([CSV_HEADER.split(' '), ...rows.map((r) => Object.values(r))].map(csvLine).join('\n'), flags.out);
  const { header, cells } = leaderboardTable(rows);
  if (flags.format === 'markdown') return emit(formatMarkdownTable(header, cells), flags.out);
  const note = '(percent; all metrics are the (all) variants, as the HaluMem leaderboard)';
  return emit(`${formatTable(header, cells)}\n${note}`, flags.out);
}
