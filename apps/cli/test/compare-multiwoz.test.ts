import { type MultiwozSubset21, multiwozSubset21 } from '../../../test-support/multiwoz-subset21';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunBenchmark, type RunItem, compareRuns, readRun, startRun } from '@eval/core';
import {
  type BleuStats,
  type MultiwozReport,
  bleuFromStats,
  compareMultiwoz,
  evaluateMultiwozFile,
} from '@eval/multiwoz';
import { beforeAll, expect, it } from 'vitest';
import { describeWithReferenceData, hasReferenceData } from './cli';

// Two MultiWOZ systems of ../shared/multiwoz (the 21-dialogue subset), evaluated by @eval/multiwoz, written as runs
// whose items carry each dialogue's Inform/Success and sacreBLEU sufficient statistics. `compareRuns` on them is
// checked against `compareMultiwoz` (an independent code path: per-metric statistics through `pairedBootstrap`) and
// against McNemar computed by hand from the per-dialogue outcomes.
const HAS_MULTIWOZ = hasReferenceData('multiwoz');
const work = mkdtempSync(join(tmpdir(), 'dialeval-cmp-mwz-'));
const data = join(work, 'data');
const R = 2000;
const SEED = 4;
const reports: Record<string, MultiwozReport> = {};

let mwz: MultiwozSubset21;

const STAT_KEYS = ['sysLen', 'refLen', 'c1', 'c2', 'c3', 'c4', 't1', 't2', 't3', 't4'] as const;

/** The test's own recompute: BLEU (mwz22) from summed statistics, Inform and Success in percent. */
const testBenchmark: RunBenchmark = {
  benchmark: 'multiwoz-test',
  binary: { Inform: 'inform', Success: 'success' },
  recompute(items) {
    const ok = items.filter((i) => i.error === undefined);
    const sum = (k: string) => ok.reduce((s, i) => s + (i.values[k] as number), 0);
    const stats: BleuStats = {
      sysLen: sum('sysLen'),
      refLen: sum('refLen'),
      correct: [sum('c1'), sum('c2'), sum('c3'), sum('c4')],
      total: [sum('t1'), sum('t2'), sum('t3'), sum('t4')],
    };
    const rate = (k: string) => (100 * ok.filter((i) => i.values[k] === true).length) / ok.length;
    return { BLEU: bleuFromStats(stats), Inform: rate('inform'), Success: rate('success') };
  },
};

async function writeRun(name: string, report: MultiwozReport): Promise<string> {
  const dir = join(work, 'runs', name);
  const run = await startRun(dir, { benchmark: 'multiwoz-test', variant: '2022', system: name });
  const items = report.details.perDialogue.map((d): RunItem => {
    const s = d.bleu!.mwz22!;
    const values: Record<string, number | boolean> = { inform: d.inform === true, success: d.success === true };
    const flat = [s.sysLen, s.refLen, ...s.correct, ...s.total];
    STAT_KEYS.forEach((k, j) => (values[k] = flat[j]!));
    return { id: d.id, values };
  });
  const m = testBenchmark.recompute(items);
  await run.finish({
    items,
    metrics: Object.fromEntries(Object.entries(m).map(([k, v]) => [k, { value: v, n: items.length }])),
  });
  return dir;
}

/** P[X <= k] for X ~ Binomial(n, 1/2), term by term in floating point (independent of mcnemarExact's BigInt sum). */
function binomialTail(k: number, n: number): number {
  let term = 0.5 ** n;
  let tail = term;
  for (let i = 0; i < k; i++) {
    term = (term * (n - i)) / (i + 1);
    tail += term;
  }
  return tail;
}

const dirs: string[] = [];
beforeAll(async () => {
  if (!HAS_MULTIWOZ) return;
  mwz = multiwozSubset21(work);
  for (const name of ['augpt', 'hdsa']) {
    reports[name] = await evaluateMultiwozFile(mwz.subset(name), {
      bleu: true,
      success: true,
      dir: data,
      normalization: '2022',
    });
    dirs.push(await writeRun(name, reports[name]!));
  }
});

describeWithReferenceData('multiwoz')('compareRuns on two MultiWOZ systems of ../shared (subset21)', () => {
  it('figures, intervals and flipped dialogues agree with compareMultiwoz and a hand McNemar', async () => {
    const runs = await Promise.all(dirs.map((d) => readRun(d)));
    const c = compareRuns(runs, testBenchmark, { resamples: R, seed: SEED });
    const old = compareMultiwoz(reports.augpt!, reports.hdsa!, { samples: R, seed: SEED });
    const pair = c.pairs[0]!;
    expect(pair.paired).toBe(old.dialogues);
    const byName = Object.fromEntries(pair.metrics.map((m) => [m.name, m]));
    for (const [name, o] of [
      ['BLEU', old.bleu!.mwz22!],
      ['Inform', old.inform!],
      ['Success', old.success!],
    ] as const) {
      const m = byName[name]!;
      // compareMultiwoz reports A - B over the same seeded resamples (forEachResample), compareRuns B - A.
      expect(m.a, name).toBe(o.a);
      expect(m.b, name).toBe(o.b);
      expect(m.delta!, name).toBeCloseTo(-o.comparison.difference, 9);
      expect(m.ci![0], name).toBeCloseTo(-o.comparison.interval.upper, 9);
      expect(m.ci![1], name).toBeCloseTo(-o.comparison.interval.lower, 9);
    }
    let flips = 0;
    for (const [name, key] of [
      ['Inform', 'inform'],
      ['Success', 'success'],
    ] as const) {
      const byId = new Map(reports.hdsa!.details.perDialogue.map((d) => [d.id, d[key] === true]));
      const oneToZero: string[] = [];
      const zeroToOne: string[] = [];
      for (const d of reports.augpt!.details.perDialogue) {
        const a = d[key] === true;
        const b = byId.get(d.id)!;
        if (a && !b) oneToZero.push(d.id);
        if (!a && b) zeroToOne.push(d.id);
      }
      const m = byName[name]!;
      expect(m.flipped).toEqual({ oneToZero, zeroToOne });
      flips += oneToZero.length + zeroToOne.length;
      const n = oneToZero.length + zeroToOne.length;
      const p = n === 0 ? 1 : Math.min(1, 2 * binomialTail(Math.min(oneToZero.length, zeroToOne.length), n));
      expect(m.mcnemar!.p).toBeCloseTo(p, 14);
    }
    expect(flips).toBeGreaterThan(0); // the two systems do differ on some dialogues
  });
});
