import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunItem, startRun } from '@eval/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { probeResolved, runCli } from './cli';

// Synthetic runs of a third-party benchmark (`my-qa`, unknown to dialeval): one item per question, `correct` boolean.
const root = mkdtempSync(join(tmpdir(), 'dialeval-runs-'));
const runsDir = join(root, 'runs');
const dirs: Record<string, string> = {};
const project = join(root, 'project');

async function writeRun(
  name: string,
  correct: Array<boolean | 'error'>,
  init: { variant?: string; benchmark?: string; unfinished?: boolean; package?: string } = {},
) {
  const dir = join(init.package ? join(root, 'pkg-runs') : runsDir, init.benchmark ?? 'my-qa', name);
  const run = await startRun(dir, {
    benchmark: init.benchmark ?? 'my-qa',
    variant: init.variant ?? 'v1',
    system: name,
    ...(init.package ? { package: init.package } : {}),
  });
  dirs[name] = dir;
  if (init.unfinished) return;
  const items = correct.map(
    (c, i): RunItem =>
      c === 'error' ? { id: `q${i + 1}`, values: {}, error: 'HTTP 500' } : { id: `q${i + 1}`, values: { correct: c } },
  );
  const evaluated = items.filter((i) => i.error === undefined);
  const accuracy = evaluated.filter((i) => i.values.correct === true).length / evaluated.length;
  // a ratio (0-1) as the run record declares it: shown in percent
  await run.finish({ items, metrics: { correct: { value: accuracy, n: evaluated.length, unit: 'ratio' } } });
}

beforeAll(async () => {
  // base: q1..q8 = 1 1 0 0 1 0 1 0 (4/8); better: 1 1 1 1 1 0 1 0 (6/8) -> flips q3, q4 (0 -> 1), none 1 -> 0
  await writeRun('base', [true, true, false, false, true, false, true, false]);
  await writeRun('better', [true, true, true, true, true, false, true, false]);
  await writeRun('flaky', [true, true, true, true, true, false, true, 'error']);
  await writeRun('other-variant', [true, true, true, true, true, false, true, false], { variant: 'v2' });
  await writeRun('stopped', [], { unfinished: true });
  await writeRun('elsewhere', [true, false], { benchmark: 'other-bench' });
  // runs whose run.json names their package, `my-qa-bench`, installed in the user's project (not beside dialeval)
  await writeRun('pkgBase', [true, true, false, false, true, false, true, false], { package: 'my-qa-bench' });
  await writeRun('pkgBetter', [true, true, true, true, true, false, true, false], { package: 'my-qa-bench' });
  const pkg = join(project, 'node_modules', 'my-qa-bench');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'my-qa-bench', type: 'module', main: 'index.js' }));
  writeFileSync(
    join(pkg, 'index.js'),
    `export const runBenchmark = { benchmark: 'my-qa', package: 'my-qa-bench', binary: { correct: 'correct' }, recompute(items) {
      const ok = items.filter((i) => !i.error);
      return { correct: ok.filter((i) => i.values.correct).length / ok.length };
    } };\n`,
  );
});

describe('dialeval compare (third-party benchmark, mean of item values)', () => {
  it('table: first line says complete, the metric row has A, B, B - A and the McNemar p', async () => {
    const r = await runCli(['compare', '--fallback-item-means', dirs.base!, dirs.better!, '--resamples', '500']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('complete: every run complete, every unit paired -- my-qa (v1), 500 resamples, seed 0');
    // A = 4/8, B = 6/8, B - A = 0.25; McNemar b = 0, c = 2: p = min(1, 2 * P[X <= 0]) = 2 * 1/4 = 0.5
    // the verdict above the table: B - A = 25 points, not significant (McNemar p = 0.5 >= 0.05); 8 items paired
    expect(lines[2]).toMatch(
      /^better scores 25\.0 points higher than base on correct; the difference is not significant \(95% CI -?\d+\.\d to \d+\.\d; paired, 8 items; p = 0\.50, McNemar\)$/,
    );
    // figures as the run declares them (a ratio: percent, one decimal; B - A in points)
    const row = lines.find((l) => l.startsWith('A -> B  correct'))!;
    expect(row.split(/\s{2,}/).slice(0, 5)).toEqual(['A -> B', 'correct', '50.0%', '75.0%', '+25.0']);
    expect(row.split(/\s{2,}/).slice(7)).toEqual(['0.5000', '0.5000', '0/2']); // p (McNemar), p (Holm: one metric), flips
  });

  it('json: every figure, flipped ids, seed and R; reproducible', async () => {
    const args = [
      'compare',
      '--fallback-item-means',
      dirs.base!,
      dirs.better!,
      '--resamples',
      '300',
      '--seed',
      '5',
      '--format',
      'json',
    ];
    const r = await runCli(args);
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout);
    expect([c.partial, c.resamples, c.seed, c.recomputedBy]).toEqual([false, 300, 5, 'mean of item values']);
    const m = c.pairs[0].metrics[0];
    expect(m.flipped).toEqual({ oneToZero: [], zeroToOne: ['q3', 'q4'] });
    expect(m.mcnemar).toEqual({ outcome: 'correct', b: 0, c: 2, p: 0.5 });
    expect((await runCli(args)).stdout).toBe(r.stdout);
  });

  it('a partial run: the first line says partial; csv and markdown', async () => {
    const t = await runCli(['compare', '--fallback-item-means', dirs.base!, dirs.flaky!, '--resamples', '200']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout.split('\n')[0]).toMatch(/^partial: B is partial \(1 failed of 8\); A\/B: 1 unit\(s\) unpaired/);
    const md = await runCli([
      'compare',
      '--fallback-item-means',
      dirs.base!,
      dirs.flaky!,
      '--resamples',
      '200',
      '--format',
      'markdown',
    ]);
    expect(md.stdout.split('\n')[0]).toMatch(/^partial: /);
    expect(md.stdout).toContain('| pair | metric | A | B | B - A |');
    const csv = await runCli([
      'compare',
      '--fallback-item-means',
      dirs.base!,
      dirs.flaky!,
      '--resamples',
      '200',
      '--format',
      'csv',
    ]);
    const [header, row] = csv.stdout.trim().split('\n');
    expect(header!.split(',').slice(0, 8)).toEqual([
      'run_a',
      'run_b',
      'system_a',
      'system_b',
      'metric',
      'a',
      'b',
      'delta',
    ]);
    expect(row!.split(',').slice(2, 5)).toEqual(['base', 'flaky', 'correct']);
    expect(row).toContain(',7,1,true,200,0'); // paired, unpaired, partial, resamples, seed
  });

  it('without a descriptor the runs are refused (exit 2), naming the benchmark and the flag', async () => {
    const r = await runCli(['compare', dirs.base!, dirs.better!, '--resamples', '10']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot recompute the metrics of benchmark "my-qa".*--fallback-item-means/);
    expect(r.stdout).toBe('');
  });

  it('a package named in run.json is found in the current directory (a third-party benchmark)', async () => {
    const args = ['compare', dirs.pkgBase!, dirs.pkgBetter!, '--resamples', '10', '--format', 'json'];
    const r = await runCli(args, { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).recomputedBy).toBe('my-qa-bench');
    expect((await runCli(args, { cwd: root })).code).toBe(2); // not installed there
  });

  it('--recompute MODULE supplies the benchmark (a RunBenchmark export)', async () => {
    const mod = join(root, 'my-qa.mjs');
    writeFileSync(
      mod,
      `export const runBenchmark = { benchmark: 'my-qa', binary: {}, recompute(items) {
        const ok = items.filter((i) => !i.error);
        return { correct: ok.filter((i) => i.values.correct).length / ok.length };
      } };\n`,
    );
    const r = await runCli([
      'compare',
      dirs.base!,
      dirs.better!,
      '--resamples',
      '100',
      '--recompute',
      mod,
      '--format',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.recomputedBy).toBe(mod);
    expect(c.pairs[0].metrics[0].mcnemar).toBeNull(); // binary: {} turns McNemar off
    const bad = join(root, 'bad.mjs');
    writeFileSync(bad, 'export const x = 1;\n');
    const e = await runCli(['compare', '--fallback-item-means', dirs.base!, dirs.better!, '--recompute', bad]);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/exports no `runBenchmark`/);
  });

  it('refuses different variants or benchmarks (exit 2) unless --force', async () => {
    const r = await runCli(['compare', '--fallback-item-means', dirs.base!, dirs['other-variant']!]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${join(dirs['other-variant']!, 'run.json')}, field variant: cannot compare runs of different variants`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const b = await runCli(['compare', '--fallback-item-means', dirs.base!, dirs.elsewhere!]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/field benchmark: cannot compare runs of different benchmarks/);
    const f = await runCli([
      'compare',
      '--fallback-item-means',
      dirs.base!,
      dirs['other-variant']!,
      '--force',
      '--resamples',
      '50',
      '--format',
      'json',
    ]);
    expect(f.code, f.stderr).toBe(0);
    expect(JSON.parse(f.stdout).forced).toHaveLength(1);
  });

  it('bad input: an unfinished run, a missing directory, a broken items.jsonl line (exit 2)', async () => {
    const u = await runCli(['compare', '--fallback-item-means', dirs.base!, dirs.stopped!]);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/run\.json: no run\.json: not a run directory, or an unfinished run/);
    const m = await runCli(['compare', '--fallback-item-means', dirs.base!, join(root, 'nope')]);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/nope: no such run directory/);
    const broken = join(root, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'run.json'), readFileSync(join(dirs.base!, 'run.json')));
    writeFileSync(
      join(broken, 'items.jsonl'),
      '{"id":"q1","values":{"correct":true}}\n{"id":"q1","values":{"correct":false}}\n',
    );
    const d = await runCli(['compare', '--fallback-item-means', dirs.base!, broken]);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain(
      `${join(broken, 'items.jsonl')}, record 2, field id: duplicate item id "q1" (first on line 1)`,
    );
    expect((await runCli(['compare', dirs.base!])).code).toBe(2);
  });

  it('a damaged run (items.jsonl cut short, as a power loss can leave a run written without fsync) is bad input, not a smaller run (exit 2)', async () => {
    const damaged = join(root, 'damaged');
    mkdirSync(damaged);
    writeFileSync(join(damaged, 'run.json'), readFileSync(join(dirs.better!, 'run.json')));
    const lines = readFileSync(join(dirs.better!, 'items.jsonl'), 'utf8').split('\n');
    writeFileSync(join(damaged, 'items.jsonl'), `${lines.slice(0, 5).join('\n')}\n`);
    for (const argv of [
      ['compare', '--fallback-item-means', dirs.base!, damaged],
      ['report', damaged, '--out', join(root, 'damaged.html')],
    ]) {
      const r = await runCli(argv);
      expect(r.code, argv[0]).toBe(2);
      expect(r.stderr).toContain(
        `${join(damaged, 'items.jsonl')}: has 5 item line(s) where run.json's counts.items is 8: the run is damaged (cut short or edited); write it again`,
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(join(root, 'damaged.html'))).toBe(false);
  });
});

describe('dialeval multiwoz compare (the old spelling) on run directories', () => {
  it('is `dialeval compare` with --samples as R', async () => {
    const old = await runCli(
      ['multiwoz', 'compare', dirs.pkgBase!, dirs.pkgBetter!, '--samples', '200', '--seed', '3', '--format', 'json'],
      { cwd: project },
    );
    expect(old.code, old.stderr).toBe(0);
    expect(JSON.parse(old.stdout).recomputedBy).toBe('my-qa-bench');
    const now = await runCli(
      ['compare', dirs.pkgBase!, dirs.pkgBetter!, '--resamples', '200', '--seed', '3', '--format', 'json'],
      { cwd: project },
    );
    expect(old.stdout).toBe(now.stdout);
    const mixed = await runCli(['multiwoz', 'compare', dirs.base!, join(dirs.base!, 'items.jsonl')]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/two prediction files or two run directories/);
  });
});

describe('compare and runs load no benchmark package for a third-party benchmark', () => {
  it('only @eval/core is resolved', () => {
    for (const args of [
      ['compare', '--fallback-item-means', dirs.base!, dirs.better!, '--resamples', '10'],
      ['runs', runsDir],
    ]) {
      const r = probeResolved(args);
      expect(r.status, r.stderr).toBe(0);
      expect(r.packages).toEqual(['@eval/core']);
    }
  });
});

describe('dialeval runs', () => {
  it('table: every run with its status, unfinished ones as such', async () => {
    const r = await runCli(['runs', runsDir, '--benchmark', 'my-qa', '--sort', 'correct']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]!.split(/\s{2,}/)).toEqual([
      'benchmark',
      'variant',
      'system',
      'date',
      'status',
      'correct',
      'cost',
      'dir',
    ]);
    const systems = lines
      .slice(2)
      .filter((l) => l.startsWith('my-qa'))
      .map((l) => l.split(/\s{2,}/)[2]);
    // sorted by correct, highest first: flaky 6/7, better 6/8 = other-variant 6/8 (by dir), base 4/8; stopped has none
    expect(systems).toEqual(['flaky', 'better', 'other-variant', 'base', 'stopped']);
    expect(lines.find((l) => l.includes(' stopped '))).toMatch(/unfinished/);
    expect(lines.find((l) => l.includes(' flaky '))).toMatch(/partial \(1 failed, 0 skipped\)/);
    expect(r.stdout).toContain('5 run(s) under');
    expect(r.stdout).toContain('1 unfinished (no run.json)');
    // the metric as declared (a ratio in percent): flaky 6/7 = 85.7%, base 4/8 = 50.0%
    expect(lines.find((l) => l.includes(' flaky '))!.split(/\s{2,}/)[5]).toBe('85.7%');
    expect(lines.find((l) => l.includes(' base '))!.split(/\s{2,}/)[5]).toBe('50.0%');
  });

  it('html: one self-contained sortable page, one table per benchmark, runs linked to the report beside them', async () => {
    const report = join(dirs.base!, 'report.html');
    writeFileSync(report, '<!doctype html><title>base</title>');
    const out = join(root, 'pages', 'runs.html');
    const r = await runCli(['runs', runsDir, '--format', 'html', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;/);
    const data = JSON.parse(/id="report-data">([^<]*)</.exec(html)![1]!) as {
      rows: Array<{
        system: string;
        benchmark: string;
        report: string | null;
        metrics: Record<string, { text: string }>;
      }>;
    };
    expect([...new Set(data.rows.map((x) => x.benchmark))].sort()).toEqual(['my-qa', 'other-bench']);
    const base = data.rows.find((x) => x.system === 'base')!;
    expect(base.report).toBe(join('..', 'runs', 'my-qa', 'base', 'report.html')); // relative to the page
    expect(base.metrics.correct!.text).toBe('50.0%');
    expect(data.rows.find((x) => x.system === 'better')!.report).toBeNull();
  });

  it('json, csv and markdown; $DIALEVAL_RUNS is the default directory', async () => {
    const j = await runCli(['runs', '--format', 'json'], { env: { DIALEVAL_RUNS: runsDir } });
    expect(j.code, j.stderr).toBe(0);
    const rows = JSON.parse(j.stdout) as Array<{ system: string; status: string; benchmark: string }>;
    expect(rows.map((x) => `${x.benchmark}/${x.system}:${x.status}`).sort()).toEqual([
      'my-qa/base:complete',
      'my-qa/better:complete',
      'my-qa/flaky:partial',
      'my-qa/other-variant:complete',
      'my-qa/stopped:unfinished',
      'other-bench/elsewhere:complete',
    ]);
    const csv = await runCli(['runs', runsDir, '--format', 'csv', '--benchmark', 'other-bench']);
    expect(csv.stdout.trim().split('\n')).toEqual([
      'dir,benchmark,variant,system,created_at,status,evaluated,failed,skipped,cost_usd,correct',
      expect.stringMatching(/^.*elsewhere,other-bench,v1,elsewhere,\d{4}-.*,complete,2,0,0,,0\.5$/),
    ]);
    const md = await runCli(['runs', runsDir, '--format', 'markdown']);
    expect(md.stdout.split('\n')[0]).toBe('| benchmark | variant | system | date | status | metrics | cost | dir |');
  });

  it('a missing directory is bad input (exit 2)', async () => {
    const r = await runCli(['runs', join(root, 'nowhere')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nowhere: directory not found/);
  });
});
