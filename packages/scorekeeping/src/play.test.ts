import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultResources } from './defaults';
import { planScorekeepingRun, playScorekeeping, type PlayJobResult, type PlayScorekeepingOptions } from './play';
import { perfectModel } from './players';
import { readResults, scoreResults } from './results';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function options(extra: Partial<PlayScorekeepingOptions> = {}): Promise<PlayScorekeepingOptions> {
  const outDir = await mkdtemp(join(tmpdir(), 'sk-play-'));
  temps.push(outDir);
  // two episodes of two experiments, on the default texts, instances generated with seed 42
  return {
    outDir,
    resources: defaultResources(),
    experiments: ['travel-booking', 'restaurant'],
    episodes: [0, 1],
    ...extra,
  };
}

describe('playScorekeeping and planScorekeepingRun', () => {
  it('the perfect player: every episode played to the end (% Played 100, Quality Score 100); resumed, nothing is played again', async () => {
    const o = await options();
    const first = await playScorekeeping({ kind: 'perfect' }, o);
    expect(first.summary).toMatchObject({ modelPair: 'perfect-t0.0--perfect-t0.0', total: 4, played: 4, skipped: 0 });
    expect(first.report.games[0]).toMatchObject({ episodes: 4, played: 100, quality: 100 });
    expect(first.record.system).toBe('perfect-t0.0--perfect-t0.0');
    expect(first.record.dir).toBe(join(o.outDir, 'perfect-t0.0--perfect-t0.0'));
    expect(first.record.variant).toBe(
      'privateshared;players=perfect-t0.0--perfect-t0.0;experiments=travel-booking,restaurant;episodes=0,1;instances=seed 42;texts=default',
    );
    expect(first.record.episodes).toHaveLength(4);
    const again = await playScorekeeping({ kind: 'perfect' }, o);
    expect(again.summary).toMatchObject({ total: 4, played: 0, skipped: 4 });
  });

  it('a model run through a job runner: jobs, results read back, the same figures as the programmatic player', async () => {
    const o = await options();
    const plan = await planScorekeepingRun('perfect', o);
    expect(plan.pending).toHaveLength(4);
    const jobs = plan.jobs();
    expect(jobs.items.map(jobs.id)).toEqual([
      'travel-booking/episode_0',
      'travel-booking/episode_1',
      'restaurant/episode_0',
      'restaurant/episode_1',
    ]);
    // a job runner of the simplest kind: one job after another, every job with the same model
    const model = perfectModel(o.resources);
    const results: PlayJobResult[] = [];
    for (const ref of jobs.items)
      results.push({ id: jobs.id(ref), ok: true, value: await jobs.run(ref, { model, repeat: 0 }) });
    const done = await plan.finish(results);
    expect(done.incomplete).toBeUndefined();
    expect(done.report.games[0]).toMatchObject({ episodes: 4, played: 100, quality: 100 });
    expect(done.record.options).toMatchObject({ player: 'model', model: 'perfect' });
    // a job not run (interrupted) makes the run incomplete: the 3 reported done (none was finished before the plan)
    const partial = await plan.finish(results.slice(0, 3));
    expect(partial.incomplete).toMatch(/interrupted: 3 of 4 episodes are done/);
  });

  it('scoreResults re-scores the played directory to the same bytes; readResults reports it', async () => {
    const o = await options();
    await playScorekeeping({ kind: 'perfect' }, o);
    const checked = await scoreResults(o.outDir, { check: true });
    expect(checked).toMatchObject({ scored: 4, same: 4, changed: 0, differences: [], errors: [] });
    const { report, partial, record } = await readResults(o.outDir, { record: true });
    expect(partial).toBeUndefined();
    expect(report.games[0]).toMatchObject({ episodes: 4, played: 100 });
    expect(record?.system).toBe('perfect-t0.0--perfect-t0.0');
  });
});
