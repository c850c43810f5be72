import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type ConfidenceInterval, FileDigests, writeFileAtomic, writeJsonAtomic } from '@eval/core';
import {
  MULTIWOZ_BENCHMARK,
  type MultiwozIntervals,
  type MultiwozReport,
  type MultiwozRunSettings,
  bootstrapMultiwoz,
  compareMultiwoz,
  evaluateMultiwozFile,
  formatMwzevalJson,
  multiwozRunItems,
  multiwozRunMetrics,
  multiwozRunOptions,
  multiwozRunResource,
  multiwozVariant,
  mwzevalResults,
  runBenchmark,
} from '@eval/multiwoz';
import type { MultiwozCommandOptions, MultiwozCompareOptions } from '../flags/multiwoz';
import { formatTable } from '../format';
import { openRun, runRequested } from '../run-record';
import { UsageError, emit } from '../util';

const warn = (message: string) => process.stderr.write(`dialeval: warning: ${message}\n`);

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const f4 = (x: number) => x.toFixed(4);
const ci = (c?: ConfidenceInterval, fmt = f2) =>
  c ? `[${Math.round(c.confidence * 100)}% CI ${fmt(c.lower)}, ${fmt(c.upper)}]` : '';

function table(file: string, r: MultiwozReport, intervals: MultiwozIntervals | undefined): string {
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
  const metrics = {
    bleu: any ? Boolean(opts.bleu) : true,
    success: any ? Boolean(opts.success) : true,
    richness: any ? Boolean(opts.richness) : true,
    dst: Boolean(opts.dst),
  };
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
    normalization: opts.normalization,
    references: references && references.length > 0 ? references : undefined,
    addSlotDomains: Boolean(opts.addSlotDomains),
    strictDst: Boolean(opts.strictDst),
    onWarning: warn,
  });
  const boot = { samples: opts.samples, seed: opts.seed, confidence: opts.confidence };
  const intervals = opts.ci && (report.bleu || report.success) ? bootstrapMultiwoz(report, boot) : undefined;
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
  const settings: MultiwozRunSettings = {
    metrics,
    addSlotDomains: opts.addSlotDomains,
    strictDst: opts.strictDst,
    ci: opts.ci ? boot : undefined,
  };
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
  const mwzevalJson = opts.format === 'json' || runRequested(opts) ? formatMwzevalJson(report) : '';
  await emit(opts.format === 'json' ? mwzevalJson : table(predictions, report, intervals), opts.out);
  if (!runRequested(opts)) return;
  const run = await openRun(opts, {
    benchmark: MULTIWOZ_BENCHMARK,
    descriptor: runBenchmark,
    variant: multiwozVariant({ normalization: opts.normalization, addSlotDomains: opts.addSlotDomains }),
    input: predictions,
    options: multiwozRunOptions(report, settings),
  });
  if (!run) return;
  // the digests were taken as the evaluation read the files
  const [, resource] = await Promise.all([
    run.addInput('predictions', predictions, digests),
    multiwozRunResource(report, { dir: opts.data, digests: digests! }),
  ]);
  if (resource) run.addResource(resource);
  // the native output, written by finish with the run's own files
  run.addArtifact(join(run.dir, 'mwzeval.json'), 'mwzeval-json', `${mwzevalJson}\n`);
  if (opts.out) run.addArtifact(opts.out, opts.format === 'json' ? 'mwzeval-json' : 'text');
  if (opts.perDialogue) run.addArtifact(opts.perDialogue, 'dialeval-multiwoz-per-dialogue-jsonl');
  if (opts.summary) run.addArtifact(opts.summary, 'dialeval-multiwoz-summary-json');
  await run.finish({
    items: multiwozRunItems(report),
    metrics: multiwozRunMetrics(report, intervals ? { intervals, ...boot } : undefined),
  });
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
    if (opts.confidence !== 0.95) throw new UsageError('--confidence: run comparisons report 95% intervals');
    const { runCompare } = await import('./compare');
    await runCompare([a, b], { format: opts.format, resamples: opts.samples, seed: opts.seed, out: opts.out });
    return;
  }
  const any = opts.bleu || opts.success;
  const metrics = { bleu: any ? Boolean(opts.bleu) : true, success: any ? Boolean(opts.success) : true };
  const options = { samples: opts.samples, seed: opts.seed, confidence: opts.confidence };
  const common = {
    ...metrics,
    dir: opts.data,
    flag: '--data',
    normalization: opts.normalization,
    addSlotDomains: Boolean(opts.addSlotDomains),
  };
  const warnings: string[] = [];
  const ra = await evaluateMultiwozFile(a, { ...common, onWarning: (w) => warnings.push(`A: ${w}`) });
  const rb = await evaluateMultiwozFile(b, { ...common, onWarning: (w) => warnings.push(`B: ${w}`) });
  for (const w of warnings) warn(w);
  const c = compareMultiwoz(ra, rb, options);
  if (opts.format === 'json') {
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
