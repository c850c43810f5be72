import { z } from 'zod';
import { RUN_SCHEMA_VERSION } from './version';

/**
 * The run record: `run.json` (the manifest, {@link runManifestSchema}) and
 * `items.jsonl` (one {@link RunItem} per evaluated unit) in one directory, beside the benchmark's native outputs.
 *
 * `schemaVersion` is bumped on any incompatible change; readers refuse a version they do not know.
 */
export { RUN_SCHEMA_VERSION };

/** One headline figure, named as the reference names it. */
export const runMetricSchema = z.object({
  value: z.number().nullable(),
  /** How many units it was computed from. */
  n: z.number().int().nonnegative(),
  ci: z.tuple([z.number(), z.number()]).optional(),
  ciMethod: z.string().optional(),
  /**
   * How the field writes it (see {@link formatMetricValue}): `%` for a value already in percent points (mwzeval's
   * Inform 60.1), `ratio` for a 0-1 value shown as a percentage, `count` for an integer, `BLEU`, `kappa`, or any
   * other label for a plain number.
   */
  unit: z.string().optional(),
  /** Decimals shown (after scaling a `ratio` to percent); default by unit: `%` 1, `ratio` 1, `BLEU` 2, `kappa` 3, `count` 0, other 3. */
  digits: z.number().int().min(0).max(12).optional(),
  /**
   * Set when this figure is one part of a breakdown of another metric: `Success (attraction)` is
   * `{ of: 'Success', by: 'domain', value: 'attraction' }`. Views group such figures (systems side by side within a
   * domain, round or method); metrics without `part` are the headline figures.
   */
  part: z.object({ of: z.string(), by: z.string(), value: z.string() }).optional(),
});
export type RunMetric = z.infer<typeof runMetricSchema>;

/** A value aggregated into a headline metric: a number, a binary outcome, or null when not applicable. */
export const runItemValueSchema = z.union([z.number(), z.boolean(), z.null()]);
export type RunItemValue = z.infer<typeof runItemValueSchema>;

/** One line of `items.jsonl`. `id` is stable across runs on the same data, so two runs pair item by item. */
export const runItemSchema = z.object({
  id: z.string().min(1),
  group: z.string().optional(),
  /**
   * The unit this item is nested in (the dialogue of a turn, the episode of a probe, the user of a question, the group
   * of a statement): items of one cluster are correlated, so resampling draws whole clusters. See the manifest's
   * `cluster` for what the unit is called.
   */
  cluster: z.string().optional(),
  /** What the headline metrics are aggregated from. */
  values: z.record(z.string(), runItemValueSchema),
  /** Set when the item could not be evaluated (a failed call, a missing output): it counts into no metric. */
  error: z.string().optional(),
  /** What a person wants to see when looking at the item (failure reasons, the judge's explanation, ...). */
  detail: z.record(z.string(), z.unknown()).optional(),
});
export type RunItem = z.infer<typeof runItemSchema>;

export const runStatusSchema = z.enum(['complete', 'partial', 'failed']);
export type RunStatus = z.infer<typeof runStatusSchema>;

export const runInputSchema = z.object({
  /** What the file is to the benchmark: `predictions`, `references`, `gold`, `episodes`, ... */
  role: z.string(),
  /** The path as given on the command line (or by the caller). */
  path: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type RunInput = z.infer<typeof runInputSchema>;

export const runResourceSchema = z.object({
  name: z.string(),
  /** Pinned commit of the set, or `default texts` when the package's built-in defaults were used. */
  commit: z.string().optional(),
  /** sha256 of the set's sorted `path sha256` file list; absent for built-in defaults. */
  sha256: z.string().optional(),
  source: z.enum(['option', 'env', 'cache', 'default texts', 'directory']).optional(),
});
export type RunResource = z.infer<typeof runResourceSchema>;

export const runLlmSchema = z.object({
  /** Host (and port) of the endpoint: never the key, a URL's user info, path secrets or query. */
  endpointHost: z.string(),
  model: z.string(),
  modelReported: z.array(z.string()).optional(),
  sampling: z.record(z.string(), z.unknown()).optional(),
  calls: z.object({
    made: z.number().int().nonnegative(),
    cached: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    retried: z.number().int().nonnegative(),
  }),
  tokens: z.object({ prompt: z.number().nonnegative(), completion: z.number().nonnegative() }),
  costUsd: z.number().nonnegative(),
  prices: z.record(z.string(), z.unknown()).optional(),
  batch: z.boolean(),
  /** Identity of the cache directory (a hash of its resolved path), never the path of a home directory. */
  cache: z.string().optional(),
});
export type RunLlm = z.infer<typeof runLlmSchema>;

export const runFailureSchema = z.object({ id: z.string(), reason: z.string() });
export type RunFailure = z.infer<typeof runFailureSchema>;

export const runArtifactSchema = z.object({
  /** Path relative to the run directory (or absolute when outside it). */
  path: z.string(),
  /** e.g. `mwzeval-json`, `clembench-scores`, `halumem-eval-results`, `llm-dst-eval-output`, `cgt-printout`. */
  format: z.string(),
});
export type RunArtifact = z.infer<typeof runArtifactSchema>;

export const runManifestSchema = z.object({
  schemaVersion: z.literal(RUN_SCHEMA_VERSION),
  id: z.string().min(1),
  benchmark: z.string().min(1),
  /** The npm package whose `runBenchmark` descriptor recomputes this run's metrics (absent in older records). */
  benchmarkPackage: z.string().optional(),
  /** When items nest in larger units: what one cluster is (`dialogue`, `episode`, `user`, `group`); items carry it as `cluster`. */
  cluster: z.object({ unit: z.string() }).optional(),
  /** Whatever changes the numbers: method, normalisation version, mode. Runs compare only within one variant. */
  variant: z.string(),
  system: z.string(),
  createdAt: z.string(),
  finishedAt: z.string(),
  status: runStatusSchema,
  tool: z.object({
    cli: z.string().optional(),
    packages: z.record(z.string(), z.string()),
    node: z.string(),
    platform: z.string(),
  }),
  command: z.array(z.string()),
  inputs: z.array(runInputSchema),
  resources: z.array(runResourceSchema),
  options: z.record(z.string(), z.unknown()),
  llm: runLlmSchema.optional(),
  metrics: z.record(z.string(), runMetricSchema),
  counts: z.object({
    items: z.number().int().nonnegative(),
    evaluated: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    skipped: z.number().int().nonnegative(),
  }),
  failures: z.array(runFailureSchema),
  artifacts: z.array(runArtifactSchema),
});
export type RunManifest = z.infer<typeof runManifestSchema>;

/**
 * What a benchmark package provides so that `compare`, `runs` and `report` work on its runs: the function that
 * recomputes its headline metrics from items (exactly the figures the run records), and which of them are binary
 * per-item outcomes (for McNemar and flipped items).
 */
export interface RunBenchmark {
  benchmark: string;
  /**
   * The npm package that exports this descriptor as `runBenchmark` (e.g. `@eval/multiwoz`, or a third party's own
   * package). Run records name it, so that `compare`, `runs` and `report` find the descriptor of any benchmark.
   */
  package?: string;
  /** When items nest (turns of dialogues, probes of episodes, ...): what one cluster is; items carry it as `cluster`. */
  cluster?: { unit: string };
  /**
   * Metrics that a resample with replacement biases (type/token ratios such as Distinct-n, vocabulary counts): their
   * percentile bootstrap interval does not contain what it estimates. `compare` gives them a bias-corrected (BCa)
   * interval or none. Every other metric may be resampled as it is.
   */
  biasedUnderResampling?: ReadonlyArray<string>;
  /** Recomputes every headline metric from items; items with `error` are ignored. */
  recompute(items: ReadonlyArray<RunItem>, variant?: string): Record<string, number | null>;
  /**
   * Headline metric name -> the item value that is its binary per-item outcome (e.g. `Success` -> `success`): those
   * metrics also get the exact McNemar test and the flipped items. A benchmark that declares no `binary` map at all
   * gets every compared metric whose item value of the same name is boolean on every paired item treated as binary.
   */
  binary?: Record<string, string>;
  /**
   * Optional fast path for resampling (`compareRuns` calls it once per comparison, then the returned function up to
   * 4 R times): precompute per-item numeric columns or sufficient statistics from `items` once, and return a
   * function that recomputes the headline metrics on a multiset of those items given by `indices` (positions in
   * `items`, with repetition, in any order). It must equal `recompute(indices.map((i) => items[i]), variant)` up to
   * floating-point summation order. Example for a corpus BLEU: keep per-item match/total n-gram counts and lengths in
   * typed arrays, sum them over `indices`, compute BLEU from the sums. Without it, resampling calls `recompute` on
   * each resample (correct, slower). `items` never contain an item with `error`.
   */
  prepare?(
    items: ReadonlyArray<RunItem>,
    variant?: string,
  ): (indices: ArrayLike<number>) => Record<string, number | null>;
  /**
   * Optional, for looking at items (`dialeval report`): a run may keep bulky display-only detail by location (an
   * episode's transcript as the path of its `interactions.json`, a turn's context as its place in a native output
   * file) rather than in `items.jsonl`, so that writing the run stays cheap. This reads it back: it returns the items
   * with that detail filled in from `runDir` (the run directory; relative locations are resolved against it). It never
   * changes `id`, `group`, `values` or `error`, and it never fails on a location that is gone: such an item keeps its
   * detail as recorded (with the location, so the reader can say where it was).
   */
  itemDetails?(items: ReadonlyArray<RunItem>, runDir: string, manifest?: RunManifest): Promise<RunItem[]>;
}
