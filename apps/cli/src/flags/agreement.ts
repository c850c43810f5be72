/** Parsed flags of `dialeval agreement` (types only): declared by `commands/agreement.ts`, read by `actions/agreement.ts`. */
export interface AgreementCommandOptions {
  /** `.choices()` in the command: one of these, defaulting to table. */
  format: 'table' | 'json' | 'csv' | 'markdown';
  /** The item value that is the verdict (default: the benchmark's first binary outcome). */
  value?: string;
  /** `.choices()`: the level of measurement of alpha (default: from the values). */
  level?: 'nominal' | 'ordinal' | 'interval';
  /** Files of human labels (JSONL `{id, label}` or a JSON map), each one more judge. */
  human?: string[];
  /** `.choices()`: resample clusters (default, where items carry them) or items. */
  unit: 'cluster' | 'item';
  resamples: number;
  seed: number;
  metric?: string[];
  recompute?: string;
  fallbackItemMeans?: boolean;
  out?: string;
}
