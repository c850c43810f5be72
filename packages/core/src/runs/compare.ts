import { join } from 'node:path';
import { EvalError, InputError } from '../errors';
import { percentile, ratioToDouble, seededRandom } from '../stats';
import {
  type ClusteredMcnemar,
  bcaInterval,
  clusterIndex,
  clusteredMcnemar,
  forEachClusterResample,
  jackknifeClusters,
} from '../inference';
import type { RunBenchmark, RunItem, RunItemValue } from './schema';
import type { LoadedRun } from './reader';
import { RUN_FILES } from './writer';

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

/**
 * Exact McNemar test (spec `runs.md` section 4): `b` = units where A is 1 and B is 0, `c` = the reverse, n = b + c;
 * p = min(1, 2 * P[X <= min(b, c)]) for X ~ Binomial(n, 1/2); p = 1 when n = 0. The binomial tail is summed exactly
 * (BigInt) and rounded once.
 */
export function mcnemarExact(b: number, c: number): number {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) {
    throw new EvalError('invalid_data', `mcnemarExact expects non-negative integer counts, got b=${b}, c=${c}`);
  }
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let term = 1n; // C(n, 0)
  let tail = 1n;
  for (let i = 0; i < k; i++) {
    term = (term * BigInt(n - i)) / BigInt(i + 1);
    tail += term;
  }
  // 2 * tail / 2^n = tail / 2^(n-1)
  return Math.min(1, ratioToDouble(tail, 1n << BigInt(n - 1)));
}

/**
 * Holm's step-down adjustment (Holm 1979) of m p-values, returned in the input order: sorted ascending
 * p(1) <= ... <= p(m), adjusted p(i) = max over j <= i of min(1, (m - j + 1) * p(j)). NaN stays NaN (and counts in m).
 */
export function holmAdjust(pValues: number[]): number[] {
  const m = pValues.length;
  const order = pValues
    .map((p, i) => ({ p, i }))
    .filter((x) => !Number.isNaN(x.p))
    .sort((x, y) => x.p - y.p || x.i - y.i);
  const out = pValues.map(() => Number.NaN);
  let running = 0;
  order.forEach(({ p, i }, j) => {
    running = Math.max(running, Math.min(1, (m - j) * p));
    out[i] = running;
  });
  return out;
}

// ---------------------------------------------------------------------------
// The generic (third-party) benchmark
// ---------------------------------------------------------------------------

function numeric(v: RunItemValue | undefined): number {
  if (v === true) return 1;
  if (v === false) return 0;
  return typeof v === 'number' ? v : Number.NaN;
}

/**
 * The default `RunBenchmark` for a benchmark without its own package: every item value is a metric, the mean of that
 * value over the evaluated items where it is not null (booleans as 0/1); null when no item has it. `compareRuns`
 * compares those named like a headline metric in `run.json`. Its `prepare` keeps one column per value.
 */
export const meanOfValues = (benchmark: string): RunBenchmark => {
  const names = (items: ReadonlyArray<RunItem>): string[] => {
    const seen = new Set<string>();
    for (const item of items) if (item.error === undefined) for (const k of Object.keys(item.values)) seen.add(k);
    return [...seen];
  };
  return {
    benchmark,
    recompute(items) {
      const out: Record<string, number | null> = {};
      for (const name of names(items)) {
        let sum = 0;
        let n = 0;
        for (const item of items) {
          if (item.error !== undefined) continue;
          const x = numeric(item.values[name]);
          if (Number.isNaN(x)) continue;
          sum += x;
          n++;
        }
        out[name] = n === 0 ? null : sum / n;
      }
      return out;
    },
    prepare(items) {
      const cols = names(items).map((name) => ({
        name,
        values: Float64Array.from(items, (item) => numeric(item.values[name])),
      }));
      return (indices) => {
        const out: Record<string, number | null> = {};
        for (const { name, values } of cols) {
          let sum = 0;
          let n = 0;
          for (let i = 0; i < indices.length; i++) {
            const x = values[indices[i]!]!;
            if (x === x) {
              sum += x;
              n++;
            }
          }
          out[name] = n === 0 ? null : sum / n;
        }
        return out;
      };
    },
  };
};

// ---------------------------------------------------------------------------
// compareRuns
// ---------------------------------------------------------------------------

export interface CompareRunsOptions {
  /** R: bootstrap resamples and randomisation rounds (default 10,000). */
  resamples?: number;
  /** Seed of the resampling (default 0); the swaps use `seededRandom(seed + 1)`. */
  seed?: number;
  /** Compare every pair of runs, not only each run against the first. */
  allPairs?: boolean;
  /** Compare runs of different benchmarks or variants anyway (the mismatches are listed in `forced`). */
  force?: boolean;
  /** Only these metrics (default: the headline metrics of the first run that the benchmark recomputes). */
  metrics?: string[];
  /** Called every 256 rounds and at the end of each pair with rounds done and total (2 R per pair). */
  onProgress?: (done: number, total: number) => void;
  /**
   * What is resampled and swapped: `cluster` (the default) draws and swaps whole clusters where the paired items carry
   * `cluster` (the dialogue of a turn, ...), and adds the clustered McNemar test; `item` treats items as independent
   * (the procedures of spec `runs.md` section 4 as they were before clusters). Without clusters on the items both are
   * the item-level procedures.
   */
  unit?: 'cluster' | 'item';
}

/** One run as `compareRuns` saw it. */
export interface ComparedRun {
  dir: string;
  id: string;
  benchmark: string;
  variant: string;
  system: string;
  status: string;
  /** Status is not `complete` (failed or missing items). */
  partial: boolean;
  items: number;
  evaluated: number;
  /** Units the run did not evaluate and did not list (manifest `counts.skipped`). */
  skipped: number;
}

/** One metric of one pair. Every figure is on the paired units unless named `recorded`. */
export interface MetricComparison {
  name: string;
  /** Recomputed on the paired units (`benchmark.recompute`). */
  a: number | null;
  b: number | null;
  /** b - a. */
  delta: number | null;
  /** The figures the runs recorded in `run.json` (on all their items). */
  recordedA: number | null;
  recordedB: number | null;
  /**
   * Paired bootstrap (Koehn 2004) 95% interval of B - A over the pair's units (clusters or items): the percentile
   * interval, or BCa for a metric the benchmark declares biased under resampling; null when no resample gave a value
   * or the BCa interval does not exist (then `ciMethod` is `refused`).
   */
  ci: [number, number] | null;
  ciMethod: 'percentile' | 'BCa' | 'refused' | null;
  /** Paired approximate randomisation (Riezler & Maxwell 2005): (1 + count(|d_r| >= |d|)) / (R + 1). */
  pRandomization: number | null;
  /** Exact McNemar on the item value `outcome` (binary metrics only); it assumes independent items. */
  mcnemar: { outcome: string; b: number; c: number; p: number } | null;
  /**
   * Binary metrics with clusters: the clustered McNemar test (Durkalski et al. 2003) on the same outcome, per-cluster
   * discordant counts; null at unit `item`.
   */
  mcnemarClustered: ClusteredMcnemar | null;
  /**
   * The p-value that is Holm-adjusted: for binary metrics the clustered McNemar's when the pair has clusters, else the
   * exact McNemar's; the randomisation p otherwise.
   */
  p: number | null;
  /** Holm-adjusted `p` across the compared metrics of this pair. */
  pHolm: number | null;
  /** Binary metrics: paired item ids whose outcome went 1 -> 0 and 0 -> 1 from A to B. */
  flipped: { oneToZero: string[]; zeroToOne: string[] } | null;
  /** Warnings about this metric's figures (an interval that excludes its estimate, a refused interval). */
  notes: string[];
}

export interface PairComparison {
  /** Indices into `RunComparison.runs`. */
  a: number;
  b: number;
  /** Items evaluated (no `error`) in both runs. */
  paired: number;
  /** What was resampled and swapped: the cluster unit's name (`dialogue`, ...) or `item`. */
  unit: string;
  /** How many of them: distinct clusters of the paired items (= `paired` at unit `item`). */
  clusters: number;
  /** Units not evaluated in both: only in A, only in B, or failed in A or in B. */
  unpaired: { count: number; onlyA: string[]; onlyB: string[]; failedA: string[]; failedB: string[] };
  /** Either run is partial, or some unit did not pair. */
  partial: boolean;
  metrics: MetricComparison[];
  /** Warnings about the pair as a whole (items without a cluster). */
  notes: string[];
}

/** The result of {@link compareRuns}: plain JSON. */
export interface RunComparison {
  /** Any run is partial, or any pair left units unpaired (the first key of the JSON). */
  partial: boolean;
  benchmark: string;
  variant: string;
  resamples: number;
  seed: number;
  confidence: number;
  /** What was resampled and swapped: the cluster unit's name (`dialogue`, `episode`, ...) or `item`. */
  unit: string;
  /** How each figure was computed (for the reader of the JSON). */
  methods: {
    ci: string;
    pRandomization: string;
    mcnemar: string;
    holm: string;
    mcnemarClustered?: string;
    bca?: string;
  };
  /** Every metric's notes, prefixed by the pair and metric: read them before the figures. */
  notes: string[];
  /** Mismatches overridden with `force` (e.g. `variant: "2022" vs "2023"`). */
  forced: string[];
  runs: ComparedRun[];
  pairs: PairComparison[];
}

const CONFIDENCE = 0.95;
/** Relative tolerance under which |d_r| counts as equal to |d| (summation order differs between resamples). */
const TIE_TOLERANCE = 1e-9;

const ITEM_METHODS: RunComparison['methods'] = {
  ci: 'paired bootstrap (Koehn 2004): R resamples of the paired units with replacement, the metric recomputed for A and B on each, 2.5th and 97.5th percentiles (linear interpolation) of B - A',
  pRandomization:
    'paired approximate randomisation (Riezler & Maxwell 2005): R rounds swapping A and B within each unit with probability 1/2; p = (1 + count(|d_r| >= |d|)) / (R + 1)',
  mcnemar: 'exact McNemar: b = A 1 & B 0, c = A 0 & B 1, p = min(1, 2 P[X <= min(b, c)]), X ~ Binomial(b + c, 1/2)',
  holm: "Holm step-down over the metrics of one pair, on McNemar's p for binary metrics and the randomisation p otherwise",
};

const BCA_METHOD =
  'for metrics the benchmark declares biased under resampling: BCa (Efron 1987), bias correction from the share of resampled B - A below the estimate, acceleration from the leave-one-unit-out jackknife; no interval when every resample falls on one side of the estimate';

function methodsFor(unit: string, clustered: boolean, bca: boolean): RunComparison['methods'] {
  const extra = bca ? { bca: BCA_METHOD } : {};
  if (!clustered) return { ...ITEM_METHODS, ...extra };
  return {
    ci: `paired cluster bootstrap: R resamples of the paired ${unit}s with replacement (every item of a drawn ${unit}, A and B together), the metric recomputed for A and B on each, 2.5th and 97.5th percentiles (linear interpolation) of B - A`,
    pRandomization: `paired approximate randomisation over ${unit}s: R rounds swapping A and B for all items of a ${unit} with probability 1/2; p = (1 + count(|d_r| >= |d|)) / (R + 1)`,
    mcnemar: `exact McNemar, assuming independent items: ${ITEM_METHODS.mcnemar.slice('exact McNemar: '.length)}`,
    mcnemarClustered: `clustered McNemar (Durkalski et al. 2003): b_k, c_k the discordant items of ${unit} k, X2 = (sum_k (b_k - c_k))^2 / sum_k (b_k - c_k)^2, p = P[chi2_1 >= X2]`,
    holm: `Holm step-down over the metrics of one pair, on the clustered McNemar p for binary metrics and the ${unit}-level randomisation p otherwise`,
    ...extra,
  };
}

function describeRun(run: LoadedRun): ComparedRun {
  const m = run.manifest;
  const failed = run.items.filter((i) => i.error !== undefined).length;
  return {
    dir: run.dir,
    id: m.id,
    benchmark: m.benchmark,
    variant: m.variant,
    system: m.system,
    status: m.status,
    partial: m.status !== 'complete',
    items: run.items.length,
    evaluated: run.items.length - failed,
    skipped: m.counts.skipped,
  };
}

function checkComparable(runs: LoadedRun[], benchmark: RunBenchmark, force: boolean): string[] {
  const forced: string[] = [];
  const first = runs[0]!.manifest;
  const mismatch = (run: LoadedRun, field: 'benchmark' | 'variant', expected: string, what: string) => {
    const got = run.manifest[field];
    if (got === expected) return;
    const text = `${field}: ${JSON.stringify(got)} in ${run.dir} vs ${JSON.stringify(expected)} ${what}`;
    if (!force) {
      throw new InputError(
        `cannot compare runs of different ${field === 'benchmark' ? 'benchmarks' : 'variants (different normalisation, method or data)'}: ` +
          `${JSON.stringify(got)} vs ${JSON.stringify(expected)} ${what} (force to compare anyway)`,
        { file: join(run.dir, RUN_FILES.manifest), field: [field], code: 'input_mismatch' },
      );
    }
    forced.push(text);
  };
  for (const run of runs) mismatch(run, 'benchmark', benchmark.benchmark, 'of the recompute function');
  for (const run of runs.slice(1)) mismatch(run, 'variant', first.variant, `in ${runs[0]!.dir}`);
  return forced;
}

function outcome(v: RunItemValue | undefined): 0 | 1 | null {
  if (v === true || v === 1) return 1;
  if (v === false || v === 0) return 0;
  return null;
}

function comparePair(
  ra: LoadedRun,
  rb: LoadedRun,
  benchmark: RunBenchmark,
  requested: string[] | undefined,
  resamples: number,
  seed: number,
  unit: 'cluster' | 'item',
  progress: (done: number) => void,
): Omit<PairComparison, 'a' | 'b'> {
  const variant = ra.manifest.variant;
  const evaluatedB = new Map<string, RunItem>();
  const idsB = new Set<string>();
  for (const item of rb.items) {
    idsB.add(item.id);
    if (item.error === undefined) evaluatedB.set(item.id, item);
  }
  const idsA = new Set(ra.items.map((i) => i.id));
  const itemsA: RunItem[] = [];
  const itemsB: RunItem[] = [];
  const unpaired: PairComparison['unpaired'] = { count: 0, onlyA: [], onlyB: [], failedA: [], failedB: [] };
  for (const item of ra.items) {
    if (!idsB.has(item.id)) unpaired.onlyA.push(item.id);
    else if (item.error !== undefined) unpaired.failedA.push(item.id);
    else if (!evaluatedB.has(item.id)) unpaired.failedB.push(item.id);
    else {
      itemsA.push(item);
      itemsB.push(evaluatedB.get(item.id)!);
    }
  }
  for (const item of rb.items) if (!idsA.has(item.id)) unpaired.onlyB.push(item.id);
  unpaired.count = unpaired.onlyA.length + unpaired.onlyB.length + unpaired.failedA.length + unpaired.failedB.length;
  const n = itemsA.length;
  if (n === 0) {
    throw new InputError(`no item evaluated in both ${ra.dir} and ${rb.dir}: nothing to pair (item ids differ?)`, {
      file: join(rb.dir, RUN_FILES.items),
      field: ['id'],
      code: 'input_no_pairs',
    });
  }

  const observedA = benchmark.recompute(itemsA, variant);
  const observedB = benchmark.recompute(itemsB, variant);
  let names: string[];
  if (requested && requested.length > 0) {
    const missing = requested.filter((m) => !(m in observedA));
    if (missing.length > 0) {
      throw new InputError(
        `unknown metric ${missing.map((m) => JSON.stringify(m)).join(', ')} for benchmark ${JSON.stringify(benchmark.benchmark)} ` +
          `(recomputed: ${Object.keys(observedA).join(', ') || 'none'})`,
        { code: 'input_unknown_metric' },
      );
    }
    names = requested;
  } else {
    // headline figures only: a breakdown (`part`, e.g. per domain) is compared when asked for by name
    const headline = Object.keys(ra.manifest.metrics).filter((m) => m in observedA && !ra.manifest.metrics[m]!.part);
    names = headline.length > 0 ? headline : Object.keys(observedA);
  }

  // Binary outcomes: declared by the benchmark, or (no `binary` map) inferred from boolean item values.
  const binaryOf = (name: string): string | undefined => {
    if (benchmark.binary) return benchmark.binary[name];
    const all = (items: RunItem[]) => items.every((i) => typeof i.values[name] === 'boolean');
    return all(itemsA) && all(itemsB) ? name : undefined;
  };

  // Clusters of the paired items (unit `cluster`): A's cluster, else B's; the two must not disagree.
  let clusterNames: Array<string | undefined> = itemsA.map(() => undefined);
  if (unit === 'cluster') {
    clusterNames = itemsA.map((item, i) => {
      const other = itemsB[i]!.cluster;
      if (item.cluster !== undefined && other !== undefined && item.cluster !== other) {
        throw new InputError(
          `item ${JSON.stringify(item.id)} is in cluster ${JSON.stringify(item.cluster)} in ${ra.dir} but in ${JSON.stringify(other)} in ${rb.dir}`,
          { file: join(rb.dir, RUN_FILES.items), field: ['cluster'], code: 'input_mismatch' },
        );
      }
      return item.cluster ?? other;
    });
  }
  const withCluster = clusterNames.filter((c) => c !== undefined).length;
  const clustered = withCluster > 0;
  const unitName = clustered ? (ra.manifest.cluster?.unit ?? benchmark.cluster?.unit ?? 'cluster') : 'item';
  const clusters = clusterIndex(clusterNames);
  const owner = new Uint32Array(n);
  clusters.forEach((members, k) => {
    for (const i of members) owner[i] = k;
  });
  const pairNotes: string[] = [];
  if (clustered && withCluster < n)
    pairNotes.push(`${n - withCluster} of ${n} paired items carry no cluster: each counts as a ${unitName} of its own`);

  // One pooled item list [A..., B...]: A's unit i is at i, B's at n + i; every resample is two index vectors.
  const pooled = [...itemsA, ...itemsB];
  const recomputeAt: (indices: ArrayLike<number>) => Record<string, number | null> = benchmark.prepare
    ? benchmark.prepare(pooled, variant)
    : (indices) =>
        benchmark.recompute(
          Array.from(indices, (i) => pooled[i]!),
          variant,
        );
  const k = names.length;
  const diff = (ia: Uint32Array, ib: Uint32Array, out: Float64Array) => {
    const xa = recomputeAt(ia);
    const xb = recomputeAt(ib);
    for (let j = 0; j < k; j++) {
      const a = xa[names[j]!];
      const b = xb[names[j]!];
      out[j] = a === null || b === null || a === undefined || b === undefined ? Number.NaN : b - a;
    }
  };

  // Paired bootstrap: the same resampled clusters (or items: one-item clusters) for A and B.
  const boot = names.map(() => new Float64Array(resamples));
  const ia = new Uint32Array(n);
  const ib = new Uint32Array(n);
  let largest = 0;
  for (const members of clusters) largest = Math.max(largest, members.length);
  const ra2 = new Uint32Array(clusters.length * largest);
  const rb2 = new Uint32Array(clusters.length * largest);
  const d = new Float64Array(k);
  let r = 0;
  forEachClusterResample(clusters, resamples, seed, (idx) => {
    const len = idx.length;
    for (let i = 0; i < len; i++) {
      ra2[i] = idx[i]!;
      rb2[i] = idx[i]! + n;
    }
    diff(ra2.subarray(0, len), rb2.subarray(0, len), d);
    for (let j = 0; j < k; j++) boot[j]![r] = d[j]!;
    r++;
    if ((r & 255) === 0) progress(r);
  });

  // Approximate randomisation: swap A and B for all items of a cluster (of an item) with probability 1/2.
  const observed = names.map((name) => {
    const a = observedA[name];
    const b = observedB[name];
    return a === null || b === null || a === undefined || b === undefined ? Number.NaN : b - a;
  });
  const atLeast = new Array<number>(k).fill(0);
  const rand = seededRandom((seed + 1) >>> 0);
  const swaps = new Uint8Array(clusters.length);
  for (let s = 0; s < resamples; s++) {
    for (let c = 0; c < clusters.length; c++) swaps[c] = rand() < 0.5 ? 1 : 0;
    for (let i = 0; i < n; i++) {
      const swap = swaps[owner[i]!] === 1;
      ia[i] = swap ? i + n : i;
      ib[i] = swap ? i : i + n;
    }
    diff(ia, ib, d);
    for (let j = 0; j < k; j++) {
      const ref = Math.abs(observed[j]!);
      if (Math.abs(d[j]!) >= ref - TIE_TOLERANCE * Math.max(1, ref)) atLeast[j]!++;
    }
    if (((s + 1) & 255) === 0) progress(resamples + s + 1);
  }
  progress(2 * resamples);

  // BCa for metrics biased under resampling: B - A leaving out one cluster (item) at a time.
  const biased = new Set(benchmark.biasedUnderResampling ?? []);
  const jackknife: number[][] = names.map(() => []);
  if (names.some((name) => biased.has(name))) {
    jackknifeClusters(clusters, (kept) => {
      diff(
        kept,
        kept.map((i) => i + n),
        d,
      );
      for (let j = 0; j < k; j++) jackknife[j]!.push(d[j]!);
      return 0;
    });
  }

  const metrics: MetricComparison[] = names.map((name, j) => {
    const sorted = Array.from(boot[j]!)
      .filter((x) => !Number.isNaN(x))
      .sort((x, y) => x - y);
    const alpha = (1 - CONFIDENCE) / 2;
    const delta = Number.isNaN(observed[j]!) ? null : observed[j]!;
    const pRandomization = delta === null ? null : (1 + atLeast[j]!) / (resamples + 1);
    const notes: string[] = [];
    let ci: [number, number] | null = null;
    let ciMethod: MetricComparison['ciMethod'] = null;
    if (biased.has(name) && delta !== null) {
      const bca = bcaInterval(delta, boot[j]!, jackknife[j]!, CONFIDENCE);
      if (bca) {
        ci = [bca.lower, bca.upper];
        ciMethod = 'BCa';
      } else {
        ciMethod = 'refused';
        notes.push(
          `no interval: the benchmark declares ${name} biased under resampling, and the resamples cannot place its BCa interval (the resampled B - A lie on one side of the estimate, or too far to one side for R resamples)`,
        );
      }
    } else if (sorted.length > 0) {
      ci = [percentile(sorted, alpha), percentile(sorted, 1 - alpha)];
      ciMethod = 'percentile';
    }
    if (ci && delta !== null && (delta < ci[0] || delta > ci[1])) {
      notes.push(
        `the ${ciMethod} interval [${ci[0]}, ${ci[1]}] excludes its own estimate ${delta}` +
          (ciMethod === 'percentile'
            ? ': the metric looks biased under resampling (a type/token ratio?); the benchmark can declare it in biasedUnderResampling for a BCa interval'
            : ''),
      );
    }
    let mcnemar: MetricComparison['mcnemar'] = null;
    let mcnemarCl: ClusteredMcnemar | null = null;
    let flipped: MetricComparison['flipped'] = null;
    const value = binaryOf(name);
    if (value !== undefined) {
      flipped = { oneToZero: [], zeroToOne: [] };
      const bk = new Array<number>(clusters.length).fill(0);
      const ck = new Array<number>(clusters.length).fill(0);
      for (let i = 0; i < n; i++) {
        const a = outcome(itemsA[i]!.values[value]);
        const b = outcome(itemsB[i]!.values[value]);
        if (a === 1 && b === 0) {
          flipped.oneToZero.push(itemsA[i]!.id);
          bk[owner[i]!]! += 1;
        } else if (a === 0 && b === 1) {
          flipped.zeroToOne.push(itemsA[i]!.id);
          ck[owner[i]!]! += 1;
        }
      }
      mcnemar = {
        outcome: value,
        b: flipped.oneToZero.length,
        c: flipped.zeroToOne.length,
        p: mcnemarExact(flipped.oneToZero.length, flipped.zeroToOne.length),
      };
      if (clustered) mcnemarCl = clusteredMcnemar(bk, ck);
    }
    return {
      name,
      a: observedA[name] ?? null,
      b: observedB[name] ?? null,
      delta,
      recordedA: ra.manifest.metrics[name]?.value ?? null,
      recordedB: rb.manifest.metrics[name]?.value ?? null,
      ci,
      ciMethod,
      pRandomization,
      mcnemar,
      mcnemarClustered: mcnemarCl,
      p: mcnemarCl ? mcnemarCl.p : mcnemar ? mcnemar.p : pRandomization,
      pHolm: null,
      flipped,
      notes,
    };
  });
  const adjusted = holmAdjust(metrics.map((m) => m.p ?? Number.NaN));
  metrics.forEach((m, j) => {
    m.pHolm = Number.isNaN(adjusted[j]!) ? null : adjusted[j]!;
  });
  return {
    paired: n,
    unit: unitName,
    clusters: clusters.length,
    unpaired,
    partial: ra.manifest.status !== 'complete' || rb.manifest.status !== 'complete' || unpaired.count > 0,
    metrics,
    notes: pairNotes,
  };
}

/**
 * Compares runs of one benchmark and variant (spec `runs.md` section 4): items paired by id, every headline metric
 * recomputed on the paired units for A and B, B - A with its paired-bootstrap interval and randomisation p-value,
 * exact McNemar and flipped items for binary metrics, Holm-adjusted p-values per pair. Each run against the first,
 * or all pairs. Refuses (an {@link InputError}, code `input_mismatch`) different benchmarks or variants unless
 * `force`. Seeded: the same runs, seed and R give the same result.
 *
 * Where the paired items carry `cluster` (and `unit` is not `item`), the bootstrap draws whole clusters, the
 * randomisation swaps whole clusters, and binary metrics add the clustered McNemar test; with one item per cluster
 * (in item order) the bootstrap and the randomisation are exactly the item-level ones. Metrics the benchmark declares
 * `biasedUnderResampling` get a BCa interval or none; every interval that excludes its own estimate is noted.
 */
export function compareRuns(
  runs: LoadedRun[],
  benchmark: RunBenchmark,
  options: CompareRunsOptions = {},
): RunComparison {
  if (runs.length < 2)
    throw new InputError(`compare needs at least two runs, got ${runs.length}`, { code: 'input_too_few_runs' });
  const resamples = options.resamples ?? 10_000;
  const seed = options.seed ?? 0;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new InputError(`resamples must be a positive integer, got ${resamples}`, { code: 'input_error' });
  if (!Number.isInteger(seed) || seed < 0)
    throw new InputError(`seed must be a non-negative integer, got ${seed}`, { code: 'input_error' });
  const unit = options.unit ?? 'cluster';
  if (unit !== 'cluster' && unit !== 'item')
    throw new InputError(`unit must be "cluster" or "item", got ${JSON.stringify(unit)}`, { code: 'input_error' });
  const forced = checkComparable(runs, benchmark, Boolean(options.force));
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length; j++) if (options.allPairs || i === 0) pairs.push([i, j]);
  }
  const total = 2 * resamples * pairs.length;
  const compared = pairs.map(([i, j], p) => {
    const progress = (done: number) => options.onProgress?.(p * 2 * resamples + done, total);
    const pair = comparePair(runs[i]!, runs[j]!, benchmark, options.metrics, resamples, seed, unit, progress);
    return { a: i, b: j, ...pair };
  });
  const described = runs.map(describeRun);
  const clustered = compared.filter((p) => p.unit !== 'item');
  const unitName = clustered.length > 0 ? clustered[0]!.unit : 'item';
  const notes = compared.flatMap((p) => {
    const which = `${described[p.a]!.system} (${p.a}) -> ${described[p.b]!.system} (${p.b})`;
    return [
      ...p.notes.map((n) => `${which}: ${n}`),
      ...p.metrics.flatMap((m) => m.notes.map((n) => `${which}, ${m.name}: ${n}`)),
    ];
  });
  const anyBiased = compared.some((p) => p.metrics.some((m) => m.ciMethod === 'BCa' || m.ciMethod === 'refused'));
  return {
    partial: described.some((r) => r.partial) || compared.some((p) => p.partial),
    benchmark: runs[0]!.manifest.benchmark,
    variant: runs[0]!.manifest.variant,
    resamples,
    seed,
    confidence: CONFIDENCE,
    unit: unitName,
    methods: methodsFor(unitName, clustered.length > 0, anyBiased),
    notes,
    forced,
    runs: described,
    pairs: compared,
  };
}
