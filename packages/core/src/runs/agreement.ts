import { join } from 'node:path';
import { InputError } from '../errors';
import { cohenKappa, percentile } from '../stats';
import {
  type AlphaLevel,
  alphaFromCoincidences,
  clusterIndex,
  coincidenceMatrix,
  forEachClusterResample,
  krippendorffAlpha,
} from '../inference';
import { compareRuns } from './compare';
import type { LoadedRun } from './reader';
import type { RunBenchmark, RunItem } from './schema';
import { RUN_FILES } from './writer';

/** One judge's verdict on one item. */
export type JudgeLabel = string | number | boolean;

/** One judge's verdicts: item id -> label (an item it did not judge is absent). */
export interface JudgeLabels {
  name: string;
  labels: ReadonlyMap<string, JudgeLabel>;
  /** Where the labels come from: a run directory, a file of human labels, ... */
  source?: string;
}

export interface AgreementOptions {
  /** Bootstrap resamples of the alpha interval and of the shifts' paired intervals (default 2,000). */
  resamples?: number;
  /** Seed of the resampling (default 0). */
  seed?: number;
  /** Level of measurement of alpha (default: `ordinal` for numbers with more than two values, else `nominal`). */
  level?: AlphaLevel;
  /** Resample whole clusters (the default, where items carry `cluster`) or items. */
  unit?: 'cluster' | 'item';
  /** Item id -> cluster, for the bootstrap over clusters (ids not listed are clusters of their own). */
  clusterOf?: ReadonlyMap<string, string>;
  /** Name of the cluster unit (`dialogue`, ...) for the result; default `cluster`. */
  clusterUnit?: string;
}

/** Share of each label among one judge's verdicts on the compared items. */
export interface BaseRate {
  label: JudgeLabel;
  count: number;
  share: number;
}

export interface JudgePairAgreement {
  /** Indices into `judges`. */
  a: number;
  b: number;
  /** Items both judged. */
  compared: number;
  /** Share of them on which both gave the same label. */
  observed: number | null;
  /** Cohen's kappa (unweighted, as scikit-learn's `cohen_kappa_score`); null when undefined (0/0) or nothing compared. */
  kappa: number | null;
  /** Each judge's label shares on the compared items: a high kappa on a skewed label is no good judge. */
  baseRates: [BaseRate[], BaseRate[]];
  /** The items on which the two differ, in item order, with A's and B's label. */
  flips: Array<{ id: string; a: JudgeLabel; b: JudgeLabel }>;
  /** Counts of each change of label from A to B (`from` A's label, `to` B's). */
  changes: Array<{ from: JudgeLabel; to: JudgeLabel; count: number }>;
}

/** The result of {@link labelAgreement}: plain JSON. */
export interface LabelAgreement {
  judges: Array<{ name: string; source?: string; judged: number; baseRates: BaseRate[] }>;
  /** Items judged by at least one judge, and by at least two (those enter alpha). */
  items: number;
  pairable: number;
  level: AlphaLevel;
  /** What the alpha interval resampled: the cluster unit's name or `item`, and how many. */
  unit: string;
  clusters: number;
  resamples: number;
  seed: number;
  confidence: number;
  /** Krippendorff's alpha over every judge, with its percentile bootstrap interval over clusters (or items). */
  alpha: { value: number | null; ci: [number, number] | null };
  /** Every pair of judges: kappa, base rates, flipped items. */
  pairs: JudgePairAgreement[];
  /** `flipMatrix[i][j]`: items judges i and j both judged and labelled differently. */
  flipMatrix: number[][];
  /** Read these before the figures (an interval that excludes its own estimate, ...). */
  notes: string[];
}

const CONFIDENCE = 0.95;

function labelKey(x: JudgeLabel): string {
  return `${typeof x}:${String(x)}`;
}

function baseRates(labels: JudgeLabel[]): BaseRate[] {
  const counts = new Map<string, BaseRate>();
  for (const x of labels) {
    const r = counts.get(labelKey(x)) ?? { label: x, count: 0, share: 0 };
    r.count++;
    counts.set(labelKey(x), r);
  }
  const out = [...counts.values()].sort((p, q) =>
    typeof p.label === 'string' || typeof q.label === 'string'
      ? String(p.label).localeCompare(String(q.label))
      : Number(p.label) - Number(q.label),
  );
  for (const r of out) r.share = r.count / labels.length;
  return out;
}

/** `ordinal` for numbers taking more than two values (HaluMem's 0/1/2 scores), else `nominal`. */
export function alphaLevelOf(labels: Iterable<JudgeLabel>): AlphaLevel {
  const numbers = new Set<number>();
  for (const x of labels) {
    if (typeof x !== 'number') return 'nominal';
    numbers.add(x);
  }
  return numbers.size > 2 ? 'ordinal' : 'nominal';
}

/**
 * Agreement of several judges on the same items: Krippendorff's alpha over all of them (missing labels allowed) with a
 * percentile bootstrap interval over clusters (`clusterOf`) or items, and for every pair Cohen's kappa with each
 * judge's base rates, the items whose label differs (the flips) and the counts of each change. Items are taken in the
 * order the judges first list them. Seeded: the same labels, seed and R give the same result.
 */
export function labelAgreement(judges: ReadonlyArray<JudgeLabels>, options: AgreementOptions = {}): LabelAgreement {
  if (judges.length < 2)
    throw new InputError(`agreement needs at least two judges, got ${judges.length}`, { code: 'input_too_few_runs' });
  const resamples = options.resamples ?? 2000;
  const seed = options.seed ?? 0;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new InputError(`resamples must be a positive integer, got ${resamples}`, { code: 'input_error' });
  if (!Number.isInteger(seed) || seed < 0)
    throw new InputError(`seed must be a non-negative integer, got ${seed}`, { code: 'input_error' });
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const judge of judges) {
    for (const id of judge.labels.keys()) {
      if (!seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    }
  }
  const kinds = new Set<string>();
  for (const judge of judges) for (const x of judge.labels.values()) kinds.add(typeof x);
  if (kinds.size > 1) {
    throw new InputError(
      `judges' labels mix ${[...kinds].join(' and ')} values (${judges.map((j) => j.name).join(', ')}): give every judge the same kind of label`,
      { code: 'input_mismatch' },
    );
  }
  const level = options.level ?? alphaLevelOf(judges.flatMap((j) => [...j.labels.values()]));
  const units = ids.map((id) => judges.map((j) => j.labels.get(id) ?? null));
  const pairable = units.filter((u) => u.filter((x) => x !== null).length >= 2).length;

  // Alpha and its bootstrap over clusters (whole clusters of items drawn with replacement).
  const clustered =
    options.unit !== 'item' && options.clusterOf !== undefined && ids.some((id) => options.clusterOf!.has(id));
  const clusters = clusterIndex(ids.map((id) => (clustered ? options.clusterOf!.get(id) : undefined)));
  const alphaValue = krippendorffAlpha(units, level);
  const boot: number[] = [];
  if (!Number.isNaN(alphaValue)) {
    // Each unit's own coincidences once; a resample sums those of its units (no labels handled per resample).
    const { values } = coincidenceMatrix(units);
    const v = values.length;
    const index = new Map(values.map((x, i) => [labelKey(x), i] as const));
    const own = units.map((unit) => {
      const present = unit.filter((x): x is JudgeLabel => x !== null).map((x) => index.get(labelKey(x))!);
      if (present.length < 2) return null;
      const o = new Float64Array(v * v);
      for (let i = 0; i < present.length; i++)
        for (let j = 0; j < present.length; j++)
          if (i !== j) o[present[i]! * v + present[j]!]! += 1 / (present.length - 1);
      return o;
    });
    const sum = new Float64Array(v * v);
    forEachClusterResample(clusters, resamples, seed, (idx) => {
      sum.fill(0);
      for (let i = 0; i < idx.length; i++) {
        const o = own[idx[i]!];
        if (o) for (let c = 0; c < o.length; c++) sum[c]! += o[c]!;
      }
      const a = alphaFromCoincidences(values, sum, level);
      if (!Number.isNaN(a)) boot.push(a);
    });
  }
  boot.sort((x, y) => x - y);
  const tail = (1 - CONFIDENCE) / 2;
  const alphaCi: [number, number] | null =
    boot.length > 0 ? [percentile(boot, tail), percentile(boot, 1 - tail)] : null;
  const notes: string[] = [];
  if (alphaCi && (alphaValue < alphaCi[0] || alphaValue > alphaCi[1]))
    notes.push(`the alpha interval [${alphaCi[0]}, ${alphaCi[1]}] excludes its own estimate ${alphaValue}`);

  const pairs: JudgePairAgreement[] = [];
  const flipMatrix = judges.map(() => judges.map(() => 0));
  for (let a = 0; a < judges.length; a++) {
    for (let b = a + 1; b < judges.length; b++) {
      const la: JudgeLabel[] = [];
      const lb: JudgeLabel[] = [];
      const flips: JudgePairAgreement['flips'] = [];
      const changes = new Map<string, { from: JudgeLabel; to: JudgeLabel; count: number }>();
      for (const id of ids) {
        const x = judges[a]!.labels.get(id);
        const y = judges[b]!.labels.get(id);
        if (x === undefined || y === undefined) continue;
        la.push(x);
        lb.push(y);
        if (labelKey(x) !== labelKey(y)) {
          flips.push({ id, a: x, b: y });
          const key = `${labelKey(x)}>${labelKey(y)}`;
          const c = changes.get(key) ?? { from: x, to: y, count: 0 };
          c.count++;
          changes.set(key, c);
        }
      }
      const kappa = la.length === 0 ? Number.NaN : cohenKappa(la, lb);
      flipMatrix[a]![b] = flips.length;
      flipMatrix[b]![a] = flips.length;
      pairs.push({
        a,
        b,
        compared: la.length,
        observed: la.length === 0 ? null : (la.length - flips.length) / la.length,
        kappa: Number.isFinite(kappa) ? kappa : null,
        baseRates: [baseRates(la), baseRates(lb)],
        flips,
        changes: [...changes.values()].sort((p, q) => q.count - p.count),
      });
    }
  }
  return {
    judges: judges.map((j) => ({
      name: j.name,
      ...(j.source !== undefined ? { source: j.source } : {}),
      judged: j.labels.size,
      baseRates: baseRates([...j.labels.values()]),
    })),
    items: ids.length,
    pairable,
    level,
    unit: clustered ? (options.clusterUnit ?? 'cluster') : 'item',
    clusters: clusters.length,
    resamples,
    seed,
    confidence: CONFIDENCE,
    alpha: { value: Number.isNaN(alphaValue) ? null : alphaValue, ci: alphaCi },
    pairs,
    flipMatrix,
    notes,
  };
}

// ---------------------------------------------------------------------------
// Runs of one benchmark by different judges
// ---------------------------------------------------------------------------

export interface JudgeAgreementOptions extends AgreementOptions {
  /**
   * The item value that is each judge's verdict (default: the first of the benchmark's `binary` outcomes the items
   * have; without a `binary` map, the first item value that is boolean wherever present).
   */
  value?: string;
  /** More judges without a run (a file of human labels, ...): they enter alpha, kappa and the flips, not the metrics. */
  extraJudges?: JudgeLabels[];
  /** Headline metrics to recompute under each judge (default: the first run's headline metrics the benchmark recomputes). */
  metrics?: string[];
  /** The run judges' names, one per run (default: each run's model, else system; with the variant or the directory when those repeat). */
  names?: string[];
}

/** One headline metric recomputed under each judge on the items every judge's run evaluated. */
export interface MetricUnderJudges {
  name: string;
  /** Per run judge (the first `runs.length` judges), null where the metric is undefined. */
  values: Array<number | null>;
  /**
   * The largest shift judge choice alone makes: the run giving the largest value minus the one giving the smallest,
   * with the paired bootstrap interval and randomisation p of that difference (`compareRuns` on the two, same unit).
   */
  shift: {
    from: number;
    to: number;
    delta: number;
    ci: [number, number] | null;
    ciMethod: string | null;
    pRandomization: number | null;
  } | null;
}

/** The result of {@link judgeAgreement}: plain JSON. */
export interface JudgeAgreement extends LabelAgreement {
  benchmark: string;
  /** The item value compared as the verdict. */
  value: string;
  /** The runs, one per judge (the first judges, in order). */
  runs: Array<{ dir: string; id: string; system: string; variant: string; model: string | null; status: string }>;
  /** Items every run evaluated (the metrics are recomputed on them). */
  common: number;
  metrics: MetricUnderJudges[];
  /** Read these before the figures (different systems or variants, items some judge did not judge, ...). */
  notes: string[];
  methods: { alpha: string; kappa: string; flips: string; shift: string };
}

const METHODS: JudgeAgreement['methods'] = {
  alpha:
    "Krippendorff's alpha (Krippendorff 2011) over every judge, missing verdicts allowed; 95% percentile bootstrap interval resampling whole clusters (or items) with replacement",
  kappa:
    "Cohen's kappa per pair of judges on the items both judged (scikit-learn's cohen_kappa_score), with each judge's base rates on those items",
  flips: 'items both judges judged and labelled differently; flipMatrix[i][j] counts them',
  shift:
    'each headline metric recomputed under each judge on the items every run evaluated; the largest value minus the smallest, with the paired bootstrap interval and randomisation p of compare (same unit)',
};

function verdictValue(runs: LoadedRun[], benchmark: RunBenchmark, requested: string | undefined): string {
  const has = (name: string) => runs.some((r) => r.items.some((i) => i.values[name] !== undefined));
  if (requested !== undefined) {
    if (!has(requested)) {
      throw new InputError(`no item of these runs has the value ${JSON.stringify(requested)}`, {
        file: join(runs[0]!.dir, RUN_FILES.items),
        field: ['values', requested],
        code: 'input_unknown_metric',
      });
    }
    return requested;
  }
  // The descriptor's binary outcomes; without a `binary` map, the item values that are boolean wherever present.
  const boolean = (name: string) =>
    runs.every((r) =>
      r.items.every(
        (i) => i.values[name] === undefined || i.values[name] === null || typeof i.values[name] === 'boolean',
      ),
    );
  const candidates = benchmark.binary
    ? Object.values(benchmark.binary)
    : [...new Set(runs.flatMap((r) => r.items.flatMap((i) => Object.keys(i.values))))].filter(boolean);
  const found = candidates.find(has);
  if (found === undefined) {
    throw new InputError(
      `benchmark ${JSON.stringify(benchmark.benchmark)} declares no binary outcome its items carry${candidates.length ? ` (${candidates.join(', ')})` : ''}: name the verdict's item value (value / --value NAME)`,
      { code: 'input_unknown_metric' },
    );
  }
  return found;
}

/** A label as the runs' kind of label: `true`/`false`/`1`/`0` as booleans, numeric strings as numbers, ... */
function coerceJudge(judge: JudgeLabels, kind: string): JudgeLabels {
  const labels = new Map<string, JudgeLabel>();
  for (const [id, x] of judge.labels) {
    let y: JudgeLabel | undefined;
    if (typeof x === kind) y = x;
    else if (kind === 'boolean') {
      const s = String(x).trim().toLowerCase();
      y = s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : undefined;
    } else if (kind === 'number') {
      y =
        typeof x === 'boolean'
          ? Number(x)
          : String(x).trim() !== '' && Number.isFinite(Number(x))
            ? Number(x)
            : undefined;
    } else y = String(x);
    if (y === undefined) {
      throw new InputError(
        `${judge.name}: the label ${JSON.stringify(x)} of item ${JSON.stringify(id)} is no ${kind} like the runs' verdicts`,
        { ...(judge.source ? { file: judge.source } : {}), record: id, code: 'input_mismatch' },
      );
    }
    labels.set(id, y);
  }
  return { ...judge, labels };
}

function judgeNames(runs: LoadedRun[]): string[] {
  const candidates: Array<(r: LoadedRun) => string> = [
    (r) => r.manifest.llm?.model ?? r.manifest.system,
    (r) => `${r.manifest.llm?.model ?? r.manifest.system} ${r.manifest.variant}`,
    (r) => r.dir,
  ];
  for (const name of candidates) {
    const names = runs.map(name);
    if (new Set(names).size === names.length) return names;
  }
  return runs.map((r, i) => `${r.dir} #${i + 1}`);
}

/**
 * Agreement of judges: runs of one benchmark over the same items, each judged by another judge (a model, a prompt
 * variant, a repeat), plus judges without a run (`extraJudges`, e.g. human labels). The verdict is the item value
 * `value` (default: the first of the benchmark's binary outcomes the items carry). Gives {@link labelAgreement}
 * (alpha with its interval over clusters, pairwise kappa with base rates, the flips), and every headline metric
 * recomputed under each run's judge on the items all runs evaluated, with the largest shift between judges and its
 * paired interval: how much of a system-vs-system difference judge choice alone can move.
 */
export function judgeAgreement(
  runs: LoadedRun[],
  benchmark: RunBenchmark,
  options: JudgeAgreementOptions = {},
): JudgeAgreement {
  const extra = options.extraJudges ?? [];
  if (runs.length === 0 || runs.length + extra.length < 2)
    throw new InputError(
      `agreement needs at least two judges (runs or label sets), got ${runs.length + extra.length}`,
      {
        code: 'input_too_few_runs',
      },
    );
  for (const run of runs) {
    if (run.manifest.benchmark !== benchmark.benchmark) {
      throw new InputError(
        `cannot measure agreement across benchmarks: ${JSON.stringify(run.manifest.benchmark)} in ${run.dir} vs ${JSON.stringify(benchmark.benchmark)}`,
        { file: join(run.dir, RUN_FILES.manifest), field: ['benchmark'], code: 'input_mismatch' },
      );
    }
  }
  const value = verdictValue(runs, benchmark, options.value);
  if (options.names !== undefined && options.names.length !== runs.length)
    throw new InputError(`${options.names.length} judge name(s) for ${runs.length} run(s)`, { code: 'input_mismatch' });
  const names = options.names ?? judgeNames(runs);
  const runJudges: JudgeLabels[] = runs.map((run, i) => {
    const labels = new Map<string, JudgeLabel>();
    for (const item of run.items) {
      const x = item.values[value];
      if (item.error === undefined && x !== null && x !== undefined) labels.set(item.id, x);
    }
    return { name: names[i]!, labels, source: run.dir };
  });
  const kind = runJudges.flatMap((j) => [...j.labels.values()].map((x) => typeof x))[0];
  const judges = [...runJudges, ...extra.map((j) => (kind ? coerceJudge(j, kind) : j))];

  // Clusters: an item's cluster in the first run that gives it one.
  const clusterOf = new Map<string, string>();
  for (const run of runs)
    for (const item of run.items)
      if (item.cluster !== undefined && !clusterOf.has(item.id)) clusterOf.set(item.id, item.cluster);
  const clusterUnit = runs.find((r) => r.manifest.cluster)?.manifest.cluster?.unit ?? benchmark.cluster?.unit;
  const labels = labelAgreement(judges, { ...options, clusterOf, ...(clusterUnit ? { clusterUnit } : {}) });
  const notes = [...labels.notes];

  const systems = new Set(runs.map((r) => r.manifest.system));
  if (systems.size > 1)
    notes.push(
      `the runs evaluate different systems (${[...systems].join(', ')}): judges are compared on different outputs`,
    );
  const variants = new Set(runs.map((r) => r.manifest.variant));
  if (variants.size > 1) notes.push(`the runs have different variants (${[...variants].join(', ')})`);
  judges.forEach((j) => {
    const missing = labels.items - j.labels.size;
    if (missing > 0) notes.push(`${j.name} gave no ${value} for ${missing} of ${labels.items} items`);
  });

  // Headline metrics under each judge, on the items every run evaluated.
  const evaluated = runs.map((r) => new Set(r.items.filter((i) => i.error === undefined).map((i) => i.id)));
  const commonIds = new Set([...evaluated[0]!].filter((id) => evaluated.every((s) => s.has(id))));
  const commonRuns: LoadedRun[] = runs.map((r) => ({
    ...r,
    items: r.items.filter((i: RunItem) => commonIds.has(i.id)),
  }));
  let metrics: MetricUnderJudges[] = [];
  if (commonIds.size > 0) {
    const recomputed = commonRuns.map((r) => benchmark.recompute(r.items, r.manifest.variant));
    let wanted = options.metrics;
    if (!wanted || wanted.length === 0) {
      const headline = Object.keys(runs[0]!.manifest.metrics).filter((m) => m in recomputed[0]!);
      wanted = headline.length > 0 ? headline : Object.keys(recomputed[0]!);
    }
    const unknown = wanted.filter((m) => !(m in recomputed[0]!));
    if (unknown.length > 0)
      throw new InputError(
        `unknown metric ${unknown.map((m) => JSON.stringify(m)).join(', ')} for benchmark ${JSON.stringify(benchmark.benchmark)} (recomputed: ${Object.keys(recomputed[0]!).join(', ')})`,
        { code: 'input_unknown_metric' },
      );
    metrics = wanted.map((name) => {
      const values = recomputed.map((m) => m[name] ?? null);
      // The first judge giving the smallest value and the last giving the largest (two different judges when all agree).
      let from = -1;
      let to = -1;
      values.forEach((x, i) => {
        if (x === null) return;
        if (from < 0 || x < values[from]!) from = i;
        if (to < 0 || x >= values[to]!) to = i;
      });
      return {
        name,
        values,
        shift:
          from >= 0 && to >= 0 && from !== to
            ? { from, to, delta: values[to]! - values[from]!, ci: null, ciMethod: null, pRandomization: null }
            : null,
      };
    });
    // The paired intervals: one compareRuns per pair of judges that gives some metric's largest shift.
    const byPair = new Map<string, MetricUnderJudges[]>();
    for (const m of metrics) {
      if (!m.shift) continue;
      const key = `${m.shift.from}>${m.shift.to}`;
      byPair.set(key, [...(byPair.get(key) ?? []), m]);
    }
    for (const group of byPair.values()) {
      const { from, to } = group[0]!.shift!;
      const c = compareRuns([commonRuns[from]!, commonRuns[to]!], benchmark, {
        resamples: labels.resamples,
        seed: labels.seed,
        force: true,
        metrics: group.map((m) => m.name),
        unit: options.unit ?? 'cluster',
      });
      for (const m of group) {
        const got = c.pairs[0]!.metrics.find((x) => x.name === m.name)!;
        m.shift!.ci = got.ci;
        m.shift!.ciMethod = got.ciMethod;
        m.shift!.pRandomization = got.pRandomization;
      }
      notes.push(...c.notes);
    }
  } else {
    notes.push('no item was evaluated by every run: no metric is recomputed under each judge');
  }
  return {
    benchmark: benchmark.benchmark,
    value,
    ...labels,
    runs: runs.map((r) => ({
      dir: r.dir,
      id: r.manifest.id,
      system: r.manifest.system,
      variant: r.manifest.variant,
      model: r.manifest.llm?.model ?? null,
      status: r.manifest.status,
    })),
    common: commonIds.size,
    metrics,
    notes,
    methods: METHODS,
  };
}
