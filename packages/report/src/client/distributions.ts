// The distribution of a numeric per-item value (a histogram per run); values that are constant are not drawn.
import { type BinRow, histogram } from './charts';
import { h, num } from './dom';
import type { PageData } from './model';

export function distributions(data: PageData): HTMLElement | null {
  const runs = data.runs;
  const values = (k: string) =>
    runs.map((run) =>
      run.items
        .filter((i) => !i.error)
        .map((i) => i.values?.[k])
        .filter((v): v is number => typeof v === 'number' && Number.isFinite(v)),
    );
  const keys: string[] = [];
  for (const run of runs)
    for (const i of run.items)
      for (const [k, v] of Object.entries(i.values ?? {})) if (typeof v === 'number' && !keys.includes(k)) keys.push(k);
  // numeric and not constant (a chart of one value says nothing)
  const shown = keys.filter((k) => new Set(values(k).flat()).size > 1);
  if (!shown.length) return null;
  const section = h('section', { id: 'distributions' }, h('h2', null, 'Distributions of the per-item values'));
  const select = h(
    'select',
    { 'aria-label': 'value to plot', 'data-control': 'distribution' },
    shown.map((k) => h('option', { value: k }, k)),
  );
  const holder = h('div');
  const draw = () => {
    const k = select.value;
    const per = values(k);
    const all = per.flat();
    const lo = Math.min(...all);
    const hi = Math.max(...all);
    const integer = all.every(Number.isInteger);
    const bins = integer && hi - lo < 20 ? hi - lo + 1 : 20;
    const width = integer && hi - lo < 20 ? 1 : (hi - lo) / bins;
    const start = integer && hi - lo < 20 ? lo - 0.5 : lo;
    const rows: BinRow[] = [];
    runs.forEach((run, r) => {
      const counts = new Array<number>(bins).fill(0);
      for (const v of per[r]!) counts[Math.min(bins - 1, Math.floor((v - start) / width))]!++;
      counts.forEach((count, b) => {
        if (!count) return;
        const x0 = start + b * width;
        const x1 = x0 + width;
        rows.push({
          run: run.label,
          x0,
          x1,
          count,
          range: integer && width === 1 ? num(x0 + 0.5) : `${num(x0)} to ${num(x1)}`,
        });
      });
    });
    holder.replaceChildren(
      histogram(
        'distribution',
        `Distribution of ${k} (items)`,
        rows,
        k,
        runs.map((r) => r.label),
      ),
    );
  };
  select.addEventListener('change', draw);
  section.append(h('div', { class: 'controls' }, h('label', null, 'Value: ', select)), holder);
  draw();
  return section;
}
