import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { RunItem } from '@eval/core';
import { runItemSchema } from '@eval/core/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import {
  aggregateScores,
  findResultFiles,
  inWalkOrder,
  loadRunScores,
  type BenchmarkReport,
} from './metrics/aggregate';
import { defaultResources } from './defaults';
import { generateInstances } from './instances';
import { chatModelAnswerer, mockModel } from './players';
import { runEpisodes } from './run';
import {
  loadRunEpisodes,
  runBenchmark,
  scorekeepingRunItems,
  scorekeepingRunMetrics,
  scorekeepingRunVariant,
} from './runs';
import { HAS_SHARED, SHARED, itShared } from './test-support/shared';
import type { Answerer } from './types';

const EPISODES = join(SHARED, 'episodes/v2.0');

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A results directory of mock-player episodes (`perExperiment` instances of each experiment), removed after the test. */
async function mockResults(perExperiment: number, seed: number): Promise<string> {
  const out = await mkdtemp(join(tmpdir(), 'sk-runs-'));
  temps.push(out);
  const resources = defaultResources();
  const instances = generateInstances(resources, { instancesPerExperiment: perExperiment });
  await runEpisodes({
    outDir: out,
    resources,
    instances,
    answerer: chatModelAnswerer(mockModel(resources, { seed }), { name: 'mock' }),
    modelName: 'mock',
  });
  return out;
}

/** The figures of the native clemeval report of one model (what `dialeval scorekeeping report` prints), NaN -> null. */
function nativeFigures(report: BenchmarkReport): Record<string, number | null> {
  const v = (x: number) => (Number.isNaN(x) ? null : x);
  expect(report.games).toHaveLength(1);
  const g = report.games[0]!;
  const out: Record<string, number | null> = {
    '% Played': v(g.played),
    'Quality Score': v(g.quality),
    'Quality Score (std)': v(g.qualityStd),
    clemscore: v(report.models[0]!.clemscore),
  };
  for (const e of report.experiments) {
    const name = e.experiment.replace(/^\d+_/, '');
    out[`${name}: % Played`] = v(e.played);
    out[`${name}: Quality Score`] = v(e.quality);
    out[`${name}: Quality Score (std)`] = v(e.qualityStd);
    for (const [k, r] of Object.entries(e.accuracyByRound)) out[`${name}: accuracy round ${k}`] = v(r.mean);
  }
  return out;
}

async function checkDir(dir: string): Promise<void> {
  const native = nativeFigures(aggregateScores(await loadRunScores(dir)));
  const episodes = await loadRunEpisodes(dir);
  const items = scorekeepingRunItems(episodes, { runDir: dir });
  for (const item of items) runItemSchema.parse(JSON.parse(JSON.stringify(item)));
  // items go through JSON (items.jsonl) before compare recomputes from them
  const recomputed = runBenchmark.recompute(items.map((i) => JSON.parse(JSON.stringify(i))));
  expect(recomputed).toStrictEqual(native);
  const metrics = scorekeepingRunMetrics(episodes);
  expect(Object.fromEntries(Object.entries(metrics).map(([k, m]) => [k, m.value]))).toStrictEqual(native);
}

describe('scorekeeping run items: recompute reproduces clemeval', () => {
  for (const pair of HAS_SHARED ? readdirSync(EPISODES) : []) {
    itShared(`recorded v2.0 episodes of ${pair}: every figure of the report`, async () => {
      await checkDir(join(EPISODES, pair));
    });
  }

  it('mock-player episodes of all five experiments (aborts, NaN, std, accuracy by round)', async () => {
    const out = await mockResults(4, 3);
    const records = await loadRunScores(out);
    expect(records).toHaveLength(20);
    await checkDir(out);
    const items = scorekeepingRunItems(await loadRunEpisodes(out));
    // the mock player aborts some episodes and plays others: both outcomes are present
    expect(new Set(items.map((i) => i.values.played))).toEqual(new Set([true, false]));
  });

  it('loadRunEpisodes: each transcript parsed once, as JSON.parse gives it; a BOM or Python-only JSON (NaN) is read too', async () => {
    const out = await mockResults(2, 3);
    const before = await loadRunEpisodes(out);
    expect(before.length).toBeGreaterThan(1);
    for (const e of before)
      expect(e.interactions).toStrictEqual(
        JSON.parse(readFileSync(join(dirname(e.file), 'interactions.json'), 'utf8')),
      );
    // one transcript rewritten with a BOM and a NaN (Python's json.dump writes NaN): JSON.parse refuses it, Python's json reads it
    const target = join(dirname(before[0]!.file), 'interactions.json');
    const text = readFileSync(target, 'utf8');
    writeFileSync(target, `\ufeff${text.replace(/^\{/, '{"Extra": NaN, ')}`);
    const after = await loadRunEpisodes(out);
    expect(after[0]!.interactions).toStrictEqual({ Extra: Number.NaN, ...JSON.parse(text) });
    expect(after[0]!.recordedModel).toBe(before[0]!.recordedModel);
    expect(after.slice(1)).toStrictEqual(before.slice(1));
    // loadRunScores reads the same records, without the transcripts
    expect(await loadRunScores(out)).toStrictEqual(after.map(({ interactions: _, ...r }) => r));
    // transcripts the caller parsed already are used as given (by path, relative or not), not read again
    const given = { ...JSON.parse(text), 'Abort Reason': 'player failure: given, not read' };
    const withGiven = await loadRunEpisodes(out, { transcripts: new Map([[relative(process.cwd(), target), given]]) });
    expect(withGiven[0]!.interactions).toBe(given);
    expect(withGiven[0]!.errored).toBe('player failure: given, not read');
    expect(withGiven.slice(1)).toStrictEqual(before.slice(1));
    // and so are scores (a scores.json just written, as read back)
    const scores = {
      ...before[1]!.scores,
      'episode scores': { ...before[1]!.scores['episode scores'], 'Main Score': 12.5 },
    };
    const withScores = await loadRunEpisodes(out, { scores: new Map([[before[1]!.file, scores]]) });
    expect(withScores[1]!.scores).toBe(scores);
    expect(withScores.filter((_, i) => i !== 1).map((e) => e.scores)).toStrictEqual(
      after.filter((_, i) => i !== 1).map((e) => e.scores),
    );
  });

  it('loadRunEpisodes with files listed by the caller (findResultFiles, inWalkOrder) reads what its own walk finds', async () => {
    const out = await mockResults(3, 5);
    // an episode stopped by failed calls (errored.json, no scores), one with scores but no transcript
    const first = (await loadRunScores(out))[0]!.file;
    const experimentDir = dirname(dirname(first));
    mkdirSync(join(experimentDir, 'episode_10'));
    writeFileSync(
      join(experimentDir, 'episode_10', 'errored.json'),
      JSON.stringify({ reason: 'player failure: HTTP 500' }),
    );
    mkdirSync(join(experimentDir, 'episode_2a'));
    cpSync(first, join(experimentDir, 'episode_2a', 'scores.json'));
    const found = await findResultFiles(out);
    expect(found.errored).toHaveLength(1);
    // the scores listed as a caller that wrote one beside every transcript lists them: its own list plus those, in walk order
    const listed = {
      scores: inWalkOrder(
        [...found.interactions.map((f) => join(dirname(f), 'scores.json')), ...found.scores].reverse(),
      ),
      errored: found.errored,
    };
    expect(listed.scores).toStrictEqual(found.scores);
    expect(await loadRunEpisodes(out, { files: listed })).toStrictEqual(await loadRunEpisodes(out));
  });

  it('inWalkOrder: the order of a walk (each directory by entry name), not of the path strings', () => {
    // '-' sorts before '/' as a character, but the directory "a" is walked before its sibling "a-c"
    const paths = [
      '/r/a-c/scores.json',
      '/r/a/b/scores.json',
      '/r/episode_2/scores.json',
      '/r/episode_10/scores.json',
      '/r/a/scores.json',
      '/r/a/b/scores.json',
    ];
    expect(inWalkOrder(paths)).toStrictEqual([
      '/r/a/b/scores.json',
      '/r/a/scores.json',
      '/r/a-c/scores.json',
      '/r/episode_10/scores.json',
      '/r/episode_2/scores.json',
    ]);
  });

  itShared('ids, groups and detail of a recorded episode', async () => {
    const dir = join(EPISODES, 'claude-3-5-sonnet-20241022-t0.0--claude-3-5-sonnet-20241022-t0.0');
    const [item] = scorekeepingRunItems(await loadRunEpisodes(dir), { runDir: dir });
    expect(item!.id).toBe('job-interview/episode_1');
    expect(item!.group).toBe('job-interview');
    // the recorded scores.json: Main Score 84.92462311557789, Kappa 0.7379912663755459, not aborted
    expect(item!.values).toMatchObject({
      mainScore: 84.92462311557789,
      kappa: 0.7379912663755459,
      played: true,
      aborted: false,
      accuracyRound0: 1,
    });
    // the transcript by location only (the run directory holds it): no probes, no transcript in the item
    expect(item!.detail).toStrictEqual({
      outcome: 'played',
      modelPair: 'claude-3-5-sonnet-20241022-t0.0--claude-3-5-sonnet-20241022-t0.0',
      models: ['claude-3-5-sonnet-20241022'],
      interactions: '1_job-interview/episode_1/interactions.json',
    });
    // without a run directory the transcript is embedded
    const [embedded] = scorekeepingRunItems(await loadRunEpisodes(dir));
    const probes = embedded!.detail!.probes as Array<{ round: number; truth: boolean; correct: boolean | null }>;
    expect(probes.length).toBeGreaterThan(0);
    expect(probes[0]!.round).toBe(0);
    expect((embedded!.detail!.transcript as unknown[]).length).toBeGreaterThan(0);
    expect(embedded!.detail!.interactions).toBeUndefined();
    expect(embedded!.detail!.models).toEqual(['claude-3-5-sonnet-20241022']);
  });

  it('an episode aborted by a player failure is a failed item, left out of the metrics', () => {
    const base = { game: 'privateshared', experiment: '0_travel-booking', file: '/x/scores.json' };
    const played = {
      ...base,
      model: 'm',
      episode: 'episode_0',
      scores: { 'turn scores': {}, 'episode scores': { 'Main Score': 80, Aborted: 0 } },
    };
    const failed = {
      ...base,
      model: 'm',
      episode: 'episode_1',
      scores: { 'turn scores': {}, 'episode scores': { 'Main Score': Number.NaN, Aborted: 1 } },
      interactions: { 'Abort Reason': 'player failure: connection reset' } as never,
    };
    const items = scorekeepingRunItems([played, failed]);
    expect(items[1]!.error).toBe('the player failed: player failure: connection reset');
    expect(items[1]!.detail!.outcome).toBe('errored');
    // one evaluated episode, played: % Played 100, Quality Score 80
    expect(runBenchmark.recompute(items)['% Played']).toBe(100);
    expect(scorekeepingRunMetrics([played, failed])['% Played']!.value).toBe(100);
    expect(scorekeepingRunMetrics([played, failed])['Quality Score']!.value).toBe(80);
    // n: the evaluated episodes (% Played) and those with a Main Score (Quality Score)
    const aborted = {
      ...played,
      episode: 'episode_2',
      scores: { 'turn scores': {}, 'episode scores': { 'Main Score': Number.NaN, Aborted: 1 } },
    };
    const metrics = scorekeepingRunMetrics([played, failed, aborted]);
    expect(metrics['% Played']).toMatchObject({ value: 50, n: 2 });
    expect(metrics['Quality Score']).toMatchObject({ value: 80, n: 1 });
    expect(metrics['travel-booking: Quality Score']).toMatchObject({ value: 80, n: 1 });
  });

  it('the variant names the players, the selection and the game options', () => {
    expect(
      scorekeepingRunVariant({
        modelPairs: ['b', 'a', 'b'],
        experiments: ['restaurant'],
        episodes: [0, 1],
        options: { coda: 'log-only' },
      }),
    ).toBe('privateshared;players=a+b;experiments=restaurant;episodes=0,1;coda=log-only');
  });
});

describe('scorekeeping run items keep the transcript by location; runBenchmark.itemDetails reads it back', () => {
  /** Items as `items.jsonl` holds them (through JSON). */
  const viaJson = (items: RunItem[]): RunItem[] => items.map((i) => JSON.parse(JSON.stringify(i)));

  /** Checks one results directory: items by location, read back = embedded, for a run inside and one outside it. */
  async function checkReadBack(dir: string): Promise<RunItem[]> {
    const episodes = await loadRunEpisodes(dir);
    const embedded = viaJson(scorekeepingRunItems(episodes));
    expect(embedded.some((i) => i.detail!.transcript !== undefined)).toBe(true);
    // loaded keeping only what items by location read of each transcript (the CLI's runs do): players, Abort Reason
    const summaries = await loadRunEpisodes(dir, { interactions: 'summary' });
    expect(summaries.map(({ interactions: _i, ...e }) => e)).toStrictEqual(
      episodes.map(({ interactions: _i, ...e }) => e),
    );
    for (const [k, e] of summaries.entries()) {
      const whole = episodes[k]!.interactions as Record<string, unknown> | undefined;
      expect(e.interactions === undefined).toBe(whole === undefined);
      if (whole)
        expect(e.interactions).toStrictEqual(
          Object.fromEntries(Object.entries(whole).filter(([key]) => key === 'players' || key === 'Abort Reason')),
        );
    }
    const elsewhere = await mkdtemp(join(tmpdir(), 'sk-run-elsewhere-'));
    temps.push(elsewhere);
    // the results directory as the run (play --out), and a run directory elsewhere (score DIR --run ELSEWHERE)
    for (const runDir of [dir, elsewhere]) {
      const byLocation = viaJson(scorekeepingRunItems(episodes, { runDir }));
      expect(viaJson(scorekeepingRunItems(summaries, { runDir }))).toStrictEqual(byLocation);
      for (const [k, item] of byLocation.entries()) {
        const e = episodes[k]!;
        const file = join(dirname(e.file), 'interactions.json');
        expect(item.detail!.probes).toBeUndefined();
        expect(item.detail!.transcript).toBeUndefined();
        expect(item.detail!.interactions).toBe(
          runDir === dir ? relative(dir, file).split(sep).join('/') : resolve(file),
        );
        // id, group, values and error exactly as when embedding: recompute and compare see the same run
        const { detail: _d, ...rest } = item;
        const { detail: _e, ...embeddedRest } = embedded[k]!;
        expect(rest).toStrictEqual(embeddedRest);
      }
      expect(runBenchmark.recompute(byLocation)).toStrictEqual(runBenchmark.recompute(embedded));
      const restored = await runBenchmark.itemDetails!(byLocation, runDir);
      // exactly the embedded detail, plus the location
      expect(restored).toStrictEqual(
        embedded.map((i, k) => ({ ...i, detail: { ...i.detail, interactions: byLocation[k]!.detail!.interactions } })),
      );
    }
    return embedded;
  }

  for (const pair of HAS_SHARED ? readdirSync(EPISODES) : []) {
    itShared(`recorded v2.0 episodes of ${pair}`, async () => {
      const copy = await mkdtemp(join(tmpdir(), 'sk-run-loc-'));
      temps.push(copy);
      cpSync(join(EPISODES, pair), join(copy, pair), { recursive: true });
      await checkReadBack(join(copy, pair));
    });
  }

  it('mock-player episodes (played, aborted, stopped by a player failure; a transcript with a BOM and NaN)', async () => {
    const out = await mkdtemp(join(tmpdir(), 'sk-runs-'));
    temps.push(out);
    const resources = defaultResources();
    const instances = generateInstances(resources, { instancesPerExperiment: 2 });
    const mock = chatModelAnswerer(mockModel(resources, { seed: 3 }), { name: 'mock' });
    // the first travel-booking episode's player fails in round 1: an errored.json marker beside a partial transcript
    const failing: Answerer = {
      name: 'mock',
      respond: (messages, call) =>
        call.round >= 1 ? Promise.reject(new Error('connection reset')) : mock.respond(messages, call),
    };
    await runEpisodes({
      outDir: out,
      resources,
      instances,
      answerer: (ref) =>
        ref.experimentIndex === 0 && ref.instance.game_id === instances.experiments[0]!.game_instances[0]!.game_id
          ? failing
          : mock,
      modelName: 'mock',
    });
    const target = join(dirname((await loadRunEpisodes(out)).find((e) => !e.errored)!.file), 'interactions.json');
    writeFileSync(target, `\ufeff${readFileSync(target, 'utf8').replace(/^\{/, '{"Extra": NaN, ')}`);
    const embedded = await checkReadBack(out);
    expect(embedded.some((i) => i.error !== undefined && i.detail!.transcript !== undefined)).toBe(true);
    expect(new Set(embedded.map((i) => i.detail!.outcome))).toEqual(new Set(['played', 'aborted', 'errored']));
  });

  it('a transcript that is gone or unreadable leaves its item as recorded; items without a location are returned as they are', async () => {
    const out = await mockResults(1, 3);
    const episodes = await loadRunEpisodes(out);
    expect(episodes.length).toBeGreaterThan(3);
    const items = viaJson(scorekeepingRunItems(episodes, { runDir: out }));
    const file = (k: number) => join(dirname(episodes[k]!.file), 'interactions.json');
    rmSync(file(0));
    writeFileSync(file(1), '{"turns": [');
    writeFileSync(file(2), '{"turns": 3, "probes": "no"}');
    const embedded = viaJson(scorekeepingRunItems([episodes[3]!]))[0]!;
    const input = [...items, embedded, { id: 'x', values: {} }];
    const snapshot = structuredClone(input);
    const restored = await runBenchmark.itemDetails!(input, out);
    expect(input).toStrictEqual(snapshot);
    for (const k of [0, 1, 2]) expect(restored[k]).toBe(items[k]);
    expect(restored[3]!.detail!.transcript).toStrictEqual(embedded.detail!.transcript);
    expect(restored.slice(-2)).toStrictEqual([embedded, { id: 'x', values: {} }]);
    expect(restored.slice(-2)[0]).toBe(embedded);
  });
});

describe('the run record contract: clusters, units and digits, breakdowns, the descriptor', () => {
  it('every item is its own episode cluster; every metric declares unit and digits; per-experiment and per-round figures are parts', async () => {
    const dir = await mockResults(2, 7);
    const episodes = await loadRunEpisodes(dir);
    const items = scorekeepingRunItems(episodes);
    expect(items.map((i) => i.cluster)).toEqual(items.map((i) => i.id));
    expect(runBenchmark.package).toBe('@eval/scorekeeping');
    expect(runBenchmark.cluster).toEqual({ unit: 'episode' });
    const metrics = scorekeepingRunMetrics(episodes);
    // recompute gives exactly the figures run.json records, and no other
    expect(Object.keys(runBenchmark.recompute(items)).sort()).toEqual(Object.keys(metrics).sort());
    // clemeval rounds % Played (percent points) and the Quality Score to 2 decimals; round accuracies are 0-1 means
    const expectedFormat = (name: string) =>
      name.endsWith('% Played')
        ? { unit: '%', digits: 2 }
        : /accuracy round/.test(name)
          ? { unit: 'ratio', digits: 1 }
          : { unit: 'score', digits: 2 };
    for (const [name, m] of Object.entries(metrics)) {
      expect({ unit: m.unit, digits: m.digits }, name).toEqual(expectedFormat(name));
      const experiment = /^([a-z-]+): (.+)$/.exec(name);
      if (!experiment) expect(m.part, name).toBeUndefined();
      else if (experiment[2]!.startsWith('accuracy round '))
        expect(m.part).toEqual({
          of: `${experiment[1]}: accuracy`,
          by: 'round',
          value: experiment[2]!.slice('accuracy round '.length),
        });
      else expect(m.part).toEqual({ of: experiment[2], by: 'experiment', value: experiment[1] });
    }
    expect(metrics['travel-booking: accuracy round 0']).toBeDefined();
  });
});
