import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { EvalError, InputError, readText, sha256Hex, writeFileAtomic, writeJsonAtomic, type RunLlm } from '@eval/core';
import {
  aggregateScores,
  assertNoOverlaps,
  chatModelAnswerer,
  checkSlotValues,
  describeOverlap,
  EXPERIMENTS,
  episodeCallRange,
  findEpisodeFiles,
  findResultFiles,
  inWalkOrder,
  formatInstances,
  formatScoresJson,
  generateInstances,
  isRunStoppingError,
  loadRunEpisodes,
  transcriptSummary,
  loadRunScores,
  mockModel,
  modelPairName,
  parsePyJson,
  partitionEpisodes,
  perfectModel,
  playAndRecordEpisode,
  readInstanceFile,
  readInstancesFile,
  resolveGameResources,
  RESOURCE_SET,
  runEpisodes,
  scoreEpisode,
  scoreInteractionsFile,
  scorekeepingRunItems,
  scorekeepingRunMetrics,
  scorekeepingRunVariant,
  scriptedAnswererFromFile,
  selectEpisodes,
  summarizeOutcomes,
  type BenchmarkReport,
  type EpisodeOutcome,
  type EpisodeRef,
  type EpisodeScoreRecord,
  type LoadRunEpisodesOptions,
  type RunEpisode,
  type Interactions,
  type ScoresJson,
  type GameInstance,
  type GameMasterOptions,
  type GameResources,
  type InstancesFile,
  type OverlapCheckMode,
  type RunSummary,
} from '@eval/scorekeeping';
import type {
  ScorekeepingInstancesFlags,
  ScorekeepingPlayFlags,
  ScorekeepingReportFlags,
  ScorekeepingScoreFlags,
} from '../flags/scorekeeping';
import { configFailure } from '../failures';
import { llmOptionsFromFlags } from '../llm-options';
import { withLlm } from '../llm-run';
import { spread, type Spread } from '../repeats';
import { runLlmRecord } from '../run-llm';
import { openRun, runRequested, type RunFlags } from '../run-record';
import { describeResource } from '../run-resource';
import { emit, UsageError } from '../util';
import { csvLine, formatTable } from '../format';

const tty = () => Boolean(process.stderr.isTTY) && !process.env.CI;

/** Parses `0-4,7` into game ids. */
export function parseEpisodeList(value: string): number[] {
  const out = new Set<number>();
  for (const part of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new UsageError(`--episodes expects numbers and ranges like 0-4,7, got "${part}"`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a) throw new UsageError(`--episodes: empty range "${part}"`);
    for (let i = a; i <= b; i++) out.add(i);
  }
  if (out.size === 0) throw new UsageError('--episodes is empty');
  return [...out].sort((x, y) => x - y);
}

function parseExperiments(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(EXPERIMENTS as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new UsageError(`unknown experiment(s): ${unknown.join(', ')} (available: ${EXPERIMENTS.join(', ')})`);
  return names;
}

function noteDefaults(resources: GameResources): void {
  if (resources.isDefault) {
    process.stderr.write(
      'dialeval scorekeeping: using the built-in DEFAULT texts (the team’s own wording, not clembench’s): results are not comparable with published clembench scores; run `dialeval resources fetch clembench-privateshared` or pass --resources DIR for the canonical texts\n',
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// instances
// ---------------------------------------------------------------------------------------------------------------------

export async function scorekeepingInstances(flags: ScorekeepingInstancesFlags): Promise<void> {
  const seed = flags.seed;
  const perExperiment = flags.perExperiment;
  const indent = flags.indent;
  const { resources } = await resolveGameResources({ dir: flags.resources });
  noteDefaults(resources);
  if (flags.checkValues !== 'off') {
    const mode = flags.checkValues as OverlapCheckMode;
    const found = checkSlotValues(resources, mode);
    if (found.length > 0) {
      if (!flags.allowOverlaps) assertNoOverlaps(resources, mode);
      for (const f of found)
        process.stderr.write(`warning: overlapping slot values (${mode}): ${describeOverlap(f)}\n`);
    }
  }
  const text = formatInstances(
    generateInstances(resources, { seed, instancesPerExperiment: perExperiment, lang: flags.lang }),
    { indent },
  );
  if (flags.out) await writeFileAtomic(flags.out, text);
  else process.stdout.write(text);
}

// ---------------------------------------------------------------------------------------------------------------------
// play
// ---------------------------------------------------------------------------------------------------------------------

async function loadInstances(
  flags: ScorekeepingPlayFlags,
  resources: GameResources,
  dir: string | undefined,
): Promise<{ instances: InstancesFile; source: string }> {
  if (flags.instances) return { instances: await readInstancesFile(flags.instances), source: resolve(flags.instances) };
  const inDir = dir ? join(dir, 'in', 'instances.json') : undefined;
  if (inDir && existsSync(inDir)) return { instances: await readInstancesFile(inDir), source: inDir };
  const seed = flags.instancesSeed;
  assertNoOverlaps(resources, 'case-sensitive');
  return {
    instances: generateInstances(resources, { seed }),
    source: `generated (seed ${seed}) from ${resources.source}`,
  };
}

function progressReporter(enabled: boolean) {
  return (o: EpisodeOutcome, done: number, total: number) => {
    if (!enabled) return;
    const score = Number.isNaN(o.mainScore)
      ? `aborted${o.abortReason ? ` (${o.abortReason})` : ''}`
      : `Main Score ${o.mainScore.toFixed(2)}`;
    process.stderr.write(
      `\r\x1b[K[${done}/${total}] ${o.experiment} episode ${o.gameId}: ${o.status === 'skipped' ? 'already done' : score}`,
    );
    if (done === total) process.stderr.write('\r\x1b[K');
  };
}

function fmt(x: number): string {
  return Number.isNaN(x) ? 'NaN' : x.toFixed(2);
}

function runText(summary: RunSummary, report: BenchmarkReport, extra: string[]): string {
  const lines = [
    `scorekeeping: ${summary.total} episode(s) in ${join(summary.outDir, summary.modelPair)}: ${summary.played} played, ${summary.skipped} already done, ${summary.aborted} aborted${summary.playerFailures ? ` (${summary.playerFailures} by player failures)` : ''}`,
    ...extra,
    '',
  ];
  lines.push(reportTable(report));
  return lines.join('\n');
}

/**
 * A clembench results directory of one model: every `<i>_<experiment>/episode_<n>/interactions.json` below it, with
 * the instance of each (its instance.json) placed at experiment index i.
 */
async function recordedRun(
  dir: string,
): Promise<{ instances: InstancesFile; files: Map<string, string>; modelName: string }> {
  const files = await findEpisodeFiles(dir, 'interactions.json');
  const map = new Map<string, string>();
  const pairs = new Set<string>();
  const experiments = EXPERIMENTS.map((name) => ({ name, game_instances: [] as GameInstance[] }));
  let modelName: string | undefined;
  for (const file of files) {
    const parts = file.split(/[\\/]/);
    const ep = /^episode_(\d+)$/.exec(parts[parts.length - 2] ?? '');
    const ex = /^(\d+)_(.+)$/.exec(parts[parts.length - 3] ?? '');
    if (!ep || !ex) continue;
    const index = EXPERIMENTS.indexOf(ex[2] as (typeof EXPERIMENTS)[number]);
    if (index < 0 || index !== Number(ex[1]))
      throw new InputError(
        `unexpected experiment directory ${parts[parts.length - 3]} (expected <i>_<experiment> in clembench order)`,
        { file },
      );
    // <model-pair>/privateshared/<i>_<experiment>/… (clembench results) or <model-pair>/<i>_<experiment>/… (runs archive)
    const above = parts[parts.length - 4] ?? '';
    pairs.add(above === 'privateshared' ? (parts[parts.length - 5] ?? '') : above);
    const instanceFile = join(dirname(file), 'instance.json');
    if (!existsSync(instanceFile)) throw new InputError('no instance.json beside the recorded transcript', { file });
    const instance = await readInstanceFile(instanceFile);
    experiments[index]!.game_instances.push(instance);
    map.set(`${ex[2]}/${instance.game_id}`, file);
    if (modelName === undefined) {
      const logs = parsePyJson(await readFile(file, 'utf8'), file) as { players?: Record<string, string> };
      modelName = logs.players?.['Player 1']?.replace(/^Answerer: /, '');
    }
  }
  if (map.size === 0)
    throw new InputError('no recorded episode (<i>_<experiment>/episode_<n>/interactions.json) below this directory', {
      file: dir,
    });
  if (pairs.size > 1)
    throw new UsageError(
      `--replay: ${dir} holds several models (${[...pairs].join(', ')}); point it at one model's directory`,
    );
  for (const e of experiments) e.game_instances.sort((a, b) => a.game_id - b.game_id);
  return { instances: { experiments }, files: map, modelName: modelName ?? 'replay' };
}

export async function scorekeepingPlay(flags: ScorekeepingPlayFlags): Promise<void> {
  const format = flags.format;
  const experiments = parseExperiments(flags.experiments);
  const episodes = flags.episodes !== undefined ? parseEpisodeList(flags.episodes) : undefined;
  const episodeConcurrency = flags.episodeConcurrency;
  const temperature = flags.temperature ?? 0;
  const { resources, dir } = await resolveGameResources({ dir: flags.resources });
  noteDefaults(resources);
  const { instances, source } = flags.replay
    ? { instances: { experiments: [] } as InstancesFile, source: `instance.json files of ${resolve(flags.replay)}` }
    : await loadInstances(flags, resources, dir);
  const game: Omit<GameMasterOptions, 'signal' | 'modelName'> = {
    coda: flags.coda,
    fixProbeSpacing: Boolean(flags.fixProbeSpacing),
    yesNoMatch: flags.yesNo,
    slotMatch: flags.slotMatch,
    concurrentProbes: !flags.sequentialProbes,
  };
  const outDir = resolve(flags.out);
  const retryPlayerFailures = flags.retryFailed !== false;
  let summary: RunSummary;
  const extra: string[] = [];
  let llmUsage: unknown;
  let llmRecord: RunLlm | undefined;
  let repeatStats:
    | { n: number; dirs: string[]; averagePlayed: Spread; averageQuality: Spread; clemscore: Spread }
    | undefined;

  // Shared by the replayed and the programmatic players.
  const common = {
    temperature,
    experiments,
    episodes,
    game,
    episodeConcurrency,
    retryPlayerFailures,
    onEpisode: progressReporter(tty() && flags.progress !== false),
  };
  if (flags.replay) {
    if (flags.player || flags.model) throw new UsageError('--replay, --player and --model are exclusive');
    const recorded = await recordedRun(flags.replay);
    summary = await runEpisodes({
      outDir,
      resources,
      instances: recorded.instances,
      answerer: (ref: EpisodeRef) =>
        scriptedAnswererFromFile(recorded.files.get(`${ref.experiment}/${ref.instance.game_id}`)!),
      modelName: recorded.modelName,
      ...common,
    });
    extra.push(`replayed the Answerer outputs recorded in ${resolve(flags.replay)}`);
  } else if (flags.player) {
    if (flags.model) throw new UsageError('--player and --model are exclusive: a programmatic player needs no model');
    if (flags.dryRun || flags.batch) throw new UsageError('--dry-run and --batch need a model (--model), not --player');
    const model =
      flags.player === 'perfect'
        ? perfectModel(resources, { slotMatch: flags.slotMatch })
        : mockModel(resources, { seed: flags.mockSeed });
    summary = await runEpisodes({
      outDir,
      resources,
      instances,
      answerer: chatModelAnswerer(model, { name: flags.player, strip: flags.strip }),
      modelName: flags.player,
      ...common,
    });
  } else {
    const llmOptions = llmOptionsFromFlags(flags);
    llmOptions.temperature = temperature;
    llmOptions.itemConcurrency = episodeConcurrency;
    const modelName = llmOptions.model;
    const modelPair = modelPairName(modelName, temperature);
    const refs = selectEpisodes(instances, { experiments, episodes });
    const { pending, finished } = await partitionEpisodes(refs, outDir, modelPair, retryPlayerFailures);
    // --repeats N: repeat r > 0 plays every episode again into <out>.repeat<r> (its own clembench results directory)
    const repeats = flags.repeats ?? 1;
    const outDirOf = (r: number) => (r === 0 ? outDir : `${outDir}.repeat${r}`);
    const finishedOf: Array<Map<string, EpisodeOutcome>> = [];
    for (let r = 0; r < repeats && repeats > 1; r++) {
      const part = r === 0 ? { finished } : await partitionEpisodes(refs, outDirOf(r), modelPair, retryPlayerFailures);
      finishedOf.push(new Map(part.finished.map((o) => [`${o.experiment}/${o.gameId}`, o])));
    }
    const tries = resources.reprompts.length;
    const outcome = await withLlm(
      llmOptions,
      'run the same command again: finished episodes are skipped, errored and missing ones are played',
      async (llm) => {
        // A configuration error (no key, 401/403/404, nothing listening, replay miss) stops the run at once: it says
        // nothing about the episode and would error every one of them.
        const stop = new AbortController();
        let fatal: unknown;
        const isFatal = (error: unknown) => isRunStoppingError(error) || configFailure(error) !== undefined;
        const { results, summary: llmSummary } = await llm.runJobs({
          name: 'scorekeeping',
          items: repeats > 1 ? refs : pending,
          id: (r) => `${r.experiment}/episode_${r.instance.game_id}`,
          signal: stop.signal,
          ...(repeats > 1 ? { repeats } : {}),
          // the calls of an episode from the game's structure (requests + probes per round; fewest and most re-prompts)
          dryRunCalls: (ref) => {
            const r = episodeCallRange(ref.instance, tries);
            return { realistic: r.min, upper: r.max };
          },
          run: async (ref, ctx) => {
            const done =
              repeats > 1 ? finishedOf[ctx.repeat]!.get(`${ref.experiment}/${ref.instance.game_id}`) : undefined;
            if (done) return done;
            try {
              return await playAndRecordEpisode(ref, {
                outDir: outDirOf(ctx.repeat),
                modelPair,
                resources,
                answerer: chatModelAnswerer(ctx.model, { name: modelName, strip: flags.strip }),
                modelName,
                game: { ...game, isFatal },
                signal: ctx.signal,
                onPlayerFailure: 'error',
              });
            } catch (error) {
              if (configFailure(error)) {
                fatal ??= error;
                stop.abort(error);
              }
              throw error;
            }
          },
        });
        if (fatal) throw fatal;
        llmRecord = await runLlmRecord(llm, {
          sampling: { temperature, seed: flags.seed, maxTokens: flags.maxTokens },
          pricesFile: flags.prices,
          usage: llmSummary,
        });
        if (llm.dryRun) {
          const d = llmSummary.dryRun!;
          const { realistic, upper } = d.estimate;
          const usd = (x: number) =>
            d.costKnown ? `$${x.toFixed(4)}` : `unknown (no price for ${modelName}; pass --prices FILE)`;
          await emit(
            [
              `dry run: ${pending.length} episode(s) planned (${finished.length} already done); nothing was played or written`,
              `realistic: ${realistic.calls} calls (every episode played to the end, every probe answered on its first try: one request per slot and one call per probe and round), ~${realistic.promptTokens} prompt + ~${realistic.completionTokens} completion tokens, ${usd(realistic.cost)} (${realistic.explanation})`,
              `upper bound: ${upper.calls} calls (every probe re-prompted to its last, ${tries}th, try), ~${upper.promptTokens} prompt + ~${upper.completionTokens} completion tokens, ${usd(upper.cost)} (${upper.explanation}); episodes the model aborts make fewer calls`,
              `prompt tokens are those of each episode's first request (the only one that can be built before the model answers); later calls carry the growing conversation, so both costs are lower bounds`,
            ].join('\n'),
          );
          return undefined;
        }
        const played = results.flatMap((r) => (r.ok && (r.repeat ?? 0) === 0 ? [r.value] : []));
        const failed = results.flatMap((r) => (r.ok ? [] : [r]));
        const summary = summarizeOutcomes(repeats > 1 ? played : [...finished, ...played], {
          modelPair,
          outDir,
          resources: resources.source,
        });
        summary.total = refs.length;
        for (const f of failed) extra.push(`error: ${f.id}${f.repeat ? ` (repeat ${f.repeat})` : ''}: ${f.error}`);
        const notRun =
          repeats > 1
            ? refs.length * repeats - results.length
            : refs.length - finished.length - played.length - failed.length;
        if (llmSummary.stoppedByBudget || notRun > 0 || failed.length > 0) {
          const why = llmSummary.stoppedByBudget
            ? 'stopped by --max-cost'
            : failed.length > 0
              ? `${failed.length} episode(s) errored (their calls failed after every retry; not scored, not counted in % Played)`
              : 'interrupted';
          const report = aggregateScores(
            (await loadRunScores(outDir)).filter((r) => r.model === modelPair && !r.errored),
          );
          process.stderr.write(`${runText(summary, report, extra)}\n`);
          // the run record says partial (failed episodes as failed items), so nothing later takes it for a complete run
          if (repeats === 1)
            await writePlayRun(flags, {
              outDir,
              modelPair,
              resourceDir: dir,
              isDefault: resources.isDefault,
              experiments,
              episodes,
              game,
              llm: llmRecord,
            });
          throw new EvalError(
            'run_incomplete',
            `scorekeeping run ${why}: ${summary.played + summary.skipped} of ${refs.length} episodes are done and kept in ${outDir}; run the same command again to resume`,
          );
        }
        if (repeats > 1) {
          // each repeat's benchmark figures, then their mean and std
          const models: BenchmarkReport['models'] = [];
          for (let r = 0; r < repeats; r++)
            models.push(
              ...aggregateScores((await loadRunScores(outDirOf(r))).filter((x) => x.model === modelPair)).models,
            );
          repeatStats = {
            n: repeats,
            dirs: Array.from({ length: repeats }, (_, r) => outDirOf(r)),
            averagePlayed: spread(models.map((m) => m.averagePlayed)),
            averageQuality: spread(models.map((m) => m.averageQuality)),
            clemscore: spread(models.map((m) => m.clemscore)),
          };
          const ms = (x: Spread) =>
            x.mean === null ? '—' : `${x.mean.toFixed(2)} ± ${x.std === null ? '—' : x.std.toFixed(2)}`;
          extra.push(
            `over ${repeats} repeats (mean ± std): Average % Played ${ms(repeatStats.averagePlayed)}, Average Quality Score ${ms(repeatStats.averageQuality)}, clemscore ${ms(repeatStats.clemscore)}`,
          );
        }
        return { summary, llmUsage: llmSummary };
      },
    );
    if (!outcome) return;
    summary = outcome.summary;
    llmUsage = outcome.llmUsage;
  }

  // the run record below reads the transcripts too (their players and abort reasons: its items keep the transcript
  // by location): one read of the results directory serves both
  const loaded = await loadRunEpisodes(outDir, { interactions: 'summary' });
  const records = loaded.filter((r) => r.model === summary.modelPair);
  const report = aggregateScores(records);
  const machine = {
    ...summary,
    instances: source,
    resourcesAreDefaults: resources.isDefault,
    report,
    ...(llmUsage ? { llm: llmUsage } : {}),
    ...(repeatStats ? { repeats: repeatStats } : {}),
  };
  if (flags.summary) await writeJsonAtomic(flags.summary, machine);
  await writePlayRun(flags, {
    outDir,
    modelPair: summary.modelPair,
    resourceDir: dir,
    isDefault: resources.isDefault,
    experiments,
    episodes,
    game,
    llm: llmRecord,
    loaded,
  });
  await emit(format === 'json' ? JSON.stringify(machine, null, 2) : runText(summary, report, extra));
}

// ---------------------------------------------------------------------------------------------------------------------
// score
// ---------------------------------------------------------------------------------------------------------------------

async function slotsFor(interactionsFile: string, flag: number | undefined): Promise<number | undefined> {
  if (flag !== undefined) return flag;
  const instanceFile = join(dirname(interactionsFile), 'instance.json');
  if (existsSync(instanceFile)) return Object.keys((await readInstanceFile(instanceFile)).slots).length;
  return undefined;
}

async function scoreText(
  interactionsFile: string,
  slots: number | undefined,
  known?: { transcripts: Map<string, unknown>; scores: Map<string, ScoresJson> },
): Promise<string> {
  if (!known)
    return formatScoresJson(
      await scoreInteractionsFile(interactionsFile, { nSlots: await slotsFor(interactionsFile, slots) }),
    );
  // as scoreInteractionsFile reads and scores it, keeping for the run record what it reads of the transcript and the scores
  const logs = parsePyJson(await readText(interactionsFile), interactionsFile) as Partial<Interactions>;
  const scores = scoreEpisode(logs, { nSlots: await slotsFor(interactionsFile, slots), file: interactionsFile });
  // the record's items name this file (scorekeepingRunItems with a runDir): of the transcript, they and the metrics read
  // only the players and the abort reason (keeping every parsed transcript alive until then made the GC copy megabytes)
  known.transcripts.set(interactionsFile, transcriptSummary(logs));
  // the scores.json written from them, as the run record would read it back (its numbers are their exact repr)
  known.scores.set(join(dirname(interactionsFile), 'scores.json'), {
    'turn scores': scores.turnScores,
    'episode scores': scores.episodeScores,
  });
  return formatScoresJson(scores);
}

export async function scorekeepingScore(path: string, flags: ScorekeepingScoreFlags): Promise<void> {
  const slots = flags.slots;
  const st = await stat(path).catch(() => undefined);
  if (!st) throw new InputError('no such file or directory', { file: path, code: 'file_not_found' });
  let single: string | undefined;
  if (st.isFile()) single = path;
  else if (existsSync(join(path, 'interactions.json'))) single = join(path, 'interactions.json');
  if (single) {
    if (flags.run)
      throw new UsageError('--run records a results directory (many episodes); give the directory, not one episode');
    if (st.isFile() && basename(single) !== 'interactions.json' && !single.endsWith('.json'))
      throw new UsageError(`expected an interactions.json, got ${path}`);
    const text = await scoreText(single, slots);
    if (flags.check) {
      const existing = join(dirname(single), 'scores.json');
      const before = existsSync(existing) ? await readFile(existing, 'utf8') : undefined;
      if (before !== text) {
        process.stdout.write(`${existing}: ${before === undefined ? 'missing' : 'differs'}\n`);
        process.exitCode = 1;
      } else process.stdout.write(`${existing}: identical\n`);
      return;
    }
    if (flags.out) await writeFileAtomic(flags.out, text);
    else process.stdout.write(text);
    return;
  }
  if (flags.out)
    throw new UsageError(
      '--out applies to one episode; a results directory gets a scores.json beside every interactions.json',
    );
  if (flags.check && flags.run) throw new UsageError('--run records a scored results directory; --check only compares');
  // one walk: the transcripts to score, and (for a run record) the scores and errored markers already there
  const found = await findResultFiles(path);
  const files = found.interactions;
  if (files.length === 0) throw new InputError('no interactions.json below this directory', { file: path });
  let changed = 0;
  let same = 0;
  const errors: string[] = [];
  // with a run record, the transcripts parsed for scoring and their scores are its items' too (not read again)
  const known =
    !flags.check && runRequested(flags)
      ? { transcripts: new Map<string, unknown>(), scores: new Map<string, ScoresJson>() }
      : undefined;
  for (const file of files) {
    let text: string;
    try {
      text = await scoreText(file, slots, known);
    } catch (error) {
      if (!EvalError.isInstance(error)) throw error;
      errors.push(error.message);
      continue;
    }
    const target = join(dirname(file), 'scores.json');
    const before = existsSync(target) ? await readFile(target, 'utf8') : undefined;
    if (before === text) same++;
    else {
      changed++;
      if (flags.check) process.stdout.write(`${target}: ${before === undefined ? 'missing' : 'differs'}\n`);
      else await writeFileAtomic(target, text);
    }
  }
  for (const e of errors) process.stderr.write(`error: ${e}\n`);
  if (!flags.check && errors.length === 0) {
    // every episode now has its scores.json beside its transcript: the listing the run reads, without a second walk
    const listing = {
      scores: inWalkOrder([...found.scores, ...files.map((f) => join(dirname(f), 'scores.json'))]),
      errored: found.errored,
    };
    await writeResultsRun(
      flags,
      path,
      { slots: slots ?? 'from instance.json' },
      undefined,
      known && { ...known, files: listing },
    );
  }
  await emit(
    flags.check
      ? `checked ${files.length - errors.length} episode(s): ${same} identical, ${changed} different`
      : `scored ${files.length - errors.length} episode(s) in ${path}: ${changed} scores.json written, ${same} unchanged`,
  );
  if (errors.length > 0)
    throw new InputError(`${errors.length} interactions.json file(s) could not be scored (see above)`, { file: path });
  if (flags.check && changed > 0) process.exitCode = 1;
}

// ---------------------------------------------------------------------------------------------------------------------
// report
// ---------------------------------------------------------------------------------------------------------------------

function reportTable(report: BenchmarkReport): string {
  const parts: string[] = [];
  parts.push(
    formatTable(
      ['game', 'model', 'episodes', '% Played', 'Quality Score', 'Quality Score (std)'],
      report.games.map((g) => [g.game, g.model, g.episodes, fmt(g.played), fmt(g.quality), fmt(g.qualityStd)]),
    ),
  );
  parts.push(
    formatTable(
      ['model', 'Average % Played', 'Average Quality Score', 'clemscore'],
      report.models.map((m) => [m.model, fmt(m.averagePlayed), fmt(m.averageQuality), fmt(m.clemscore)]),
    ),
  );
  parts.push(
    formatTable(
      ['model', 'experiment', 'episodes', '% Played', 'Quality Score', 'std', 'accuracy by probing round'],
      report.experiments.map((e) => [
        e.model,
        e.experiment,
        e.episodes,
        fmt(e.played),
        fmt(e.quality),
        fmt(e.qualityStd),
        Object.entries(e.accuracyByRound)
          .map(([k, v]) => `${k}:${v.mean.toFixed(2)}`)
          .join(' '),
      ]),
    ),
  );
  return parts.join('\n\n');
}

function reportCsv(report: BenchmarkReport): string {
  const rounds = [...new Set(report.experiments.flatMap((e) => Object.keys(e.accuracyByRound)))].sort(
    (a, b) => Number(a) - Number(b),
  );
  const lines = [
    csvLine([
      'model',
      'game',
      'experiment',
      'episodes',
      'played',
      'quality',
      'quality_std',
      ...rounds.map((r) => `accuracy_round_${r}`),
    ]),
  ];
  for (const e of report.experiments) {
    lines.push(
      csvLine(
        [
          e.model,
          e.game,
          e.experiment,
          e.episodes,
          e.played,
          e.quality,
          e.qualityStd,
          ...rounds.map((r) => e.accuracyByRound[r]?.mean ?? ''),
        ].map((c) => (typeof c === 'number' && Number.isNaN(c) ? 'NaN' : c)),
      ),
    );
  }
  return lines.join('\n');
}

export async function scorekeepingReport(dir: string, flags: ScorekeepingReportFlags): Promise<void> {
  const format = flags.format;
  const st = await stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new InputError('not a directory', { file: dir, code: 'file_not_found' });
  // with a run record, the episodes with what the items read of their transcripts, read once for the report and the run
  const records: EpisodeScoreRecord[] = runRequested(flags)
    ? await loadRunEpisodes(dir, { interactions: 'summary' })
    : await loadRunScores(dir);
  if (records.length === 0)
    throw new InputError('no scores.json below this directory (run `dialeval scorekeeping score DIR` first?)', {
      file: dir,
    });
  const report = aggregateScores(records);
  if (report.errored.length > 0) {
    const list = report.errored.slice(0, 5).map((e) => `${e.model} ${e.experiment} ${e.episode} (${e.reason})`);
    const what = `${report.errored.length} episode(s) were stopped by failed calls, not by the model, and are left out of every figure: ${list.join('; ')}${report.errored.length > 5 ? '; ...' : ''}`;
    if (!flags.allowPartial) {
      throw new EvalError(
        'partial_result',
        `refusing to report incomplete results: ${what}; play them again (\`dialeval scorekeeping play\` with the same --out), or pass --allow-partial for partial figures`,
      );
    }
    process.stderr.write(`PARTIAL: ${what}\n`);
  }
  await writeResultsRun(flags, dir, {}, records as RunEpisode[]);
  const partialLine =
    report.errored.length > 0
      ? `PARTIAL: ${report.errored.length} errored episode(s) left out until played again\n\n`
      : '';
  const text =
    format === 'json'
      ? JSON.stringify(report, (_k, v) => (typeof v === 'number' && Number.isNaN(v) ? null : v), 2)
      : format === 'csv'
        ? reportCsv(report)
        : `${partialLine}${reportTable(report)}`;
  await emit(text, flags.out);
}

// ---------------------------------------------------------------------------------------------------------------------
// run records
// ---------------------------------------------------------------------------------------------------------------------

/** Short sha256 of a file (an instances file's identity in the variant). */
async function fileDigest(file: string): Promise<string> {
  return sha256Hex(await readFile(file)).slice(0, 12);
}

/** The episodes (every scores.json below the results directory, or only those of `modelPair`) as items, metrics and artifacts. */
async function finishEpisodesRun(
  run: NonNullable<Awaited<ReturnType<typeof openRun>>>,
  all: RunEpisode[],
  modelPair?: string,
  llm?: RunLlm,
): Promise<void> {
  const episodes = all.filter((e) => modelPair === undefined || e.model === modelPair);
  for (const e of episodes) {
    run.addArtifact(join(dirname(e.file), 'interactions.json'), 'clembench-interactions');
    run.addArtifact(e.file, 'clembench-scores');
  }
  await run.finish({
    items: scorekeepingRunItems(episodes, { runDir: run.dir }),
    metrics: scorekeepingRunMetrics(episodes),
    ...(llm ? { llm } : {}),
  });
}

/** `scorekeeping play`: the model pair's results directory (`<out>/<model-pair>`, or `--run DIR`) becomes a run. */
async function writePlayRun(
  flags: ScorekeepingPlayFlags,
  p: {
    outDir: string;
    modelPair: string;
    resourceDir?: string;
    isDefault: boolean;
    experiments?: string[];
    episodes?: number[];
    game: Omit<GameMasterOptions, 'signal' | 'modelName'>;
    llm?: RunLlm;
    loaded?: RunEpisode[];
  },
): Promise<void> {
  const instancesFile = flags.replay
    ? undefined
    : (flags.instances ?? (p.resourceDir ? join(p.resourceDir, 'in', 'instances.json') : undefined));
  const instances = flags.replay
    ? 'replay'
    : instancesFile && existsSync(instancesFile)
      ? `sha256:${await fileDigest(instancesFile)}`
      : `seed ${flags.instancesSeed}`;
  const game = {
    coda: p.game.coda ?? 'log-only',
    fixProbeSpacing: p.game.fixProbeSpacing ?? false,
    yesNo: p.game.yesNoMatch ?? 'prefix',
    slotMatch: p.game.slotMatch ?? 'substring',
    strip: flags.strip !== false,
  };
  const nonDefault = Object.fromEntries(
    Object.entries(game).filter(
      ([k, v]) =>
        v !==
        (
          { coda: 'log-only', fixProbeSpacing: false, yesNo: 'prefix', slotMatch: 'substring', strip: true } as Record<
            string,
            unknown
          >
        )[k],
    ),
  );
  const run = await openRun(
    { run: flags.run ?? join(p.outDir, p.modelPair), system: flags.system },
    {
      benchmark: 'scorekeeping',
      variant: scorekeepingRunVariant({
        modelPairs: [p.modelPair],
        experiments: p.experiments,
        episodes: p.episodes,
        options: { instances, ...(p.isDefault ? { texts: 'default' } : {}), ...nonDefault },
      }),
      system: p.modelPair,
      options: {
        player: flags.replay ? 'replay' : (flags.player ?? 'model'),
        ...(flags.model ? { model: flags.model } : {}),
        temperature: flags.temperature ?? 0,
        ...(flags.player === 'mock' ? { mockSeed: flags.mockSeed } : {}),
        instances,
        experiments: p.experiments ?? 'all',
        episodes: p.episodes ?? 'all',
        ...game,
        concurrentProbes: p.game.concurrentProbes !== false,
        retryFailed: flags.retryFailed !== false,
      },
      packages: ['@eval/scorekeeping', ...(p.llm ? ['@eval/llm'] : [])],
      // played games are kept durably whatever the player: a model's were paid for
    },
  );
  if (!run) return;
  if (instancesFile && existsSync(instancesFile)) await run.addInput('instances', instancesFile);
  run.addResource(
    await describeResource(RESOURCE_SET, p.resourceDir, flags.resources !== undefined && flags.resources !== 'default'),
  );
  await finishEpisodesRun(
    run,
    p.loaded ?? (await loadRunEpisodes(p.outDir, { interactions: 'summary' })),
    p.modelPair,
    p.llm,
  );
}

/**
 * `scorekeeping score DIR` / `report DIR` with `--run DIR` (or `$DIALEVAL_RUNS`): the scored episodes below `dir`
 * (`episodes`: as the command loaded them with `loadRunEpisodes`, else read here, with the transcripts and scores it has).
 */
async function writeResultsRun(
  flags: RunFlags,
  dir: string,
  options: Record<string, unknown>,
  episodes?: RunEpisode[],
  known?: LoadRunEpisodesOptions,
): Promise<void> {
  if (!runRequested(flags)) return;
  const records = episodes ?? (await loadRunEpisodes(dir, { ...known, interactions: 'summary' }));
  // a model pair's own directory given: the pair is the directory's name
  const pairs = [...new Set(records.map((r) => r.model || basename(resolve(dir))))];
  const run = await openRun(flags, {
    benchmark: 'scorekeeping',
    variant: scorekeepingRunVariant({ modelPairs: pairs }),
    system: pairs.length === 1 ? pairs[0] : undefined,
    input: dir,
    options,
  });
  if (!run) return;
  await finishEpisodesRun(run, records);
}
