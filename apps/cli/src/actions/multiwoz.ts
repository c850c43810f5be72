import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ConfidenceInterval,
  FileDigests,
  type RunResource,
  getResourceSet,
  resourceFileListSha256,
  writeFileAtomic,
  writeJsonAtomic,
} from '@eval/core';
import {
  DATA_FILES,
  DB_DOMAINS,
  MULTIWOZ_BENCHMARK,
  MULTIWOZ_RESOURCE,
  type MultiwozReport,
  type NormalizationVersion,
  bleuMetricName,
  bootstrapMultiwoz,
  compareMultiwoz,
  evaluateMultiwozFile,
  formatMwzevalJson,
  multiwozRunItem,
  multiwozRunMetrics,
  multiwozVariant,
  mwzevalResults,
  resolveMultiwozDataDir,
} from '@eval/multiwoz';
import type { MultiwozCommandOptions, MultiwozCompareOptions } from '../flags/multiwoz';
import { openRun, runRequested } from '../run-record';
import { UsageError, emit } from '../util';
import { formatTable } from '../format';

function version(value: string | undefined): NormalizationVersion {
  const v = value ?? '2022';
  if (v !== '2022' && v !== '2023') throw new UsageError(`--normalization must be 2022 or 2023, got "${value}"`);
  return v;
}

const warn = (message: string) => process.stderr.write(`dialeval: warning: ${message}\n`);

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const f4 = (x: number) => x.toFixed(4);
const ci = (c?: ConfidenceInterval, fmt = f2) =>
  c ? `[${Math.round(c.confidence * 100)}% CI ${fmt(c.lower)}, ${fmt(c.upper)}]` : '';

function table(file: string, r: MultiwozReport, intervals: ReturnType<typeof bootstrapMultiwoz> | undefined): string {
  const d = r.details;
  const out: string[] = [
    `MultiWOZ evaluation of ${file}: ${d.dialogues} dialogues, ${d.turns} turns, mwzeval v${d.normalization}`,
  ];
  if (r.bleu) {
    out.push('');
    for (const [name, score] of Object.entries(r.bleu))
      out.push(`BLEU (${name})  ${f2(score)}  ${ci(intervals?.bleu?.[name])}`.trimEnd());
  }
  if (r.success) {
    out.push(
      '',
      `Inform ${f1(r.success.inform.total!)}  ${ci(intervals?.inform, f1)}`.trimEnd(),
      `Success ${f1(r.success.success.total!)}  ${ci(intervals?.success, f1)}`.trimEnd(),
    );
    out.push(`(states: ${d.stateSource}; active domains: ${d.domainSource?.replace(/_/g, ' ')})`, '');
    const domains = Object.keys(r.success.inform)
      .filter((k) => k !== 'total')
      .sort();
    out.push(
      formatTable(
        ['domain', 'inform', 'success'],
        [...domains, 'total'].map((k) => [k, f1(r.success!.inform[k]!), f1(r.success!.success[k] ?? 0)]),
      ),
    );
    const failed = d.perDialogue.filter((x) => x.inform === false).length;
    const unsuccessful = d.perDialogue.filter((x) => x.inform === true && x.success === false).length;
    out.push(`${failed} dialogue(s) fail Inform, ${unsuccessful} more fail Success (--per-dialogue FILE says why)`);
  }
  if (r.richness) {
    const x = r.richness;
    out.push(
      '',
      formatTable(
        ['richness', 'value'],
        [
          ['entropy', f4(x.entropy)],
          ['cond. entropy', f4(x.cond_entropy)],
          ['avg. length', f2(x.avg_lengths)],
          ['MSTTR-50', f4(x.msttr)],
          ['unigrams', String(x.num_unigrams)],
          ['bigrams', String(x.num_bigrams)],
          ['trigrams', String(x.num_trigrams)],
        ],
      ),
    );
  }
  if (r.dst) {
    out.push(
      '',
      `DST (${d.dstSource?.replace(/_/g, ' ')}): joint accuracy ${f2(r.dst.joint_accuracy)}, slot F1 ${f2(r.dst.slot_f1)}, ` +
        `precision ${f4(r.dst.slot_precision)}, recall ${f4(r.dst.slot_recall)}`,
    );
  }
  return out.join('\n');
}

export async function runMultiwoz(predictions: string, opts: MultiwozCommandOptions): Promise<void> {
  const any = opts.bleu || opts.success || opts.richness || opts.dst;
  const metrics = any
    ? {
        bleu: Boolean(opts.bleu),
        success: Boolean(opts.success),
        richness: Boolean(opts.richness),
        dst: Boolean(opts.dst),
      }
    : { bleu: true, success: true, richness: true, dst: false };
  const format = opts.format ?? 'table';
  if (format !== 'table' && format !== 'json') throw new UsageError(`--format must be table or json, got "${format}"`);
  const samples = opts.samples ?? 1000;
  const seed = opts.seed ?? 0;
  const confidence = opts.confidence ?? 0.95;
  const references = opts.references
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // the run record hashes the files from the bytes the evaluation reads (no second read at the end)
  const digests = runRequested(opts) ? new FileDigests() : undefined;
  const report = await evaluateMultiwozFile(predictions, {
    onRead: digests?.onRead,
    ...metrics,
    dir: opts.data,
    flag: '--data',
    normalization: version(opts.normalization),
    references: references && references.length > 0 ? references : undefined,
    addSlotDomains: Boolean(opts.addSlotDomains),
    strictDst: Boolean(opts.strictDst),
    onWarning: warn,
  });
  const intervals =
    opts.ci && (report.bleu || report.success) ? bootstrapMultiwoz(report, { samples, seed, confidence }) : undefined;
  if (opts.perDialogue) {
    const lines = report.details.perDialogue.map((d) =>
      JSON.stringify({
        id: d.id,
        turns: d.turns,
        inform: d.inform,
        success: d.success,
        match: d.match,
        success_by_domain: d.successByDomain,
        domains: d.domains,
        active_domains: d.activeDomains,
        bleu: d.bleu,
        dst: d.dst,
      }),
    );
    await writeFileAtomic(opts.perDialogue, lines.length > 0 ? `${lines.join('\n')}\n` : '');
  }
  if (opts.summary) {
    const { perDialogue: _omit, ...details } = report.details;
    await writeJsonAtomic(opts.summary, {
      predictions,
      results: mwzevalResults(report),
      intervals: intervals ?? null,
      details,
      options: {
        ...metrics,
        normalization: report.details.normalization,
        addSlotDomains: Boolean(opts.addSlotDomains),
        strictDst: Boolean(opts.strictDst),
      },
    });
  }
  // mwzeval's output JSON: what --format json prints, and the run's native output (formatted once)
  const mwzevalJson = format === 'json' || runRequested(opts) ? formatMwzevalJson(report) : undefined;
  if (format === 'json') await emit(mwzevalJson!, opts.out);
  else await emit(table(predictions, report, intervals), opts.out);
  await writeMultiwozRun(predictions, opts, report, intervals, mwzevalJson, digests ?? new FileDigests(), {
    ...metrics,
    references: references && references.length > 0 ? references : undefined,
    samples,
    seed,
    confidence,
  });
}

/**
 * The data files of the resource set that the evaluation read, as the loader picks them (the v2022 restaurant
 * database and the v2023 gold states where present and selected).
 */
function dataFilesUsed(dir: string, report: MultiwozReport, references: string[]): string[] {
  const files: string[] = [];
  const v2022 = report.details.normalization === '2022';
  if (report.bleu) for (const r of references) files.push(DATA_FILES.references(r));
  if (report.success) {
    for (const d of DB_DOMAINS) {
      const v2022Restaurant = d === 'restaurant' && v2022 && existsSync(join(dir, DATA_FILES.databaseRestaurantV2022));
      files.push(v2022Restaurant ? DATA_FILES.databaseRestaurantV2022 : DATA_FILES.database(d));
    }
    files.push(DATA_FILES.goals, DATA_FILES.bookedDomains);
  }
  const gold =
    report.details.stateSource === 'gold' ||
    report.details.dstSource === 'predicted' ||
    report.details.dstSource === 'gold_copied_by_success';
  if (gold)
    files.push(
      !v2022 && existsSync(join(dir, DATA_FILES.goldStatesV2023)) ? DATA_FILES.goldStatesV2023 : DATA_FILES.goldStates,
    );
  return files;
}

/** The resource set as the run records it: where it came from, its pinned commit (fetched set) and the sha256 of the files used. */
async function multiwozResource(
  dataFlag: string | undefined,
  report: MultiwozReport,
  references: string[],
  digests: FileDigests,
): Promise<RunResource | undefined> {
  const source = dataFlag ? 'option' : process.env[getResourceSet(MULTIWOZ_RESOURCE).envVar] ? 'env' : 'cache';
  const dir = await resolveMultiwozDataDir({ dir: dataFlag, flag: '--data' });
  const files = dataFilesUsed(dir, report, references);
  if (files.length === 0) return undefined;
  const hashed = await Promise.all(
    files.map(async (path) => ({ path, sha256: (await digests.get(join(dir, path))).sha256 })),
  );
  return {
    name: MULTIWOZ_RESOURCE,
    ...(source === 'cache' ? { commit: getResourceSet(MULTIWOZ_RESOURCE).commit } : {}),
    sha256: resourceFileListSha256(hashed),
    source,
  };
}

/**
 * Writes the run record when one is asked for (`--run`, `$DIALEVAL_RUNS`): the predictions, the data files used,
 * every option that can change a number, mwzeval's output JSON (`mwzeval.json` in the run, byte for byte what
 * `--format json` prints) and the files the command wrote, one item per dialogue and the headline metrics (with the
 * bootstrap intervals of `--ci`).
 */
async function writeMultiwozRun(
  predictions: string,
  opts: MultiwozCommandOptions,
  report: MultiwozReport,
  intervals: ReturnType<typeof bootstrapMultiwoz> | undefined,
  mwzevalJson: string | undefined,
  digests: FileDigests,
  settings: {
    bleu: boolean;
    success: boolean;
    richness: boolean;
    dst: boolean;
    references?: string[];
    samples: number;
    seed: number;
    confidence: number;
  },
): Promise<void> {
  const references = settings.bleu ? (settings.references ?? Object.keys(report.bleu ?? {})) : [];
  const options: Record<string, unknown> = {
    bleu: settings.bleu,
    success: settings.success,
    richness: settings.richness,
    dst: settings.dst,
    normalization: report.details.normalization,
    references,
    addSlotDomains: Boolean(opts.addSlotDomains),
    strictDst: Boolean(opts.strictDst),
    stateSource: report.details.stateSource ?? null,
    domainSource: report.details.domainSource ?? null,
    dstSource: report.details.dstSource ?? null,
    ci: Boolean(opts.ci),
    ...(opts.ci ? { samples: settings.samples, seed: settings.seed, confidence: settings.confidence } : {}),
  };
  const run = await openRun(opts, {
    benchmark: MULTIWOZ_BENCHMARK,
    variant: multiwozVariant({
      normalization: report.details.normalization,
      addSlotDomains: Boolean(opts.addSlotDomains),
    }),
    input: predictions,
    options,
  });
  if (!run) return;
  // the digests were taken as the evaluation read the files
  const [, resource] = await Promise.all([
    run.addInput('predictions', predictions, digests),
    multiwozResource(opts.data, report, references, digests),
  ]);
  if (resource) run.addResource(resource);
  // the native output, written by finish with the run's own files
  run.addArtifact(join(run.dir, 'mwzeval.json'), 'mwzeval-json', `${mwzevalJson ?? formatMwzevalJson(report)}\n`);
  if (opts.out) run.addArtifact(opts.out, opts.format === 'json' ? 'mwzeval-json' : 'text');
  if (opts.perDialogue) run.addArtifact(opts.perDialogue, 'dialeval-multiwoz-per-dialogue-jsonl');
  if (opts.summary) run.addArtifact(opts.summary, 'dialeval-multiwoz-summary-json');
  const metrics = multiwozRunMetrics(report);
  if (intervals) {
    const method = `percentile bootstrap over dialogues (${settings.samples} resamples, seed ${settings.seed}, ${Math.round(settings.confidence * 100)}%; Inform/Success unrounded)`;
    const withCi = (name: string, c: ConfidenceInterval | undefined) => {
      if (c && metrics[name]) metrics[name] = { ...metrics[name], ci: [c.lower, c.upper], ciMethod: method };
    };
    for (const [set, c] of Object.entries(intervals.bleu ?? {})) withCi(bleuMetricName(set), c);
    withCi('Inform', intervals.inform);
    withCi('Success', intervals.success);
  }
  // the items built one at a time as finish serialises them (none of them outlives its line)
  const items = (function* () {
    for (const d of report.details.perDialogue) yield multiwozRunItem(report, d);
  })();
  await run.finish({ items, metrics });
}

const isDirectory = (path: string) =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

export async function runMultiwozCompare(a: string, b: string, opts: MultiwozCompareOptions): Promise<void> {
  // Two run directories: the old spelling of `dialeval compare A B` (R from --samples, default 1000 here).
  const [dirA, dirB] = await Promise.all([isDirectory(a), isDirectory(b)]);
  if (dirA || dirB) {
    if (!(dirA && dirB))
      throw new UsageError('multiwoz compare takes two prediction files or two run directories, not one of each');
    if (opts.bleu || opts.success)
      throw new UsageError(
        '--bleu/--success select metrics of prediction files; for run directories use `dialeval compare --metric NAME`',
      );
    if ((opts.confidence ?? 0.95) !== 0.95) throw new UsageError('--confidence: run comparisons report 95% intervals');
    const { runCompare } = await import('./compare');
    const format = opts.format ?? 'table';
    if (!(['table', 'json', 'csv', 'markdown'] as const).includes(format as 'table'))
      throw new UsageError(`--format must be table, json, csv or markdown, got "${format}"`);
    await runCompare([a, b], { format: format as 'table', resamples: opts.samples, seed: opts.seed, out: opts.out });
    return;
  }
  const any = opts.bleu || opts.success;
  const metrics = { bleu: any ? Boolean(opts.bleu) : true, success: any ? Boolean(opts.success) : true };
  const format = opts.format ?? 'table';
  if (format !== 'table' && format !== 'json') throw new UsageError(`--format must be table or json, got "${format}"`);
  const options = { samples: opts.samples ?? 1000, seed: opts.seed ?? 0, confidence: opts.confidence ?? 0.95 };
  const common = {
    ...metrics,
    dir: opts.data,
    flag: '--data',
    normalization: version(opts.normalization),
    addSlotDomains: Boolean(opts.addSlotDomains),
  };
  const warnings: string[] = [];
  const ra = await evaluateMultiwozFile(a, { ...common, onWarning: (w) => warnings.push(`A: ${w}`) });
  const rb = await evaluateMultiwozFile(b, { ...common, onWarning: (w) => warnings.push(`B: ${w}`) });
  for (const w of warnings) warn(w);
  const c = compareMultiwoz(ra, rb, options);
  if (format === 'json') {
    await emit(JSON.stringify({ a, b, ...c, options }, null, 2), opts.out);
    return;
  }
  const rows: Array<Array<string>> = [];
  const row = (name: string, m: NonNullable<typeof c.inform>, fmt: (x: number) => string) => {
    const iv = m.comparison.interval;
    rows.push([
      name,
      fmt(m.a),
      fmt(m.b),
      fmt(m.comparison.difference),
      `[${fmt(iv.lower)}, ${fmt(iv.upper)}]`,
      m.comparison.pValue.toFixed(3),
    ]);
  };
  for (const [name, m] of Object.entries(c.bleu ?? {})) row(`BLEU (${name})`, m, f2);
  if (c.inform) row('Inform', c.inform, f2);
  if (c.success) row('Success', c.success, f2);
  const out = [
    `A = ${a}`,
    `B = ${b}`,
    `paired bootstrap over ${c.dialogues} common dialogues (${options.samples} resamples, seed ${options.seed})` +
      (c.onlyA.length || c.onlyB.length ? `; left out: ${c.onlyA.length} only in A, ${c.onlyB.length} only in B` : ''),
    '',
    formatTable(['metric', 'A', 'B', 'A - B', `${Math.round(options.confidence * 100)}% CI`, 'p (A not better)'], rows),
  ];
  await emit(out.join('\n'), opts.out);
}
