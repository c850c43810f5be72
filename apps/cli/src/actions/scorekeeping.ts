import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EvalError, InputError, type RunLlm, writeFileAtomic, writeJsonAtomic } from '@eval/core';
import {
  generateInstancesFile,
  planScorekeepingRun,
  playScorekeeping,
  resolveGameResources,
  readResults,
  scoreResults,
  type GameResources,
  type PlayScorekeepingOptions,
  type ScorekeepingPlayResult,
  type ScorekeepingRunRecord,
  runBenchmark,
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
import { runLlmRecord } from '../run-llm';
import { openRun, runRequested, type RunFlags } from '../run-record';
import { playText, progress, reportCsv, reportTable } from '../render/scorekeeping';
import { describeResource } from '../run-resource';
import { emit, UsageError } from '../util';

/** The game's texts (`--resources`, else the environment, the fetched set, or the built-in defaults, said on stderr). */
async function gameResources(dir: string | undefined): Promise<{ resources: GameResources; dir?: string }> {
  const found = await resolveGameResources({ dir });
  if (found.resources.isDefault)
    process.stderr.write(
      'dialeval scorekeeping: using the built-in DEFAULT texts (the team’s own wording, not clembench’s): results are not comparable with published clembench scores; run `dialeval resources fetch clembench-privateshared` or pass --resources DIR for the canonical texts\n',
    );
  return found;
}

export async function scorekeepingInstances(flags: ScorekeepingInstancesFlags): Promise<void> {
  const { resources } = await gameResources(flags.resources);
  // seed, lang, indent, checkValues and allowOverlaps are named as the package names them
  const { text, warnings } = generateInstancesFile(resources, {
    ...flags,
    instancesPerExperiment: flags.perExperiment,
  });
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  if (flags.out) await writeFileAtomic(flags.out, text);
  else process.stdout.write(text);
}

export async function scorekeepingPlay(flags: ScorekeepingPlayFlags): Promise<void> {
  if (flags.replay && (flags.player || flags.model))
    throw new UsageError('--replay, --player and --model are exclusive');
  if (flags.player && flags.model)
    throw new UsageError('--player and --model are exclusive: a programmatic player needs no model');
  if (flags.player && (flags.dryRun || flags.batch))
    throw new UsageError('--dry-run and --batch need a model (--model), not --player');
  const { resources, dir } = await gameResources(flags.resources);
  const options: PlayScorekeepingOptions = {
    outDir: flags.out,
    resources,
    resourceDir: dir,
    instancesFile: flags.instances,
    instancesSeed: flags.instancesSeed,
    experiments: flags.experiments,
    episodes: flags.episodes,
    game: {
      coda: flags.coda,
      fixProbeSpacing: Boolean(flags.fixProbeSpacing),
      yesNo: flags.yesNo,
      slotMatch: flags.slotMatch,
      strip: flags.strip,
      concurrentProbes: !flags.sequentialProbes,
    },
    temperature: flags.temperature ?? 0,
    episodeConcurrency: flags.episodeConcurrency,
    retryPlayerFailures: flags.retryFailed !== false,
    onEpisode: process.stderr.isTTY && !process.env.CI && flags.progress !== false ? progress : undefined,
  };
  const player = flags.replay
    ? ({ kind: 'replay', dir: flags.replay } as const)
    : flags.player === 'perfect'
      ? ({ kind: 'perfect' } as const)
      : flags.player === 'mock'
        ? ({ kind: 'mock', seed: flags.mockSeed } as const)
        : undefined;
  const played = player
    ? { result: await playScorekeeping(player, options), llm: undefined }
    : await playWithModel(flags, options);
  if (!played) return;
  const { result, llm } = played;
  if (result.incomplete) {
    process.stderr.write(`${playText(result)}\n`);
    // the run record says partial (failed episodes as failed items), so nothing later takes it for a complete run
    if ((flags.repeats ?? 1) === 1) await writePlayRun(flags, result, dir, llm?.record);
    throw new EvalError('run_incomplete', result.incomplete);
  }
  const machine = { ...result.json, ...(llm ? { llm: llm.usage } : {}) };
  if (flags.summary) await writeJsonAtomic(flags.summary, machine);
  await writePlayRun(flags, result, dir, llm?.record);
  await emit(flags.format === 'json' ? JSON.stringify(machine, null, 2) : playText(result));
}

/** A model's run through `@eval/llm` (cache, retries, budget, dry run, repeats); undefined after a dry run. */
async function playWithModel(flags: ScorekeepingPlayFlags, options: PlayScorekeepingOptions) {
  const temperature = options.temperature;
  const llmOptions = { ...llmOptionsFromFlags(flags), temperature, itemConcurrency: flags.episodeConcurrency };
  const plan = await planScorekeepingRun(llmOptions.model, { ...options, repeats: flags.repeats ?? 1 });
  const resume = 'run the same command again: finished episodes are skipped, errored and missing ones are played';
  return withLlm(llmOptions, resume, async (client) => {
    // a configuration error (no key, 401/403/404, nothing listening, replay miss) stops the run at once
    const jobs = plan.jobs({ stopOn: (e) => configFailure(e) !== undefined });
    const { results, summary } = await client.runJobs(jobs);
    if (jobs.stopped()) throw jobs.stopped();
    const record = await runLlmRecord(client, {
      sampling: { temperature, seed: flags.seed, maxTokens: flags.maxTokens },
      pricesFile: flags.prices,
      usage: summary,
    });
    if (client.dryRun) {
      await emit(plan.dryRunText(summary.dryRun!.estimate, summary.dryRun!.costKnown));
      return undefined;
    }
    return { result: await plan.finish(results, summary), llm: { usage: summary, record } };
  });
}

export async function scorekeepingScore(path: string, flags: ScorekeepingScoreFlags): Promise<void> {
  const st = await stat(path).catch(() => undefined);
  const single = st?.isFile() || existsSync(join(path, 'interactions.json'));
  if (st && single && flags.run)
    throw new UsageError('--run records a results directory (many episodes); give the directory, not one episode');
  if (st && !single && flags.out)
    throw new UsageError(
      '--out applies to one episode; a results directory gets a scores.json beside every transcript',
    );
  if (st && !single && flags.check && flags.run)
    throw new UsageError('--run records a scored results directory; --check only compares');
  const r = await scoreResults(path, {
    nSlots: flags.slots,
    check: flags.check,
    record: runRequested(flags) && !flags.check,
  });
  if (r.episode) {
    if (flags.check) {
      const d = r.differences[0];
      process.stdout.write(`${r.episode.scoresFile}: ${d ? d.status : 'identical'}\n`);
      if (d) process.exitCode = 1;
    } else if (flags.out) await writeFileAtomic(flags.out, r.episode.text);
    else process.stdout.write(r.episode.text);
    return;
  }
  for (const d of r.differences) process.stdout.write(`${d.file}: ${d.status}\n`);
  for (const e of r.errors) process.stderr.write(`error: ${e}\n`);
  if (r.record) await writeRun(flags, r.record, path);
  await emit(
    flags.check
      ? `checked ${r.scored} episode(s): ${r.same} identical, ${r.changed} different`
      : `scored ${r.scored} episode(s) in ${path}: ${r.changed} scores.json written, ${r.same} unchanged`,
  );
  if (r.errors.length > 0)
    throw new InputError(`${r.errors.length} interactions.json file(s) could not be scored (see above)`, {
      file: path,
    });
  if (flags.check && r.changed > 0) process.exitCode = 1;
}

export async function scorekeepingReport(dir: string, flags: ScorekeepingReportFlags): Promise<void> {
  const { report, partial, record } = await readResults(dir, {
    allowPartial: flags.allowPartial,
    record: runRequested(flags),
  });
  if (partial) process.stderr.write(`PARTIAL: ${partial}\n`);
  if (record) await writeRun(flags, record, dir);
  const text =
    flags.format === 'json'
      ? JSON.stringify(report, (_k, v) => (typeof v === 'number' && Number.isNaN(v) ? null : v), 2)
      : flags.format === 'csv'
        ? reportCsv(report)
        : `${partial ? `PARTIAL: ${report.errored.length} errored episode(s) left out until played again\n\n` : ''}${reportTable(report)}`;
  await emit(text, flags.out);
}

/** `play`: the model pair's results directory (`<out>/<model-pair>`, or `--run DIR`) becomes a run, kept durably. */
async function writePlayRun(
  flags: ScorekeepingPlayFlags,
  result: ScorekeepingPlayResult,
  resourceDir: string | undefined,
  llm?: RunLlm,
): Promise<void> {
  const fromFlag = flags.resources !== undefined && flags.resources !== 'default';
  const resource = await describeResource('clembench-privateshared', resourceDir, fromFlag);
  await writeRun({ run: flags.run ?? result.record.dir, system: flags.system }, result.record, undefined, {
    llm,
    resource,
  });
}

/** Writes a run of scorekeeping episodes (`--run DIR`, `$DIALEVAL_RUNS`): what the package's record holds. */
async function writeRun(
  flags: RunFlags,
  record: ScorekeepingRunRecord,
  input: string | undefined,
  extra: Parameters<ScorekeepingRunRecord['writeTo']>[1] = {},
): Promise<void> {
  const run = await openRun(flags, {
    benchmark: record.benchmark,
    variant: record.variant,
    system: record.system,
    input,
    options: record.options,
    ...(extra.llm ? { packages: ['@eval/llm'] } : {}),
    descriptor: runBenchmark,
  });
  if (run) await record.writeTo(run, extra);
}
