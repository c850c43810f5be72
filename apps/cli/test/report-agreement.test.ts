import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunItem, startRun } from '@eval/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli';

// Two judge runs of one system (a third-party benchmark `my-qa`, the verdict `correct`, eight answers of three users),
// labelled as a judge panel labels them (`options.judge`), and a run of another system. The report of the two judge
// runs carries the agreement `dialeval agreement` computes; runs of different systems carry none.
// my-qa has no descriptor package: its metrics are the means of its item values, which must be asked for.
const root = mkdtempSync(join(tmpdir(), 'dialeval-report-agreement-'));
const CLUSTERS = ['u1', 'u1', 'u1', 'u2', 'u2', 'u3', 'u3', 'u3'];
const dirs: Record<string, string> = {};

async function writeRun(name: string, system: string, verdicts: number[], judge?: string) {
  const dir = join(root, name);
  const run = await startRun(dir, {
    benchmark: 'my-qa',
    variant: 'v1',
    system,
    ...(judge !== undefined ? { options: { judge } } : {}),
  });
  const items = verdicts.map(
    (v, i): RunItem => ({ id: `q${i + 1}`, cluster: CLUSTERS[i]!, values: { correct: v === 1 } }),
  );
  await run.finish({
    items,
    metrics: { correct: { value: verdicts.filter((v) => v === 1).length / verdicts.length, n: verdicts.length } },
  });
  dirs[name] = dir;
}

/** The JSON the report embeds (one script tag). */
function embedded(file: string) {
  const m = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(readFileSync(file, 'utf8'));
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!);
}

beforeAll(async () => {
  await writeRun('judge-a', 'assistant', [1, 1, 0, 1, 0, 1, 1, 0], 'judge-a');
  await writeRun('judge-b', 'assistant', [1, 0, 0, 1, 0, 1, 1, 1], 'judge-b');
  await writeRun('other', 'other-system', [1, 0, 0, 1, 0, 1, 1, 1]);
});

describe('dialeval report of judge runs', () => {
  it('two judges of one system: the agreement section with the kappa and alpha of dialeval agreement', async () => {
    const flags = ['--resamples', '300', '--seed', '3', '--fallback-item-means'];
    const out = join(root, 'judges.html');
    const r = await runCli(['report', dirs['judge-a']!, dirs['judge-b']!, '--out', out, ...flags]);
    expect(r.code, r.stderr).toBe(0);
    const a = await runCli(['agreement', dirs['judge-a']!, dirs['judge-b']!, '--format', 'json', ...flags]);
    expect(a.code, a.stderr).toBe(0);
    const j = JSON.parse(a.stdout);
    const page = embedded(out);
    // the report names the judges by the panel's labels; agreement (no label option) by their directories
    expect(page.agreement.judges.map((x: { name: string }) => x.name)).toEqual(['judge-a', 'judge-b']);
    expect(page.agreement.pairs[0].kappa).toBe(j.pairs[0].kappa.toFixed(3));
    // by hand (as in agreement.test.ts): both give true to 5 of 8 and agree on 6, kappa = (6/8 - 34/64) / (30/64) = 7/15
    expect(page.agreement.pairs[0].kappa).toBe('0.467');
    expect(page.agreement.pairs[0].baseRatesA).toBe('false 37.5% / true 62.5%');
    expect(page.agreement.alpha.value).toBe(j.alpha.value.toFixed(3));
    expect(page.agreement.alpha.ci).toBe(`${j.alpha.ci[0].toFixed(3)} to ${j.alpha.ci[1].toFixed(3)}`);
    expect(page.agreement.flipMatrix).toEqual(
      j.flipMatrix.map((row: number[], i: number) => row.map((x, k) => (i === k ? '—' : String(x)))),
    );
    expect(page.agreement.pairs[0].flipped.map((f: { id: string }) => f.id)).toEqual(
      j.pairs[0].flips.map((f: { id: string }) => f.id),
    );
    // the comparison is there as before
    expect(page.comparison.pairs).toHaveLength(1);
  });

  it('runs of different systems: no agreement section', async () => {
    const out = join(root, 'systems.html');
    const r = await runCli(['report', dirs['judge-a']!, dirs.other!, '--out', out, '--fallback-item-means']);
    expect(r.code, r.stderr).toBe(0);
    expect(embedded(out).agreement).toBeNull();
  });
});
