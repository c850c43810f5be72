// The data a report page embeds (one JSON script tag), built in node by `render.ts` and read by the page's code.
// Every figure a reader sees is here already written as the field writes it (core's formatMetricValue and
// formatMetricDifference with the unit and digits run.json declares), and the verdict sentences are core's:
// the page itself formats no metric and computes none.
import type { RunItem, RunManifest } from '@eval/core';

/** A breakdown figure's place (`Success (attraction)` = `{ of: 'Success', by: 'domain', value: 'attraction' }`). */
export interface MetricPart {
  of: string;
  by: string;
  value: string;
}

/** One metric of one run, as run.json records it and as it is shown. */
export interface PageMetric {
  name: string;
  value: number | null;
  /** The value as the field writes it (`60.1`, `53.3%`, `18.42`, `5,843`); empty for null. */
  text: string;
  /** The interval as written (`57.0 to 63.2`), when run.json has one. */
  ciText: string | null;
  /** The value and interval on the scale charts use (a ratio in percent). */
  scaled: number | null;
  scaledCi: [number, number] | null;
  ciMethod: string | null;
  n: number;
  /** The declared unit (`%`, `ratio`, `BLEU`, `kappa`, `count`, other) or ''. */
  unit: string;
  /** The axis label of the metric's scale (`percent`, `BLEU`, `count`, ...) and the key charts group metrics by. */
  scale: string;
  part: MetricPart | null;
}

export interface PageRun {
  label: string;
  path: string | null;
  manifest: RunManifest | null;
  started: { benchmark?: string; variant?: string; system?: string; createdAt?: string } | null;
  items: RunItem[];
  metrics: PageMetric[];
}

/** One metric of one compared pair, written as the field writes it. */
export interface PageMetricComparison {
  name: string;
  part: MetricPart | null;
  scale: string;
  a: string;
  b: string;
  delta: string;
  ci: string;
  /** The difference and its interval on the chart scale (a ratio in percent points). */
  scaledDelta: number | null;
  scaledCi: [number, number] | null;
  pRandomization: string;
  mcnemar: string;
  pHolm: string;
  recordedA: string;
  recordedB: string;
  /** The item value whose flip McNemar counts (`success`), for binary metrics. */
  outcome: string | null;
  flipped: { oneToZero: string[]; zeroToOne: string[] } | null;
  /** Core's verdict sentence (headline metrics only). */
  verdict: string | null;
}

export interface PagePair {
  /** Indices into `PageData.runs`. */
  a: number;
  b: number;
  paired: number;
  unpaired: { count: number; onlyA: number; onlyB: number; failedA: number; failedB: number };
  metrics: PageMetricComparison[];
}

export interface PageComparison {
  /** What was resampled and swapped: a cluster unit (`dialogue`, `episode`, ...) or `item`. */
  unit: string;
  /** Notes of the comparison (an interval that excludes its estimate, items without a cluster, ...). */
  notes: string[];
  resamples: number;
  seed: number;
  confidence: number;
  methods: Record<string, string>;
  forced: string[];
  partial: boolean;
  pairs: PagePair[];
}

export interface PageData {
  title: string;
  benchmark: string;
  generatedAt: string;
  runs: PageRun[];
  comparison: PageComparison | null;
  notes: string[];
}

/** One row of the leaderboard page. */
export interface LeaderboardRow {
  dir: string;
  status: string;
  benchmark: string;
  variant: string;
  system: string;
  createdAt: string;
  report: string | null;
  cost: string;
  /** Metric name -> value as written, and the number it sorts by. */
  metrics: Record<string, { text: string; sort: number | null }>;
}
