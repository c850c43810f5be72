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

export type Label = string | number | boolean;

/** Sorts labels as Python sorts them (numbers and booleans numerically; strings apart). */
export function compareLabels(x: Label, y: Label): number {
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
