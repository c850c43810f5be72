/** Parsed flags of `dialeval compare` (types only): declared by `commands/compare.ts`, read by `actions/compare.ts`. */
export interface CompareCommandOptions {
  /** `.choices()` in the command: one of these, defaulting to table. */
  format: 'table' | 'json' | 'csv' | 'markdown';
  resamples?: number;
  seed?: number;
  allPairs?: boolean;
  force?: boolean;
  metric?: string[];
  recompute?: string;
  fallbackItemMeans?: boolean;
  out?: string;
  /** `.choices()` in the command: resample clusters (default, where items carry them) or items. */
  unit?: 'item' | 'cluster';
}
