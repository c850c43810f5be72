import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { compareRuns, readRun, type RunItem } from '@eval/core';
import { startTestServer, type TestServer } from '@eval/llm/testing';
import {
  loadResourceDir,
  loadRunEpisodes,
  perfectAnswer,
  runBenchmark,
  scorekeepingRunItems,
} from '@eval/scorekeeping';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasReferenceData, itWithReferenceData, referencePath, runCli } from './cli';

const SK = referencePath('scorekeeping');
const HAS_SCOREKEEPING = hasReferenceData('scorekeeping');
const itScorekeeping = itWithReferenceData('scorekeeping');
const EPISODES = join(SK, 'episodes', 'v2.0');
const KEY_ENV = 'DIALEVAL_SK_RUN_TEST_KEY';
const KEY = 'sk-scorekeeping-run-secret-0123456789';

let dir: string;
let server: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dialeval-sk-run-'));
  const canonical = HAS_SCOREKEEPING ? await loadResourceDir(SK) : undefined!;
  server = await startTestServer({
    respond: (req) => {
      const last = req.messages[req.messages.length - 1]!.content;
      // a scripted outage in restaurant episodes: a player failure mid-episode
      if (last.includes('WAITER:') && req.messages.length === 2 + 2 * 2 + 1)
        return { status: 500, error: 'scripted outage' };
      return perfectAnswer(req.messages, canonical);
    },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ [KEY_ENV]: KEY, CI: '1', DIALEVAL_HOME: join(dir, 'home') });
/** The data a report embeds (its one `report-data` script tag). */
function embeddedReportData(file: string) {
  const m = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(readFileSync(file, 'utf8'));
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!);
}
const values = (m: Record<string, { value: number | null }>) =>
  Object.fromEntries(Object.entries(m).map(([k, x]) => [k, x.value]));

/** The native report's figures of its one model (what `scorekeeping report --format json` prints), by run metric name. */
function reportFigures(report: {
  games: Array<{ played: number; quality: number; qualityStd: number }>;
  models: Array<{ clemscore: number }>;
  experiments: Array<{
    experiment: string;
    played: number;
    quality: number;
    qualityStd: number;
    accuracyByRound: Record<string, { mean: number }>;
  }>;
}): Record<string, number | null> {
  expect(report.games).toHaveLength(1);
  const out: Record<string, number | null> = {
    '% Played': report.games[0]!.played,
    'Quality Score': report.games[0]!.quality,
    'Quality Score (std)': report.games[0]!.qualityStd,
    clemscore: report.models[0]!.clemscore,
  };
  for (const e of report.experiments) {
    const name = e.experiment.replace(/^\d+_/, '');
    out[`${name}: % Played`] = e.played;
    out[`${name}: Quality Score`] = e.quality;
    out[`${name}: Quality Score (std)`] = e.qualityStd;
    for (const [k, r] of Object.entries(e.accuracyByRound)) out[`${name}: accuracy round ${k}`] = r.mean;
  }
  return out;
}

describe('scorekeeping runs', () => {
  it('play --out makes <out>/<model-pair> a run; compareRuns(perfect, mock): McNemar on % Played from the items', async () => {
    const out = join(dir, 'results');
    const sel = ['--experiments', 'travel-booking,restaurant,letter-number', '--episodes', '0-3'];
    const perfect = await runCli(['scorekeeping', 'play', '--player', 'perfect', '--out', out, ...sel], { env: env() });
    expect(perfect.code, perfect.stderr).toBe(0);
    const mock = await runCli(['scorekeeping', 'play', '--player', 'mock', '--out', out, ...sel], { env: env() });
    expect(mock.code, mock.stderr).toBe(0);
    const a = await readRun(join(out, 'perfect-t0.0--perfect-t0.0'));
    const b = await readRun(join(out, 'mock-t0.0--mock-t0.0'));
    expect(b.manifest.variant).toBe(
      'privateshared;players=mock-t0.0--mock-t0.0;experiments=travel-booking,restaurant,letter-number;episodes=0,1,2,3;instances=seed 42;texts=default',
    );
    expect(b.manifest.system).toBe('mock-t0.0--mock-t0.0');
    expect(b.manifest.resources).toEqual([
      { name: 'clembench-privateshared', commit: 'default texts', source: 'default texts' },
    ]);
    expect(b.manifest.options).toMatchObject({
      player: 'mock',
      mockSeed: 42,
      coda: 'log-only',
      yesNo: 'prefix',
      slotMatch: 'substring',
      temperature: 0,
    });
    expect(b.items).toHaveLength(12);
    expect(b.manifest.artifacts).toHaveLength(24);
    // the native report of that model, recomputed from items and recorded in run.json: the same figures
    const report = await runCli(['scorekeeping', 'report', join(out, 'mock-t0.0--mock-t0.0'), '--format', 'json'], {
      env: env(),
    });
    const native = reportFigures(JSON.parse(report.stdout));
    expect(values(b.manifest.metrics)).toStrictEqual(native);
    expect(runBenchmark.recompute(b.items, b.manifest.variant)).toStrictEqual(native);
    // re-scoring the played episodes changes no scores.json: the native outputs are clembench's
    expect((await runCli(['scorekeeping', 'score', out, '--check'], { env: env() })).code).toBe(0);

    const cmp = compareRuns([a, b], runBenchmark, { force: true, resamples: 200, seed: 3 });
    const played = cmp.pairs[0]!.metrics.find((m) => m.name === '% Played')!;
    // independent count: episodes played by perfect (all) and aborted by mock are the 1 -> 0 flips
    const aborted = b.items
      .filter((i) => i.values.played === false)
      .map((i) => i.id)
      .sort();
    expect(a.items.every((i) => i.values.played === true)).toBe(true);
    expect(played.mcnemar).toMatchObject({ outcome: 'played', b: aborted.length, c: 0 });
    // p = min(1, 2 * P[X <= 0]) = 2 * 0.5^n for n = b + c = aborted.length (n > 0)
    expect(aborted.length).toBeGreaterThan(0);
    expect(played.mcnemar!.p).toBeCloseTo(Math.min(1, 2 * 0.5 ** aborted.length), 12);
    expect([...played.flipped!.oneToZero].sort()).toEqual(aborted);
    expect(played.delta).toBe(native['% Played']! - 100);
    // `dialeval compare` of the two run directories: the same figures
    const cli = await runCli(
      [
        'compare',
        join(out, 'perfect-t0.0--perfect-t0.0'),
        join(out, 'mock-t0.0--mock-t0.0'),
        '--force',
        '--format',
        'json',
        '--resamples',
        '200',
        '--seed',
        '3',
      ],
      { env: env() },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const viaCli = JSON.parse(cli.stdout).pairs[0].metrics.find((m: { name: string }) => m.name === '% Played');
    expect(viaCli.mcnemar).toEqual(played.mcnemar);
    expect(viaCli.ci).toEqual(played.ci);
  });

  itScorekeeping(
    'an LLM play: the llm block, and an episode aborted by a player failure as a failed item',
    async () => {
      const out = join(dir, 'llm');
      const r = await runCli(
        [
          'scorekeeping',
          'play',
          '--base-url',
          server.baseURL,
          '--api-key-env',
          KEY_ENV,
          '--cache-dir',
          join(dir, 'cache'),
          '--model',
          'test-model',
          '--cache',
          'off',
          '--max-attempts',
          '1',
          '--resources',
          SK,
          '--out',
          out,
          '--experiments',
          'travel-booking,restaurant',
          '--episodes',
          '0',
          '--system',
          'my-model',
        ],
        { env: env() },
      );
      // issue 13: an episode stopped by failed calls is errored, so the command exits 1 and the run is partial
      expect(r.code, r.stderr).toBe(1);
      const runDir = join(out, 'test-model-t0.0--test-model-t0.0');
      const run = await readRun(runDir);
      const m = run.manifest;
      expect(m.system).toBe('my-model');
      expect(m.status).toBe('partial');
      expect(m.failures).toEqual([
        { id: 'restaurant/episode_0', reason: expect.stringMatching(/^the player failed: .*500/) },
      ]);
      expect(m.resources[0]).toMatchObject({ name: 'clembench-privateshared', source: 'option' });
      expect(m.inputs.map((i) => i.role)).toEqual(['instances']);
      expect(m.llm).toMatchObject({
        endpointHost: new URL(server.baseURL).host,
        model: 'test-model',
        sampling: { temperature: 0 },
        batch: false,
      });
      expect(m.llm!.calls.made).toBeGreaterThan(0);
      expect(m.llm!.calls.failed).toBe(1);
      expect(readFileSync(join(runDir, 'run.json'), 'utf8')).not.toContain(KEY);
      // the failed episode counts into no metric: travel-booking alone, played with Main Score 100
      expect(values(m.metrics)).toMatchObject({ '% Played': 100, 'Quality Score': 100 });
      expect(runBenchmark.recompute(run.items, m.variant)).toStrictEqual(values(m.metrics));
    },
  );

  itScorekeeping(
    'score DIR --run and report DIR --run on recorded clembench episodes: recompute = run.json = the native report',
    async () => {
      for (const pair of [
        'claude-3-5-sonnet-20241022-t0.0--claude-3-5-sonnet-20241022-t0.0',
        'mistral-large-2411-t0.0--mistral-large-2411-t0.0',
      ]) {
        const copy = join(dir, 'rescored', pair);
        cpSync(join(EPISODES, pair), copy, { recursive: true });
        const scored = await runCli(['scorekeeping', 'score', copy, '--run', join(dir, 'score-runs', pair)], {
          env: env(),
        });
        expect(scored.code, scored.stderr).toBe(0);
        const reported = await runCli(
          ['scorekeeping', 'report', copy, '--format', 'json', '--run', join(dir, 'report-runs', pair)],
          { env: env() },
        );
        expect(reported.code, reported.stderr).toBe(0);
        const native = reportFigures(JSON.parse(reported.stdout));
        for (const runDir of [join(dir, 'score-runs', pair), join(dir, 'report-runs', pair)]) {
          const run = await readRun(runDir);
          expect(run.manifest.system).toBe(pair);
          expect(values(run.manifest.metrics)).toStrictEqual(native);
          expect(runBenchmark.recompute(run.items, run.manifest.variant)).toStrictEqual(native);
          // the items as the package makes them from the files on disk
          expect(run.items).toStrictEqual(
            JSON.parse(JSON.stringify(scorekeepingRunItems(await loadRunEpisodes(copy), { runDir }))),
          );
        }
        // scores.json re-written byte for byte as clembench wrote them
        expect((await runCli(['scorekeeping', 'score', copy, '--check'], { env: env() })).code).toBe(0);
      }
      // an episode stopped by a player failure (dialeval's `Abort Reason` in its transcript): a failed item, out of every
      // metric, as the package makes it from the files
      const copy = join(dir, 'rescored', 'claude-3-5-sonnet-20241022-t0.0--claude-3-5-sonnet-20241022-t0.0');
      const [episode] = await loadRunEpisodes(copy);
      const file = join(dirname(episode!.file), 'interactions.json');
      writeFileSync(
        file,
        JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), 'Abort Reason': 'player failure: scripted' }),
      );
      const runDir = join(dir, 'score-runs', 'player-failure');
      expect((await runCli(['scorekeeping', 'score', copy, '--run', runDir], { env: env() })).code).toBe(0);
      const run = await readRun(runDir);
      expect(run.items[0]!.error).toBe('the player failed: player failure: scripted');
      expect(run.manifest.metrics['% Played']!.n).toBe(0);
      expect(run.items).toStrictEqual(
        JSON.parse(JSON.stringify(scorekeepingRunItems(await loadRunEpisodes(copy), { runDir }))),
      );
    },
  );

  it('dialeval report of a play --out run and of a score --run run elsewhere: every episode with its transcript and probes, read back by location', async () => {
    const out = join(dir, 'report-loc');
    const sel = ['--experiments', 'travel-booking,letter-number', '--episodes', '0-1'];
    expect(
      (await runCli(['scorekeeping', 'play', '--player', 'mock', '--out', out, ...sel], { env: env() })).code,
    ).toBe(0);
    const pairDir = join(out, 'mock-t0.0--mock-t0.0');
    const scoreRun = join(dir, 'report-loc-score-run');
    const scored = await runCli(['scorekeeping', 'score', pairDir, '--run', scoreRun], { env: env() });
    expect(scored.code, scored.stderr).toBe(0);
    // the detail the items embed when they are written without a run directory
    const episodes = await loadRunEpisodes(pairDir);
    const embedded = JSON.parse(JSON.stringify(scorekeepingRunItems(episodes))) as RunItem[];
    expect(embedded.every((i) => Array.isArray(i.detail!.transcript) && Array.isArray(i.detail!.probes))).toBe(true);
    for (const [runDir, location] of [
      [pairDir, (f: string) => relative(pairDir, f).split(sep).join('/')],
      [scoreRun, (f: string) => f],
    ] as const) {
      const run = await readRun(runDir);
      // the items as the package makes them from the files on disk (score --run takes the scores it wrote from memory)
      expect(run.items).toStrictEqual(JSON.parse(JSON.stringify(scorekeepingRunItems(episodes, { runDir }))));
      // items.jsonl keeps each transcript by location only
      expect(run.items.map((i) => i.detail)).toStrictEqual(
        embedded.map(({ detail: { probes: _p, transcript: _t, ...small } = {} }, k) => ({
          ...small,
          interactions: location(join(dirname(episodes[k]!.file), 'interactions.json')),
        })),
      );
      const html = join(dir, `report-loc-${basename(runDir)}.html`);
      const r = await runCli(['report', runDir, '--out', html], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      const data = embeddedReportData(html);
      expect(data.runs[0].items).toStrictEqual(
        embedded.map((i, k) => ({ ...i, detail: { ...i.detail, interactions: run.items[k]!.detail!.interactions } })),
      );
      // compare and the metrics see the run as recorded
      expect(data.runs[0].manifest).toStrictEqual(run.manifest);
    }
    // a transcript that is gone: the report is still written, that episode with its location and no transcript
    rmSync(join(dirname(episodes[0]!.file), 'interactions.json'));
    const html = join(dir, 'report-loc-missing.html');
    const r = await runCli(['report', scoreRun, '--out', html], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const items = embeddedReportData(html).runs[0].items as RunItem[];
    expect(items[0]).toStrictEqual((await readRun(scoreRun)).items[0]);
    expect(items[0]!.detail!.transcript).toBeUndefined();
    expect(items.slice(1).map((i) => i.detail!.transcript)).toStrictEqual(
      embedded.slice(1).map((i) => i.detail!.transcript),
    );
  });

  itScorekeeping('--run is refused for a single episode and with --check (exit 2)', async () => {
    const ep = join(
      EPISODES,
      'claude-3-5-sonnet-20241022-t0.0--claude-3-5-sonnet-20241022-t0.0',
      '1_job-interview',
      'episode_1',
    );
    expect((await runCli(['scorekeeping', 'score', ep, '--run', join(dir, 'x')], { env: env() })).code).toBe(2);
    expect(
      (await runCli(['scorekeeping', 'score', EPISODES, '--check', '--run', join(dir, 'y')], { env: env() })).code,
    ).toBe(2);
  });
});
