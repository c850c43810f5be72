import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, readRun } from '@eval/core';
import { runBenchmark } from '@eval/cgt';
import { expect, it } from 'vitest';
import { describeWithReferenceData, hasReferenceData, referencePath, runCli } from './cli';

const CGT = referencePath('cgt');
const HAS_CGT = hasReferenceData('cgt');
const PREDICTIONS = join(CGT, 'predictions');
const SETTINGS = ['dp-gpt3.5', 'dp-gpt4o', 'text-gpt3.5', 'text-mm-gpt3.5', 'vision-4o-mini'];
const expected = (HAS_CGT ? JSON.parse(readFileSync(join(CGT, 'expected.json'), 'utf8')) : undefined!) as {
  settings: Record<string, { macro_mean_dsc_strict: number; macro_mean_f1: number }>;
};
const work = mkdtempSync(join(tmpdir(), 'dialeval-cgt-run-'));
const env = { DIALEVAL_RUNS: '', DIALEVAL_CGT_DIR: '', DIALEVAL_HOME: join(work, 'home') };
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describeWithReferenceData('cgt')('dialeval cgt --run', () => {
  it('one setting: run.json, items.jsonl, the reference printout; native output unchanged; recompute(items) = run.json = expected.json', async () => {
    const plainOut = join(work, 'plain.txt');
    const plain = await runCli(['cgt', join(PREDICTIONS, 'dp-gpt4o'), '--format', 'reference', '--out', plainOut], {
      env,
    });
    expect(plain.code, plain.stderr).toBe(0);
    const runDir = join(work, 'run-dp-gpt4o');
    const out = join(work, 'with-run.txt');
    const r = await runCli(
      ['cgt', join(PREDICTIONS, 'dp-gpt4o'), '--format', 'reference', '--out', out, '--run', runDir],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(plainOut, 'utf8'));
    expect(readFileSync(join(runDir, 'reference-output.txt'), 'utf8')).toBe(readFileSync(out, 'utf8'));

    const run = await readRun(runDir);
    const m = run.manifest;
    expect([m.benchmark, m.system, m.status]).toEqual(['cgt', 'dp-gpt4o', 'complete']);
    expect(m.variant).toBe('dsc=strict,mean=exact,prf1=reference,empty-group=error,gold=embedded,invalid=error');
    expect(m.options).toEqual({
      dsc: 'strict',
      mean: 'exact',
      prf1: 'reference',
      emptyGroup: 'error',
      invalidPrediction: 'error',
      gold: 'embedded',
      bootstrap: { samples: 1000, seed: 0, confidence: 0.95 },
    });
    expect(m.inputs).toHaveLength(10);
    for (const input of m.inputs) {
      expect(input.role).toBe('predictions');
      expect(input.sha256).toBe(sha256(readFileSync(input.path)));
    }
    expect(m.resources).toEqual([]);
    expect(m.artifacts).toEqual([
      { path: 'reference-output.txt', format: 'cgt-printout' },
      { path: out, format: 'cgt-printout' },
    ]);
    expect(run.items.map((i) => i.id)).toEqual(
      Array.from({ length: 10 }, (_, k) => `Group_${String(k + 1).padStart(2, '0')}`),
    );
    const recomputed = runBenchmark.recompute(run.items);
    for (const [k, v] of Object.entries(recomputed)) expect(m.metrics[k]!.value, k).toBe(v);
    expect(recomputed.macro_mean_dsc).toBe(expected.settings['dp-gpt4o']!.macro_mean_dsc_strict);
    expect(recomputed.macro_mean_f1).toBe(expected.settings['dp-gpt4o']!.macro_mean_f1);
    expect(m.metrics.macro_mean_f1!.ci).toHaveLength(2);
  });

  it('a folder of settings: one run per setting under --run DIR; two of them compare by group', async () => {
    const runDir = join(work, 'all');
    const r = await runCli(['cgt', PREDICTIONS, '--run', runDir, '--bootstrap', '0'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(runDir).sort()).toEqual(SETTINGS);
    const runs = await Promise.all(SETTINGS.map((s) => readRun(join(runDir, s))));
    runs.forEach((run, k) => {
      expect(run.manifest.system).toBe(SETTINGS[k]);
      expect(run.manifest.metrics.macro_mean_dsc!.value).toBe(expected.settings[SETTINGS[k]!]!.macro_mean_dsc_strict);
      expect(runBenchmark.recompute(run.items).macro_mean_f1).toBe(expected.settings[SETTINGS[k]!]!.macro_mean_f1);
    });
    const result = compareRuns([runs[1]!, runs[0]!], runBenchmark, { resamples: 200 });
    const f1 = result.pairs[0]!.metrics.find((x) => x.name === 'macro_mean_f1')!;
    expect(result.pairs[0]!.paired).toBe(10);
    expect(f1.delta).toBe(expected.settings['dp-gpt3.5']!.macro_mean_f1 - expected.settings['dp-gpt4o']!.macro_mean_f1);

    const cli = await runCli(
      ['compare', join(runDir, 'dp-gpt4o'), join(runDir, 'dp-gpt3.5'), '--format', 'json', '--resamples', '200'],
      { env },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const json = JSON.parse(cli.stdout) as typeof result & { recomputedBy: string };
    expect(json.recomputedBy).toBe('@eval/cgt');
    expect(json.pairs[0]!.metrics).toEqual(JSON.parse(JSON.stringify(result.pairs[0]!.metrics)));
  });

  it('a folder of settings with $DIALEVAL_RUNS and --system: <parent>/cgt/<system>_<setting>/<timestamp>, system <system>/<setting>', async () => {
    const parent = join(work, 'parent');
    const r = await runCli(['cgt', PREDICTIONS, '--system', 'exp1', '--bootstrap', '0'], {
      env: { ...env, DIALEVAL_RUNS: parent },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(parent, 'cgt')).sort()).toEqual(SETTINGS.map((s) => `exp1_${s}`));
    const base = join(parent, 'cgt', 'exp1_dp-gpt4o');
    const run = await readRun(join(base, readdirSync(base)[0]!));
    expect(run.manifest.system).toBe('exp1/dp-gpt4o');
    expect(run.manifest.metrics.macro_mean_f1!.value).toBe(expected.settings['dp-gpt4o']!.macro_mean_f1);
  });

  it('--gold DIR: the replayed CGA files are the run\'s resource (sha256 of their sorted "path sha256" list)', async () => {
    const runDir = join(work, 'gold');
    const r = await runCli(
      ['cgt', join(PREDICTIONS, 'text-gpt3.5'), `--gold=${CGT}`, '--mode', 'lenient', '--run', runDir],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const m = (await readRun(runDir)).manifest;
    expect(m.variant).toBe('dsc=lenient,mean=exact,prf1=reference,empty-group=error,gold=cga-originals,invalid=error');
    const list = Array.from({ length: 10 }, (_, k) => {
      const path = `cga_originals/Group_${String(k + 1).padStart(2, '0')}_CGA.csv`;
      return `${path} ${sha256(readFileSync(join(CGT, path)))}\n`;
    }).join('');
    expect(m.resources).toEqual([{ name: 'cgt', sha256: sha256(list), source: 'option' }]);
  });
});
