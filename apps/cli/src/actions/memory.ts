import { basename, dirname, resolve } from 'node:path';
import { EvalError, FileDigests, writeFileAtomic, writeJsonAtomic } from '@eval/core';
import type { Llm } from '@eval/llm';
import {
  computeTimeConsuming,
  evaluateMemory,
  formatStatResult,
  leaderboardRow,
  leaderboardTable,
  loadMemorySystem,
  overallScoreJson,
  qaBreakdown,
  readEvalRecords,
  runMemorySystem,
  unfinishedJudgeRuns,
} from '@eval/memory';
import type { MemoryAggregateFlags, MemoryLeaderboardFlags, MemoryRunFlags } from '../flags/memory';
import { formatMarkdownTable, formatTable } from '../format';
import { llmOptionsFromFlags, readOptionsFromFlags } from '../llm-options';
import { withLlm } from '../llm-run';
import { leaderboardCsv, overallText } from '../render/memory';
import { runRequested } from '../run-record';
import { UsageError, emit } from '../util';
import { aggregateOptions, writeMemoryRun } from './memory-judge';

const tty = () => Boolean(process.stderr.isTTY) && !process.env.CI;

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
  await writeMemoryRun(flags, flags, {}, records, overall, digests, {
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
  if (flags.format === 'csv') return emit(leaderboardCsv(rows), flags.out);
  const { header, cells } = leaderboardTable(rows);
  if (flags.format === 'markdown') return emit(formatMarkdownTable(header, cells), flags.out);
  const note = '(percent; all metrics are the (all) variants, as the HaluMem leaderboard)';
  return emit(`${formatTable(header, cells)}\n${note}`, flags.out);
}
