// Breakdown figures (run.json metrics with `part`: per domain, per probing round, per method...): the package's own
// figures, grouped by what they break down and charted with the runs side by side. The page computes none of them.
import { type BarRow, bars, lines } from './charts';
import { breakdown } from './data';
import { type Cell, h, table } from './dom';
import type { PageData, PageMetric } from './model';

interface Part {
  run: string;
  metric: PageMetric & { part: NonNullable<PageMetric['part']> };
}

export function breakdownCharts(data: PageData): HTMLElement[] {
  const runs = data.runs.map((r) => r.label);
  const parts: Part[] = data.runs.flatMap((run) =>
    breakdown(run).map((m) => ({ run: run.label, metric: m as Part['metric'] })),
  );
  const out: HTMLElement[] = [];
  const bys = [...new Set(parts.map((p) => p.metric.part.by))];
  bys.forEach((by, i) => {
    const ofBy = parts.filter((p) => p.metric.part.by === by && p.metric.scaled !== null);
    const scales = [...new Set(ofBy.map((p) => p.metric.scale))];
    scales.forEach((scale, j) => {
      const group = ofBy.filter((p) => p.metric.scale === scale);
      const ofs = [...new Set(group.map((p) => p.metric.part.of))];
      const id = `breakdown-${i}-${j}`;
      const numeric = group.every(
        (p) => p.metric.part.value.trim() !== '' && Number.isFinite(Number(p.metric.part.value)),
      );
      if (numeric) {
        // a curve (probing rounds): one line per figure and run, e.g. private and shared accuracy per model
        const points = group.map((p) => ({
          series: runs.length > 1 ? `${p.metric.part.of} · ${p.run}` : p.metric.part.of,
          x: Number(p.metric.part.value),
          y: p.metric.scaled!,
          text: p.metric.text,
        }));
        out.push(
          lines(id, `${ofs.join(', ')} by ${by}`, points, by, scale, scale === 'percent' ? [0, 100] : undefined),
        );
        return;
      }
      ofs.forEach((of, k) => {
        const rows: BarRow[] = group
          .filter((p) => p.metric.part.of === of)
          .map((p) => ({
            label: p.metric.part.value,
            run: p.run,
            value: p.metric.scaled!,
            lo: p.metric.scaledCi?.[0] ?? null,
            hi: p.metric.scaledCi?.[1] ?? null,
            text: p.metric.text,
            ciText: p.metric.ciText,
          }));
        const n = (label: string) =>
          group
            .filter((p) => p.metric.part.of === of && p.metric.part.value === label)
            .map((p) => `${p.metric.n.toLocaleString('en-US')}${runs.length > 1 ? ` (${p.run})` : ''}`)
            .join(', ');
        if (rows.length > 1 && rows.every((r) => r.value === rows[0]!.value)) {
          out.push(h('p', { class: 'muted' }, `${of} by ${by}: ${rows[0]!.text} for every ${by}.`));
          return;
        }
        const fig = bars(`${id}-${k}`, `${of} by ${by}`, rows, scale, runs);
        const labels = [...new Set(rows.map((r) => r.label))];
        fig.append(
          h(
            'p',
            { class: 'muted' },
            `n (${by === 'domain' ? 'dialogues with the domain' : 'units'}): `,
            labels.map((l) => `${l} ${n(l)}`).join('; '),
          ),
        );
        out.push(fig);
      });
    });
  });
  return out;
}

/** The breakdown figures as one table per `by` (every run side by side), for reading and copying. */
export function breakdownTables(data: PageData): HTMLElement[] {
  const multi = data.runs.length > 1;
  const all = data.runs.flatMap((run) => breakdown(run).map((m) => ({ run, m })));
  const bys = [...new Set(all.map((x) => x.m.part!.by))];
  return bys.map((by) => {
    const keys = [
      ...new Set(all.filter((x) => x.m.part!.by === by).map((x) => `${x.m.part!.of}\u0000${x.m.part!.value}`)),
    ];
    return h(
      'div',
      null,
      h('h3', null, `By ${by}`),
      table(
        [by, 'figure', ...data.runs.flatMap((r) => [multi ? r.label : 'value', 'n'])],
        keys.map((key) => {
          const [of, value] = key.split('\u0000') as [string, string];
          return [
            value,
            of,
            ...data.runs.flatMap((r): Cell[] => {
              const m = r.metrics.find((x) => x.part?.of === of && x.part.value === value && x.part.by === by);
              return m
                ? [h('span', { 'data-metric': m.name, 'data-run': r.label }, m.value === null ? '—' : m.text), m.n]
                : ['', ''];
            }),
          ];
        }),
        { 'data-table': `breakdown-${by}` },
      ),
    );
  });
}
