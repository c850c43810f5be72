// The comparison of runs: compare's table written as the field writes it, the runs side by side and the differences
// with their intervals (one chart per scale), and the flipped items as a sortable, filterable table.
import { bars, differences } from './charts';
import type { Item, View } from './data';
import { fold, h, short, sortable, table } from './dom';
import type { PageData, PagePair } from './model';

export interface ItemOpener {
  open(id: string): void;
  byRun: Array<Map<string, Item>>;
  view: View;
}

export function comparisonSection(data: PageData, items: ItemOpener): HTMLElement | null {
  const c = data.comparison;
  if (!c) return null;
  const section = h('section', { id: 'comparison' }, h('h2', null, 'Comparison'));
  section.append(
    fold(
      'How the figures are computed',
      false,
      h(
        'ul',
        null,
        Object.entries(c.methods).map(([k, v]) => h('li', null, h('b', null, k), `: ${v}`)),
      ),
    ),
  );
  c.pairs.forEach((pair, k) => section.append(...pairBlock(data, pair, k, items)));
  return section;
}

function pairBlock(data: PageData, pair: PagePair, k: number, items: ItemOpener): HTMLElement[] {
  const a = data.runs[pair.a]?.label ?? 'A';
  const b = data.runs[pair.b]?.label ?? 'B';
  const out: HTMLElement[] = [h('h3', null, `${b} vs ${a}`)];
  const u = pair.unpaired;
  out.push(
    h(
      'p',
      { class: 'muted' },
      `${pair.paired.toLocaleString('en-US')} paired items; ${u.count} not paired` +
        (u.count
          ? ` (only in ${a} ${u.onlyA}, only in ${b} ${u.onlyB}, failed in ${a} ${u.failedA}, failed in ${b} ${u.failedB})`
          : '') +
        `. ${a} and ${b} are recomputed on the paired items by the benchmark's own function; "recorded" are the runs' own figures.`,
    ),
  );
  out.push(
    table(
      [
        'metric',
        a,
        b,
        `${b} − ${a}`,
        '95% CI',
        'p (randomisation)',
        'p (McNemar)',
        'p (Holm)',
        `recorded ${a}`,
        `recorded ${b}`,
      ],
      pair.metrics.map((m) => [
        m.name,
        m.a,
        m.b,
        m.delta,
        m.ci,
        m.pRandomization,
        m.mcnemar,
        m.pHolm,
        m.recordedA,
        m.recordedB,
      ]),
      { 'data-table': `comparison-${k}` },
      'table-wrap full',
    ),
  );
  // headline metrics only in the charts (breakdowns have their own section); one pair of charts per scale
  const headline = pair.metrics.filter((m) => m.part === null);
  const scales = [...new Set(headline.map((m) => m.scale))];
  const grid = h('div', { class: 'grid' });
  scales.forEach((scale, s) => {
    const ms = headline.filter((m) => m.scale === scale && m.scaledDelta !== null);
    if (!ms.length) return;
    const id = s === 0 ? `${k}` : `${k}-${s}`;
    const diffRows = ms.map((m) => ({
      label: m.name,
      delta: m.scaledDelta!,
      lo: m.scaledCi?.[0] ?? null,
      hi: m.scaledCi?.[1] ?? null,
      text: m.delta,
      ciText: m.ci,
    }));
    grid.append(
      differences(
        `comparison-delta-${id}`,
        `${b} − ${a}${scale ? ` (${scale})` : ''}, with 95% paired bootstrap intervals`,
        diffRows,
        scale,
      ),
    );
    // the runs side by side: their recorded figures, on the same scale
    const side = ms.flatMap((m) => {
      const rows = [];
      for (const [run, label] of [
        [data.runs[pair.a], a],
        [data.runs[pair.b], b],
      ] as const) {
        const rm = run?.metrics.find((x) => x.name === m.name);
        if (rm && rm.scaled !== null)
          rows.push({
            label: m.name,
            run: label,
            value: rm.scaled,
            lo: rm.scaledCi?.[0] ?? null,
            hi: rm.scaledCi?.[1] ?? null,
            text: rm.text,
            ciText: rm.ciText,
          });
      }
      return rows;
    });
    if (side.length)
      grid.append(bars(`comparison-side-${id}`, `${a} and ${b}${scale ? ` (${scale})` : ''}`, side, scale, [a, b]));
  });
  out.push(grid);
  out.push(flippedTable(data, pair, k, items));
  return out;
}

/** Items whose binary outcome flipped between the two runs, with both runs' outcome and reason; rows open the item. */
function flippedTable(data: PageData, pair: PagePair, k: number, items: ItemOpener): HTMLElement {
  const a = data.runs[pair.a]?.label ?? 'A';
  const b = data.runs[pair.b]?.label ?? 'B';
  const rows: Array<{ id: string; metric: string; outcome: string; change: '1 → 0' | '0 → 1' }> = [];
  for (const m of pair.metrics) {
    if (!m.flipped || m.part !== null) continue;
    for (const id of m.flipped.oneToZero)
      rows.push({ id, metric: m.name, outcome: m.outcome ?? m.name, change: '1 → 0' });
    for (const id of m.flipped.zeroToOne)
      rows.push({ id, metric: m.name, outcome: m.outcome ?? m.name, change: '0 → 1' });
  }
  const box = h('div', { class: 'flipped', 'data-flipped-pair': k });
  box.append(h('h4', null, `Flipped items (${rows.length})`));
  if (!rows.length) {
    box.append(h('p', { class: 'muted' }, 'No item flipped on a binary metric.'));
    return box;
  }
  const outcome = (run: number, id: string, key: string): string => {
    const it = items.byRun[run]?.get(id);
    if (!it) return '—';
    if (it.error) return 'error';
    const v = it.values[key];
    return v === true || v === 1 ? 'pass' : v === false || v === 0 ? 'fail' : '—';
  };
  const reason = (run: number, id: string): string => {
    const it = items.byRun[run]?.get(id);
    return it ? short(it.error ?? items.view.summary(it), 120) : '';
  };
  const metrics = [...new Set(rows.map((r) => r.metric))];
  const filter = h('input', {
    type: 'search',
    placeholder: 'Filter flipped items…',
    'aria-label': 'filter flipped items',
    'data-control': 'flipped-filter',
  });
  const metricSel = h(
    'select',
    { 'aria-label': 'metric', 'data-control': 'flipped-metric' },
    h('option', { value: '' }, 'every metric'),
    metrics.map((m) => h('option', { value: m }, m)),
  );
  const dirSel = h(
    'select',
    { 'aria-label': 'direction', 'data-control': 'flipped-direction' },
    h('option', { value: '' }, 'both directions'),
    h('option', { value: '0 → 1' }, `${b} better (0 → 1)`),
    h('option', { value: '1 → 0' }, `${a} better (1 → 0)`),
  );
  const count = h('span', { class: 'muted', 'data-flipped-count': k });
  const body = h(
    'tbody',
    null,
    rows.map((r) =>
      h(
        'tr',
        {
          'data-flipped': r.id,
          'data-metric-name': r.metric,
          'data-change': r.change,
          tabindex: 0,
          onclick: () => items.open(r.id),
          onkeydown: (e: Event) => {
            if ((e as KeyboardEvent).key === 'Enter') items.open(r.id);
          },
        },
        h('td', null, h('code', null, r.id)),
        h('td', null, r.metric),
        h('td', null, r.change),
        h(
          'td',
          { class: outcome(pair.a, r.id, r.outcome) === 'fail' ? 'bad' : null },
          outcome(pair.a, r.id, r.outcome),
        ),
        h('td', null, reason(pair.a, r.id)),
        h(
          'td',
          { class: outcome(pair.b, r.id, r.outcome) === 'fail' ? 'bad' : null },
          outcome(pair.b, r.id, r.outcome),
        ),
        h('td', null, reason(pair.b, r.id)),
      ),
    ),
  );
  const tbl = h(
    'table',
    { 'data-table': `flipped-${k}` },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['item', 'metric', 'change', a, `${a}: why`, b, `${b}: why`].map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    body,
  );
  sortable(tbl);
  const apply = () => {
    const q = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const tr of body.rows) {
      const ok =
        (!metricSel.value || tr.getAttribute('data-metric-name') === metricSel.value) &&
        (!dirSel.value || tr.getAttribute('data-change') === dirSel.value) &&
        (!q || (tr.textContent ?? '').toLowerCase().includes(q));
      tr.hidden = !ok;
      if (ok) shown++;
    }
    count.textContent = `${shown} of ${rows.length} shown; click a row to open the item in both runs`;
  };
  filter.addEventListener('input', apply);
  metricSel.addEventListener('change', apply);
  dirSel.addEventListener('change', apply);
  apply();
  box.append(h('div', { class: 'controls' }, filter, metricSel, dirSel, count), h('div', { class: 'table-wrap' }, tbl));
  return box;
}
