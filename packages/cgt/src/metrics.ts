import { exactMean } from '@eval/core';

/** The true block weights of the Weights Task, hard-coded in the reference (`GOLD`). */
export const TRUE_WEIGHTS: ReadonlyMap<string, string> = new Map([
  ['red', '10'],
  ['blue', '10'],
  ['green', '20'],
  ['purple', '30'],
  ['yellow', '50'],
]);

const TRUE_PROPOSITIONS = new Set([...TRUE_WEIGHTS].map(([k, v]) => `${k}=${v}`));

/** One row of the metric: the gold common ground at an accepted statement and the model's answer. */
export interface ScoredRowInput {
  gold: ReadonlyMap<string, string>;
  pred: ReadonlyMap<string, string>;
}

/** How the mean of per-row values is taken. */
export type MeanMode = 'exact' | 'naive';
/** PRF1 counting: the reference's rules, or standard counting (not a reference behaviour; no parity target). */
export type Prf1Variant = 'reference' | 'standard';
/** DSC filtering of predictions: `strict` (reference default) or `lenient`. */
export type DscMode = 'strict' | 'lenient';

/**
 * A P/R/F1 triple. `int` is true where the reference returns Python ints: the `(1, 1, 1)` / `(0, 0, 0)` rows
 * and means of such rows that are whole numbers. It only changes how the value is printed (`0` vs `0.0`).
 */
export interface Prf1 {
  p: number;
  r: number;
  f1: number;
  int: boolean;
}

/**
 * The reference's `prf1(G, P)` on accumulated dicts. A gold color with the same value is a TP, a missing one an FN,
 * a different value an FP (not an FN). A predicted color not in gold is an FP unless its value is the true weight.
 * Without any TP: ints `(1, 1, 1)` when there is no error at all, else `(0, 0, 0)`.
 * `variant: 'standard'` counts a wrong value as FP and FN and every predicted color not in gold as FP.
 */
export function prf1(
  gold: ReadonlyMap<string, string>,
  pred: ReadonlyMap<string, string>,
  variant: Prf1Variant = 'reference',
): Prf1 {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [color, value] of gold) {
    const predicted = pred.get(color);
    if (predicted === value) tp++;
    else if (predicted === undefined) fn++;
    else if (variant === 'standard') {
      fp++;
      fn++;
    } else fp++;
  }
  for (const [color, value] of pred) {
    if (gold.has(color)) continue;
    if (variant === 'standard' || TRUE_WEIGHTS.get(color) !== value) fp++;
  }
  if (tp === 0) return fp === 0 && fn === 0 ? { p: 1, r: 1, f1: 1, int: true } : { p: 0, r: 0, f1: 0, int: true };
  const p = tp / (tp + fp);
  const r = tp / (tp + fn);
  const f1 = (2 * p * r) / (p + r);
  return { p, r, f1, int: false };
}

/** Python's `statistics.mean` (`exact`) or `sum(xs) / len(xs)` (`naive`). */
export function meanOf(values: readonly number[], mode: MeanMode = 'exact'): number {
  if (mode === 'exact') return exactMean(values);
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Mean of P/R/F1 triples: exact (`statistics.mean`, an int when every row is an int and the mean is whole) or naive. */
export function meanPrf1(rows: readonly Prf1[], mode: MeanMode = 'exact'): Prf1 {
  const p = meanOf(
    rows.map((x) => x.p),
    mode,
  );
  const r = meanOf(
    rows.map((x) => x.r),
    mode,
  );
  const f1 = meanOf(
    rows.map((x) => x.f1),
    mode,
  );
  const int =
    mode === 'exact' && rows.every((x) => x.int) && Number.isInteger(p) && Number.isInteger(r) && Number.isInteger(f1);
  return { p, r, f1, int };
}

export interface Prf1Row extends Prf1 {
  /** 0-based position of the row in the group (skipped rows are absent). */
  row: number;
}

export interface DscRow {
  /** 0-based position of the row in the group (skipped rows are absent). */
  row: number;
  dsc: number;
}

export interface Series<Row, Value> {
  rows: Row[];
  /** Mean over the scored rows; null when no row was scored (the reference crashes there). */
  mean: Value | null;
  /** The last scored row's value; null when no row was scored. */
  final: Value | null;
}

/**
 * Accumulative PRF1 over a group: gold and predictions are merged row by row (later values overwrite, nothing is
 * ever removed); rows where both accumulated dicts are empty are skipped.
 */
export function accumulativePrf1(
  rows: readonly ScoredRowInput[],
  options: { mean?: MeanMode; variant?: Prf1Variant } = {},
): Series<Prf1Row, Prf1> {
  const allGold = new Map<string, string>();
  const allPred = new Map<string, string>();
  const out: Prf1Row[] = [];
  rows.forEach((row, i) => {
    for (const [k, v] of row.gold) allGold.set(k, v);
    for (const [k, v] of row.pred) allPred.set(k, v);
    if (allGold.size === 0 && allPred.size === 0) return;
    out.push({ row: i, ...prf1(allGold, allPred, options.variant) });
  });
  if (out.length === 0) return { rows: out, mean: null, final: null };
  const last = out[out.length - 1]!;
  return { rows: out, mean: meanPrf1(out, options.mean), final: { p: last.p, r: last.r, f1: last.f1, int: last.int } };
}

/**
 * Cumulative Dice–Sørensen over a group: every row's gold and own prediction are tagged with the row index
 * (`"3-red=10"`) and added to growing sets; `DSC_i = 2|G∩P| / (|G| + |P|)` over everything so far. `lenient` drops a
 * predicted proposition that is true but not in the same row's gold. Rows where both sets are still empty are skipped.
 */
export function cumulativeDsc(
  rows: readonly ScoredRowInput[],
  options: { mode?: DscMode; mean?: MeanMode } = {},
): Series<DscRow, number> {
  const lenient = options.mode === 'lenient';
  const allGold = new Set<string>();
  const allPred = new Set<string>();
  let common = 0;
  const out: DscRow[] = [];
  rows.forEach((row, i) => {
    const gs = new Set<string>();
    for (const [k, v] of row.gold) gs.add(`${i}-${k}=${v}`);
    for (const g of gs) {
      if (allGold.has(g)) continue;
      allGold.add(g);
      if (allPred.has(g)) common++;
    }
    for (const [k, v] of row.pred) {
      const p = `${i}-${k}=${v}`;
      if (lenient && !gs.has(p) && TRUE_PROPOSITIONS.has(p.split('-')[1]!)) continue;
      if (allPred.has(p)) continue;
      allPred.add(p);
      if (allGold.has(p)) common++;
    }
    if (allGold.size === 0 && allPred.size === 0) return;
    out.push({ row: i, dsc: (2 * common) / (allGold.size + allPred.size) });
  });
  if (out.length === 0) return { rows: out, mean: null, final: null };
  return {
    rows: out,
    mean: meanOf(
      out.map((x) => x.dsc),
      options.mean,
    ),
    final: out[out.length - 1]!.dsc,
  };
}
