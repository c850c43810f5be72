import { exactMean, fleissKappa, ratingTable, stdev } from '@eval/core';

/** A figure over repeats: every repeat's value, their mean and sample standard deviation (null with one repeat). */
export interface Spread {
  values: Array<number | null>;
  mean: number | null;
  std: number | null;
}

/** Mean and sample standard deviation (n - 1) of a figure across repeats; null values (no figure) are left out. */
export function spread(values: Array<number | null>): Spread {
  const xs = values.filter((x): x is number => x !== null && Number.isFinite(x));
  return { values, mean: xs.length > 0 ? exactMean(xs) : null, std: xs.length > 1 ? stdev(xs) : null };
}

/** How often a judge agrees with itself across repeats. */
export interface SelfAgreement {
  /** Items judged in every repeat. */
  items: number;
  /** Share of those items whose judgement is the same in every repeat. */
  agreement: number | null;
  /** Fleiss' kappa over those items, the repeats as raters (NaN when every judgement is the same label). */
  fleissKappa: number | null;
}

/**
 * Self-agreement of a judge from its labels per item and repeat (`labels[i][r]`; `undefined` where repeat r has no
 * judgement of item i: such items are left out).
 */
export function selfAgreement(labels: Array<Array<string | number | undefined>>): SelfAgreement {
  const complete = labels.filter((row) => row.length > 1 && row.every((x) => x !== undefined)) as Array<
    Array<string | number>
  >;
  if (complete.length === 0) return { items: 0, agreement: null, fleissKappa: null };
  const same = complete.filter((row) => row.every((x) => x === row[0])).length;
  const kappa = fleissKappa(ratingTable(complete).table);
  return { items: complete.length, agreement: same / complete.length, fleissKappa: Number.isNaN(kappa) ? null : kappa };
}
