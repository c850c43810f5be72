import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunItem, formatMetricDifference, startRun } from '@eval/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli';

// Synthetic runs written with core's startRun (a third-party benchmark `my-qa`, one boolean `correct` per question);
// the browser-level checks of the HTML are in packages/report/test/browser.test.ts.
const root = mkdtempSync(join(tmpdir(), 'dialeval-report-'));
const dirs: Record<string, string> = {};

async function writeRun(
  name: string,
  correct: Array<boolean | 'error'>,
  init: { benchmark?: string; variant?: string; unfinished?: boolean } = {},
) {
  const dir = join(root, 'runs', name);
  const run = await startRun(dir, {
    benchmark: init.benchmark ?? 'my-qa',
    variant: init.variant ?? 'v1',
    system: name,
  });
  dirs[name] = dir;
  const items = correct.map(
    (c, i): RunItem =>
      c === 'error'
        ? { id: `q${i + 1}`, values: {}, error: 'HTTP 500' }
        : { id: `q${i + 1}`, values: { correct: c }, detail: { note: '</script><b>not markup</b>' } },
  );
  if (init.unfinished) {
    writeFileSync(join(dir, 'items.jsonl'), `${items.map((i) => JSON.stringify(i)).join('\n')}\n`);
    return;
  }
  const evaluated = items.filter((i) => i.error === undefined);
  await run.finish({
    items,
    metrics: {
      correct: {
        value: evaluated.filter((i) => i.values.correct === true).length / evaluated.length,
        n: evaluated.length,
      },
    },
  });
}

/** The JSON the report embeds (one script tag). */
function embedded(file: string) {
  const html = readFileSync(file, 'utf8');
  const m = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html);
  expect(m).not.toBeNull();
  return { html, data: JSON.parse(m![1]!) };
}

beforeAll(async () => {
  await writeRun('base', [true, true, false, false, true, false, true, false]);
  await writeRun('better', [true, true, true, true, true, false, true, false]);
  await writeRun('flaky', [true, true, true, 'error']);
  await writeRun('stopped', [true, false], { unfinished: true });
  await writeRun('elsewhere', [true, false], { benchmark: 'other-bench' });
  await writeRun('method-b', [true, true, true, true, true, false, true, false], { variant: 'v2' });
});

describe('dialeval report', () => {
  it('one run: writes one self-contained HTML file and prints its path', async () => {
    const out = join(root, 'one.html');
    const r = await runCli(['report', dirs.base!, '--out', out, '--title', 'Base <run>']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`report written to ${out}\n`);
    const { html, data } = embedded(out);
    const manifest = JSON.parse(readFileSync(join(dirs.base!, 'run.json'), 'utf8'));
    expect(data.runs[0].manifest).toEqual(manifest);
    expect(data.runs[0].items).toHaveLength(8);
    expect(html).toContain('<title>Base &#60;run&#62;</title>');
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;/);
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="(?!data:)/i); // nothing loaded from elsewhere
  });

  it('several runs: embeds the comparison dialeval compare computes (same R and seed)', async () => {
    const out = join(root, 'cmp.html');
    const r = await runCli([
      'report',
      dirs.base!,
      dirs.better!,
      '--out',
      out,
      '--resamples',
      '300',
      '--seed',
      '3',
      '--fallback-item-means',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const c = await runCli([
      'compare',
      '--fallback-item-means',
      dirs.base!,
      dirs.better!,
      '--resamples',
      '300',
      '--seed',
      '3',
      '--format',
      'json',
    ]);
    expect(c.code, c.stderr).toBe(0);
    const { recomputedBy: _source, verdicts, ...expected } = JSON.parse(c.stdout);
    const shown = embedded(out).data.comparison;
    expect([shown.resamples, shown.seed, shown.partial]).toEqual([expected.resamples, expected.seed, expected.partial]);
    // the same figures, written as the run declares them, and the same verdict sentences as compare prints
    const [m, e] = [shown.pairs[0].metrics[0], expected.pairs[0].metrics[0]];
    expect([m.name, m.flipped]).toEqual([e.name, e.flipped]);
    expect(m.delta).toBe(formatMetricDifference(e.delta, {}));
    expect(m.ci).toBe(`${formatMetricDifference(e.ci[0], {})} to ${formatMetricDifference(e.ci[1], {})}`);
    expect(
      shown.pairs.flatMap((p: { metrics: Array<{ verdict: string | null }> }) => p.metrics.map((x) => x.verdict)),
    ).toEqual(verdicts);
    expect(verdicts).toHaveLength(1);
  });

  it('several runs of different variants (e.g. two judging methods): shown side by side with a note, compared only with --force', async () => {
    const out = join(root, 'variants.html');
    const r = await runCli([
      'report',
      dirs.base!,
      dirs['method-b']!,
      '--out',
      out,
      '--resamples',
      '100',
      '--fallback-item-means',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Not compared: .*different variants.*--force compares them anyway/);
    const { data } = embedded(out);
    expect(data.comparison).toBeNull();
    expect(data.notes).toHaveLength(1);
    expect(data.runs.map((x: { label: string }) => x.label)).toEqual(['base', 'method-b']);
    const forced = await runCli([
      'report',
      dirs.base!,
      dirs['method-b']!,
      '--out',
      out,
      '--resamples',
      '100',
      '--force',
      '--fallback-item-means',
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(embedded(out).data.comparison.forced[0]).toMatch(/variant: "v2"/);
  });

  it('a partial run and an unfinished run are reported as such (stderr note, manifest null for the unfinished one)', async () => {
    const out = join(root, 'partial.html');
    const r = await runCli(['report', dirs.flaky!, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('is partial; the report shows it as such');
    expect(embedded(out).data.runs[0].manifest.status).toBe('partial');

    const out2 = join(root, 'stopped.html');
    const s = await runCli(['report', dirs.stopped!, '--out', out2]);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stderr).toContain('is unfinished');
    const { data } = embedded(out2);
    expect(data.runs[0].manifest).toBeNull();
    expect(data.runs[0].items.map((i: RunItem) => i.id)).toEqual(['q1', 'q2']);
    expect(data.runs[0].started.system).toBe('stopped');
  });

  it('runs of different benchmarks: exit 2, a clear error, nothing written', async () => {
    const out = join(root, 'mixed.html');
    const r = await runCli(['report', dirs.base!, dirs.elsewhere!, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /runs of different benchmarks cannot be mixed in one report: .*\(my-qa\), .*\(other-bench\)/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });

  it('a run of a newer schema version: exit 2 naming run.json and schemaVersion; a missing directory: exit 2', async () => {
    const dir = join(root, 'runs', 'future');
    await writeRun('future', [true]);
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...manifest, schemaVersion: 2 }));
    const out = join(root, 'future.html');
    const r = await runCli(['report', dir, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(dir, 'run.json'));
    expect(r.stderr).toMatch(/schemaVersion.*unknown run schema version 2/);
    expect(existsSync(out)).toBe(false);

    const m = await runCli(['report', join(root, 'nope'), '--out', out]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain('no such run directory');
    expect(readdirSync(root).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('dialeval demo ends with a report', () => {
  it("writes the llm-judge demo as a run and its report, prints the path; the figures are the demo's own", async () => {
    const out = join(root, 'demo', 'report.html');
    const r = await runCli(['demo', '--only', 'llm-judge', '--format', 'json', '--report', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`report written to ${out}`);
    const demo = JSON.parse(r.stdout)['llm-judge'];
    const { data } = embedded(out);
    expect(data.benchmark).toBe('llm-judge');
    expect(data.runs[0].manifest.metrics.TSA.value).toBe(demo.ours.tsaGpt);
    expect(data.runs[0].manifest.metrics['GPT-JGA'].value).toBe(demo.ours.gptJga);
    expect(data.runs[0].items.map((i: RunItem) => i.id)).toEqual(demo.turns.map((t: { flag: string }) => t.flag));
    const text = await runCli(['demo', '--only', 'llm-judge', '--report', join(root, 'demo2', 'r.html')]);
    expect(text.stdout).toContain(`== Report: open ${join(root, 'demo2', 'r.html')} in a browser`);
  });
});
