import {
  InputError,
  type JudgeAgreement,
  type JudgeLabel,
  type MetricComparison,
  RUN_SCHEMA_VERSION,
  type RunComparison,
  type RunItem,
  type RunManifest,
  type RunMetric,
  displayScale,
  formatMetricDifference,
  formatMetricValue,
  verdictSentence,
  writeFileAtomic,
} from '@eval/core';
import type {
  PageAgreement,
  PageComparison,
  PageData,
  PageMetric,
  PageMetricComparison,
  PageRun,
} from './client/model';
import { clientScript } from './internal/bundle';
import { page } from './internal/page';

export { embedJson } from './internal/page';

/**
 * One run as the report shows it. `manifest` is `null` for an unfinished run (a directory without `run.json`):
 * the report then shows a banner and whatever items were written, never the run as complete.
 */
export interface ReportRun {
  /** The run directory as given (shown as the run's label when the manifest has no system name). */
  path?: string;
  manifest: RunManifest | null;
  items: ReadonlyArray<RunItem>;
  /** For an unfinished run: what its start marker says (`benchmark`, `variant`, `system`, `createdAt`), if anything. */
  started?: { benchmark?: string; variant?: string; system?: string; createdAt?: string };
}

/** What {@link renderReport} shows. The report recomputes nothing: metrics come from the manifests, the comparison from `compareRuns`. */
export interface ReportInput {
  runs: ReadonlyArray<ReportRun>;
  /** The result of `compareRuns` (from `@eval/core`) for two or more runs, embedded and shown as given. */
  comparison?: RunComparison;
  /**
   * The result of `judgeAgreement` (from `@eval/core`) when the runs are one system's items judged by different judges
   * (models, prompt variants, repeats): shown as "Agreement of judges" after the verdict.
   */
  agreement?: JudgeAgreement;
  title?: string;
  /** Shown as notices under the header (e.g. why several runs were not compared). */
  notes?: ReadonlyArray<string>;
  /** Shown in the header; defaults to the current time. */
  generatedAt?: string;
}

function runLabel(run: ReportRun, index: number): string {
  return run.manifest?.system || run.started?.system || run.path || `run ${index + 1}`;
}

/** Refuses what cannot be shown as one report: no run, runs of different benchmarks, a newer schema version. */
function checkRuns(runs: ReadonlyArray<ReportRun>): string {
  if (runs.length === 0) throw new InputError('report: no run given');
  for (const [i, run] of runs.entries()) {
    const version = (run.manifest as { schemaVersion?: unknown } | null)?.schemaVersion;
    if (run.manifest && version !== RUN_SCHEMA_VERSION) {
      throw new InputError(
        `run schemaVersion ${String(version)} is not supported by this version of @eval/report (it reads version ${RUN_SCHEMA_VERSION}); upgrade dialeval`,
        { file: run.path ? `${run.path}/run.json` : `run ${i + 1}`, field: ['schemaVersion'] },
      );
    }
  }
  const benchmarks = [
    ...new Set(
      runs.flatMap((r) => {
        const b = r.manifest?.benchmark ?? r.started?.benchmark;
        return b ? [b] : [];
      }),
    ),
  ];
  if (benchmarks.length > 1) {
    const list = runs
      .map((r, i) => `${r.path ?? runLabel(r, i)} (${r.manifest?.benchmark ?? 'unfinished'})`)
      .join(', ');
    throw new InputError(`report: runs of different benchmarks cannot be shown in one report: ${list}`);
  }
  return benchmarks[0] ?? 'unknown';
}

/** The scale a metric is charted on: metrics of one scale share a chart, and no chart mixes two. */
export function metricScale(m: Pick<RunMetric, 'unit'>): string {
  if (m.unit === '%' || m.unit === 'ratio') return 'percent';
  return m.unit ?? '';
}

function pageMetric(name: string, m: RunMetric): PageMetric {
  const ci = m.ci ?? null;
  return {
    name,
    value: m.value,
    text: formatMetricValue(m.value, m),
    ciText: ci ? `${formatMetricValue(ci[0], m)} to ${formatMetricValue(ci[1], m)}` : null,
    scaled: m.value === null ? null : displayScale(m.value, m),
    scaledCi: ci ? [displayScale(ci[0], m), displayScale(ci[1], m)] : null,
    ciMethod: m.ciMethod ?? null,
    n: m.n,
    unit: m.unit ?? '',
    scale: metricScale(m),
    part: m.part ?? null,
  };
}

const pText = (p: number | null | undefined): string =>
  p === null || p === undefined ? '' : p < 0.001 ? '< 0.001' : p < 0.1 ? p.toFixed(3) : p.toFixed(2);

function pageComparison(comparison: RunComparison, runs: ReadonlyArray<ReportRun>): PageComparison {
  // compareRuns names runs by directory and id; the page by position
  const index = (k: number): number => {
    const cr = comparison.runs[k];
    const i = runs.findIndex((r) => cr && (r.path === cr.dir || r.manifest?.id === cr.id));
    return i >= 0 ? i : k;
  };
  const pairs = comparison.pairs.map((pair) => {
    const declared = runs[index(pair.a)]?.manifest?.metrics ?? {};
    const metric = (m: MetricComparison): PageMetricComparison => {
      const f: RunMetric | undefined = declared[m.name];
      const fmt = { unit: f?.unit, digits: f?.digits };
      const diff = (x: number) => formatMetricDifference(x, fmt);
      return {
        name: m.name,
        part: f?.part ?? null,
        scale: metricScale(fmt),
        a: formatMetricValue(m.a, fmt),
        b: formatMetricValue(m.b, fmt),
        delta: formatMetricDifference(m.delta, fmt),
        ci: m.ci ? `${diff(m.ci[0])} to ${diff(m.ci[1])}` : '',
        scaledDelta: m.delta === null ? null : displayScale(m.delta, fmt),
        scaledCi: m.ci ? [displayScale(m.ci[0], fmt), displayScale(m.ci[1], fmt)] : null,
        pRandomization: pText(m.pRandomization),
        mcnemar: m.mcnemar ? `${pText(m.mcnemar.p)} (b ${m.mcnemar.b}, c ${m.mcnemar.c})` : '',
        pHolm: pText(m.pHolm),
        recordedA: formatMetricValue(m.recordedA, fmt),
        recordedB: formatMetricValue(m.recordedB, fmt),
        outcome: m.mcnemar?.outcome ?? null,
        flipped: m.flipped,
        verdict: f?.part || m.delta === null ? null : verdictSentence(comparison, pair, m, { format: fmt }),
      };
    };
    return {
      a: index(pair.a),
      b: index(pair.b),
      paired: pair.paired,
      unpaired: {
        count: pair.unpaired.count,
        onlyA: pair.unpaired.onlyA.length,
        onlyB: pair.unpaired.onlyB.length,
        failedA: pair.unpaired.failedA.length,
        failedB: pair.unpaired.failedB.length,
      },
      metrics: pair.metrics.map(metric),
    };
  });
  return {
    unit: comparison.unit,
    notes: comparison.notes,
    resamples: comparison.resamples,
    seed: comparison.seed,
    confidence: comparison.confidence,
    methods: { ...comparison.methods },
    forced: comparison.forced,
    partial: comparison.partial,
    pairs,
  };
}

const fixed3 = (x: number | null): string => (x === null ? '' : formatMetricValue(x, { digits: 3 }));
const labelText = (x: JudgeLabel): string => String(x);
const shares = (rates: JudgeAgreement['judges'][number]['baseRates']): string =>
  rates.map((r) => `${labelText(r.label)} ${formatMetricValue(r.share, { unit: 'ratio', digits: 1 })}`).join(' / ');
const count = (n: number): string => n.toLocaleString('en-US');

function pageAgreement(agreement: JudgeAgreement, runs: ReadonlyArray<ReportRun>): PageAgreement {
  const runIndex = (k: number): number | null => {
    const ar = agreement.runs[k];
    if (!ar) return null;
    const i = runs.findIndex((r) => r.path === ar.dir || r.manifest?.id === ar.id);
    return i >= 0 ? i : null;
  };
  const declared = runs[runIndex(0) ?? 0]?.manifest?.metrics ?? {};
  const clusters = agreement.unit === 'item' ? '' : ` in ${count(agreement.clusters)} ${agreement.unit}s`;
  return {
    value: agreement.value,
    level: agreement.level,
    over: `${count(agreement.items)} items${clusters}`,
    resamples: agreement.resamples,
    seed: agreement.seed,
    judges: agreement.judges.map((j, k) => ({
      name: j.name,
      source: j.source !== undefined && j.source !== j.name ? j.source : null,
      run: k < agreement.runs.length ? runIndex(k) : null,
      judged: count(j.judged),
      baseRates: shares(j.baseRates),
    })),
    alpha: {
      value: fixed3(agreement.alpha.value),
      ci: agreement.alpha.ci ? `${fixed3(agreement.alpha.ci[0])} to ${fixed3(agreement.alpha.ci[1])}` : '',
      pairable: count(agreement.pairable),
    },
    pairs: agreement.pairs.map((p) => ({
      a: p.a,
      b: p.b,
      compared: count(p.compared),
      observed: p.observed === null ? '' : formatMetricValue(p.observed, { unit: 'ratio', digits: 1 }),
      kappa: fixed3(p.kappa),
      baseRatesA: shares(p.baseRates[0]),
      baseRatesB: shares(p.baseRates[1]),
      flips: count(p.flips.length),
      changes: p.changes.map((c) => `${labelText(c.from)} → ${labelText(c.to)}: ${count(c.count)}`).join(', '),
      flipped: p.flips.map((f) => ({ id: f.id, a: labelText(f.a), b: labelText(f.b) })),
    })),
    flipMatrix: agreement.flipMatrix.map((row, i) => row.map((x, j) => (i === j ? '—' : count(x)))),
    common: count(agreement.common),
    metrics: agreement.metrics.map((m) => {
      const f: RunMetric | undefined = declared[m.name];
      const fmt = { unit: f?.unit, digits: f?.digits };
      const diff = (x: number) => formatMetricDifference(x, fmt);
      return {
        name: m.name,
        values: m.values.map((x) => formatMetricValue(x, fmt)),
        shift: m.shift
          ? {
              from: m.shift.from,
              to: m.shift.to,
              delta: diff(m.shift.delta),
              ci: m.shift.ci
                ? `${diff(m.shift.ci[0])} to ${diff(m.shift.ci[1])}`
                : m.shift.ciMethod === 'refused'
                  ? 'refused'
                  : '',
              p: pText(m.shift.pRandomization),
            }
          : null,
      };
    }),
    notes: [...agreement.notes],
    methods: { ...agreement.methods },
  };
}

/** The page's data: the runs, every figure written as the field writes it, the comparison with its verdicts. */
export function reportData(input: ReportInput): PageData {
  const benchmark = checkRuns(input.runs);
  const labels = uniqueLabels(input.runs);
  const runs: PageRun[] = input.runs.map((run, i) => ({
    label: labels[i]!,
    path: run.path ?? null,
    manifest: run.manifest,
    started: run.started ?? null,
    items: [...run.items],
    metrics: Object.entries(run.manifest?.metrics ?? {}).map(([name, m]) => pageMetric(name, m)),
  }));
  return {
    title: input.title ?? defaultTitle(input.runs, benchmark),
    benchmark,
    generatedAt: input.generatedAt ?? new Date().toISOString(),
    runs,
    comparison: input.comparison ? pageComparison(input.comparison, input.runs) : null,
    agreement: input.agreement ? pageAgreement(input.agreement, input.runs) : null,
    notes: [...(input.notes ?? [])],
  };
}

/**
 * Renders one self-contained HTML document: the data as one JSON script tag, the page's code (with Observable Plot)
 * bundled into one inline script, a Content-Security-Policy that allows only that script (by hash) and no network.
 */
export function renderReport(input: ReportInput): string {
  const data = reportData(input);
  return page({ title: data.title, data, script: clientScript('report') });
}

/**
 * Run labels (system names) made unique as the verdict sentences name runs (core's `runNames`): two runs of one
 * system by their variants when those differ, else by position.
 */
function uniqueLabels(runs: ReadonlyArray<ReportRun>): string[] {
  const base = runs.map((r, i) => runLabel(r, i));
  const variant = (r: ReportRun) => r.manifest?.variant ?? r.started?.variant ?? '';
  return base.map((l, i) => {
    const same = runs.filter((_, j) => base[j] === l);
    if (same.length === 1) return l;
    const variants = same.map(variant);
    return new Set(variants).size === variants.length ? `${l} (${variant(runs[i]!)})` : `${l} [${i + 1}]`;
  });
}

function defaultTitle(runs: ReadonlyArray<ReportRun>, benchmark: string): string {
  const systems = runs.map((r, i) => runLabel(r, i));
  return runs.length === 1 ? `${benchmark}: ${systems[0]}` : `${benchmark}: ${systems.join(' vs ')}`;
}

/** {@link renderReport} written atomically to `file`. */
export async function writeReport(file: string, input: ReportInput): Promise<void> {
  await writeFileAtomic(file, renderReport(input));
}
