// Inference beyond the references' own statistics: normal and chi-square tails, resampling whole clusters, the BCa
// interval, the clustered McNemar test and Krippendorff's alpha (used by `compareRuns` and the agreement of judges).
import { EvalError } from './errors';
import { compareLabels, forEachResample, type Label, percentile } from './stats';

// ---------------------------------------------------------------------------
// Normal and chi-square distributions
// ---------------------------------------------------------------------------

/**
 * Complementary error function, to about 1e-15 relative: the series erf(x) = 2/sqrt(pi) e^(-x^2) sum 2^n x^(2n+1) /
 * (1 3 ... (2n+1)) below 2 (all terms positive: no cancellation), the continued fraction erfc(x) = e^(-x^2)/sqrt(pi) /
 * (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))) from 2 on (relative accuracy in the far tail).
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 2) {
    let term = x;
    let sum = x;
    for (let n = 1; term > 1e-17 * sum; n++) {
      term *= (2 * x * x) / (2 * n + 1);
      sum += term;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum;
  }
  if (x > 27) return 0;
  let f = x;
  for (let k = 120; k >= 1; k--) f = x + k / 2 / f;
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** Standard normal distribution function Phi(x). */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/**
 * Standard normal quantile Phi^-1(p) (Wichura 1988, algorithm AS 241 PPND16, about 1e-16 relative); -Infinity at 0,
 * Infinity at 1, NaN outside [0, 1].
 */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  const poly = (c: readonly number[], r: number) => c.reduceRight((acc, k) => acc * r + k, 0);
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * poly(AS241.a, r)) / poly(AS241.b, r);
  }
  let r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  let value: number;
  if (r <= 5) {
    r -= 1.6;
    value = poly(AS241.c, r) / poly(AS241.d, r);
  } else {
    r -= 5;
    value = poly(AS241.e, r) / poly(AS241.f, r);
  }
  return q < 0 ? -value : value;
}

/** AS 241's coefficients, lowest order first (to double precision). */
const AS241 = {
  a: [
    3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946, 45921.95393154987, 67265.7709270087,
    33430.57558358813, 2509.0809287301227,
  ],
  b: [
    1, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597, 39307.89580009271,
    28729.085735721943, 5226.495278852854,
  ],
  c: [
    1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045, 1.2704582524523684,
    0.2417807251774506, 0.022723844989269184, 0.0007745450142783414,
  ],
  d: [
    1, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008, 0.015198666563616457,
    0.0005475938084995345, 1.0507500716444169e-9,
  ],
  e: [
    6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487, 0.026532189526576124,
    0.0012426609473880784, 2.7115555687434876e-5, 2.0103343992922881e-7,
  ],
  f: [
    1, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133, 1.8463183175100548e-5,
    1.421511758316446e-7, 2.0442631033899397e-15,
  ],
} as const;

/** Upper tail P[X >= x] of the chi-square distribution with one degree of freedom: erfc(sqrt(x / 2)). */
export function chiSquare1Sf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  return x <= 0 ? 1 : erfc(Math.sqrt(x / 2));
}

// ---------------------------------------------------------------------------
// Clustered resampling
// ---------------------------------------------------------------------------

/**
 * Items grouped by cluster, clusters in order of first appearance: `clusters[k]` lists the positions of cluster k's
 * items (ascending). An item without a cluster (undefined) is a cluster of its own. When every item is its own
 * cluster, cluster k is item k.
 */
export function clusterIndex(clusterOf: ReadonlyArray<string | undefined>): Uint32Array[] {
  const byName = new Map<string, number[]>();
  const out: number[][] = [];
  clusterOf.forEach((name, i) => {
    if (name === undefined) {
      out.push([i]);
      return;
    }
    let members = byName.get(name);
    if (!members) {
      members = [];
      byName.set(name, members);
      out.push(members);
    }
    members.push(i);
  });
  return out.map((m) => Uint32Array.from(m));
}

/**
 * The cluster bootstrap: draws `samples` resamples of whole clusters (m cluster indices with repetition from
 * `seededRandom(seed)`, exactly the draws of {@link forEachResample} over m units) and visits the positions of their
 * items, cluster after cluster (the buffer is reused: copy it to keep it). With one item per cluster (in item order)
 * it visits exactly what `forEachResample(n, samples, seed, ...)` visits.
 */
export function forEachClusterResample(
  clusters: ReadonlyArray<Uint32Array>,
  samples: number,
  seed: number,
  visit: (indices: Uint32Array) => void,
): void {
  const m = clusters.length;
  let largest = 0;
  for (const c of clusters) largest = Math.max(largest, c.length);
  const buffer = new Uint32Array(m * largest);
  forEachResample(m, samples, seed, (drawn) => {
    let len = 0;
    for (let k = 0; k < m; k++) {
      const members = clusters[drawn[k]!]!;
      buffer.set(members, len);
      len += members.length;
    }
    visit(buffer.subarray(0, len));
  });
}

/**
 * The leave-one-cluster-out jackknife: for each cluster k, the statistic on the positions of every other cluster's
 * items (in item order). `statistic` receives a fresh array each time.
 */
export function jackknifeClusters(
  clusters: ReadonlyArray<Uint32Array>,
  statistic: (indices: Uint32Array) => number,
): number[] {
  const owner: number[] = [];
  clusters.forEach((members, k) => {
    for (const i of members) owner[i] = k;
  });
  const n = owner.length;
  return clusters.map((members, k) => {
    const kept = new Uint32Array(n - members.length);
    let len = 0;
    for (let i = 0; i < n; i++) if (owner[i] !== k) kept[len++] = i;
    return statistic(kept);
  });
}

export interface BcaInterval {
  lower: number;
  upper: number;
  /** Bias correction z0 = Phi^-1((#{theta* < theta} + #{theta* = theta} / 2) / B). */
  z0: number;
  /** Acceleration from the jackknife values. */
  acceleration: number;
  /** The percentile levels used in place of (1 -+ confidence) / 2. */
  levels: [number, number];
}

/**
 * The bias-corrected and accelerated (BCa) bootstrap interval (Efron 1987; Efron & Tibshirani 1993, ch. 14) of a
 * statistic with value `estimate`, from its bootstrap values (NaN ignored) and its jackknife values (leave one unit,
 * or cluster, out). z0 = Phi^-1(p0) with p0 the share of bootstrap values below the estimate (ties count half);
 * a = sum (m - t_i)^3 / (6 (sum (m - t_i)^2)^(3/2)), m the mean of the jackknife values t_i (0 when they are all
 * equal); levels alpha_1,2 = Phi(z0 + (z0 + z) / (1 - a (z0 + z))) for z = Phi^-1((1 -+ confidence) / 2); the
 * interval is the bootstrap values' percentiles (linear interpolation) at those levels. Values within a relative 1e-9
 * of the estimate count as ties (a resample equal to the sample may sum in another order). Null when it does not
 * exist or the resamples cannot place it: no bootstrap value, every bootstrap value on one side of the estimate (z0
 * infinite), or a level below 1 / B or above 1 - 1 / B (an end beyond the extreme resamples: the bias is too large
 * for B resamples).
 */
export function bcaInterval(
  estimate: number,
  bootstrap: ArrayLike<number>,
  jackknife: ArrayLike<number>,
  confidence = 0.95,
): BcaInterval | null {
  const sorted = Array.from(bootstrap)
    .filter((x) => !Number.isNaN(x))
    .sort((a, b) => a - b);
  const B = sorted.length;
  if (B === 0 || Number.isNaN(estimate)) return null;
  let below = 0;
  let ties = 0;
  const tolerance = 1e-9 * Math.max(1, Math.abs(estimate));
  for (const x of sorted) {
    if (Math.abs(x - estimate) <= tolerance) ties++;
    else if (x < estimate) below++;
  }
  const z0 = normalQuantile((below + ties / 2) / B);
  if (!Number.isFinite(z0)) return null;
  const jack = Array.from(jackknife).filter((x) => !Number.isNaN(x));
  let acceleration = 0;
  if (jack.length > 1) {
    const mean = jack.reduce((s, x) => s + x, 0) / jack.length;
    let s2 = 0;
    let s3 = 0;
    for (const t of jack) {
      const d = mean - t;
      s2 += d * d;
      s3 += d * d * d;
    }
    acceleration = s2 > 0 ? s3 / (6 * s2 ** 1.5) : 0;
  }
  const level = (tail: number) => {
    const z = normalQuantile(tail);
    return normalCdf(z0 + (z0 + z) / (1 - acceleration * (z0 + z)));
  };
  const alpha = (1 - confidence) / 2;
  const levels: [number, number] = [level(alpha), level(1 - alpha)];
  if (!(levels[0] >= 1 / B && levels[1] <= 1 - 1 / B)) return null;
  return { lower: percentile(sorted, levels[0]), upper: percentile(sorted, levels[1]), z0, acceleration, levels };
}

// ---------------------------------------------------------------------------
// Clustered matched pairs
// ---------------------------------------------------------------------------

export interface ClusteredMcnemar {
  /** Sum over clusters of b_k (A 1, B 0) and of c_k (A 0, B 1). */
  b: number;
  c: number;
  /** Clusters, and clusters with b_k != c_k. */
  clusters: number;
  /** X^2 = (sum_k (b_k - c_k))^2 / sum_k (b_k - c_k)^2; 0 when no cluster has b_k != c_k. */
  statistic: number;
  /** P[chi^2_1 >= X^2]; 1 when no cluster has b_k != c_k. */
  p: number;
}

/**
 * The clustered McNemar test of Durkalski, Palesch, Lipsitz & Rust (2003, Statistics in Medicine 22:2417-2428) for
 * matched binary outcomes nested in clusters: `b[k]` and `c[k]` are cluster k's discordant pairs (A 1 & B 0, and
 * A 0 & B 1). X^2 = (sum_k (b_k - c_k))^2 / sum_k (b_k - c_k)^2, referred to chi-square with 1 degree of freedom.
 * With one item per cluster it is McNemar's (b - c)^2 / (b + c) (asymptotic, no continuity correction).
 */
export function clusteredMcnemar(b: ArrayLike<number>, c: ArrayLike<number>): ClusteredMcnemar {
  if (b.length !== c.length)
    throw new EvalError('invalid_data', `clusteredMcnemar: ${b.length} b counts but ${c.length} c counts`);
  let sumB = 0;
  let sumC = 0;
  let sumSquares = 0;
  for (let k = 0; k < b.length; k++) {
    const bk = b[k]!;
    const ck = c[k]!;
    if (!Number.isInteger(bk) || !Number.isInteger(ck) || bk < 0 || ck < 0)
      throw new EvalError(
        'invalid_data',
        `clusteredMcnemar: cluster ${k}: counts must be non-negative integers, got ${bk}, ${ck}`,
      );
    sumB += bk;
    sumC += ck;
    sumSquares += (bk - ck) ** 2;
  }
  const statistic = sumSquares === 0 ? 0 : (sumB - sumC) ** 2 / sumSquares;
  return { b: sumB, c: sumC, clusters: b.length, statistic, p: sumSquares === 0 ? 1 : chiSquare1Sf(statistic) };
}

// ---------------------------------------------------------------------------
// Krippendorff's alpha
// ---------------------------------------------------------------------------

export type AlphaLevel = 'nominal' | 'ordinal' | 'interval';

/**
 * Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability") of reliability data:
 * `units[u][j]` is coder j's value for unit u, null where missing. Units with fewer than two values are not
 * pairable and drop out. Coincidences: each ordered pair of values (c, k) of one unit adds 1 / (m_u - 1) to o_ck;
 * n_c = sum_k o_ck, n = sum_c n_c; alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck, with the squared difference
 * d_ck: nominal 0 or 1; ordinal (sum_{g from c to k} n_g - (n_c + n_k) / 2)^2 over the values in sorted order;
 * interval (c - k)^2 (numbers only). NaN when there is no pairable value or no variation (every value alike).
 */
export function krippendorffAlpha(
  units: ReadonlyArray<ReadonlyArray<Label | null | undefined>>,
  level: AlphaLevel = 'nominal',
): number {
  const { values, coincidences } = coincidenceMatrix(units);
  return alphaFromCoincidences(values, coincidences, level);
}

/**
 * Krippendorff's alpha from a coincidence matrix (`coincidences[c * v + k]` = o_ck over the sorted `values`), as
 * {@link krippendorffAlpha} computes it; a value with n_c = 0 changes nothing.
 */
export function alphaFromCoincidences(
  values: ReadonlyArray<Label>,
  coincidences: ArrayLike<number>,
  level: AlphaLevel = 'nominal',
): number {
  const v = values.length;
  const totals = new Array<number>(v).fill(0);
  for (let c = 0; c < v; c++) for (let k = 0; k < v; k++) totals[c]! += coincidences[c * v + k]!;
  const n = totals.reduce((s, x) => s + x, 0);
  if (n === 0) return Number.NaN;
  const delta = (c: number, k: number): number => {
    if (c === k) return 0;
    if (level === 'nominal') return 1;
    if (level === 'interval') {
      const x = values[c]!;
      const y = values[k]!;
      if (typeof x === 'string' || typeof y === 'string')
        throw new EvalError('invalid_data', 'krippendorffAlpha: interval level needs numeric values');
      return (Number(x) - Number(y)) ** 2;
    }
    const [lo, hi] = c < k ? [c, k] : [k, c];
    let s = 0;
    for (let g = lo; g <= hi; g++) s += totals[g]!;
    return (s - (totals[lo]! + totals[hi]!) / 2) ** 2;
  };
  let observed = 0;
  let expected = 0;
  for (let c = 0; c < v; c++) {
    for (let k = 0; k < v; k++) {
      const d = delta(c, k);
      observed += coincidences[c * v + k]! * d;
      expected += totals[c]! * totals[k]! * d;
    }
  }
  if (expected === 0) return Number.NaN;
  return 1 - ((n - 1) * observed) / expected;
}

/** Krippendorff's coincidence matrix: the sorted distinct values and o_ck (row-major). */
export function coincidenceMatrix(units: ReadonlyArray<ReadonlyArray<Label | null | undefined>>): {
  values: Label[];
  coincidences: number[];
} {
  const seen = new Map<string, Label>();
  for (const unit of units) for (const x of unit) if (x !== null && x !== undefined) seen.set(labelKey(x), x);
  const values = [...seen.values()].sort(compareLabels);
  const index = new Map(values.map((x, i) => [labelKey(x), i] as const));
  const v = values.length;
  // Integer pair counts per unit size m, divided by m - 1 once at the end (no accumulated 1/(m - 1) rounding).
  const pairsBySize = new Map<number, number[]>();
  for (const unit of units) {
    const present = unit.filter((x): x is Label => x !== null && x !== undefined).map((x) => index.get(labelKey(x))!);
    const m = present.length;
    if (m < 2) continue;
    let pairs = pairsBySize.get(m);
    if (!pairs) {
      pairs = new Array<number>(v * v).fill(0);
      pairsBySize.set(m, pairs);
    }
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++) if (i !== j) pairs[present[i]! * v + present[j]!]! += 1;
    }
  }
  const coincidences = new Array<number>(v * v).fill(0);
  for (const [m, pairs] of [...pairsBySize].sort((x, y) => x[0] - y[0])) {
    for (let i = 0; i < v * v; i++) coincidences[i]! += pairs[i]! / (m - 1);
  }
  return { values, coincidences };
}

function labelKey(x: Label): string {
  return `${typeof x}:${String(x)}`;
}
