import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import { InputError } from '../errors';
import { clusterIndex, krippendorffAlpha } from '../inference';
import { type JudgeLabels, type LoadedRun, compareRuns, judgeAgreement, labelAgreement, meanOfValues } from '../index';
import type { RunBenchmark, RunItem, RunManifest } from './schema';

function run(dir: string, items: RunItem[], extra: Partial<RunManifest> = {}): LoadedRun {
  const manifest: RunManifest = {
    schemaVersion: 1,
    id: dir,
    benchmark: 'toy',
    variant: 'v1',
    system: 'sys',
    createdAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    status: 'complete',
    tool: { packages: {}, node: 'v20', platform: 'linux-x64' },
    command: [],
    inputs: [],
    resources: [],
    options: {},
    metrics: { ok: { value: null, n: items.length } },
    counts: { items: items.length, evaluated: items.length, failed: 0, skipped: 0 },
    failures: [],
    artifacts: [],
    ...extra,
  };
  return { dir, manifest, items };
}

// Eight turns of three dialogues: d1 = t0 t1 t2, d2 = t3 t4, d3 = t5 t6 t7. Three judges' verdicts (C did not judge t7):
//   A: 1 1 0 1 0 1 1 0
//   B: 1 0 0 1 0 1 1 1
//   C: 1 1 0 0 0 1 1 .
const CLUSTERS = ['d1', 'd1', 'd1', 'd2', 'd2', 'd3', 'd3', 'd3'];
const A = [1, 1, 0, 1, 0, 1, 1, 0];
const B = [1, 0, 0, 1, 0, 1, 1, 1];
const C = [1, 1, 0, 0, 0, 1, 1, null];
const labels = (name: string, xs: Array<number | null>): JudgeLabels => ({
  name,
  labels: new Map(xs.flatMap((x, i) => (x === null ? [] : [[`t${i}`, x === 1] as const]))),
});
const clusterOf = new Map(CLUSTERS.map((c, i) => [`t${i}`, c]));

describe('labelAgreement: hand-counted kappa, alpha and flips', () => {
  const result = labelAgreement([labels('A', A), labels('B', B), labels('C', C)], {
    clusterOf,
    clusterUnit: 'dialogue',
    resamples: 500,
  });

  it("Cohen's kappa per pair with base rates", () => {
    // A vs B on 8: 11 = 4 (t0 t3 t5 t6), 10 = 1 (t1), 01 = 1 (t7), 00 = 2. p_o = 6/8; p(1) = 5/8 for both;
    //   p_e = (5/8)^2 + (3/8)^2 = 34/64; kappa = (48/64 - 34/64) / (30/64) = 14/30 = 7/15.
    // A vs C on 7 (t7 not judged by C): 11 = 4, 10 = 1 (t3), 01 = 0, 00 = 2. p_o = 6/7; p_A(1) = 5/7, p_C(1) = 4/7;
    //   p_e = 20/49 + 6/49 = 26/49; kappa = (42/49 - 26/49) / (23/49) = 16/23.
    // B vs C on 7: 11 = 3, 10 = 1 (t3), 01 = 1 (t1), 00 = 2. p_o = 5/7; p(1) = 4/7 for both;
    //   p_e = 16/49 + 9/49 = 25/49; kappa = (35/49 - 25/49) / (24/49) = 10/24 = 5/12.
    const [ab, ac, bc] = result.pairs;
    expect([ab!.a, ab!.b, ac!.a, ac!.b, bc!.a, bc!.b]).toEqual([0, 1, 0, 2, 1, 2]);
    expect(ab!.compared).toBe(8);
    expect(ab!.observed).toBe(6 / 8);
    expect(ab!.kappa).toBeCloseTo(7 / 15, 14);
    expect(ac!.compared).toBe(7);
    expect(ac!.kappa).toBeCloseTo(16 / 23, 14);
    expect(bc!.kappa).toBeCloseTo(5 / 12, 14);
    expect(ac!.baseRates).toEqual([
      [
        { label: false, count: 2, share: 2 / 7 },
        { label: true, count: 5, share: 5 / 7 },
      ],
      [
        { label: false, count: 3, share: 3 / 7 },
        { label: true, count: 4, share: 4 / 7 },
      ],
    ]);
  });

  it('the flips and the flip matrix', () => {
    const [ab, ac, bc] = result.pairs;
    expect(ab!.flips).toEqual([
      { id: 't1', a: true, b: false },
      { id: 't7', a: false, b: true },
    ]);
    expect(ac!.flips).toEqual([{ id: 't3', a: true, b: false }]);
    expect(bc!.flips).toEqual([
      { id: 't1', a: false, b: true },
      { id: 't3', a: true, b: false },
    ]);
    expect(ab!.changes).toEqual([
      { from: true, to: false, count: 1 },
      { from: false, to: true, count: 1 },
    ]);
    expect(result.flipMatrix).toEqual([
      [0, 2, 1],
      [2, 0, 2],
      [1, 2, 0],
    ]);
  });

  it("Krippendorff's alpha (nominal) over the three judges", () => {
    // Coincidences: t0, t5, t6 (1,1,1): o11 += 3 each; t2, t4 (0,0,0): o00 += 3 each; t1, t3 (1,0,1)/(1,1,0): the
    // ordered pairs (1,0) x2, (0,1) x2, (1,1) x2 over m - 1 = 2: o10 += 1, o01 += 1, o11 += 1 each; t7 (0,1), m = 2:
    // o01 += 1, o10 += 1. o00 = 6, o01 = o10 = 3, o11 = 11; n0 = 9, n1 = 14, n = 23.
    // alpha = 1 - (n - 1) (o01 + o10) / (2 n0 n1) = 1 - 22 * 6 / 252 = 120/252 = 10/21.
    expect(result.level).toBe('nominal');
    expect(result.alpha.value).toBeCloseTo(10 / 21, 14);
    expect(result.items).toBe(8);
    expect(result.pairable).toBe(8);
    expect(result.unit).toBe('dialogue');
    expect(result.clusters).toBe(3);
  });

  it('the interval resamples whole dialogues: its ends at the quantiles of all 27 resamples within Monte Carlo error', () => {
    const R = 4000;
    const r = labelAgreement([labels('A', A), labels('B', B), labels('C', C)], { clusterOf, resamples: R, seed: 8 });
    const units = [A, B, C][0]!.map((_, i) => [A[i]!, B[i]!, C[i] ?? null].map((x) => (x === null ? null : x === 1)));
    const clusters = clusterIndex(CLUSTERS);
    const alphas: number[] = [];
    for (let x = 0; x < 27; x++) {
      const drawn = [x % 3, Math.floor(x / 3) % 3, Math.floor(x / 9)];
      const a = krippendorffAlpha(
        drawn.flatMap((k) => Array.from(clusters[k]!, (i) => units[i]!)),
        'nominal',
      );
      if (!Number.isNaN(a)) alphas.push(a);
    }
    const cdf = (q: number, strict: boolean) =>
      alphas.filter((t) => (strict ? t < q - 1e-12 : t <= q + 1e-12)).length / alphas.length;
    const se = (p: number) => Math.sqrt((p * (1 - p)) / R);
    for (const [q, level] of [
      [r.alpha.ci![0], 0.025],
      [r.alpha.ci![1], 0.975],
    ] as const) {
      const tol = 4 * se(level) + 2 / R;
      expect(cdf(q, false)).toBeGreaterThanOrEqual(level - tol);
      expect(cdf(q, true)).toBeLessThanOrEqual(level + tol);
    }
  });

  it('ordinal for numbers with more than two values (HaluMem 0/1/2), unless a level is given', () => {
    // Units (0, 0), (1, 2), (2, 2), (0, 1): ordinal alpha 17/24, nominal 1/3 (derived in stats.test.ts).
    const j1: JudgeLabels = {
      name: 'j1',
      labels: new Map([
        ['q0', 0],
        ['q1', 1],
        ['q2', 2],
        ['q3', 0],
      ]),
    };
    const j2: JudgeLabels = {
      name: 'j2',
      labels: new Map([
        ['q0', 0],
        ['q1', 2],
        ['q2', 2],
        ['q3', 1],
      ]),
    };
    const ordinal = labelAgreement([j1, j2], { resamples: 10 });
    expect(ordinal.level).toBe('ordinal');
    expect(ordinal.alpha.value).toBeCloseTo(17 / 24, 14);
    expect(labelAgreement([j1, j2], { resamples: 10, level: 'nominal' }).alpha.value).toBeCloseTo(1 / 3, 14);
  });

  it('refuses mixed kinds of labels and fewer than two judges', () => {
    const strings: JudgeLabels = { name: 's', labels: new Map([['t0', 'yes']]) };
    expect(() => labelAgreement([labels('A', A), strings])).toThrow(/mix boolean and string/);
    expect(() => labelAgreement([labels('A', A)])).toThrow(InputError);
  });
});

describe('judgeAgreement: runs of one benchmark by different judges', () => {
  const bench: RunBenchmark = { ...meanOfValues('toy'), binary: { ok: 'ok' }, cluster: { unit: 'dialogue' } };
  const items = (xs: Array<number | null>): RunItem[] =>
    xs.map((x, i) => ({ id: `t${i}`, cluster: CLUSTERS[i]!, values: { ok: x === null ? null : x === 1 } }));
  const judged = (dir: string, xs: Array<number | null>, model: string) =>
    run(dir, items(xs), { llm: llm(model), cluster: { unit: 'dialogue' } });

  it('takes the verdict from the binary map, names judges by model, and adds human labels as one more judge', () => {
    const human: JudgeLabels = {
      name: 'human',
      source: 'labels.jsonl',
      labels: new Map<string, string | number>(C.flatMap((x, i) => (x === null ? [] : [[`t${i}`, x] as const]))),
    };
    const r = judgeAgreement([judged('ra', A, 'gpt-4o'), judged('rb', B, 'llama')], bench, {
      extraJudges: [human],
      resamples: 300,
    });
    expect(r.value).toBe('ok');
    expect(r.judges.map((j) => j.name)).toEqual(['gpt-4o', 'llama', 'human']);
    // The human labels 1/0 became the runs' booleans: the same figures as labelAgreement above.
    expect(r.pairs[1]!.kappa).toBeCloseTo(16 / 23, 14);
    expect(r.alpha.value).toBeCloseTo(10 / 21, 14);
    expect(r.unit).toBe('dialogue');
    expect(r.notes).toContain('human gave no ok for 1 of 8 items');
  });

  it('names the run judges as told (a judge panel names them by its labels); a wrong count is refused', () => {
    const runs = [judged('ra', A, 'same-model'), judged('rb', B, 'same-model')];
    const r = judgeAgreement(runs, bench, { names: ['gpt-4o+v1', 'gpt-4o+v2'], resamples: 10 });
    expect(r.judges.map((j) => j.name)).toEqual(['gpt-4o+v1', 'gpt-4o+v2']);
    expect(() => judgeAgreement(runs, bench, { names: ['one'], resamples: 10 })).toThrow(
      /1 judge name\(s\) for 2 run\(s\)/,
    );
  });

  it('each headline metric under each judge, the largest shift and its paired interval', () => {
    // ok = share of true: A 5/8, B 5/8, C' (t7 = 0) 4/8. Smallest C' (index 2), largest: the last of A, B (index 1).
    const Cfull = [1, 1, 0, 0, 0, 1, 1, 0];
    const runs = [judged('ra', A, 'm1'), judged('rb', B, 'm2'), judged('rc', Cfull, 'm3')];
    const r = judgeAgreement(runs, bench, { resamples: 400, seed: 3 });
    expect(r.common).toBe(8);
    const ok = r.metrics.find((m) => m.name === 'ok')!;
    expect(ok.values).toEqual([5 / 8, 5 / 8, 4 / 8]);
    expect(ok.shift!.from).toBe(2);
    expect(ok.shift!.to).toBe(1);
    expect(ok.shift!.delta).toBe(1 / 8);
    const direct = compareRuns([runs[2]!, runs[1]!], bench, { resamples: 400, seed: 3, metrics: ['ok'] });
    expect(ok.shift!.ci).toEqual(direct.pairs[0]!.metrics[0]!.ci);
    expect(ok.shift!.pRandomization).toBe(direct.pairs[0]!.metrics[0]!.pRandomization);
  });

  it('--value picks another item value; a missing value and another benchmark are refused', () => {
    const runs = [judged('ra', A, 'm1'), judged('rb', B, 'm2')];
    expect(() => judgeAgreement(runs, bench, { value: 'nope' })).toThrow(/no item of these runs has the value "nope"/);
    // No binary map: the first boolean item value (`ok`); an empty map names none.
    expect(judgeAgreement(runs, meanOfValues('toy'), { resamples: 10 }).value).toBe('ok');
    expect(() => judgeAgreement(runs, { ...meanOfValues('toy'), binary: {} }, { resamples: 10 })).toThrow(
      /declares no binary/,
    );
    expect(() => judgeAgreement([runs[0]!, run('x', items(B), { benchmark: 'other' })], bench)).toThrow(
      /across benchmarks/,
    );
    expect(judgeAgreement(runs, meanOfValues('toy'), { value: 'ok', resamples: 10 }).pairs[0]!.kappa).toBeCloseTo(
      7 / 15,
      14,
    );
  });

  it('a human label that is no verdict is refused naming the file and item', () => {
    const human: JudgeLabels = { name: 'human', source: 'h.json', labels: new Map([['t0', 'maybe']]) };
    expect(() =>
      judgeAgreement([judged('ra', A, 'm1'), judged('rb', B, 'm2')], bench, { extraJudges: [human] }),
    ).toThrow(/h\.json.*t0.*"maybe".*no boolean/);
  });
});

function llm(model: string): RunManifest['llm'] {
  return {
    endpointHost: 'localhost',
    model,
    calls: { made: 0, cached: 0, failed: 0, retried: 0 },
    tokens: { prompt: 0, completion: 0 },
    costUsd: 0,
    batch: false,
  };
}

// Three judges of the same 42 turns (6 dialogues) of ../shared/llm-judge/slice: GPT-4 Turbo prompted three ways (the
// paper's "Ours", "Direct" and "CoT"), per-turn verdicts `gpt_turn_judge` as the reference re-implementation records
// them. Kappa, alpha and the flips are counted here with plain loops; each judge's TSA is the reference's own figure.
describeWithReferenceData('llm-judge/slice')('judgeAgreement on the recorded llm-judge slice', () => {
  const METHODS = ['ours', 'direct', 'cot'] as const;
  type Expected = { per_turn: Array<{ flag: string; gpt_turn_judge: number }>; metrics_percent: { TSA_gpt: number } };
  const expected = Object.fromEntries(
    METHODS.map((m) => [
      m,
      JSON.parse(readFileSync(referencePath(`llm-judge/slice/expected_${m}.json`), 'utf8')) as Expected,
    ]),
  ) as Record<(typeof METHODS)[number], Expected>;
  const bench: RunBenchmark = {
    benchmark: 'llm-judge',
    binary: { TSA: 'judge' },
    recompute: (items) => {
      const ok = items.filter((i) => i.error === undefined);
      return { TSA: (100 * ok.filter((i) => i.values.judge === true).length) / ok.length };
    },
  };
  const runs = METHODS.map((m) =>
    run(
      m,
      expected[m].per_turn.map((t) => ({
        id: t.flag,
        cluster: t.flag.slice(0, t.flag.lastIndexOf('-')),
        values: { judge: t.gpt_turn_judge === 1 },
      })),
      { benchmark: 'llm-judge', variant: m, metrics: { TSA: { value: expected[m].metrics_percent.TSA_gpt, n: 42 } } },
    ),
  );
  const r = judgeAgreement(runs, bench, { resamples: 500 });
  const verdicts = METHODS.map((m) => expected[m].per_turn.map((t) => t.gpt_turn_judge));

  it('6 dialogues of 42 turns; every judge TSA as the reference computes it', () => {
    expect([r.items, r.clusters, r.unit, r.value]).toEqual([42, 6, 'cluster', 'judge']);
    const tsa = r.metrics.find((m) => m.name === 'TSA')!;
    tsa.values.forEach((x, i) => expect(x).toBeCloseTo(expected[METHODS[i]!].metrics_percent.TSA_gpt, 10));
    const lo = Math.min(...(tsa.values as number[]));
    const hi = Math.max(...(tsa.values as number[]));
    expect(tsa.shift!.delta).toBeCloseTo(hi - lo, 12);
    expect(r.notes).toContain('the runs have different variants (ours, direct, cot)');
  });

  it("Cohen's kappa and the flips per pair from the 2x2 counts", () => {
    for (const p of r.pairs) {
      const x = verdicts[p.a]!;
      const y = verdicts[p.b]!;
      const n = x.length;
      const n11 = x.filter((v, i) => v === 1 && y[i] === 1).length;
      const n00 = x.filter((v, i) => v === 0 && y[i] === 0).length;
      const px = x.filter((v) => v === 1).length / n;
      const py = y.filter((v) => v === 1).length / n;
      const po = (n11 + n00) / n;
      const pe = px * py + (1 - px) * (1 - py);
      expect(p.kappa).toBeCloseTo((po - pe) / (1 - pe), 12);
      expect(p.flips.map((f) => f.id)).toEqual(
        expected.ours.per_turn.map((t) => t.flag).filter((_, i) => x[i] !== y[i]),
      );
      expect(r.flipMatrix[p.a]![p.b]).toBe(n - n11 - n00);
    }
  });

  it("Krippendorff's alpha from the per-turn counts of 0s and 1s", () => {
    // Binary, 3 judges on every unit (m = 3): unit u with k_u ones contributes 2 k_u (3 - k_u) / (m - 1) off-diagonal
    // coincidences; with n1 ones and n0 zeros in all, n = 3 N: alpha = 1 - (n - 1) sum_u 2 k_u (3 - k_u) / 2 / (2 n0 n1).
    let offDiagonal = 0;
    let ones = 0;
    for (let i = 0; i < 42; i++) {
      const k = verdicts.reduce((s, v) => s + v[i]!, 0);
      ones += k;
      offDiagonal += (2 * k * (3 - k)) / 2;
    }
    const n = 3 * 42;
    expect(r.alpha.value).toBeCloseTo(1 - ((n - 1) * offDiagonal) / (2 * ones * (n - ones)), 12);
    expect(r.alpha.ci![0]).toBeLessThanOrEqual(r.alpha.value!);
    expect(r.alpha.ci![1]).toBeGreaterThanOrEqual(r.alpha.value!);
  });
});
