import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  EvalError,
  FileDigests,
  InputError,
  type ChatModel,
  type ReadOptions,
  writeFileAtomic,
  writeJsonAtomic,
} from '@eval/core';
import type { Llm } from '@eval/llm';
import {
  ExtractRetrieveBaseline,
  FullContextBaseline,
  OVERALL_SCORE_FLOAT_KEYS,
  aggregateEvalResults,
  computeTimeConsuming,
  discardPartialRun,
  loadAnswerPrompts,
  emptyRecords,
  formatStatResult,
  incompleteWorkDir,
  judgeRunArtifact,
  leaderboardRow,
  leaderboardTable,
  loadEvalRecords,
  memoryRunItems,
  memoryRunMetrics,
  memoryRunVariant,
  poolRecords,
  pythonJsonDumps,
  qaBreakdown,
  runMemorySystem,
  type AggregateOptions,
  type AnswerPromptSystem,
  type EvalRecords,
  type MemorySystem,
  type OverallScore,
  type QaGroupScore,
  type TimeConsuming,
} from '@eval/memory';
import type { MemoryAggregateFlags, MemoryJudgeFlags, MemoryLeaderboardFlags, MemoryRunFlags } from '../flags/memory';
import { llmOptionsFromFlags, readOptionsFromFlags } from '../llm-options';
import { withLlm } from '../llm-run';
import { selfAgreement, spread, type SelfAgreement, type Spread } from '../repeats';
import { runLlmRecord } from '../run-llm';
import { openRun, runRequested } from '../run-record';
import { UsageError, emit } from '../util';
import { csvLine, formatTable, percent } from '../format';

function aggregateOptions(flags: {
  acceptBooleanIncluded?: boolean;
  typeAccuracyExcludesInterference?: boolean;
  onEmpty?: string;
}): AggregateOptions {
  return {
    acceptBooleanIncluded: Boolean(flags.acceptBooleanIncluded),
    typeAccuracyExcludesInterference: Boolean(flags.typeAccuracyExcludesInterference),
    onEmptyCategory: flags.onEmpty === 'null' ? 'null' : 'error',
  };
}

const tty = () => Boolean(process.stderr.isTTY) && !process.env.CI;

const pct = (x: number | null | undefined) => percent(x, 2);

// ---------------------------------------------------------------------------------------------------------------
// memory run
// ---------------------------------------------------------------------------------------------------------------

function parseSystemOptions(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const i = item.indexOf('=');
    if (i <= 0) throw new UsageError(`--system-option expects key=value, got "${item}"`);
    out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}

function isMemorySystem(x: unknown): x is MemorySystem {
  const s = x as MemorySystem;
  return (
    Boolean(s) &&
    typeof s.addSession === 'function' &&
    typeof s.retrieve === 'function' &&
    typeof s.answer === 'function'
  );
}

async function loadSystem(
  spec: string,
  model: ChatModel | undefined,
  options: Record<string, string>,
  chat: { temperature?: number; maxTokens?: number } = {},
  answerPrompt?: string,
): Promise<MemorySystem> {
  if (spec === 'full-context' || spec === 'extract-retrieve') {
    if (!model) throw new UsageError(`--system ${spec} answers with a model: pass --model`);
    const num = (key: string) => {
      if (options[key] === undefined) return undefined;
      const n = Number(options[key]);
      if (!Number.isFinite(n) || n <= 0)
        throw new UsageError(`--system-option ${key} expects a positive number, got "${options[key]}"`);
      return n;
    };
    const known =
      spec === 'full-context' ? ['extraction', 'maxContextChars'] : ['chunkTurns', 'extractFromGeneratedQa'];
    const unknown = Object.keys(options).filter((k) => !known.includes(k));
    if (unknown.length)
      throw new UsageError(`unknown --system-option for ${spec}: ${unknown.join(', ')} (known: ${known.join(', ')})`);
    if (spec === 'full-context') {
      const extraction = options.extraction ?? 'user-turns';
      if (extraction !== 'user-turns' && extraction !== 'none')
        throw new UsageError('--system-option extraction must be user-turns or none');
      return new FullContextBaseline({
        model,
        extraction,
        maxContextChars: num('maxContextChars'),
        answerPrompt,
        ...chat,
      });
    }
    return new ExtractRetrieveBaseline({
      model,
      chunkTurns: num('chunkTurns'),
      extractFromGeneratedQa: options.extractFromGeneratedQa === 'true',
      answerPrompt,
      ...chat,
    });
  }
  if (answerPrompt !== undefined)
    throw new UsageError('--answer-prompt applies to the built-in baselines (full-context, extract-retrieve)');
  const file = resolve(spec);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new InputError(
      `cannot load the memory system module (${(error as Error).message}); --system takes full-context, extract-retrieve or a module path`,
      {
        file,
        cause: error,
      },
    );
  }
  const exported = mod.createMemorySystem ?? mod.default;
  const value =
    typeof exported === 'function' && !isMemorySystem(exported)
      ? await (exported as (ctx: unknown) => unknown)({ model, options })
      : exported;
  if (!isMemorySystem(value)) {
    throw new InputError(
      'the module must export createMemorySystem (or a default export): a MemorySystem { name, addSession, retrieve, answer } or a function ({ model, options }) returning one',
      { file },
    );
  }
  return value;
}

/**
 * `--answer-prompt NAME [--answer-prompts DIR]`: HaluMem's PROMPT_NAME, read from DIR or $DIALEVAL_HALUMEM_PROMPTS_DIR
 * (these CC-BY-NC-ND texts are not shipped). The baselines fill its {context} and {question} as HaluMem's adapters do.
 */
async function haluMemAnswerPrompt(
  flags: MemoryRunFlags,
): Promise<{ name: AnswerPromptSystem; dir: string; text: string } | undefined> {
  if (!flags.answerPrompt) {
    if (flags.answerPrompts)
      throw new UsageError(
        '--answer-prompts needs --answer-prompt MEMZERO|ZEP|MEMOS|MEMOBASE (which of the prompts to use)',
      );
    return undefined;
  }
  const name = flags.answerPrompt as AnswerPromptSystem;
  const loaded = await loadAnswerPrompts(flags.answerPrompts);
  return { name, dir: loaded.dir, text: loaded.answerPrompts[name] };
}

export async function memoryRun(flags: MemoryRunFlags): Promise<void> {
  if (flags.dryRun || flags.batch)
    throw new UsageError('--dry-run and --batch apply to judging; `memory run` drives the system live');
  const maxUsers = flags.maxUsers;
  const topKUpdate = flags.topKUpdate ?? 10;
  const topKQuestion = flags.topKQuestion ?? 20;
  const options = parseSystemOptions(flags.systemOption);
  const answerPrompt = await haluMemAnswerPrompt(flags);
  if ((flags.repeats ?? 1) > 1)
    throw new UsageError(
      '--repeats is not supported by memory run (a run artifact holds one answer per question); repeat the judging with `memory judge --repeats` instead',
    );
  if (flags.model) {
    await withLlm(
      llmOptionsFromFlags(flags),
      `run the same command again: finished users are kept in ${resolve(flags.out)}.partial`,
      (llm) => runSystem(flags, llm, options, answerPrompt, maxUsers, topKUpdate, topKQuestion),
    );
  } else await runSystem(flags, undefined, options, answerPrompt, maxUsers, topKUpdate, topKQuestion);
}

async function runSystem(
  flags: MemoryRunFlags,
  llm: Llm | undefined,
  options: Record<string, string>,
  answerPrompt: Awaited<ReturnType<typeof haluMemAnswerPrompt>>,
  maxUsers: number | undefined,
  topKUpdate: number,
  topKQuestion: number,
): Promise<void> {
  {
    const system = await loadSystem(
      flags.system,
      llm?.model,
      options,
      { temperature: flags.temperature, maxTokens: flags.maxTokens },
      answerPrompt?.text,
    );
    if (flags.fresh) await discardPartialRun(flags.out);
    const started = Date.now();
    const result = await runMemorySystem({
      dataset: flags.data,
      system,
      out: flags.out,
      maxUsers,
      topKUpdate,
      topKQuestion,
      read: readOptionsFromFlags(flags),
      onSession: tty()
        ? (e) => process.stderr.write(`\r\x1b[K${e.uuid.slice(0, 8)} session ${e.index + 1}/${e.total}`)
        : undefined,
      onUser: (e) => {
        if (tty()) process.stderr.write(`\r\x1b[K`);
        if (tty() || e.status === 'resumed') {
          process.stderr.write(
            `user ${e.index} ${e.name} (${e.uuid}): ${e.status === 'resumed' ? 'already done, resumed' : `${e.sessions} sessions, ${e.questions} questions`}\n`,
          );
        }
      },
    }).catch((error: unknown) => {
      if (error instanceof Error && EvalError.isInstance(error) && error.code === 'llm_call_failed') {
        error.message += `; the users finished so far are kept in ${resolve(flags.out)}.partial: run the same command again to resume with this user`;
      }
      throw error;
    });
    await system.close?.();
    const summary = {
      system: system.name,
      dataset: resolve(flags.data),
      out: result.out,
      users: result.users,
      resumedUsers: result.resumed,
      sessions: result.sessions,
      questions: result.questions,
      updatePoints: result.updatePoints,
      addMs: result.addMs,
      searchMs: result.searchMs,
      answerMs: result.answerMs,
      elapsedMs: Date.now() - started,
      ...(answerPrompt ? { answerPrompt: { name: `PROMPT_${answerPrompt.name}`, dir: answerPrompt.dir } } : {}),
      ...(system instanceof ExtractRetrieveBaseline ? { extractionFailures: system.extractionFailures } : {}),
      ...(llm ? { llm: llm.usage() } : {}),
    };
    if (flags.summary) await writeJsonAtomic(flags.summary, summary);
    process.stdout.write(
      `${system.name}: ${result.users} user(s) run${result.resumed ? `, ${result.resumed} resumed` : ''}; ` +
        `${result.sessions} sessions, ${result.updatePoints} update points, ${result.questions} questions -> ${result.out}\n`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// memory judge
// ---------------------------------------------------------------------------------------------------------------

function overallJson(overall: OverallScore): string {
  return pythonJsonDumps(overall, { indent: 4, floatKeys: OVERALL_SCORE_FLOAT_KEYS });
}

function overallText(overall: OverallScore, records?: EvalRecords): string {
  const mi = overall.memory_integrity;
  const ma = overall.memory_accuracy;
  const mu = overall.memory_update;
  const qa = overall.question_answering;
  const lines = [
    'memory extraction',
    `  recall (R)            ${pct(mi['recall(all)'])}   valid ${pct(mi['recall(valid)'])}   (${mi.memory_valid_num}/${mi.memory_num} judged)`,
    `  weighted recall       ${pct(mi['weighted_recall(all)'])}   valid ${pct(mi['weighted_recall(valid)'])}`,
    `  target precision      ${pct(ma['target_accuracy(all)'])}   valid ${pct(ma['target_accuracy(valid)'])}   (${ma.target_memory_num} target memories)`,
    `  accuracy (Acc.)       ${pct(ma['weighted_accuracy(all)'])}   valid ${pct(ma['weighted_accuracy(valid)'])}   (${ma.memory_valid_num}/${ma.memory_num} judged)`,
    `  false-memory resist.  ${pct(ma['interference_accuracy(all)'])}   valid ${pct(ma['interference_accuracy(valid)'])}   (${ma.interference_memory_num} interference points)`,
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
  if (records && records.question_answering_records.length > 0) {
    const rows = (b: Record<string, QaGroupScore>) =>
      Object.entries(b).map(
        ([k, g]) =>
          [k, g.n, pct(g.correct_ratio), pct(g.hallucination_ratio), pct(g.omission_ratio)] as Array<string | number>,
      );
    lines.push(
      '',
      formatTable(
        ['question type', 'n', 'correct', 'halluc.', 'omission'],
        rows(qaBreakdown(records.question_answering_records, 'question_type')),
      ),
    );
    lines.push(
      '',
      formatTable(
        ['difficulty', 'n', 'correct', 'halluc.', 'omission'],
        rows(qaBreakdown(records.question_answering_records, 'difficulty')),
      ),
    );
  }
  if (overall.time_consuming) {
    const t = overall.time_consuming;
    lines.push(
      '',
      `time (minutes): add ${t.add_dialogue_duration_time.toFixed(3)}, search ${t.search_memory_duration_time.toFixed(3)}, total ${t.total_duration_time.toFixed(3)}`,
    );
  }
  return lines.join('\n');
}

export async function memoryJudge(artifact: string, flags: MemoryJudgeFlags): Promise<void> {
  const llmOptions = llmOptionsFromFlags(flags);
  llmOptions.timeoutMs ??= 300_000;
  const routing = flags.routing === 'corrected' ? 'corrected' : 'reference';
  const maxUsers = flags.maxUsers;
  const attempts = flags.attempts ?? 3;
  const repeats = flags.repeats ?? 1;
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
        maxUsers,
        settings: {
          temperature: flags.temperature ?? 0,
          maxTokens: flags.maxTokens ?? 16384,
          attempts,
          seed: flags.seed,
        },
        read: readOptionsFromFlags(flags),
        repeats,
        aggregate: aggregateOptions(flags),
        onUser: (e) => {
          if (tty() || e.status !== 'judged') {
            process.stderr.write(
              `user ${e.index} ${e.userName} (${e.uuid}): ${e.status === 'cached' ? 'cached result found, skipped' : e.status}${e.failed ? `, ${e.failed} unusable judge answer(s) recorded as the reference does` : ''}${e.callFailures.length ? `, ${e.callFailures.length} judgement call(s) failed (not scored)` : ''}\n`,
            );
          }
          for (const f of e.callFailures.slice(0, 5))
            process.stderr.write(`error: user ${e.userName} (${e.uuid}) ${describeJudgeItem(f.id)}: ${f.error}\n`);
          if (e.callFailures.length > 5)
            process.stderr.write(
              `error: user ${e.userName} (${e.uuid}): ${e.callFailures.length - 5} more failed judgement call(s)\n`,
            );
        },
      });
      const summary = {
        artifact: resolve(artifact),
        out: result.out,
        workDir: result.workDir,
        complete: result.complete,
        dryRun: llm.dryRun,
        routing,
        users: result.users,
        failedJudgements: result.failedJudgements,
        callFailures: result.users.flatMap((u) =>
          u.callFailures.map((f) => ({ uuid: u.uuid, user: u.userName, item: f.id, error: f.error })),
        ),
        llm: llm.usage(),
        runs: result.summaries,
        ...(result.overall ? { overall_score: result.overall } : {}),
      };
      if (flags.summary) await writeJsonAtomic(flags.summary, summary);
      if (llm.dryRun) {
        const sum = (which: 'realistic' | 'upper', f: 'calls' | 'promptTokens' | 'completionTokens' | 'cost') =>
          result.summaries.reduce((a, s) => a + (s.dryRun?.estimate[which][f] ?? 0), 0);
        const known = result.summaries.every((s) => s.dryRun?.costKnown !== false);
        const usd = (x: number) =>
          known ? `$${x.toFixed(4)}` : `unknown (no price for ${llmOptions.model}; pass --prices FILE)`;
        const first = result.summaries.find((s) => s.dryRun)?.dryRun?.estimate;
        process.stdout.write(
          `${[
            `dry run: ${result.users.filter((u) => u.status !== 'cached').length} user(s) planned, nothing judged or written`,
            `realistic: ${sum('realistic', 'calls')} calls, ~${sum('realistic', 'promptTokens')} prompt + ~${sum('realistic', 'completionTokens')} completion tokens, ${usd(sum('realistic', 'cost'))}${first ? ` (${first.realistic.explanation})` : ''}`,
            `upper bound: ${sum('upper', 'calls')} calls, ~${sum('upper', 'promptTokens')} prompt + ~${sum('upper', 'completionTokens')} completion tokens, ${usd(sum('upper', 'cost'))}${first ? ` (${first.upper.explanation})` : ''}`,
          ].join('\n')}\n`,
        );
        return;
      }
      if (!result.complete || !result.overall) {
        const stopped = result.summaries.some((s) => s.stoppedByBudget)
          ? 'stopped by --max-cost'
          : result.callFailures > 0
            ? `incomplete: ${result.callFailures} judgement call(s) failed after every retry (not scored)`
            : 'interrupted';
        throw new EvalError(
          'judge_incomplete',
          `judging ${stopped}: no stat result written; finished judgements are kept in ${result.workDir}; run the same command again to resume (it retries exactly the failed and missing judgements)`,
        );
      }
      const repeatStats = result.repeatOverall
        ? memoryRepeatStats([result.overall, ...result.repeatOverall], result.labels ?? [])
        : undefined;
      if (flags.summary && repeatStats) await writeJsonAtomic(flags.summary, { ...summary, repeats: repeatStats });
      if (repeatStats) process.stderr.write(`${memoryRepeatText(repeatStats)}\n`);
      if (result.records)
        await writeJudgeRun(
          artifact,
          flags,
          { routing, maxUsers, attempts },
          result.out,
          result.records,
          result.overall,
          llm,
        );
      if (flags.format === 'json') await emit(overallJson(result.overall));
      else {
        await emit(
          `judged ${result.users.length} user(s) (${result.users.filter((u) => u.status === 'cached').length} cached), ` +
            `${result.failedJudgements} failed judgement(s) recorded as the reference does\nwrote ${result.out}\n\n${overallText(result.overall, result.records)}`,
        );
      }
    },
  );
}

const REPEAT_COLUMNS = [
  'R',
  'weightedR',
  'targetP',
  'acc',
  'FMR',
  'F1',
  'updateC',
  'updateH',
  'updateO',
  'qaC',
  'qaH',
  'qaO',
] as const;

/** The leaderboard figures' mean and std across repeats, and the judges' self-agreement over every judgement. */
function memoryRepeatStats(
  overall: OverallScore[],
  labels: Array<Array<string | undefined>>,
): { n: number; figures: Record<string, Spread>; selfAgreement: SelfAgreement } {
  const rows = overall.map((o) => leaderboardRow('repeat', o) as unknown as Record<string, number | null>);
  const figures: Record<string, Spread> = {};
  for (const c of REPEAT_COLUMNS) figures[c] = spread(rows.map((r) => (typeof r[c] === 'number' ? r[c] : null)));
  return { n: overall.length, figures, selfAgreement: selfAgreement(labels) };
}

function memoryRepeatText(stats: ReturnType<typeof memoryRepeatStats>): string {
  const ms = (s: Spread) =>
    s.mean === null ? '—' : `${s.mean.toFixed(4)} ± ${s.std === null ? '—' : s.std.toFixed(4)}`;
  const a = stats.selfAgreement;
  return [
    `over ${stats.n} repeats (mean ± std; leaderboard columns):`,
    formatTable(
      ['figure', 'mean ± std'],
      REPEAT_COLUMNS.map((c) => [c, ms(stats.figures[c]!)]),
    ),
    `judge self-agreement: ${a.agreement === null ? '—' : `${(a.agreement * 100).toFixed(2)}%`} of ${a.items} judgement(s) alike in every repeat; Fleiss' kappa ${a.fleissKappa === null ? '—' : a.fleissKappa.toFixed(4)}`,
  ].join('\n');
}

/** `question/s3/q2` → `session 3 question 2` (the ids of @eval/memory's judge inputs). */
function describeJudgeItem(id: string): string {
  const m = /^(integrity|accuracy|update|question)\/s([^/]+)\/([mqe])(\d+)$/.exec(id);
  if (!m) return id;
  const what = m[3] === 'q' ? 'question' : m[3] === 'e' ? 'extracted memory' : 'memory point';
  return `session ${m[2]} ${what} ${m[4]} (${m[1]} judge)`;
}

/** The aggregation options that change a number, for the run record (defaults included). */
function aggregationRunOptions(flags: {
  acceptBooleanIncluded?: boolean;
  typeAccuracyExcludesInterference?: boolean;
  onEmpty?: string;
}): Record<string, unknown> {
  return {
    acceptBooleanIncluded: Boolean(flags.acceptBooleanIncluded),
    typeAccuracyExcludesInterference: Boolean(flags.typeAccuracyExcludesInterference),
    onEmpty: flags.onEmpty ?? 'error',
  };
}

/** `memory judge --run DIR` (or `$DIALEVAL_RUNS`): the judged records as items, overall_score as metrics, the llm block. */
async function writeJudgeRun(
  artifact: string,
  flags: MemoryJudgeFlags,
  settings: { routing: 'reference' | 'corrected'; maxUsers?: number; attempts: number },
  statFile: string,
  records: EvalRecords,
  overall: OverallScore,
  llm: Llm,
): Promise<void> {
  const run = await openRun(flags, {
    benchmark: 'memory',
    variant: memoryRunVariant({
      routing: settings.routing,
      acceptBooleanIncluded: flags.acceptBooleanIncluded,
      typeAccuracyExcludesInterference: flags.typeAccuracyExcludesInterference,
    }),
    input: artifact.replace(/_eval_results\.jsonl$/, ''),
    options: {
      routing: settings.routing,
      model: llm.options.model,
      temperature: flags.temperature ?? 0,
      maxTokens: flags.maxTokens ?? 16384,
      attempts: settings.attempts,
      maxUsers: settings.maxUsers ?? null,
      ...aggregationRunOptions(flags),
    },
    packages: ['@eval/llm'],
  });
  if (!run) return;
  await run.addInput('run-artifact', artifact);
  run.addArtifact(statFile, 'halumem-eval-stat-result');
  await run.finish({
    items: memoryRunItems(records, { acceptBooleanIncluded: flags.acceptBooleanIncluded }),
    metrics: memoryRunMetrics(overall),
    llm: await runLlmRecord(llm, {
      sampling: { temperature: flags.temperature ?? 0, maxTokens: flags.maxTokens ?? 16384, seed: flags.seed },
      pricesFile: flags.prices,
    }),
  });
}

/**
 * `memory aggregate --run DIR` (or `$DIALEVAL_RUNS`): the pooled records as items, overall_score as metrics; the record
 * files as `loadPooled` read them (hashed from the bytes read).
 */
async function writeAggregateRun(
  paths: string[],
  flags: MemoryAggregateFlags,
  records: EvalRecords,
  overall: OverallScore,
  files: string[],
  digests: FileDigests | undefined,
): Promise<void> {
  const run = await openRun(flags, {
    benchmark: 'memory',
    variant: memoryRunVariant({
      acceptBooleanIncluded: flags.acceptBooleanIncluded,
      typeAccuracyExcludesInterference: flags.typeAccuracyExcludesInterference,
    }),
    input: paths.length === 1 ? paths[0]!.replace(/_eval_stat_result\.json$/, '') : undefined,
    options: aggregationRunOptions(flags),
  });
  if (!run) return;
  for (const file of files) await run.addInput('judged-records', file, digests);
  if (flags.artifact) await run.addInput('run-artifact', flags.artifact);
  if (flags.writeStat) run.addArtifact(flags.writeStat, 'halumem-eval-stat-result');
  await run.finish({
    items: memoryRunItems(records, { acceptBooleanIncluded: flags.acceptBooleanIncluded }),
    metrics: memoryRunMetrics(overall),
  });
}

// ---------------------------------------------------------------------------------------------------------------
// memory aggregate / leaderboard
// ---------------------------------------------------------------------------------------------------------------

async function loadPooled(
  paths: string[],
  read?: ReadOptions,
): Promise<{ records: EvalRecords; stored?: TimeConsuming; files: string[] }> {
  const records = emptyRecords();
  let stored: TimeConsuming | undefined;
  const files: string[] = [];
  for (const p of paths) {
    const loaded = await loadEvalRecords(p, read);
    poolRecords(records, loaded.records);
    files.push(...loaded.files);
    stored = paths.length === 1 ? loaded.timeConsuming : undefined;
  }
  return { records, stored, files };
}

/** Work directories among `paths` marked incomplete by `memory judge`: refused unless `allowPartial` (then PARTIAL). */
async function checkComplete(paths: string[], allowPartial: boolean | undefined, what: string): Promise<string[]> {
  const partial: string[] = [];
  for (const p of paths) {
    const reason = existsSync(p) && statSync(p).isDirectory() ? await incompleteWorkDir(p) : undefined;
    if (reason) partial.push(`${p}: ${reason.split('\n').join('; ')}`);
  }
  if (partial.length > 0) {
    if (!allowPartial) {
      throw new EvalError(
        'partial_result',
        `refusing to ${what} an incomplete judge run (some users are not judged yet): ${partial.join(' | ')}; run \`dialeval memory judge\` again to finish it, or pass --allow-partial for partial figures`,
      );
    }
    process.stderr.write(
      `PARTIAL: these figures leave out users whose judging is not finished: ${partial.join(' | ')}\n`,
    );
  }
  return partial;
}

export async function memoryAggregate(paths: string[], flags: MemoryAggregateFlags): Promise<void> {
  const partial = await checkComplete(paths, flags.allowPartial, 'aggregate');
  // a run record hashes the record files from the bytes read here (no second read at the end)
  const digests = runRequested(flags) ? new FileDigests() : undefined;
  const { records, stored, files } = await loadPooled(paths, digests ? { onRead: digests.onRead } : undefined);
  // time_consuming comes from the run artifact (--artifact), else from a single HaluMem stat file that stores it
  const timeConsuming = flags.artifact ? await computeTimeConsuming(flags.artifact) : stored;
  const overall = aggregateEvalResults(records, { ...aggregateOptions(flags), timeConsuming });
  if (flags.writeStat) await writeFileAtomic(flags.writeStat, formatStatResult(overall, records));
  await writeAggregateRun(paths, flags, records, overall, files, digests);
  const format = flags.format ?? 'text';
  if (format === 'json') return emit(overallJson(overall), flags.out);
  if (format === 'report') {
    const report = {
      overall_score: overall,
      question_type_breakdown: qaBreakdown(records.question_answering_records, 'question_type'),
      difficulty_breakdown: qaBreakdown(records.question_answering_records, 'difficulty'),
      leaderboard: leaderboardRow(paths.map((p) => basename(p)).join('+'), overall),
    };
    return emit(JSON.stringify(report, null, 2), flags.out);
  }
  return emit(
    `${partial.length > 0 ? 'PARTIAL: judging is not finished; these figures leave out unjudged users\n\n' : ''}${overallText(overall, records)}`,
    flags.out,
  );
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
  await checkComplete(paths, flags.allowPartial, 'compare');
  const rows = [];
  for (let i = 0; i < paths.length; i++) {
    const records = (await loadEvalRecords(paths[i]!)).records;
    const overall = aggregateEvalResults(records, {
      acceptBooleanIncluded: Boolean(flags.acceptBooleanIncluded),
      onEmptyCategory: flags.onEmpty === 'error' ? 'error' : 'null',
      markValid: false,
    });
    rows.push(leaderboardRow(names[i]!, overall));
  }
  const format = flags.format ?? 'table';
  if (format === 'json') return emit(JSON.stringify(rows, null, 2), flags.out);
  const { header, cells } = leaderboardTable(rows);
  if (format === 'csv') {
    const csvHeader = [
      'system',
      'R',
      'weighted_R',
      'target_P',
      'target_n',
      'acc',
      'acc_n',
      'FMR',
      'F1',
      'update_C',
      'update_H',
      'update_O',
      'qa_C',
      'qa_H',
      'qa_O',
    ];
    const lines = [
      csvLine(csvHeader),
      ...rows.map((r) =>
        csvLine([
          r.system,
          r.R,
          r.weightedR,
          r.targetP,
          r.targetN,
          r.acc,
          r.accN,
          r.FMR,
          r.F1,
          r.updateC,
          r.updateH,
          r.updateO,
          r.qaC,
          r.qaH,
          r.qaO,
        ]),
      ),
    ];
    return emit(lines.join('\n'), flags.out);
  }
  if (format === 'markdown') {
    const lines = [
      `| ${header.join(' | ')} |`,
      `|${header.map(() => '---').join('|')}|`,
      ...cells.map((c) => `| ${c.join(' | ')} |`),
    ];
    return emit(lines.join('\n'), flags.out);
  }
  return emit(
    `${formatTable(header, cells)}\n(percent; all metrics are the (all) variants, as the HaluMem leaderboard)`,
    flags.out,
  );
}
