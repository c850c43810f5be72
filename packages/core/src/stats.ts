import { EvalError } from './errors';

// ---------------------------------------------------------------------------
// Precision / recall / F1
// ---------------------------------------------------------------------------

export interface PrfCounts {
  tp: number;
  fp: number;
  fn: number;
}

export interface Prf {
  precision: number;
  recall: number;
  f1: number;
}

/**
 * Precision, recall and F1 from counts. An empty denominator gives `zeroDivision`
 * (0 by default, as scikit-learn's `zero_division=0`).
 */
export function prf(counts: PrfCounts, options: { zeroDivision?: number } = {}): Prf {
  const z = options.zeroDivision ?? 0;
  const { tp, fp, fn } = counts;
  const precision = tp + fp === 0 ? z : tp / (tp + fp);
  const recall = tp + fn === 0 ? z : tp / (tp + fn);
  const f1 = precision + recall === 0 ? z : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

// ---------------------------------------------------------------------------
// Exact arithmetic helpers (Python float semantics)
// ---------------------------------------------------------------------------

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Decomposes a finite double into `mantissa * 2 ** exponent` with an integer (BigInt) mantissa. */
export function decomposeDouble(x: number): { mantissa: bigint; exponent: number } {
  f64[0] = x;
  const hi = u32[LITTLE ? 1 : 0]!;
  const lo = u32[LITTLE ? 0 : 1]!;
  const sign = hi >>> 31 ? -1n : 1n;
  const biased = (hi >>> 20) & 0x7ff;
  let frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exponent: number;
  if (biased === 0) {
    exponent = -1074;
  } else {
    frac |= 1n << 52n;
    exponent = biased - 1075;
  }
  return { mantissa: sign * frac, exponent };
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** Correctly rounded (ties to even) conversion of the rational `num / den` to a double, as Python's `int / int`. */
export function ratioToDouble(num: bigint, den: bigint): number {
  if (den === 0n) throw new EvalError('zero_division', 'division by zero');
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const negative = num < 0n;
  if (negative) num = -num;
  if (num === 0n) return negative ? -0 : 0;
  // Scale so that the integer quotient has at least 55 significant bits.
  const shift = bitLength(num) - bitLength(den) - 55;
  let n = num;
  let d = den;
  if (shift >= 0) d <<= BigInt(shift);
  else n <<= BigInt(-shift);
  const q = n / d;
  const sticky = n % d !== 0n;
  const qbits = bitLength(q);
  let drop = qbits - 53;
  if (shift + drop < -1074) drop = -1074 - shift;
  let m: bigint;
  if (drop > 0) {
    const bd = BigInt(drop);
    m = q >> bd;
    const rem = q & ((1n << bd) - 1n);
    const half = 1n << (bd - 1n);
    if (rem > half || (rem === half && (sticky || (m & 1n) === 1n))) m += 1n;
  } else {
    m = q << BigInt(-drop);
  }
  const exp = shift + drop;
  // m <= 2^53 and exp >= -1074: the product is exactly representable (or overflows to Infinity, as Python raises).
  const result = exp > 1000 ? Number(m) * 2 ** 1000 * 2 ** (exp - 1000) : Number(m) * 2 ** exp;
  return negative ? -result : result;
}

/** Exact sum of doubles as a rational `num / 2**k` (BigInt numerator, shared exponent). */
function exactSum(values: ArrayLike<number>): { num: bigint; exponent: number } {
  let minExp = Infinity;
  const parts: Array<{ mantissa: bigint; exponent: number }> = [];
  for (let i = 0; i < values.length; i++) {
    const d = decomposeDouble(values[i]!);
    parts.push(d);
    if (d.mantissa !== 0n && d.exponent < minExp) minExp = d.exponent;
  }
  if (minExp === Infinity) return { num: 0n, exponent: 0 };
  let num = 0n;
  for (const p of parts) {
    if (p.mantissa !== 0n) num += p.mantissa << BigInt(p.exponent - minExp);
  }
  return { num, exponent: minExp };
}

function rationalOf(num: bigint, exponent: number, divisor: bigint): number {
  return exponent >= 0
    ? ratioToDouble(num << BigInt(exponent), divisor)
    : ratioToDouble(num, divisor << BigInt(-exponent));
}

/** Correctly rounded sum of doubles (Python's `math.fsum`). */
export function fsum(values: ArrayLike<number>): number {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i]!)) return naiveSum(values);
  const { num, exponent } = exactSum(values);
  return rationalOf(num, exponent, 1n);
}

function naiveSum(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s;
}

/**
 * Arithmetic mean identical to Python's `statistics.mean` on floats (and ints): the values are summed
 * exactly as rationals and rounded once. Naive left-to-right summation differs in the last bit on real data.
 * Throws on an empty input, as Python raises `StatisticsError`.
 */
export function exactMean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) throw new EvalError('empty_data', 'mean requires at least one data point');
  for (let i = 0; i < n; i++) if (!Number.isFinite(values[i]!)) return naiveSum(values) / n;
  const { num, exponent } = exactSum(values);
  return rationalOf(num, exponent, BigInt(n));
}

/**
 * Harmonic mean as Python's `statistics.harmonic_mean`: 0 if any value is 0; negative values are an error.
 */
export function harmonicMean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) throw new EvalError('empty_data', 'harmonic mean requires at least one data point');
  for (let i = 0; i < n; i++) {
    if (values[i]! < 0) throw new EvalError('invalid_data', 'harmonic mean does not support negative values');
    if (values[i] === 0) return 0;
  }
  if (n === 1) return values[0]!;
  // Python: _sum(1/x for x in data) exactly, then n / total, converted once.
  // 1/x is a rational; sum exactly with BigInt fractions.
  let num = 0n;
  let den = 1n;
  for (let i = 0; i < n; i++) {
    const { mantissa, exponent } = decomposeDouble(values[i]!);
    // 1/x = 2^-e / m
    let rn: bigint;
    let rd: bigint;
    if (exponent >= 0) {
      rn = 1n;
      rd = mantissa << BigInt(exponent);
    } else {
      rn = 1n << BigInt(-exponent);
      rd = mantissa;
    }
    num = num * rd + rn * den;
    den = den * rd;
    const g = gcd(num, den);
    num /= g;
    den /= g;
  }
  return ratioToDouble(BigInt(n) * den, num);
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Sample standard deviation as Python's `statistics.stdev` (n - 1 denominator), correctly rounded inputs. */
export function stdev(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) throw new EvalError('empty_data', 'stdev requires at least two data points');
  const mean = exactMean(values);
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i]! - mean) ** 2;
  return Math.sqrt(ss / (n - 1));
}

// ---------------------------------------------------------------------------
// numpy-compatible summation and Cohen's kappa
// ---------------------------------------------------------------------------

/** numpy's pairwise summation of float64 (`np.sum` on a contiguous array): same rounding as numpy. */
export function numpySum(a: ArrayLike<number>, start = 0, n = a.length - start): number {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += a[start + i]!;
    return res;
  }
  if (n <= 128) {
    const r = [
      a[start]!,
      a[start + 1]!,
      a[start + 2]!,
      a[start + 3]!,
      a[start + 4]!,
      a[start + 5]!,
      a[start + 6]!,
      a[start + 7]!,
    ];
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (let j = 0; j < 8; j++) r[j]! += a[start + i + j]!;
    }
    let res = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) res += a[start + i]!;
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return numpySum(a, start, n2) + numpySum(a, start + n2, n - n2);
}

type Label = string | number | boolean;

function compareLabels(x: Label, y: Label): number {
  if (typeof x !== typeof y) {
    // Python would raise on str vs int comparison; booleans and numbers compare numerically.
    if (typeof x !== 'string' && typeof y !== 'string') return Number(x) - Number(y);
    throw new EvalError('invalid_data', 'labels mix strings and numbers');
  }
  if (typeof x === 'string') return x < (y as string) ? -1 : x > (y as string) ? 1 : 0;
  return Number(x) - Number(y);
}

/**
 * Cohen's kappa identical to scikit-learn's `cohen_kappa_score(y1, y2)` (unweighted): confusion matrix over the
 * sorted union of labels, expected matrix `outer(sum0, sum1) / sum(sum0)`, numpy summation order. Returns NaN where
 * scikit-learn does (e.g. a single label in both ratings: 0 / 0).
 */
export function cohenKappa(
  y1: ReadonlyArray<Label>,
  y2: ReadonlyArray<Label>,
  options: { labels?: Label[] } = {},
): number {
  if (y1.length !== y2.length)
    throw new EvalError('invalid_data', `cohenKappa: inconsistent lengths ${y1.length} and ${y2.length}`);
  let labels = options.labels;
  if (!labels) {
    const seen = new Map<string, Label>();
    for (const v of [...y1, ...y2]) seen.set(`${typeof v}:${String(v)}`, v);
    labels = [...seen.values()].sort(compareLabels);
  }
  const k = labels.length;
  const index = new Map<string, number>();
  labels.forEach((l, i) => index.set(`${typeof l}:${String(l)}`, i));
  const cm = new Array<number>(k * k).fill(0);
  for (let i = 0; i < y1.length; i++) {
    const a = index.get(`${typeof y1[i]}:${String(y1[i])}`);
    const b = index.get(`${typeof y2[i]}:${String(y2[i])}`);
    if (a === undefined || b === undefined) continue;
    cm[a * k + b]! += 1;
  }
  const sum0 = new Array<number>(k).fill(0);
  const sum1 = new Array<number>(k).fill(0);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      sum0[j]! += cm[i * k + j]!;
      sum1[i]! += cm[i * k + j]!;
    }
  }
  const total = sum0.reduce((s, x) => s + x, 0);
  const expected = new Array<number>(k * k);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) expected[i * k + j] = (sum0[i]! * sum1[j]!) / total;
  let numerator = 0;
  const weighted = new Array<number>(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const w = i === j ? 0 : 1;
      numerator += w * cm[i * k + j]!;
      weighted[i * k + j] = w * expected[i * k + j]!;
    }
  }
  const denominator = numpySum(weighted);
  const kk = numerator / denominator;
  return 1 - kk;
}

/**
 * Fleiss' kappa (Fleiss 1971): agreement of several ratings per subject beyond chance. `table[i][j]` is how many
 * ratings put subject i into category j; every subject has the same number n >= 2 of ratings. With N subjects:
 * `P_i = (sum_j n_ij^2 - n) / (n (n - 1))`, `P = mean(P_i)`, `p_j = sum_i n_ij / (N n)`, `P_e = sum_j p_j^2`,
 * kappa = `(P - P_e) / (1 - P_e)`. NaN when every rating falls in one category (P_e = 1: 0 / 0).
 */
export function fleissKappa(table: ReadonlyArray<ReadonlyArray<number>>): number {
  if (table.length === 0) throw new EvalError('invalid_data', 'fleissKappa: no subjects');
  const k = table[0]!.length;
  const n = table[0]!.reduce((a, b) => a + b, 0);
  if (n < 2) throw new EvalError('invalid_data', `fleissKappa: each subject needs at least 2 ratings, got ${n}`);
  const columns = new Array<number>(k).fill(0);
  let agreement = 0;
  table.forEach((row, i) => {
    if (row.length !== k)
      throw new EvalError('invalid_data', `fleissKappa: subject ${i} has ${row.length} categories, expected ${k}`);
    let sum = 0;
    let squares = 0;
    row.forEach((x, j) => {
      if (!Number.isInteger(x) || x < 0)
        throw new EvalError(
          'invalid_data',
          `fleissKappa: subject ${i} category ${j}: count ${x} is not a non-negative integer`,
        );
      sum += x;
      squares += x * x;
      columns[j]! += x;
    });
    if (sum !== n)
      throw new EvalError(
        'invalid_data',
        `fleissKappa: subject ${i} has ${sum} ratings, subject 0 has ${n} (every subject needs the same number)`,
      );
    agreement += squares - n;
  });
  const total = table.length * n;
  const observed = agreement / (table.length * n * (n - 1));
  let chance = 0;
  for (const c of columns) chance += (c / total) ** 2;
  return (observed - chance) / (1 - chance);
}

/**
 * Per-subject category counts for {@link fleissKappa} from the ratings themselves: `ratings[i]` lists subject i's
 * labels (e.g. one per repeat). Categories are the sorted union of labels; returns them with the table.
 */
export function ratingTable(ratings: ReadonlyArray<ReadonlyArray<Label>>): { categories: Label[]; table: number[][] } {
  const seen = new Map<string, Label>();
  for (const row of ratings) for (const v of row) seen.set(`${typeof v}:${String(v)}`, v);
  const categories = [...seen.values()].sort(compareLabels);
  const index = new Map(categories.map((c, j) => [`${typeof c}:${String(c)}`, j] as const));
  const table = ratings.map((row) => {
    const counts = new Array<number>(categories.length).fill(0);
    for (const v of row) counts[index.get(`${typeof v}:${String(v)}`)!]! += 1;
    return counts;
  });
  return { categories, table };
}

// ---------------------------------------------------------------------------
// Seeded randomness and bootstrap
// ---------------------------------------------------------------------------

/** A small seeded PRNG (mulberry32): deterministic for a given seed, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BootstrapOptions {
  /** Number of resamples (default 1000). */
  samples?: number;
  /** Seed for the resampling (default 0): the same seed gives the same interval. */
  seed?: number;
  /** Confidence level (default 0.95). */
  confidence?: number;
}

export interface ConfidenceInterval {
  /** The statistic on the full sample. */
  estimate: number;
  lower: number;
  upper: number;
  confidence: number;
  samples: number;
  seed: number;
}

/** Linear-interpolated percentile (numpy's default `linear` method) of a sorted array. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, n - 1);
  const frac = pos - lo;
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * frac;
}

/**
 * Seeded percentile bootstrap over `n` units (dialogues, groups, episodes): `statistic` receives the resampled
 * unit indices (with repetition) and returns the statistic for that resample.
 */
export function bootstrapCI(
  n: number,
  statistic: (indices: Uint32Array) => number,
  options: BootstrapOptions = {},
): ConfidenceInterval {
  const { samples, seed, confidence } = bootstrapSettings(n, options);
  const estimate = statistic(identityIndices(n));
  const stats: number[] = [];
  forEachResample(n, samples, seed, (idx) => {
    stats.push(statistic(idx));
  });
  return { estimate, ...percentileInterval(stats, confidence), confidence, samples, seed };
}

function bootstrapSettings(n: number, options: BootstrapOptions): Required<BootstrapOptions> {
  if (n <= 0) throw new EvalError('empty_data', 'bootstrap needs at least one unit');
  return { samples: options.samples ?? 1000, seed: options.seed ?? 0, confidence: options.confidence ?? 0.95 };
}

function identityIndices(n: number): Uint32Array {
  const identity = new Uint32Array(n);
  for (let i = 0; i < n; i++) identity[i] = i;
  return identity;
}

/**
 * Draws `samples` resamples of `n` unit indices (with repetition) from `seededRandom(seed)`; the buffer is reused
 * (copy it to keep it). The loop behind `bootstrapCI`, `pairedBootstrap` and `compareRuns`.
 */
export function forEachResample(n: number, samples: number, seed: number, visit: (indices: Uint32Array) => void): void {
  const rand = seededRandom(seed);
  const idx = new Uint32Array(n);
  for (let s = 0; s < samples; s++) {
    for (let i = 0; i < n; i++) idx[i] = Math.floor(rand() * n);
    visit(idx);
  }
}

/** Percentile interval of the non-NaN values. */
function percentileInterval(values: number[], confidence: number): { lower: number; upper: number } {
  const sorted = values.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  const alpha = (1 - confidence) / 2;
  return { lower: percentile(sorted, alpha), upper: percentile(sorted, 1 - alpha) };
}

/** Bootstrap CI of the mean of per-unit values. */
export function bootstrapMeanCI(values: ArrayLike<number>, options: BootstrapOptions = {}): ConfidenceInterval {
  return bootstrapCI(
    values.length,
    (idx) => {
      let s = 0;
      for (let i = 0; i < idx.length; i++) s += values[idx[i]!]!;
      return s / idx.length;
    },
    options,
  );
}

export interface PairedBootstrapResult {
  /** statistic(A) - statistic(B) on the full sample. */
  difference: number;
  /** Fraction of resamples in which A is not better than B (a one-sided p-value for "A > B"). */
  pValue: number;
  /** Confidence interval of the difference. */
  interval: ConfidenceInterval;
}

/**
 * Paired bootstrap comparison of two systems evaluated on the same units (Koehn 2004): both statistics are
 * computed on the same resampled indices.
 */
export function pairedBootstrap(
  n: number,
  statisticA: (indices: Uint32Array) => number,
  statisticB: (indices: Uint32Array) => number,
  options: BootstrapOptions = {},
): PairedBootstrapResult {
  const { samples, seed, confidence } = bootstrapSettings(n, options);
  const identity = identityIndices(n);
  const difference = statisticA(identity) - statisticB(identity);
  const diffs: number[] = [];
  let notBetter = 0;
  forEachResample(n, samples, seed, (idx) => {
    const d = statisticA(idx) - statisticB(idx);
    if (!(d > 0)) notBetter++;
    diffs.push(d);
  });
  return {
    difference,
    pValue: notBetter / samples,
    interval: { estimate: difference, ...percentileInterval(diffs, confidence), confidence, samples, seed },
  };
}

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
