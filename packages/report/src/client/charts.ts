// Charts (Observable Plot, bundled into the page): one scale per chart, systems side by side within a facet,
// differences as points with interval bars around a zero line. Each chart carries its numbers as a table under it,
// written as the field writes them, and says how many marks it draws (`data-marks`; the browser tests count them).
import * as Plot from '@observablehq/plot';
import { type Cell, h, table } from './dom';

/** What a chart draws one of per data row: Plot's mark group name (`bar`, `dot`, `line`, `rect`). */
export type MarkKind = 'bar' | 'dot' | 'line' | 'rect';

function figure(
  id: string,
  title: string,
  mark: MarkKind,
  marks: number,
  build: () => Element,
  columns: string[],
  rows: Cell[][],
): HTMLElement {
  const fig = h('figure', { class: 'chart', 'data-chart': id, 'data-mark': mark, 'data-marks': marks });
  fig.append(h('figcaption', null, title));
  try {
    fig.append(build());
  } catch (error) {
    fig.append(h('p', { class: 'bad' }, `This chart could not be drawn: ${String((error as Error).message ?? error)}`));
  }
  fig.append(
    h(
      'details',
      { class: 'chart-data' },
      h('summary', null, 'Numbers'),
      table(columns, rows, { 'data-chart-table': id }),
    ),
  );
  return fig;
}

function leftMargin(labels: string[]): number {
  return Math.min(300, Math.max(60, 14 + 6.4 * Math.max(0, ...labels.map((l) => l.length))));
}

/** The axis label of a scale: percentages in percent (points), anything else by its unit. */
export function axisLabel(scale: string): string {
  return scale === 'percent' ? 'percent' : scale || 'value';
}

export interface BarRow {
  /** What the bar is (a metric name, a domain). */
  label: string;
  /** Which run it belongs to. */
  run: string;
  value: number;
  lo?: number | null;
  hi?: number | null;
  /** The value as written (shown beside the bar and in the table). */
  text: string;
  ciText?: string | null;
}

/**
 * Horizontal bars on one scale. With several runs each label is a facet and the runs are bars side by side inside it
 * (grouped), coloured by run; intervals as whiskers; each bar's value written beside it.
 */
export function bars(id: string, title: string, rows: BarRow[], scale: string, runs: string[]): HTMLElement {
  const multi = runs.length > 1;
  const labels = [...new Set(rows.map((r) => r.label))];
  const ci = rows.filter((r) => typeof r.lo === 'number' && typeof r.hi === 'number');
  const percent = scale === 'percent' && rows.every((r) => r.value >= 0 && r.value <= 100);
  const max = Math.max(0, ...rows.map((r) => Math.max(r.value, r.hi ?? r.value)));
  const y = multi ? 'run' : 'label';
  return figure(
    id,
    title,
    'bar',
    rows.length,
    () =>
      Plot.plot({
        width: 760,
        height: 40 + (multi ? labels.length * (runs.length * 20 + 14) : 24 * labels.length),
        marginLeft: leftMargin(multi ? [...labels, ...runs] : labels),
        marginRight: 70,
        x: {
          grid: true,
          label: axisLabel(scale),
          domain: percent ? [0, 100] : [Math.min(0, ...rows.map((r) => r.lo ?? r.value)), max * 1.05 || 1],
        },
        y: { domain: multi ? runs : labels, label: null, axis: multi ? null : 'left' },
        fy: multi ? { domain: labels, label: null, axis: 'left' } : undefined,
        color: { domain: runs, legend: multi },
        marks: [
          Plot.barX(rows, { x: 'value', y, fy: multi ? 'label' : undefined, fill: multi ? 'run' : 'steelblue' }),
          ...(ci.length
            ? [
                Plot.ruleY(ci, {
                  x1: 'lo',
                  x2: 'hi',
                  y,
                  fy: multi ? 'label' : undefined,
                  stroke: 'currentColor',
                  strokeWidth: 1.5,
                }),
              ]
            : []),
          Plot.text(rows, {
            x: (r: BarRow) => Math.max(r.value, r.hi ?? r.value),
            y,
            fy: multi ? 'label' : undefined,
            text: 'text',
            dx: 4,
            textAnchor: 'start',
            fill: 'currentColor',
          }),
          Plot.ruleX([0]),
        ],
      }),
    [multi ? 'what' : 'metric', ...(multi ? ['run'] : []), 'value', ...(ci.length ? ['95% CI'] : [])],
    rows.map((r) => [r.label, ...(multi ? [r.run] : []), r.text, ...(ci.length ? [r.ciText ?? ''] : [])]),
  );
}

export interface DiffRow {
  label: string;
  delta: number;
  lo: number | null;
  hi: number | null;
  text: string;
  ciText: string;
}

/** Differences B − A as points with their interval as a bar, around a dashed zero line. */
export function differences(id: string, title: string, rows: DiffRow[], scale: string): HTMLElement {
  const ci = rows.filter((r) => r.lo !== null && r.hi !== null);
  const ext = Math.max(1e-9, ...rows.flatMap((r) => [Math.abs(r.delta), Math.abs(r.lo ?? 0), Math.abs(r.hi ?? 0)]));
  return figure(
    id,
    title,
    'dot',
    rows.length,
    () =>
      Plot.plot({
        width: 760,
        height: 50 + 28 * rows.length,
        marginLeft: leftMargin(rows.map((r) => r.label)),
        marginRight: 24,
        x: {
          grid: true,
          label: `difference (${scale === 'percent' ? 'percent points' : axisLabel(scale)})`,
          domain: [-ext * 1.1, ext * 1.1],
        },
        y: { domain: rows.map((r) => r.label), label: null },
        marks: [
          Plot.ruleX([0], { strokeDasharray: '4,3', stroke: 'currentColor' }),
          Plot.ruleY(ci, { x1: 'lo', x2: 'hi', y: 'label', stroke: 'steelblue', strokeWidth: 2 }),
          Plot.dot(rows, { x: 'delta', y: 'label', r: 4, fill: 'steelblue' }),
        ],
      }),
    ['metric', 'B − A', '95% CI'],
    rows.map((r) => [r.label, r.text, r.ciText]),
  );
}

export interface LinePoint {
  series: string;
  x: number;
  y: number;
  text: string;
}

/** Lines, one per series (e.g. private and shared accuracy per model over probing rounds). */
export function lines(
  id: string,
  title: string,
  points: LinePoint[],
  xLabel: string,
  scale: string,
  yDomain?: [number, number],
): HTMLElement {
  const series = [...new Set(points.map((p) => p.series))];
  const xs = [...new Set(points.map((p) => p.x))].sort((a, b) => a - b);
  const integer = xs.every(Number.isInteger) && xs.length <= 30;
  return figure(
    id,
    title,
    'line',
    series.length,
    () =>
      Plot.plot({
        width: 760,
        height: 320,
        marginRight: 24,
        x: { label: xLabel, grid: true, ticks: integer ? xs : undefined, tickFormat: integer ? 'd' : undefined },
        y: { label: axisLabel(scale), grid: true, domain: yDomain },
        color: { legend: series.length > 1 && series.length <= 24, domain: series },
        marks: [
          Plot.line(points, {
            x: 'x',
            y: 'y',
            z: 'series',
            stroke: 'series',
            marker: points.length <= 300 ? 'circle-stroke' : null,
          }),
        ],
      }),
    ['series', ...xs.map((x) => `${xLabel} ${x}`)],
    series.map((s) => [s, ...xs.map((x) => points.find((p) => p.series === s && p.x === x)?.text ?? '')]),
  );
}

export interface BinRow {
  run: string;
  x0: number;
  x1: number;
  count: number;
  range: string;
}

/** A histogram of one item value, one facet per run. */
export function histogram(id: string, title: string, rows: BinRow[], xLabel: string, runs: string[]): HTMLElement {
  const multi = runs.length > 1;
  return figure(
    id,
    title,
    'rect',
    rows.length,
    () =>
      Plot.plot({
        width: 760,
        height: multi ? 110 * runs.length + 40 : 220,
        marginRight: multi ? 120 : 24,
        x: { label: xLabel },
        y: { label: 'items', grid: true },
        fy: multi ? { label: null, domain: runs } : undefined,
        color: { domain: runs },
        marks: [
          Plot.rectY(rows, { x1: 'x0', x2: 'x1', y: 'count', fill: 'run', fy: multi ? 'run' : undefined, inset: 0.5 }),
          Plot.ruleY([0]),
        ],
      }),
    [...(multi ? ['run'] : []), xLabel, 'items'],
    rows.map((r) => [...(multi ? [r.run] : []), r.range, r.count]),
  );
}
