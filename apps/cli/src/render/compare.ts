// The output of `dialeval compare`: its table, markdown and CSV, every figure written as the run declares it.
import type { RunComparison, RunMetric } from '@eval/core';
import { verdictSentences } from '@eval/core';
import { csvLine, formatMarkdownTable, formatMetricDifference, formatMetricValue, formatTable } from '../format';

/** The run metrics whose unit and digits write the figures (the first run's run.json). */
export type Declared = Record<string, RunMetric | undefined>;
const pval = (p: number | null) => (p === null ? '' : p >= 0.001 || p === 0 ? p.toFixed(4) : p.toExponential(2));
const label = (i: number) => (i < 26 ? String.fromCharCode(65 + i) : `R${i + 1}`);

/** First line of the table and markdown outputs: `partial: ...` when any run is partial or any unit did not pair. */
export function headline(c: RunComparison): string {
  const reasons: string[] = [];
  c.runs.forEach((r, i) => {
    if (r.partial)
      reasons.push(
        `${label(i)} is ${r.status} (${r.items - r.evaluated} failed of ${r.items}${r.skipped > 0 ? `, ${r.skipped} skipped` : ''})`,
      );
  });
  for (const p of c.pairs) {
    if (p.unpaired.count > 0) reasons.push(`${label(p.a)}/${label(p.b)}: ${p.unpaired.count} unit(s) unpaired`);
  }
  const what = `${c.benchmark} (${c.variant || 'default variant'}), ${c.resamples} resamples, seed ${c.seed}`;
  return c.partial
    ? `partial: ${reasons.join('; ')} -- ${what}`
    : `complete: every run complete, every unit paired -- ${what}`;
}

function metricRows(c: RunComparison) {
  return c.pairs.flatMap((p) => p.metrics.map((m) => ({ pair: p, m, label: `${label(p.a)} -> ${label(p.b)}` })));
}

export function formatTableOrMarkdown(c: RunComparison, source: string, markdown: boolean, declared: Declared): string {
  const lines: string[] = [headline(c)];
  // the verdict first: one sentence per headline metric, as `dialeval report` opens with them
  lines.push('', ...verdictSentences(c, declared).map((v) => `${markdown ? '- ' : ''}${v}`), '');
  c.runs.forEach((r, i) =>
    lines.push(
      `${markdown ? '- ' : ''}${label(i)} = ${r.dir} (system ${r.system}, ${r.status}, ${r.evaluated}/${r.items} evaluated)`,
    ),
  );
  for (const f of c.forced) lines.push(`${markdown ? '- ' : ''}forced: ${f}`);
  lines.push(`${markdown ? '- ' : ''}recomputed by ${source}`);
  const header = [
    'pair',
    'metric',
    'A',
    'B',
    'B - A',
    '95% CI',
    'p (rand.)',
    'p (McNemar)',
    'p (Holm)',
    'flips 1>0/0>1',
  ];
  const rows = metricRows(c).map(({ m, label: l }) => {
    const f = declared[m.name];
    return [
      l,
      m.name,
      formatMetricValue(m.a, f),
      formatMetricValue(m.b, f),
      formatMetricDifference(m.delta, f),
      m.ci ? `[${formatMetricDifference(m.ci[0], f)}, ${formatMetricDifference(m.ci[1], f)}]` : '',
      pval(m.pRandomization),
      m.mcnemar ? pval(m.mcnemar.p) : '',
      pval(m.pHolm),
      m.flipped ? `${m.flipped.oneToZero.length}/${m.flipped.zeroToOne.length}` : '',
    ];
  });
  lines.push('', markdown ? formatMarkdownTable(header, rows) : formatTable(header, rows));
  const pairNotes = c.pairs.map((p) => {
    const u = p.unpaired;
    const parts = [`${label(p.a)} -> ${label(p.b)}: ${p.paired} paired unit(s)`];
    if (u.count > 0)
      parts.push(
        `unpaired: ${u.onlyA.length} only in ${label(p.a)}, ${u.onlyB.length} only in ${label(p.b)}, ${u.failedA.length} failed in ${label(p.a)}, ${u.failedB.length} failed in ${label(p.b)}`,
      );
    return `${markdown ? '- ' : ''}${parts.join('; ')}`;
  });
  lines.push('', ...pairNotes);
  lines.push(...unitLines(c, markdown));
  lines.push(
    '',
    'CI: paired bootstrap percentile interval of B - A; p (rand.): approximate randomisation, (1 + #|d_r| >= |d|) / (R + 1); ' +
      'p (McNemar): exact, on binary per-item outcomes; p (Holm): Holm-adjusted across the metrics of a pair. ' +
      'Figures as run.json declares them (unit, digits); B - A in points for percentages. --format json lists the flipped and unpaired ids.',
  );
  return lines.join('\n');
}

/** What was resampled, the clustered McNemar beside the exact one, and every note (an interval excluding its estimate). */
function unitLines(c: RunComparison, markdown: boolean): string[] {
  const dash = markdown ? '- ' : '';
  const lines = c.pairs.map(
    (p) =>
      `${dash}${label(p.a)} -> ${label(p.b)}: resampled by ${p.unit === 'item' ? `item (${p.paired} items${c.unit === 'item' ? '' : ', no clusters'})` : `${p.unit}: ${p.clusters} clusters of ${p.paired} items (--unit item for independent items)`}`,
  );
  for (const { m, label: l } of metricRows(c)) {
    const cl = m.mcnemarClustered;
    if (cl)
      lines.push(
        `${dash}${l} ${m.name}: clustered McNemar (by ${c.unit}) X2 = ${cl.statistic.toFixed(2)}, p = ${pval(cl.p)}; the Holm p uses it; the exact McNemar p assumes independent items`,
      );
  }
  for (const note of c.notes) lines.push(`${dash}warning: ${note}`);
  return lines;
}

export function formatCsv(c: RunComparison, declared: Declared): string {
  const header = [
    'run_a',
    'run_b',
    'system_a',
    'system_b',
    'metric',
    'a',
    'b',
    'delta',
    'ci_low',
    'ci_high',
    'p_randomization',
    'mcnemar_b',
    'mcnemar_c',
    'p_mcnemar',
    'p',
    'p_holm',
    'paired',
    'unpaired',
    'partial',
    'resamples',
    'seed',
    'unit',
    'clusters',
    'p_mcnemar_clustered',
    'metric_unit',
  ];
  const rows = metricRows(c).map(({ pair: p, m }) => {
    const a = c.runs[p.a]!;
    const b = c.runs[p.b]!;
    return csvLine([
      a.dir,
      b.dir,
      a.system,
      b.system,
      m.name,
      m.a,
      m.b,
      m.delta,
      m.ci?.[0],
      m.ci?.[1],
      m.pRandomization,
      m.mcnemar?.b,
      m.mcnemar?.c,
      m.mcnemar?.p,
      m.p,
      m.pHolm,
      p.paired,
      p.unpaired.count,
      p.partial || c.partial,
      c.resamples,
      c.seed,
      p.unit,
      p.clusters,
      m.mcnemarClustered?.p,
      declared[m.name]?.unit,
    ]);
  });
  return [csvLine(header), ...rows].join('\n');
}
