import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@eval/llm/testing';
import { loadResourceDir, perfectAnswer, type GameResources } from '@eval/scorekeeping';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED, hasReferenceData, itWithReferenceData, runCli } from './cli';

const SK = join(SHARED, 'scorekeeping');
const HAS_SCOREKEEPING = hasReferenceData('scorekeeping');
const itScorekeeping = itWithReferenceData('scorekeeping');
const EPISODES = join(SK, 'episodes', 'v2.0');
const KEY_ENV = 'DIALEVAL_SCOREKEEPING_TEST_KEY';

let dir: string;
let server: TestServer;
/** The scripted outage of one restaurant request is on. */
let outage = true;
let canonical: GameResources;

/** Recorded episode directories (each holds interactions.json, scores.json, instance.json). */
function recorded(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name === 'interactions.json') out.push(d);
    }
  };
  walk(EPISODES);
  return out.sort();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dialeval-sk-cli-'));
  canonical = HAS_SCOREKEEPING ? await loadResourceDir(SK) : undefined!;
  server = await startTestServer({
    respond: (req) => {
      const last = req.messages[req.messages.length - 1]!.content;
      // A scripted outage for one request of restaurant episodes: a player failure mid-episode.
      if (outage && last.includes('WAITER:') && req.messages.length === 2 + 2 * 2 + 1)
        return { status: 500, error: 'scripted outage' };
      return perfectAnswer(req.messages, canonical);
    },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ [KEY_ENV]: 'dummy-key', CI: '1', DIALEVAL_HOME: join(dir, 'home') });
const llmFlags = () => [
  '--base-url',
  server.baseURL,
  '--api-key-env',
  KEY_ENV,
  '--cache-dir',
  join(dir, 'cache'),
  '--model',
  'test-model',
];

describe('dialeval scorekeeping instances', () => {
  itScorekeeping('writes in/instances.json byte for byte from the canonical resources (stdout and --out)', async () => {
    const r = await runCli(['scorekeeping', 'instances', '--resources', SK], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(SK, 'in', 'instances.json'), 'utf8'));
    const out = join(dir, 'instances.json');
    const w = await runCli(['scorekeeping', 'instances', '--resources', SK, '--out', out], { env: env() });
    expect(w.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(SK, 'in', 'instances.json'), 'utf8'));
  });

  itScorekeeping(
    'the case-insensitive overlap check fails naming the file and field; --allow-overlaps warns',
    async () => {
      const r = await runCli(['scorekeeping', 'instances', '--resources', SK, '--check-values', 'case-insensitive'], {
        env: env(),
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/travel-booking\/slot_values\.json, field class\[0\]: overlapping slot values/);
      expect(r.stdout).toBe('');
      const w = await runCli(
        [
          'scorekeeping',
          'instances',
          '--resources',
          SK,
          '--check-values',
          'case-insensitive',
          '--allow-overlaps',
          '--per-experiment',
          '1',
        ],
        { env: env() },
      );
      expect(w.code).toBe(0);
      expect(w.stderr).toMatch(/warning: overlapping slot values \(case-insensitive\): travel-booking: "First"/);
    },
  );

  it('without resources it uses the labelled default texts', async () => {
    const r = await runCli(['scorekeeping', 'instances', '--per-experiment', '1', '--indent', '2'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/built-in DEFAULT texts/);
    expect(JSON.parse(r.stdout).experiments).toHaveLength(5);
  });

  itScorekeeping('a resource directory missing a file is a clear error (exit 2)', async () => {
    const res = join(dir, 'broken-resources');
    cpSync(join(SK, 'resources'), join(res, 'resources'), { recursive: true });
    unlinkSync(join(res, 'resources', 'texts', 'letter-number', 'requests.json'));
    const r = await runCli(['scorekeeping', 'instances', '--resources', res], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/letter-number\/requests\.json: missing file of the resource directory/);
  });
});

describe('dialeval scorekeeping score', () => {
  itScorekeeping(
    'prints a recorded episode’s scores.json exactly as clembench wrote it (stdout and --out)',
    async () => {
      // (every recorded episode is re-scored through the CLI by the results-directory test below)
      const dirs = recorded();
      expect(dirs.length).toBeGreaterThanOrEqual(3);
      const r = await runCli(['scorekeeping', 'score', join(dirs[0]!, 'interactions.json')], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(dirs[0]!, 'scores.json'), 'utf8'));
      const out = join(dir, 'one-scores.json');
      const w = await runCli(['scorekeeping', 'score', dirs[1]!, '--out', out], { env: env() });
      expect(w.code).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(dirs[1]!, 'scores.json'), 'utf8'));
    },
  );

  itScorekeeping(
    're-scores a results directory, writing scores.json beside every interactions.json; --check compares',
    async () => {
      const copy = join(dir, 'runs-copy');
      cpSync(EPISODES, copy, { recursive: true });
      for (const d of recorded()) unlinkSync(join(copy, d.slice(EPISODES.length), 'scores.json'));
      const r = await runCli(['scorekeeping', 'score', copy], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`scored ${recorded().length} episode(s)`);
      for (const d of recorded())
        expect(readFileSync(join(copy, d.slice(EPISODES.length), 'scores.json'), 'utf8')).toBe(
          readFileSync(join(d, 'scores.json'), 'utf8'),
        );
      const check = await runCli(['scorekeeping', 'score', EPISODES, '--check'], { env: env() });
      expect(check.code).toBe(0);
      expect(check.stdout).toContain(`${recorded().length} identical, 0 different`);
    },
  );

  itScorekeeping('a malformed interactions.json is an error naming the file and field (exit 2)', async () => {
    const bad = join(dir, 'bad-episode');
    mkdirSync(bad, { recursive: true });
    const logs = JSON.parse(readFileSync(join(recorded()[0]!, 'interactions.json'), 'utf8'));
    logs['Played Probe Rounds'] = 'six';
    writeFileSync(join(bad, 'interactions.json'), JSON.stringify(logs));
    const r = await runCli(['scorekeeping', 'score', bad], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /bad-episode\/interactions\.json, field Played Probe Rounds|bad-episode\/interactions\.json, field \["Played Probe Rounds"\]/,
    );
    writeFileSync(join(bad, 'interactions.json'), '{"probes": [');
    const j = await runCli(['scorekeeping', 'score', join(bad, 'interactions.json')], { env: env() });
    expect(j.code).toBe(2);
    expect(j.stderr).toMatch(/interactions\.json: invalid JSON/);
  });
});

describe('dialeval scorekeeping play and report', () => {
  it('plays the programmatic perfect player on the default texts, resumes, and reports', async () => {
    const out = join(dir, 'run-perfect');
    const args = [
      'scorekeeping',
      'play',
      '--player',
      'perfect',
      '--out',
      out,
      '--experiments',
      'travel-booking,things-places',
      '--episodes',
      '0-1',
    ];
    const r = await runCli(args, { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/4 episode\(s\) in .*perfect-t0\.0--perfect-t0\.0: 4 played, 0 already done, 0 aborted/);
    expect(r.stdout).toMatch(/privateshared\s+perfect-t0\.0--perfect-t0\.0\s+4\s+100\.00\s+100\.00\s+0\.00/);
    const again = await runCli([...args, '--format', 'json', '--summary', join(dir, 'summary.json')], { env: env() });
    expect(again.code).toBe(0);
    const summary = JSON.parse(again.stdout);
    expect(summary.skipped).toBe(4);
    expect(summary.resourcesAreDefaults).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).report.games[0].quality).toBe(100);
    const report = await runCli(['scorekeeping', 'report', out, '--format', 'json'], { env: env() });
    expect(report.code).toBe(0);
    const parsed = JSON.parse(report.stdout);
    expect(parsed.models).toEqual([
      { model: 'perfect-t0.0--perfect-t0.0', averagePlayed: 100, averageQuality: 100, clemscore: 100 },
    ]);
    expect(parsed.experiments.map((e: { experiment: string }) => e.experiment)).toEqual([
      '0_travel-booking',
      '3_things-places',
    ]);
  });

  itScorekeeping(
    'plays against an OpenAI-compatible endpoint through @eval/llm; an episode stopped by failed calls is errored, not scored, and played again',
    async () => {
      const out = join(dir, 'run-llm');
      const pair = join(out, 'test-model-t0.0--test-model-t0.0', 'privateshared');
      const args = [
        'scorekeeping',
        'play',
        ...llmFlags(),
        '--cache',
        'off',
        '--max-attempts',
        '1',
        '--resources',
        SK,
        '--out',
        out,
        '--experiments',
        'travel-booking,restaurant,letter-number',
        '--episodes',
        '0',
      ];
      const r = await runCli([...args, '--format', 'json'], { env: env() });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /error: restaurant\/episode_0: experiment restaurant episode 0: player failure: HTTP 500/,
      );
      expect(r.stderr).toMatch(
        /1 episode\(s\) errored .*not counted in % Played.*run the same command again to resume/s,
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
      // the errored episode has no transcript or scores at the final paths, only the marker naming the reason
      expect(existsSync(join(pair, '2_restaurant', 'episode_0', 'scores.json'))).toBe(false);
      expect(existsSync(join(pair, '2_restaurant', 'episode_0', 'interactions.json'))).toBe(false);
      expect(JSON.parse(readFileSync(join(pair, '2_restaurant', 'episode_0', 'errored.json'), 'utf8')).reason).toMatch(
        /^player failure: HTTP 500/,
      );
      const logs = JSON.parse(readFileSync(join(pair, '0_travel-booking', 'episode_0', 'interactions.json'), 'utf8'));
      expect(logs.players['Player 1']).toBe('Answerer: test-model');
      expect(JSON.stringify(logs)).not.toContain('dummy-key');
      expect(readFileSync(join(pair, '0_travel-booking', 'episode_0', 'requests.json'), 'utf8')).not.toContain(
        'dummy-key',
      );
      // report refuses the incomplete results; --allow-partial reports the two scored episodes and says PARTIAL
      const refused = await runCli(['scorekeeping', 'report', out], { env: env() });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /refusing to report incomplete results: 1 episode\(s\) were stopped by failed calls/,
      );
      const partial = await runCli(['scorekeeping', 'report', out, '--allow-partial', '--format', 'json'], {
        env: env(),
      });
      expect(partial.code).toBe(0);
      expect(partial.stderr).toMatch(/^PARTIAL: /m);
      const pr = JSON.parse(partial.stdout);
      expect(pr.games[0]).toMatchObject({
        model: 'test-model-t0.0--test-model-t0.0',
        episodes: 2,
        played: 100,
        quality: 100,
      });
      expect(pr.errored).toHaveLength(1);
      // resume with the outage still on: finished episodes are skipped, only the errored one is played again: round 0
      // (5 probes), rounds 1 and 2 (1 + 5 each), then the round-3 request (7 messages) fails again
      let before = server.chatRequests().length;
      const again = await runCli([...args, '--format', 'json'], { env: env() });
      expect(again.code).toBe(1);
      expect(server.chatRequests().length - before).toBe(5 + 6 + 6 + 1);
      // the outage is over: the episode is played to the end, the marker removed, exit 0
      outage = false;
      try {
        before = server.chatRequests().length;
        const third = await runCli([...args, '--format', 'json'], { env: env() });
        expect(third.code, third.stderr).toBe(0);
        const s3 = JSON.parse(third.stdout);
        expect(s3.skipped).toBe(2);
        expect(s3.played).toBe(1);
        expect(s3.playerFailures).toBe(0);
        // a 5-slot episode without re-prompts: 5 requests + 6 probe rounds of 5 probes
        expect(server.chatRequests().length - before).toBe(5 + 6 * 5);
        expect(s3.episodes.find((e: { experiment: string }) => e.experiment === 'restaurant').mainScore).toBe(100);
        expect(existsSync(join(pair, '2_restaurant', 'episode_0', 'errored.json'))).toBe(false);
        expect((await runCli(['scorekeeping', 'report', out], { env: env() })).code).toBe(0);
      } finally {
        outage = true;
      }
    },
  );

  itScorekeeping(
    'report groups by model on the layout without a privateshared level, and refuses two models under one name',
    async () => {
      const r = await runCli(['scorekeeping', 'report', EPISODES, '--format', 'json'], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout);
      const models = readdirSync(EPISODES).sort();
      expect(report.games.map((g: { model: string }) => g.model)).toEqual(models);
      for (const model of models) {
        // one recorded episode per model: % Played = 100 x (1 - Aborted), Quality Score = its Main Score (2 decimals)
        const [file] = recorded()
          .filter((d) => d.includes(model))
          .map((d) => join(d, 'scores.json'));
        const e = JSON.parse(readFileSync(file!, 'utf8').replace(/\bNaN\b/g, 'null'))['episode scores'];
        const row = report.games.find((g: { model: string }) => g.model === model);
        expect(row.episodes).toBe(1);
        expect(row.played).toBe(100 * (1 - e.Aborted));
        expect(row.quality).toBe(e['Main Score'] === null ? null : Math.round(e['Main Score'] * 100) / 100);
      }
      // pointed at one model's directory, the model pair is that directory's name, never a blank
      const one = await runCli(['scorekeeping', 'report', join(EPISODES, models[0]!), '--format', 'json'], {
        env: env(),
      });
      expect(one.code).toBe(0);
      expect(JSON.parse(one.stdout).games.map((g: { model: string }) => g.model)).toEqual([models[0]]);
      // two models' episodes under one model-pair name: refused, not pooled
      const mixed = join(dir, 'mixed', 'some-model-t0.0--some-model-t0.0');
      cpSync(join(EPISODES, models[0]!), mixed, { recursive: true });
      cpSync(join(EPISODES, models[1]!), mixed, { recursive: true });
      const bad = await runCli(['scorekeeping', 'report', join(dir, 'mixed')], { env: env() });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(
        /episodes of 2 different models .* would be reported under one name "some-model-t0\.0--some-model-t0\.0"/,
      );
    },
  );

  itScorekeeping(
    '--repeats 2: finished episodes are kept, repeat 1 plays into <out>.repeat1; figures as mean ± std',
    async () => {
      const out = join(dir, 'run-repeats');
      const args = [
        'scorekeeping',
        'play',
        ...llmFlags(),
        '--cache-dir',
        join(dir, 'cache-repeats'),
        '--resources',
        SK,
        '--out',
        out,
        '--experiments',
        'travel-booking',
        '--episodes',
        '0',
      ];
      const first = await runCli(args, { env: env() });
      expect(first.code, first.stderr).toBe(0);
      const before = server.chatRequests().length;
      const r = await runCli([...args, '--repeats', '2', '--format', 'json'], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      // repeat 0 is finished (skipped, no call); repeat 1 plays the 5-slot episode: 5 requests + 6 rounds x 5 probes
      expect(server.chatRequests().length - before).toBe(5 + 6 * 5);
      expect(
        existsSync(
          join(
            `${out}.repeat1`,
            'test-model-t0.0--test-model-t0.0',
            'privateshared',
            '0_travel-booking',
            'episode_0',
            'scores.json',
          ),
        ),
      ).toBe(true);
      const res = JSON.parse(r.stdout);
      // the perfect player wins both repeats: clemscore 100 each (100 % played x quality 100 / 100), std 0
      expect(res.repeats.clemscore).toEqual({ values: [100, 100], mean: 100, std: 0 });
      expect(res.repeats.dirs).toEqual([out, `${out}.repeat1`]);
    },
  );

  itScorekeeping(
    '--dry-run counts calls from the game structure (no re-prompt / every re-prompt) and writes nothing',
    async () => {
      const out = join(dir, 'run-dry');
      const before = server.chatRequests().length;
      const r = await runCli(
        [
          'scorekeeping',
          'play',
          ...llmFlags(),
          '--dry-run',
          '--resources',
          SK,
          '--out',
          out,
          '--experiments',
          'job-interview',
          '--episodes',
          '0-2',
        ],
        { env: env() },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/dry run: 3 episode\(s\) planned/);
      // job-interview has 5 slots: 5 requests + 6 rounds x 5 probes = 35 calls per episode; 5 x 30 probes + 5 at most
      expect(r.stdout).toMatch(new RegExp(`realistic: ${3 * 35} calls `));
      expect(r.stdout).toMatch(new RegExp(`upper bound: ${3 * (5 + 5 * 30)} calls `));
      expect(server.chatRequests().length).toBe(before);
      expect(existsSync(out)).toBe(false);
    },
  );

  itScorekeeping(
    '--replay plays the recorded Answerer outputs again: same transcript (but timestamps) and same scores.json',
    async () => {
      const out = join(dir, 'run-replay');
      const strip = (file: string) => {
        const logs = JSON.parse(readFileSync(file, 'utf8'));
        logs.turns = logs.turns.map((t: Array<{ timestamp?: string }>) => t.map(({ timestamp: _t, ...rest }) => rest));
        return logs;
      };
      for (const model of readdirSync(EPISODES)) {
        const r = await runCli(
          ['scorekeeping', 'play', '--replay', join(EPISODES, model), '--resources', SK, '--out', out],
          { env: env() },
        );
        expect(r.code, r.stderr).toBe(0);
      }
      for (const d of recorded()) {
        const [model, experiment, episode] = d.slice(EPISODES.length + 1).split(/[\\/]/);
        const mine = join(out, model!, 'privateshared', experiment!, episode!);
        expect(readFileSync(join(mine, 'scores.json'), 'utf8')).toBe(readFileSync(join(d, 'scores.json'), 'utf8'));
        expect(strip(join(mine, 'interactions.json'))).toEqual(strip(join(d, 'interactions.json')));
      }
      const several = await runCli(['scorekeeping', 'play', '--replay', EPISODES, '--resources', SK, '--out', out], {
        env: env(),
      });
      expect(several.code).toBe(2);
      expect(several.stderr).toMatch(/holds several models/);
    },
  );

  it('rejects contradictory flags and unknown experiments (exit 2)', async () => {
    const a = await runCli(['scorekeeping', 'play', '--player', 'perfect', '--model', 'x', '--out', join(dir, 'x')], {
      env: env(),
    });
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/--player and --model are exclusive/);
    const b = await runCli(
      ['scorekeeping', 'play', '--player', 'perfect', '--experiments', 'chess', '--out', join(dir, 'x')],
      { env: env() },
    );
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/unknown experiment\(s\): chess/);
    const c = await runCli(['scorekeeping', 'report', join(dir, 'nothing-here')], { env: env() });
    expect(c.code).toBe(2);
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });
});

describe('dialeval demo --only scorekeeping', () => {
  it('perfect vs mock on the default experiments, no network', async () => {
    const r = await runCli(['demo', '--only', 'scorekeeping', '--format', 'json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const data = JSON.parse(r.stdout).scorekeeping;
    expect(data.perfect).toMatchObject({ episodes: 10, played: 100, quality: 100 });
    expect(data.mock.played).toBeLessThan(100);
  });
});
