import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, readRun, seededRandom, startRun } from '@eval/core';
import { runItemSchema } from '@eval/core/schemas';
import { beforeAll, expect, it } from 'vitest';
import type { CgtSetting } from './data';
import { type SettingResult, evaluateCgt, evaluateSetting } from './evaluate';
import { formatReferenceOutput } from './report';
import {
  cgtItemId,
  cgtRunItems,
  cgtRunMetrics,
  cgtRun,
  cgtVariant,
  prepareCgt,
  recompute as recomputeCgt,
  runBenchmark,
} from './runs';
import { CGT, HAS_CGT, PREDICTIONS, SETTINGS, describeCgt, expected, loadSettings } from './test/shared';

const exp = HAS_CGT ? expected() : undefined!;
const settings = new Map<string, CgtSetting>();
const results = new Map<string, SettingResult>();

beforeAll(async () => {
  if (HAS_CGT) await loadSettings(settings, results);
});

/** The reference's macro mean, written out: Python `sum(xs) / len(xs)` (left-to-right float sum). */
function pySumMean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

describeCgt.each(SETTINGS)('recompute(items) = expected.json: %s', (name) => {
  const want = exp.settings[name]!;

  it('items: one per group (Group_01 ... Group_10), values = the group means and finals of expected.json, bit for bit', () => {
    const items = cgtRunItems(results.get(name)!);
    expect(items.map((i) => i.id)).toEqual(Object.keys(want.groups).map((g) => cgtItemId(g)));
    expect(items[0]!.id).toBe('Group_01');
    for (const item of items) expect(runItemSchema.parse(JSON.parse(JSON.stringify(item)))).toEqual(item);
    Object.values(want.groups).forEach((w, k) => {
      const v = items[k]!.values;
      expect(v.mean_p).toBe(w.mean_p);
      expect(v.mean_r).toBe(w.mean_r);
      expect(v.mean_f1).toBe(w.mean_f1);
      expect(v.mean_dsc).toBe(w.mean_dsc_strict);
      expect([v.final_p, v.final_r, v.final_f1]).toEqual(w.final_prf1);
      expect(v.final_dsc).toBe(w.final_dsc_strict);
      const curve = items[k]!.detail!.curve as Array<{ step: number; p: number; r: number; f1: number; dsc: number }>;
      expect(curve.map((c) => ({ row: c.step, p: c.p, r: c.r, f1: c.f1 }))).toEqual(w.prf1_rows);
      expect(curve.map((c) => c.dsc)).toEqual(w.dsc_strict_rows);
    });
  });

  it('macro figures: recompute = the native result = expected.json (toBe)', () => {
    const r = results.get(name)!;
    const items = JSON.parse(JSON.stringify(cgtRunItems(r)));
    const got = runBenchmark.recompute(items);
    expect(got.macro_mean_dsc).toBe(want.macro_mean_dsc_strict);
    expect(got.macro_mean_f1).toBe(want.macro_mean_f1);
    expect(got.macro_mean_dsc).toBe(r.macro.dsc);
    expect(got.macro_mean_f1).toBe(r.macro.f1);
    expect(got.macro_mean_p).toBe(r.macro.p);
    expect(got.macro_mean_r).toBe(r.macro.r);
    const groups = Object.values(want.groups);
    expect(got.macro_mean_p).toBe(pySumMean(groups.map((g) => g.mean_p)));
    expect(got.macro_final_f1).toBe(pySumMean(groups.map((g) => g.final_prf1[2])));
    expect(got.macro_final_dsc).toBe(pySumMean(groups.map((g) => g.final_dsc_strict)));
    const metrics = cgtRunMetrics(r);
    for (const [k, v] of Object.entries(got)) {
      expect(metrics[k]!.value, k).toBe(v);
      expect(metrics[k]!.n).toBe(10);
    }
    expect(metrics.macro_mean_f1!.ci).toEqual([r.bootstrap!.f1.lower, r.bootstrap!.f1.upper]);
  });

  it("lenient DSC: recompute = the native lenient macro = sum/len of expected.json's lenient group means", () => {
    const r = evaluateSetting(settings.get(name)!, { dsc: 'lenient', bootstrap: false });
    const got = recomputeCgt(cgtRunItems(r));
    expect(got.macro_mean_dsc).toBe(r.macro.dsc);
    expect(got.macro_mean_dsc).toBe(pySumMean(Object.values(want.groups).map((g) => g.mean_dsc_lenient)));
  });
});

describeCgt('cgt run items', () => {
  it('any subset of groups recomputes to the evaluation of those groups', () => {
    const s = settings.get('dp-gpt4o')!;
    const items = cgtRunItems(results.get('dp-gpt4o')!);
    for (const pick of [[0], [1, 4, 7], [9, 0, 3], [2, 2, 5]]) {
      const native = evaluateSetting({ ...s, groups: pick.map((k) => s.groups[k]!) }, { bootstrap: false });
      const got = recomputeCgt(pick.map((k) => items[k]!));
      expect(got.macro_mean_f1).toBe(native.macro.f1);
      expect(got.macro_mean_dsc).toBe(native.macro.dsc);
      expect(got.macro_mean_p).toBe(native.macro.p);
      expect(got.macro_mean_r).toBe(native.macro.r);
    }
  });

  it('items with an error, and groups without a scored row (null values), count into no macro mean', () => {
    const items = cgtRunItems(results.get('text-gpt3.5')!);
    const flagged = items.map((i, k) => (k === 0 ? { ...i, error: 'missing group file' } : i));
    expect(recomputeCgt(flagged)).toEqual(recomputeCgt(items.slice(1)));
    const empty = evaluateSetting([{ id: '11', rows: [{ key: '1.0', gold: new Map(), pred: new Map() }] }], {
      emptyGroup: 'skip',
      bootstrap: false,
    });
    const skipped = cgtRunItems(empty)[0]!;
    expect(skipped.id).toBe('Group_11');
    expect(Object.values(skipped.values).every((v) => v === null)).toBe(true);
    expect(skipped.detail!.skipped).toBe('no scored row');
    expect(recomputeCgt([...items, skipped])).toEqual(recomputeCgt(items));
  });

  it('variant names every option that changes a number', () => {
    const r = results.get('dp-gpt4o')!;
    expect(cgtVariant(r.options)).toBe(
      'dsc=strict,mean=exact,prf1=reference,empty-group=error,gold=embedded,invalid=error',
    );
    expect(
      cgtVariant({ ...r.options, dsc: 'lenient', mean: 'naive' }, { gold: 'cga-new', invalidPrediction: 'empty' }),
    ).toBe('dsc=lenient,mean=naive,prf1=reference,empty-group=error,gold=cga-new,invalid=empty');
  });
});

describeCgt('prepare and compareRuns', () => {
  it('prepare equals recompute on the resampled items (positions with repetition, any order)', () => {
    const items = cgtRunItems(results.get('vision-4o-mini')!);
    const at = prepareCgt(items);
    const rand = seededRandom(11);
    for (let r = 0; r < 50; r++) {
      const idx = Uint32Array.from({ length: 1 + Math.floor(rand() * 12) }, () => Math.floor(rand() * items.length));
      expect(at(idx)).toEqual(recomputeCgt(Array.from(idx, (i) => items[i]!)));
    }
  });

  it('two settings as two runs: paired by group, deltas of the expected.json macro means', async () => {
    const write = async (name: string) => {
      const r = results.get(name)!;
      const dir = join(mkdtempSync(join(tmpdir(), 'cgt-run-')), name);
      const run = await startRun(dir, { benchmark: 'cgt', variant: cgtVariant(r.options), system: name });
      await run.finish({ items: cgtRunItems(r), metrics: cgtRunMetrics(r) });
      return readRun(dir);
    };
    const result = compareRuns([await write('dp-gpt4o'), await write('dp-gpt3.5')], runBenchmark, { resamples: 500 });
    const pair = result.pairs[0]!;
    expect(pair.paired).toBe(10);
    const m = new Map(pair.metrics.map((x) => [x.name, x]));
    const a = exp.settings['dp-gpt4o']!;
    const b = exp.settings['dp-gpt3.5']!;
    expect(m.get('macro_mean_f1')!.delta).toBe(b.macro_mean_f1 - a.macro_mean_f1);
    expect(m.get('macro_mean_dsc')!.delta).toBe(b.macro_mean_dsc_strict - a.macro_mean_dsc_strict);
    expect(m.get('macro_mean_f1')!.mcnemar).toBeNull();
    expect(m.get('macro_mean_f1')!.pRandomization).toBeGreaterThan(0);
  });
});

describeCgt('README "Runs" example', () => {
  it('records two settings from code and compares them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cgt-readme-'));
    async function record(settingDir: string, runDir: string): Promise<string> {
      const evaluation = await evaluateCgt(settingDir);
      const r = await cgtRun(evaluation, evaluation.settings[0]!);
      const run = await startRun(runDir, {
        benchmark: r.benchmark,
        variant: r.variant,
        system: r.system,
        options: r.options,
      });
      for (const file of r.predictions) await run.addInput('predictions', file);
      await run.finish({ items: r.items, metrics: r.metrics });
      return runDir;
    }
    const a = await readRun(await record(join(PREDICTIONS, 'dp-gpt4o'), join(root, 'runs/dp-gpt4o')));
    const b = await readRun(await record(join(PREDICTIONS, 'dp-gpt3.5'), join(root, 'runs/dp-gpt3.5')));
    expect(a.manifest.inputs).toHaveLength(10);
    const comparison = compareRuns([a, b], runBenchmark, { resamples: 100, seed: 0 });
    const dsc = comparison.pairs[0]!.metrics.find((m) => m.name === 'macro_mean_dsc')!;
    expect(dsc.delta).toBe(
      exp.settings['dp-gpt3.5']!.macro_mean_dsc_strict - exp.settings['dp-gpt4o']!.macro_mean_dsc_strict,
    );
  });
});

describeCgt('the run record contract: clusters, units, the descriptor', () => {
  it('every item is its own group cluster; the descriptor names its package and the cluster unit', () => {
    const items = cgtRunItems(results.get('dp-gpt4o')!);
    expect(items.map((i) => i.cluster)).toEqual(items.map((i) => i.id));
    expect(runBenchmark.package).toBe('@eval/cgt');
    expect(runBenchmark.cluster).toEqual({ unit: 'group' });
  });

  it("every metric is a ratio shown with the reference's printed precision (round(x * 100, 1): one decimal)", () => {
    const metrics = cgtRunMetrics(results.get('dp-gpt4o')!);
    expect(Object.keys(metrics).sort()).toEqual(
      Object.keys(recomputeCgt(cgtRunItems(results.get('dp-gpt4o')!))).sort(),
    );
    for (const m of Object.values(metrics)) expect([m.unit, m.digits]).toEqual(['ratio', 1]);
  });

  it('evaluateCgt + cgtRun: the folder of settings as run records, the same figures as the native evaluation', async () => {
    const evaluation = await evaluateCgt(PREDICTIONS, { bootstrap: false, gold: { dir: CGT, source: 'option' } });
    expect(evaluation.settings.map((s) => s.name).sort()).toEqual([...SETTINGS].sort());
    expect(evaluation.gold?.cgaDir).toBe(join(CGT, 'cga_originals'));
    const s = evaluation.settings.find((x) => x.name === 'dp-gpt4o')!;
    const record = await cgtRun(evaluation, s);
    expect(record.variant).toBe(
      'dsc=strict,mean=exact,prf1=reference,empty-group=error,gold=cga-originals,invalid=error',
    );
    expect(record.options.bootstrap).toBe(false);
    expect(record.predictions).toHaveLength(10);
    expect(record.resource).toMatchObject({ name: 'cgt', source: 'option' });
    expect(record.resource!.sha256).toMatch(/^[0-9a-f]{64}$/);
    // the printout as the reference's stdout: its lines, each ending in a newline
    expect(record.referenceOutput).toBe(formatReferenceOutput(s));
    expect(record.referenceOutput.endsWith('\n')).toBe(true);
    const got = recomputeCgt(JSON.parse(JSON.stringify(record.items)));
    for (const [k, v] of Object.entries(got)) expect(record.metrics[k]!.value, k).toBe(v);
  });
});
