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

/** One judge of the agreement: a run's judge (model, prompt variant, repeat) or a set of labels without a run. */
export interface PageJudge {
  name: string;
  /** Where its verdicts come from (a run directory, a file of human labels), when not the name itself. */
  source: string | null;
  /** Index into `PageData.runs` of its run, or null (human labels, a run not shown). */
  run: number | null;
  judged: string;
  /** Its label shares over everything it judged (`false 37.5% / true 62.5%`). */
  baseRates: string;
}

/** One pair of judges: Cohen's kappa with both judges' base rates on the items both judged. */
export interface PageJudgePair {
  /** Indices into `PageAgreement.judges`. */
  a: number;
  b: number;
  compared: string;
  /** Share of the compared items both labelled alike (`75.0%`). */
  observed: string;
  kappa: string;
  baseRatesA: string;
  baseRatesB: string;
  flips: string;
  /** Each change of label from A to B with its count (`true → false: 1`). */
  changes: string;
  /** The items labelled differently, with A's and B's label as written. */
  flipped: Array<{ id: string; a: string; b: string }>;
}

/** One headline metric recomputed under each run's judge, and the largest shift judge choice alone makes. */
export interface PageJudgeMetric {
  name: string;
  /** Per run judge (the first judges), as the field writes the metric; empty where undefined. */
  values: string[];
  /** `to − from` by judge names, the difference, its paired interval and randomisation p; null when no shift. */
  shift: { from: number; to: number; delta: string; ci: string; p: string } | null;
}

/** The agreement of judges (core's `judgeAgreement`), every figure written in node. */
export interface PageAgreement {
  /** The item value compared as the verdict. */
  value: string;
  /** Alpha's level of measurement (`nominal`, `ordinal`). */
  level: string;
  /** What was judged and resampled (`8 items in 3 users`). */
  over: string;
  resamples: number;
  seed: number;
  judges: PageJudge[];
  /** Krippendorff's alpha with its 95% bootstrap interval (`0.476`, `0.102 to 0.811`) and the items entering it. */
  alpha: { value: string; ci: string; pairable: string };
  pairs: PageJudgePair[];
  /** `flipMatrix[i][j]`: items judges i and j labelled differently, written (`—` on the diagonal). */
  flipMatrix: string[][];
  /** Items every run evaluated, on which the metrics are recomputed. */
  common: string;
  metrics: PageJudgeMetric[];
  notes: string[];
  methods: Record<string, string>;
}

export interface PageData {
  title: string;
  benchmark: string;
  generatedAt: string;
  runs: PageRun[];
  comparison: PageComparison | null;
  /** The agreement of judges, when the runs are one system's items judged by different judges. */
  agreement: PageAgreement | null;
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
