import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunItem, startRun } from '@eval/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli';

// Three judge runs of a third-party benchmark (`my-qa`, mean of item values) over eight answers of three users,
// the verdict `correct`; C did not judge q8 (null). The same verdicts as core's agreement.test.ts, where kappa, alpha
// and the flips are derived by hand:
//   A: 1 1 0 1 0 1 1 0    B: 1 0 0 1 0 1 1 1    C: 1 1 0 0 0 1 1 .
// kappa A-B = 7/15, A-C = 16/23, B-C = 5/12; nominal alpha = 10/21; flips A-B q2 (1 > 0), q8 (0 > 1).
// my-qa has no descriptor package: its metrics are the means of its item values, which must be asked for.
const cli = (args: string[]) => runCli([...args, '--fallback-item-means']);
const root = mkdtempSync(join(tmpdir(), 'dialeval-agreement-'));
const CLUSTERS = ['u1', 'u1', 'u1', 'u2', 'u2', 'u3', 'u3', 'u3'];
const VERDICTS: Record<string, Array<number | null>> = {
  A: [1, 1, 0, 1, 0, 1, 1, 0],
  B: [1, 0, 0, 1, 0, 1, 1, 1],
  C: [1, 1, 0, 0, 0, 1, 1, null],
};
const dirs: Record<string, string> = {};

beforeAll(async () => {
  for (const [judge, verdicts] of Object.entries(VERDICTS)) {
    const dir = join(root, judge);
    const run = await startRun(dir, { benchmark: 'my-qa', variant: 'v1', system: 'assistant' });
    const items = verdicts.map(
      (v, i): RunItem => ({ id: `q${i + 1}`, cluster: CLUSTERS[i]!, values: { correct: v === null ? null : v === 1 } }),
    );
    const judged = verdicts.filter((v) => v !== null);
    await run.finish({
      items,
      metrics: { correct: { value: judged.filter((v) => v === 1).length / judged.length, n: judged.length } },
    });
    dirs[judge] = dir;
  }
});

describe('dialeval agreement', () => {
  it('json: alpha, kappa, flips and the flip matrix as derived by hand', async () => {
    const r = await cli(['agreement', dirs.A!, dirs.B!, dirs.C!, '--value', 'correct', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.value).toBe('correct');
    expect(j.level).toBe('nominal');
    expect(j.alpha.value).toBeCloseTo(10 / 21, 14);
    expect(j.pairs.map((p: { kappa: number }) => p.kappa)).toEqual([
      expect.closeTo(7 / 15, 14),
      expect.closeTo(16 / 23, 14),
      expect.closeTo(5 / 12, 14),
    ]);
    expect(j.pairs[0].flips).toEqual([
      { id: 'q2', a: true, b: false },
      { id: 'q8', a: false, b: true },
    ]);
    expect(j.flipMatrix).toEqual([
      [0, 2, 1],
      [2, 0, 2],
      [1, 2, 0],
    ]);
    expect([j.unit, j.clusters, j.items]).toEqual(['cluster', 3, 8]);
    expect(j.recomputedBy).toBe('mean of item values');
    // The metric under each judge, on the 7 items every run evaluated (C has no verdict on q8: mean over 7 there).
    const correct = j.metrics.find((m: { name: string }) => m.name === 'correct');
    expect(correct.values).toEqual([5 / 8, 5 / 8, 4 / 7]);
  });

  it('table: the headline, kappa with base rates beside it, the flip matrix', async () => {
    // No --value: my-qa has no binary map, and `correct` is its boolean item value.
    const r = await cli(['agreement', dirs.A!, dirs.B!, '--resamples', '200']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(
      'agreement of 2 judges: my-qa, verdict "correct" (nominal), 8 items in 3 clusters, 200 resamples, seed 0',
    );
    // A and B both give true to 5 of 8 (62.5%): base rates beside kappa 7/15 = 0.467.
    const row = lines.find((l) => l.startsWith('A - B'))!;
    expect(row.split(/\s{2,}/).slice(0, 6)).toEqual([
      'A - B',
      '8',
      '75.0%',
      '0.467',
      'false 37.5% / true 62.5%',
      'false 37.5% / true 62.5%',
    ]);
    // Two judges: o00 = 4, o01 = o10 = 2, o11 = 8 (each unit's two values pair once each way); n0 = 6, n1 = 10, n = 16;
    // alpha = 1 - (n - 1) (o01 + o10) / (2 n0 n1) = 1 - 15 * 4 / 120 = 0.5.
    expect(r.stdout).toMatch(/Krippendorff's alpha \(nominal\): 0\.500 \[/);
  });

  it('--human FILE enters as one more judge (JSONL or a JSON map), csv and markdown', async () => {
    const jsonl = join(root, 'human.jsonl');
    writeFileSync(
      jsonl,
      `${VERDICTS.C!.flatMap((v, i) => (v === null ? [] : [JSON.stringify({ id: `q${i + 1}`, label: v })])).join('\n')}\n`,
    );
    const map = join(root, 'human.json');
    writeFileSync(
      map,
      JSON.stringify(Object.fromEntries(VERDICTS.C!.flatMap((v, i) => (v === null ? [] : [[`q${i + 1}`, v === 1]])))),
    );
    for (const file of [jsonl, map]) {
      const r = await cli([
        'agreement',
        dirs.A!,
        dirs.B!,
        '--value',
        'correct',
        '--human',
        file,
        '--format',
        'json',
        '--resamples',
        '100',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      // Runs without a judge model and of one system are named by their directories; the file is `human`.
      expect(j.judges.map((x: { name: string }) => x.name)).toEqual([dirs.A, dirs.B, 'human']);
      expect(j.alpha.value).toBeCloseTo(10 / 21, 14);
      expect(j.pairs[1].kappa).toBeCloseTo(16 / 23, 14);
    }
    const csv = await cli([
      'agreement',
      dirs.A!,
      dirs.B!,
      '--value',
      'correct',
      '--human',
      jsonl,
      '--format',
      'csv',
      '--resamples',
      '100',
    ]);
    expect(csv.code, csv.stderr).toBe(0);
    const rows = csv.stdout.trim().split('\n');
    expect(rows[0]).toBe('kind,judge_a,judge_b,name,value,ci_low,ci_high,n,detail');
    expect(rows.find((l) => l.startsWith('flips,') && l.includes(',human,'))).toMatch(/,1,,,7,q4:true>false$/);
    const md = await cli([
      'agreement',
      dirs.A!,
      dirs.B!,
      '--value',
      'correct',
      '--format',
      'markdown',
      '--resamples',
      '100',
    ]);
    expect(md.stdout).toContain('| pair | compared | agreement | kappa |');
  });

  it('bad input: a human label that is no verdict, a broken file, one judge (exit 2)', async () => {
    const bad = join(root, 'bad.jsonl');
    writeFileSync(bad, '{"id": "q1", "label": "maybe"}\n');
    const r = await cli(['agreement', dirs.A!, dirs.B!, '--value', 'correct', '--human', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.jsonl.*q1.*"maybe".*no boolean/);
    const broken = join(root, 'broken.jsonl');
    writeFileSync(broken, '{"id": "q1", "label": true}\nnot json\n');
    const b = await cli(['agreement', dirs.A!, '--value', 'correct', '--human', broken]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/broken\.jsonl, record 2: not JSON/);
    const one = await cli(['agreement', dirs.A!]);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/at least two judges/);
    expect(one.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('dialeval compare --unit (on the same clustered runs)', () => {
  it('resamples the 3 clusters by default, items with --unit item; the table says which', async () => {
    const json = async (...extra: string[]) => {
      const r = await cli(['compare', dirs.A!, dirs.B!, '--resamples', '200', '--format', 'json', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const clustered = await json();
    expect([clustered.unit, clustered.pairs[0].unit, clustered.pairs[0].clusters]).toEqual(['cluster', 'cluster', 3]);
    // A -> B per user: u1 (q1-q3) b = 1 (q2), u2 none, u3 c = 1 (q8): X2 = (1 - 1)^2 / (1 + 1) = 0, p = 1.
    expect(clustered.pairs[0].metrics[0].mcnemarClustered).toEqual({ b: 1, c: 1, clusters: 3, statistic: 0, p: 1 });
    const items = await json('--unit', 'item');
    expect([items.unit, items.pairs[0].clusters, items.pairs[0].metrics[0].mcnemarClustered]).toEqual([
      'item',
      8,
      null,
    ]);
    const table = await cli(['compare', dirs.A!, dirs.B!, '--resamples', '200']);
    expect(table.stdout).toContain(
      'A -> B: resampled by cluster: 3 clusters of 8 items (--unit item for independent items)',
    );
    expect(table.stdout).toContain('the exact McNemar p assumes independent items');
  });
});
