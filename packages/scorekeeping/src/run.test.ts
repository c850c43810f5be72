import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  aggregateScores,
  loadRunScores,
  numpyRound,
  pandasMean,
  pandasStd,
  type EpisodeScoreRecord,
} from './metrics/aggregate';
import { defaultResources } from './defaults';
import { generateInstances } from './instances';
import { chatModelAnswerer, perfectModel } from './players';
import { parsePyJson } from './internal/pyjson';
import { episodeCallRange, modelPairName, runEpisodes } from './run';
import type { Answerer } from './types';
import { SHARED, itShared } from './test-support/shared';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir() {
  const d = await mkdtemp(join(tmpdir(), 'sk-run-'));
  temps.push(d);
  return d;
}

const resources = defaultResources();
const instances = generateInstances(resources, { instancesPerExperiment: 3 });

describe('runEpisodes (benchmark layout, resumable)', () => {
  it('writes clembench’s layout and skips finished episodes on a second run', async () => {
    const out = await tempDir();
    const answerer = chatModelAnswerer(perfectModel(resources), { name: 'perfect' });
    const first = await runEpisodes({
      outDir: out,
      resources,
      instances,
      answerer,
      experiments: ['travel-booking', 'letter-number'],
      episodes: [0, 2],
      episodeConcurrency: 2,
    });
    expect(first.total).toBe(4);
    expect(first.played).toBe(4);
    expect(first.modelPair).toBe('perfect-t0.0--perfect-t0.0');
    const dir = join(out, 'perfect-t0.0--perfect-t0.0', 'privateshared', '4_letter-number', 'episode_2');
    for (const f of ['instance.json', 'interactions.json', 'requests.json', 'scores.json'])
      expect(existsSync(join(dir, f))).toBe(true);
    expect(
      readFileSync(
        join(out, 'perfect-t0.0--perfect-t0.0', 'privateshared', '0_travel-booking', 'experiment_travel-booking.json'),
        'utf8',
      ),
    ).toBe('{"name": "travel-booking"}');
    const instanceText = readFileSync(join(dir, 'instance.json'), 'utf8');
    expect(parsePyJson(instanceText)).toEqual(instances.experiments[4]!.game_instances[2]);
    const requests = parsePyJson(readFileSync(join(dir, 'requests.json'), 'utf8')) as Array<{
      manipulated_prompt_obj: unknown[];
      raw_response_obj: { clem_player: { response: string } };
    }>;
    expect(requests).toHaveLength(10 + 11 * 10);
    expect(requests[0]!.raw_response_obj.clem_player.response).toBe('ASIDE: No.');
    expect(first.episodes.every((e) => e.mainScore === 100)).toBe(true);

    let calls = 0;
    const counting: Answerer = { name: 'perfect', respond: (m, c) => (calls++, answerer.respond(m, c)) };
    const again = await runEpisodes({
      outDir: out,
      resources,
      instances,
      answerer: counting,
      experiments: ['travel-booking', 'letter-number'],
      episodes: [0, 2],
    });
    expect(again.skipped).toBe(4);
    expect(calls).toBe(0);
  });

  it('a player failure aborts only its episode, is recorded with the reason, and is played again on resume', async () => {
    const out = await tempDir();
    const perfect = chatModelAnswerer(perfectModel(resources));
    let fail = true;
    const flaky: Answerer = {
      name: 'flaky',
      respond: async (m, c) => {
        if (fail && c.round === 3 && c.kind === 'request' && m[0]!.content.includes('WHAT: Restaurant'))
          throw new Error('connection reset');
        return perfect.respond(m, c);
      },
    };
    const first = await runEpisodes({
      outDir: out,
      resources,
      instances,
      answerer: flaky,
      experiments: ['restaurant'],
      episodes: [1],
    });
    expect(first.aborted).toBe(1);
    expect(first.playerFailures).toBe(1);
    expect(first.episodes[0]!.abortReason).toBe('player failure: connection reset');
    const dir = first.episodes[0]!.dir;
    const logs = parsePyJson(readFileSync(join(dir, 'interactions.json'), 'utf8')) as Record<string, unknown>;
    expect(logs['Abort Reason']).toBe('player failure: connection reset');
    expect(readFileSync(join(dir, 'scores.json'), 'utf8')).toContain('"Aborted": 1');
    fail = false;
    const second = await runEpisodes({
      outDir: out,
      resources,
      instances,
      answerer: flaky,
      experiments: ['restaurant'],
      episodes: [1],
    });
    expect(second.played).toBe(1);
    expect(second.episodes[0]!.mainScore).toBe(100);
    expect(modelPairName('gpt-4o', 0.7)).toBe('gpt-4o-t0.7--gpt-4o-t0.7');
  });

  it('unknown experiments are usage errors', async () => {
    const out = await tempDir();
    await expect(
      runEpisodes({
        outDir: out,
        resources,
        instances,
        answerer: chatModelAnswerer(perfectModel(resources)),
        experiments: ['chess'],
      }),
    ).rejects.toThrow(/unknown experiment "chess"/);
  });
});

describe('aggregation (clemeval)', () => {
  it('pandas/numpy helpers: Kahan mean, Welford std, half-even rounding of the scaled value', () => {
    // ten times 0.1: naive summation gives 0.9999999999999999, the compensated sum 1.0
    expect(pandasMean(new Array(10).fill(0.1))).toBe(0.1);
    expect(pandasMean([Number.NaN, 2, 4])).toBe(3);
    expect(pandasMean([Number.NaN])).toBeNaN();
    expect(pandasStd([2, 4, 4, 4, 5, 5, 7, 9])).toBe(Math.sqrt(32 / 7));
    expect(pandasStd([5])).toBeNaN();
    expect(numpyRound(0.125, 2)).toBe(0.12); // 12.5 → 12 (half to even)
    expect(numpyRound(2.675, 2)).toBe(2.68); // numpy: 2.675 * 100 rounds to 267.5 → 268 (Python's round(2.675, 2) is 2.67)
    expect(numpyRound(76.66666666666667, 2)).toBe(76.67);
  });

  it.skipIf(spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' }).status !== 0)(
    'numpyRound agrees with the local numpy (np.round)',
    () => {
      const values = Array.from({ length: 400 }, (_, i) => ((i * 7919) % 1000) / 8 + i / 3);
      const py = spawnSync(
        'python3',
        [
          '-c',
          'import numpy as np, json, sys; v = json.load(sys.stdin); print(json.dumps([float(np.round(x, 2)) for x in v] + [float(np.round(x * 100, 2)) for x in v]))',
        ],
        { input: JSON.stringify(values), encoding: 'utf8' },
      );
      expect(py.status).toBe(0);
      const expected = JSON.parse(py.stdout) as number[];
      expect([...values.map((x) => numpyRound(x, 2)), ...values.map((x) => numpyRound(x * 100, 2))]).toEqual(expected);
    },
  );

  it('% Played, Quality Score (NaN skipped), its std, clemscore and accuracy by round', async () => {
    const rec = (
      model: string,
      experiment: string,
      main: number,
      aborted: number,
      acc0: number,
    ): EpisodeScoreRecord => ({
      model,
      game: 'privateshared',
      experiment,
      episode: 'episode_0',
      file: '',
      scores: {
        'turn scores': { '0': { Accuracy: acc0 } },
        'episode scores': { 'Main Score': main, Aborted: aborted },
      },
    });
    const records = [
      rec('m', '0_travel-booking', 100, 0, 1),
      rec('m', '0_travel-booking', 80.00000000000001, 0, 0.8),
      rec('m', '1_job-interview', Number.NaN, 1, 0.6),
      rec('m', '1_job-interview', 50, 0, 1),
    ];
    const report = aggregateScores(records);
    // played 3/4 → 75.0; quality mean(100, 80.00000000000001, 50) = 76.666… → 76.67;
    // std: deviations 23.33, 3.33, −26.67 → sqrt((544.44 + 11.11 + 711.11) / 2) = sqrt(633.33) = 25.166 → 25.17
    expect(report.games).toEqual([
      { game: 'privateshared', model: 'm', episodes: 4, played: 75, quality: 76.67, qualityStd: 25.17 },
    ]);
    // clemscore = 75 / 100 × 76.67 = 57.5025 → 57.5
    expect(report.models).toEqual([{ model: 'm', averagePlayed: 75, averageQuality: 76.67, clemscore: 57.5 }]);
    const jobs = report.experiments.find((e) => e.experiment === '1_job-interview')!;
    expect(jobs.played).toBe(50);
    expect(jobs.quality).toBe(50);
    expect(jobs.qualityStd).toBeNaN();
    expect(jobs.accuracyByRound['0']).toEqual({ mean: 0.8, episodes: 2 });
  });

  it('loads scores.json files of a results directory (NaN-tolerant), model/game/experiment/episode from the path', async () => {
    const out = await tempDir();
    const dir = join(out, 'x-t0.0--x-t0.0', 'privateshared', '0_travel-booking', 'episode_3');
    await runEpisodes({
      outDir: out,
      resources,
      instances,
      answerer: chatModelAnswerer(perfectModel(resources), { name: 'x' }),
      experiments: ['travel-booking'],
      episodes: [0],
    });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'scores.json'),
      '{"turn scores": {}, "episode scores": {"Main Score": NaN, "Aborted": 1}}',
    );
    const records = await loadRunScores(out);
    expect(records.map((r) => [r.model, r.game, r.experiment, r.episode])).toEqual([
      ['x-t0.0--x-t0.0', 'privateshared', '0_travel-booking', 'episode_0'],
      ['x-t0.0--x-t0.0', 'privateshared', '0_travel-booking', 'episode_3'],
    ]);
    expect(aggregateScores(records).games[0]).toMatchObject({ played: 50, quality: 100 });
  });
});

describe('episodeCallRange (calls from the game structure)', () => {
  itShared(
    'the 50 v2.0 instances: 4,800 calls without re-prompts, every probe re-prompted to its 5th try at most',
    async () => {
      const { readInstancesFile } = await import('./instances');
      const all = await readInstancesFile(join(SHARED, 'in', 'instances.json'));
      let min = 0;
      let max = 0;
      for (const e of all.experiments) {
        for (const inst of e.game_instances) {
          const r = episodeCallRange(inst, 5);
          min += r.min;
          max += r.max;
        }
      }
      // n slots: n requests + (n + 1) probing rounds of n probes. 30 five-slot episodes: 5 + 6 x 5 = 35 calls;
      // 10 fifteen-slot: 15 + 16 x 15 = 255; 10 ten-slot: 10 + 11 x 10 = 120 -> 1,050 + 2,550 + 1,200 = 4,800.
      expect(min).toBe(30 * 35 + 10 * 255 + 10 * 120);
      // every probe tried 5 times: 30 x (5 + 5 x 30) + 10 x (15 + 5 x 240) + 10 x (10 + 5 x 110)
      expect(max).toBe(30 * 155 + 10 * 1215 + 10 * 560);
    },
  );
});
