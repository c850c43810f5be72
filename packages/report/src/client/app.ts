/* eslint-disable @typescript-eslint/no-explicit-any */

/** Observable Plot and d3, inlined before this script as UMD globals. */
declare const Plot: any;
declare const d3: any;
// The browser globals this code uses, typed loosely and module-locally: a `/// <reference lib="dom" />` would leak the
// DOM types into every program that compiles this package from source (the CLI, node code using fetch and Buffer).
declare const document: any;
declare const window: any;
declare const location: any;
declare const CSS: any;
declare const Node: any;
type Node = any;
type Element = any;
type HTMLElement = any;
type HTMLSelectElement = any;
type HTMLInputElement = any;
type HTMLButtonElement = any;
type KeyboardEvent = any;

/**
 * The report's browser code. It runs as `(reportApp)()` inside the generated page, so it must be self-contained:
 * no imports, no references outside this function. It reads the embedded JSON, shows it, and recomputes no metric:
 * headline figures come from the manifests, comparison figures from `compareRuns`; the per-domain, per-round and
 * per-verdict charts count the items' own `detail` fields.
 */
export function reportApp(): void {
  type Value = number | boolean | null;
  interface Item {
    id: string;
    group?: string;
    values: Record<string, Value>;
    error?: string;
    detail?: Record<string, any>;
  }
  interface Run {
    label: string;
    path: string | null;
    manifest: any;
    started: any;
    items: Item[];
  }
  type Child = Node | string | number | null | undefined | false;
  interface View {
    charts(): HTMLElement[];
    facets(item: Item): Record<string, string[]>;
    failing(item: Item): boolean;
    summary(item: Item): string;
    detail(item: Item): Child[];
    consumed: string[];
  }

  const data = JSON.parse(document.getElementById('report-data')?.textContent || '{}');
  const runs: Run[] = data.runs ?? [];
  const benchmark: string = data.benchmark ?? 'unknown';
  const comparison: any = data.comparison ?? null;
  const multi = runs.length > 1;
  const app = document.getElementById('app') as HTMLElement;

  // ---------- small helpers ----------
  function h(tag: string, attrs?: Record<string, any> | null, ...children: Array<Child | Child[]>): HTMLElement {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs ?? {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = String(v);
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.append(typeof c === 'object' ? c : String(c));
    }
    return el;
  }
  const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
  function text(v: unknown): string {
    if (v === null || v === undefined) return '—';
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : String(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'string') return v;
    return JSON.stringify(v);
  }
  // comparison figures for reading (the full values are in the embedded data and `dialeval compare --format json`):
  // differences and interval ends to 4 decimals (float noise such as 6.800000000000011 removed), p-values to 3 digits
  const fixed4 = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? Number(x.toFixed(4)) : (x ?? null));
  const sig3 = (x: unknown) =>
    typeof x === 'number' && Number.isFinite(x) && x !== 0 ? Number(x.toPrecision(3)) : (x ?? null);
  const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);
  const short = (s: string, n = 90) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  function table(
    columns: string[],
    rows: unknown[][],
    attrs: Record<string, any> = {},
    wrap = 'table-wrap',
  ): HTMLElement {
    const numeric = columns.map(
      (_, j) => rows.length > 0 && rows.every((r) => typeof r[j] === 'number' || r[j] === null || r[j] === undefined),
    );
    return h(
      'div',
      { class: wrap },
      h(
        'table',
        attrs,
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            columns.map((c, j) => h('th', { class: numeric[j] ? 'num' : null, scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          null,
          rows.map((r) =>
            h(
              'tr',
              null,
              r.map((c, j) =>
                c instanceof Node ? h('td', null, c) : h('td', { class: numeric[j] ? 'num' : null }, text(c)),
              ),
            ),
          ),
        ),
      ),
    );
  }
  function kv(rows: Array<[string, Child | Child[]]>): HTMLElement {
    return h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        null,
        h(
          'tbody',
          null,
          rows.map(([k, v]) => h('tr', null, h('th', { scope: 'row' }, k), h('td', null, v))),
        ),
      ),
    );
  }
  function pre(v: unknown): HTMLElement {
    return h('pre', null, typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  }
  /** Rate of `true` among booleans (null and non-booleans ignored), with its denominator. */
  function rate(values: unknown[]): { rate: number | null; n: number; yes: number } {
    const b = values.filter((v) => typeof v === 'boolean') as boolean[];
    const yes = b.filter(Boolean).length;
    return { rate: b.length ? yes / b.length : null, n: b.length, yes };
  }
  const runColor = (i: number) => (d3?.schemeTableau10 ? d3.schemeTableau10[i % 10] : undefined);

  /**
   * A chart with its numbers as a table. `marks` is how many elements of Plot's mark group `mark` the chart must
   * draw (one per data row): the browser tests check it.
   */
  function chart(
    id: string,
    title: string,
    mark: string,
    rows: any[],
    build: () => Element,
    columns: string[],
    cells: (r: any) => unknown[],
  ): HTMLElement {
    const fig = h('figure', { class: 'chart', 'data-chart': id, 'data-mark': mark, 'data-marks': rows.length });
    fig.append(h('figcaption', null, title));
    if (rows.length === 0) {
      fig.append(h('p', { class: 'muted' }, 'Nothing to plot.'));
      return fig;
    }
    try {
      fig.append(build());
    } catch (error) {
      fig.append(
        h('p', { class: 'bad' }, `This chart could not be drawn: ${String((error as Error)?.message ?? error)}`),
      );
    }
    fig.append(table(columns, rows.map(cells), { 'data-chart-table': id }));
    return fig;
  }
  function leftMargin(labels: string[]): number {
    return Math.min(380, Math.max(60, 12 + 6.2 * Math.max(0, ...labels.map((l) => l.length))));
  }
  /** Horizontal bars of `rows[].value` labelled by `rows[].label`, coloured by `rows[].color`, CI whiskers from lo/hi. */
  function barChart(
    id: string,
    title: string,
    rows: Array<{ label: string; value: number; color: string; lo?: number; hi?: number; n?: number }>,
    opts: { percent?: boolean } = {},
  ) {
    const labels = rows.map((r) => r.label);
    const ci = rows.filter((r) => typeof r.lo === 'number' && typeof r.hi === 'number');
    return chart(
      id,
      title,
      'bar',
      rows,
      () =>
        Plot.plot({
          marginLeft: leftMargin(labels),
          marginRight: 24,
          height: 60 + 22 * rows.length,
          width: 720,
          x: { grid: true, percent: opts.percent ?? false, domain: opts.percent ? [0, 100] : undefined, label: null },
          y: { domain: labels, label: null },
          color: { legend: new Set(rows.map((r) => r.color)).size > 1, domain: [...new Set(rows.map((r) => r.color))] },
          marks: [
            Plot.barX(rows, { x: 'value', y: 'label', fill: 'color' }),
            ...(ci.length
              ? [Plot.ruleY(ci, { x1: 'lo', x2: 'hi', y: 'label', stroke: 'currentColor', strokeWidth: 1.5 })]
              : []),
            Plot.ruleX([0]),
          ],
        }),
      [
        'label',
        'value',
        ...(ci.length ? ['CI low', 'CI high'] : []),
        ...(rows.some((r) => r.n !== undefined) ? ['n'] : []),
      ],
      (r) => [
        r.label,
        r.value,
        ...(ci.length ? [r.lo ?? null, r.hi ?? null] : []),
        ...(rows.some((x) => x.n !== undefined) ? [r.n ?? null] : []),
      ],
    );
  }
  /** Every integer from min to max when the xs are integers in a short range (rounds, statements), else Plot's ticks. */
  function integerTicks(xs: number[]): number[] | undefined {
    if (!xs.length || !xs.every(Number.isInteger)) return undefined;
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    return hi - lo <= 30 ? Array.from({ length: hi - lo + 1 }, (_, i) => lo + i) : undefined;
  }
  /** Lines: one per series, x/y numeric. */
  function lineChart(
    id: string,
    title: string,
    points: Array<{ series: string; x: number; y: number }>,
    xLabel: string,
    yLabel: string,
    percent = false,
    unitInterval = percent,
  ): HTMLElement {
    const series = [...new Set(points.map((p) => p.series))];
    const seriesRows = series.map((s) => ({ series: s, points: points.filter((p) => p.series === s) }));
    const fig = chart(
      id,
      title,
      'line',
      seriesRows,
      () =>
        Plot.plot({
          width: 640,
          height: 300,
          marginRight: 24,
          x: {
            label: xLabel,
            grid: true,
            ticks: integerTicks(points.map((p) => p.x)),
            tickFormat: integerTicks(points.map((p) => p.x)) ? 'd' : undefined,
          },
          y: { label: yLabel, grid: true, percent, domain: unitInterval ? (percent ? [0, 100] : [0, 1]) : undefined },
          color: { legend: series.length > 1 && series.length <= 24, domain: series },
          marks: [
            Plot.line(points, {
              x: 'x',
              y: 'y',
              z: 'series',
              stroke: 'series',
              marker: points.length <= 200 ? 'circle-stroke' : null,
            }),
          ],
        }),
      ['series', 'points (x: y)'],
      (r) => [r.series, r.points.map((p: any) => `${p.x}: ${percent ? pct(p.y) : text(p.y)}`).join(', ')],
    );
    return fig;
  }

  // ---------- data access ----------
  const valueKey = (item: Item, ...names: string[]): Value | undefined => {
    for (const n of names) {
      for (const k of Object.keys(item.values ?? {})) if (k.toLowerCase() === n.toLowerCase()) return item.values[k];
    }
    return undefined;
  };
  const det = (item: Item): Record<string, any> => (isObj(item.detail) ? item.detail : {});
  const allItems = (): Array<{ run: Run; ri: number; item: Item }> =>
    runs.flatMap((run, ri) => run.items.map((item) => ({ run, ri, item })));
  const metricRows = () => {
    const names: string[] = [];
    for (const run of runs)
      for (const k of Object.keys(run.manifest?.metrics ?? {})) if (!names.includes(k)) names.push(k);
    return names;
  };

  // ---------- benchmark views ----------
  function genericFailing(item: Item): boolean {
    return Boolean(item.error) || Object.values(item.values ?? {}).some((v) => v === false);
  }
  const genericView: View = {
    charts: () => [],
    facets: (item) => ({ group: item.group ? [item.group] : [] }),
    failing: genericFailing,
    summary: (item) =>
      Object.entries(item.values ?? {})
        .slice(0, 4)
        .map(([k, v]) => `${k}=${text(v)}`)
        .join(' '),
    detail: () => [],
    consumed: [],
  };

  function multiwozView(): View {
    const domainsOf = (item: Item): Record<string, any> => (isObj(det(item).domains) ? det(item).domains : {});
    const reasonsOf = (item: Item): string[] => {
      const r = new Set<string>(arr(det(item).reasons).filter((x) => typeof x === 'string'));
      for (const d of Object.values(domainsOf(item))) if (isObj(d) && typeof d.reason === 'string') r.add(d.reason);
      return [...r];
    };
    return {
      charts() {
        const out: HTMLElement[] = [];
        const rows: any[] = [];
        runs.forEach((run) => {
          const domains = [...new Set(run.items.flatMap((i) => Object.keys(domainsOf(i))))].sort();
          for (const d of domains) {
            for (const [metric, key] of [
              ['Inform', 'inform'],
              ['Success', 'success'],
            ] as const) {
              const r = rate(run.items.filter((i) => !i.error).map((i) => domainsOf(i)[d]?.[key]));
              if (r.rate !== null)
                rows.push({
                  label: `${d} · ${metric}${multi ? ` · ${run.label}` : ''}`,
                  value: r.rate,
                  color: metric,
                  n: r.n,
                });
            }
          }
        });
        if (rows.length)
          out.push(
            barChart(
              'multiwoz-domains',
              'Inform and Success per domain (share of dialogues with the domain, from the items)',
              rows,
              { percent: true },
            ),
          );
        const reasonRows: any[] = [];
        runs.forEach((run) => {
          const counts = new Map<string, number>();
          for (const i of run.items) for (const r of reasonsOf(i)) counts.set(r, (counts.get(r) ?? 0) + 1);
          for (const [r, c] of [...counts].sort((a, b) => b[1] - a[1]))
            reasonRows.push({ label: multi ? `${r} · ${run.label}` : r, value: c, color: run.label });
        });
        if (reasonRows.length)
          out.push(barChart('multiwoz-reasons', 'Failing dialogues by reason (dialogues)', reasonRows));
        const bleu = metricRows().filter((m) =>
          /bleu|richness|entropy|ttr|lexical|unique|vocab|msttr|trigram|bigram|length/i.test(m),
        );
        if (bleu.length) {
          const bleuRows: any[] = [];
          runs.forEach((run) => {
            for (const m of bleu.filter((x) => /bleu/i.test(x))) {
              const v = run.manifest?.metrics?.[m];
              if (typeof v?.value === 'number')
                bleuRows.push({
                  label: multi ? `${m} · ${run.label}` : m,
                  value: v.value,
                  color: multi ? run.label : 'BLEU',
                  lo: v.ci?.[0],
                  hi: v.ci?.[1],
                  n: v.n,
                });
            }
          });
          if (bleuRows.length) out.push(barChart('multiwoz-bleu', 'BLEU (from run.json)', bleuRows));
          out.push(
            h('h3', null, 'BLEU and richness'),
            table(
              ['metric', ...runs.map((r) => r.label)],
              bleu.map((m) => [m, ...runs.map((r) => r.manifest?.metrics?.[m]?.value ?? null)]),
            ),
          );
        }
        return out;
      },
      facets(item) {
        const f: Record<string, string[]> = { domain: Object.keys(domainsOf(item)), reason: reasonsOf(item) };
        return f;
      },
      failing: (item) =>
        Boolean(item.error) ||
        valueKey(item, 'success') === false ||
        valueKey(item, 'inform') === false ||
        reasonsOf(item).length > 0,
      summary: (item) =>
        reasonsOf(item).join('; ') ||
        `inform ${text(valueKey(item, 'inform'))}, success ${text(valueKey(item, 'success'))}`,
      detail(item) {
        const domains = Object.entries(domainsOf(item));
        // the goal: as recorded by runs that kept it, else the goal's domains with their requested slots
        const goal =
          det(item).goal ??
          (domains.length
            ? {
                domains: domains.map(([d]) => d),
                requestable: Object.fromEntries(
                  domains.map(([d, v]) => [d, isObj(v) && Array.isArray(v.requested) ? v.requested : []]),
                ),
              }
            : undefined);
        return [
          domains.length
            ? table(
                ['domain', 'inform', 'success', 'reason'],
                domains.map(([d, v]) => [
                  d,
                  isObj(v) ? (v.inform ?? null) : null,
                  isObj(v) ? (v.success ?? null) : null,
                  isObj(v) ? (v.reason ?? '') : '',
                ]),
              )
            : null,
          reasonsOf(item).length
            ? h(
                'p',
                null,
                'Reasons: ',
                reasonsOf(item).map((r) => h('span', { class: 'tag bad' }, r)),
              )
            : null,
          goal !== undefined ? h('details', null, h('summary', null, 'Goal'), pre(goal)) : null,
        ];
      },
      consumed: ['domains', 'reasons', 'goal'],
    };
  }

  function llmJudgeView(): View {
    const judgeLabel = (item: Item): string[] => {
      const j = det(item).judge;
      if (!isObj(j)) return [];
      const out: string[] = [];
      if (typeof j.accurate === 'boolean') out.push(j.accurate ? 'accurate' : 'not accurate');
      if (typeof j.complete === 'boolean') out.push(j.complete ? 'complete' : 'not complete');
      return out;
    };
    const disagree = (item: Item) => det(item).disagree === true;
    return {
      charts() {
        const out: HTMLElement[] = [];
        const names = metricRows();
        const wanted = names.filter((m) => /tsa|jga|coheren/i.test(m));
        const rows: any[] = [];
        runs.forEach((run) => {
          for (const m of wanted.length ? wanted : names) {
            const v = run.manifest?.metrics?.[m];
            if (typeof v?.value === 'number')
              rows.push({
                label: multi ? `${m} · ${run.label}${run.manifest?.variant ? ` (${run.manifest.variant})` : ''}` : m,
                value: v.value,
                color: m,
                lo: v.ci?.[0],
                hi: v.ci?.[1],
                n: v.n,
              });
          }
        });
        if (rows.length) out.push(barChart('llm-judge-methods', 'TSA and JGA per method (from run.json)', rows));
        const agree: any[] = [];
        runs.forEach((run) => {
          const withFlag = run.items.filter((i) => typeof det(i).disagree === 'boolean');
          if (!withFlag.length) return;
          const d = withFlag.filter(disagree).length;
          agree.push({
            label: `judge and rules disagree${multi ? ` · ${run.label}` : ''}`,
            value: d,
            color: 'disagree',
          });
          agree.push({
            label: `judge and rules agree${multi ? ` · ${run.label}` : ''}`,
            value: withFlag.length - d,
            color: 'agree',
          });
        });
        if (agree.length) out.push(barChart('llm-judge-agreement', 'Judge vs rules (turns)', agree));
        return out;
      },
      facets: (item) => ({
        verdict: judgeLabel(item),
        agreement:
          typeof det(item).disagree === 'boolean'
            ? [disagree(item) ? 'judge and rules disagree' : 'judge and rules agree']
            : [],
        dialogue: item.group ? [item.group] : [],
      }),
      failing: (item) => Boolean(item.error) || disagree(item) || valueKey(item, 'judge') === false,
      summary: (item) => [disagree(item) ? 'disagree' : '', ...judgeLabel(item)].filter(Boolean).join(', '),
      detail(item) {
        const d = det(item);
        const rules = isObj(d.rules) ? d.rules : {};
        return [
          arr(d.context).length
            ? h(
                'div',
                null,
                h('h4', null, 'Dialogue context'),
                arr(d.context).map((t: any) =>
                  h('div', { class: 'turn' }, h('b', null, text(t?.speaker ?? '')), ' ', text(t?.text ?? t)),
                ),
              )
            : null,
          isObj(d.judge) || Object.keys(rules).length
            ? kv([
                ['judge', judgeLabel(item).join(', ') || '—'],
                [
                  'rules',
                  Object.entries(rules)
                    .map(([k, v]) => `${k}: ${text(v)}`)
                    .join(', ') || '—',
                ],
                ['disagree', text(d.disagree)],
              ])
            : null,
          arr(d.incorrect).length || arr(d.missed).length
            ? h(
                'p',
                null,
                arr(d.incorrect).map((x) => h('span', { class: 'tag bad' }, `incorrect: ${text(x)}`)),
                arr(d.missed).map((x) => h('span', { class: 'tag bad' }, `missed: ${text(x)}`)),
              )
            : null,
          d.failure !== undefined ? h('p', { class: 'bad' }, `Judge output unusable: ${text(d.failure)}`) : null,
          d.explanation !== undefined
            ? h('div', null, h('h4', null, "Judge's explanation"), pre(text(d.explanation)))
            : null,
          d.predicted !== undefined || d.gold !== undefined
            ? h(
                'div',
                { class: 'pair' },
                h('div', null, h('h4', null, 'Predicted (this turn)'), pre(d.predicted ?? null)),
                h('div', null, h('h4', null, 'Gold state'), pre(d.gold ?? null)),
              )
            : null,
          d.predictedState !== undefined
            ? h('details', null, h('summary', null, 'Predicted state (accumulated)'), pre(d.predictedState))
            : null,
        ];
      },
      consumed: [
        'context',
        'judge',
        'rules',
        'disagree',
        'explanation',
        'predicted',
        'predictedState',
        'gold',
        'incorrect',
        'missed',
        'failure',
      ],
    };
  }

  function scorekeepingView(): View {
    const probes = (item: Item) => arr(det(item).probes).filter(isObj);
    const outcome = (item: Item): string =>
      typeof det(item).outcome === 'string'
        ? det(item).outcome
        : valueKey(item, 'played') === true
          ? 'played'
          : valueKey(item, 'played') === false
            ? 'aborted'
            : '';
    return {
      charts() {
        const points: any[] = [];
        runs.forEach((run) => {
          const byKey = new Map<string, { round: number; kind: string; values: unknown[] }>();
          for (const i of run.items) {
            for (const p of probes(i)) {
              if (typeof p.round !== 'number') continue;
              const kind = typeof p.kind === 'string' ? p.kind : 'all probes';
              const key = `${kind}\u0000${p.round}`;
              if (!byKey.has(key)) byKey.set(key, { round: p.round, kind, values: [] });
              byKey.get(key)!.values.push(p.correct);
            }
          }
          for (const g of [...byKey.values()].sort((a, b) => a.round - b.round)) {
            const r = rate(g.values);
            if (r.rate !== null)
              points.push({ series: multi ? `${g.kind} · ${run.label}` : g.kind, x: g.round, y: r.rate });
          }
        });
        if (!points.length) {
          // no probes in the items: the per-round accuracy values (accuracyRound<k>) the episodes carry, averaged
          runs.forEach((run) => {
            const byRound = new Map<number, number[]>();
            for (const i of run.items) {
              if (i.error) continue;
              for (const [k, v] of Object.entries(i.values ?? {})) {
                const m = /^accuracyRound(\d+)$/.exec(k);
                if (m && typeof v === 'number') byRound.set(Number(m[1]), [...(byRound.get(Number(m[1])) ?? []), v]);
              }
            }
            for (const [round, vs] of [...byRound].sort((a, b) => a[0] - b[0]))
              points.push({
                series: multi ? `mean episode accuracy · ${run.label}` : 'mean episode accuracy',
                x: round,
                y: vs.reduce((a, b) => a + b, 0) / vs.length,
              });
          });
        }
        const out: HTMLElement[] = [];
        if (points.length)
          out.push(
            lineChart(
              'scorekeeping-rounds',
              'Probe accuracy by probing round (private vs shared)',
              points,
              'probing round',
              'accuracy',
              true,
            ),
          );
        const outcomes: any[] = [];
        runs.forEach((run) => {
          const c = new Map<string, number>();
          for (const i of run.items) {
            const o = outcome(i) || (i.error ? 'errored' : '');
            if (o) c.set(o, (c.get(o) ?? 0) + 1);
          }
          for (const [o, n] of c) outcomes.push({ label: multi ? `${o} · ${run.label}` : o, value: n, color: o });
        });
        if (outcomes.length) out.push(barChart('scorekeeping-outcomes', 'Episodes by outcome', outcomes));
        return out;
      },
      facets: (item) => ({
        outcome: outcome(item) ? [outcome(item)] : [],
        model: arr(det(item).models).map(String),
        experiment: item.id.includes('/') ? [item.id.slice(0, item.id.lastIndexOf('/'))] : [],
      }),
      failing: (item) =>
        Boolean(item.error) ||
        (outcome(item) !== '' && outcome(item) !== 'played') ||
        probes(item).some((p) => p.correct === false),
      summary: (item) => {
        const ps = probes(item);
        const r = rate(ps.map((p) => p.correct));
        return [outcome(item), ps.length ? `${r.yes}/${r.n} probes correct` : ''].filter(Boolean).join(', ');
      },
      detail(item) {
        const d = det(item);
        const transcript = arr(d.transcript);
        return [
          arr(d.models).length
            ? h(
                'p',
                null,
                'Models: ',
                arr(d.models).map((m) => h('span', { class: 'tag' }, text(m))),
              )
            : null,
          d.abortReason !== undefined ? h('p', { class: 'bad' }, `Aborted: ${text(d.abortReason)}`) : null,
          transcript.length
            ? h(
                'details',
                { open: true },
                h('summary', null, `Transcript (${transcript.length} messages)`),
                transcript.map((t: any) =>
                  h(
                    'div',
                    { class: 'turn' },
                    h('b', null, `${text(t?.from ?? '?')} → ${text(t?.to ?? '?')}`),
                    ' ',
                    text(t?.text ?? t),
                  ),
                ),
              )
            : typeof d.interactions === 'string'
              ? // the transcript by location, not read back (runBenchmark.itemDetails leaves an item so when its file is gone)
                h(
                  'p',
                  { class: 'bad' },
                  'Transcript not found at ',
                  h('code', null, d.interactions),
                  /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(d.interactions) ? '' : ' (relative to the run directory)',
                )
              : null,
          probes(item).length
            ? h(
                'div',
                null,
                h('h4', null, 'Probes'),
                table(
                  ['round', 'kind', 'question', 'answer', 'truth', 'correct'],
                  probes(item).map((p) => [
                    p.round ?? null,
                    p.kind ?? '',
                    p.question ?? '',
                    p.answer ?? null,
                    p.truth ?? null,
                    p.correct ?? null,
                  ]),
                ),
              )
            : null,
        ];
      },
      consumed: ['probes', 'transcript', 'interactions', 'models', 'outcome', 'abortReason'],
    };
  }

  function memoryView(): View {
    const verdict = (item: Item): string =>
      det(item).verdict === undefined || det(item).verdict === null ? '' : text(det(item).verdict);
    const kind = (item: Item): string =>
      typeof det(item).kind === 'string' ? det(item).kind : item.id.includes(':') ? item.id.split(':')[0]! : '';
    return {
      charts() {
        const out: HTMLElement[] = [];
        const cat = (m: string) =>
          /update/i.test(m)
            ? 'update'
            : /qa|answer|question|halluc|omission|correct/i.test(m)
              ? 'QA'
              : /extract|integrity|recall|memory|accuracy|weighted/i.test(m)
                ? 'extraction'
                : 'other';
        const rows: any[] = [];
        runs.forEach((run) => {
          for (const [m, v] of Object.entries<any>(run.manifest?.metrics ?? {})) {
            if (typeof v?.value === 'number')
              rows.push({
                label: multi ? `${m} · ${run.label}` : m,
                value: v.value,
                color: cat(m),
                lo: v.ci?.[0],
                hi: v.ci?.[1],
                n: v.n,
              });
          }
        });
        rows.sort((a, b) => (a.color < b.color ? -1 : a.color > b.color ? 1 : 0));
        // rates and counts on one axis would hide the rates: the chart shows the 0-1 figures when there are any
        const rates = rows.filter((r) => r.value >= 0 && r.value <= 1);
        if (rates.length)
          out.push(
            barChart(
              'memory-figures',
              'Extraction, update and QA rates (from run.json; counts in the headline table)',
              rates,
            ),
          );
        else if (rows.length)
          out.push(barChart('memory-figures', 'Extraction, update and QA figures (from run.json)', rows));
        const vrows: any[] = [];
        runs.forEach((run) => {
          const c = new Map<string, number>();
          for (const i of run.items) {
            const v = verdict(i);
            if (v) c.set(`${kind(i) || 'item'}: ${v}`, (c.get(`${kind(i) || 'item'}: ${v}`) ?? 0) + 1);
          }
          for (const [k, n] of [...c].sort())
            vrows.push({ label: multi ? `${k} · ${run.label}` : k, value: n, color: k.split(':')[0] });
        });
        if (vrows.length) out.push(barChart('memory-verdicts', "The judge's verdicts by kind (items)", vrows));
        return out;
      },
      facets: (item) => ({
        kind: kind(item) ? [kind(item)] : [],
        verdict: verdict(item) ? [verdict(item)] : [],
        'question type': typeof det(item).questionType === 'string' ? [det(item).questionType] : [],
        user: det(item).user !== undefined ? [text(det(item).user)] : [],
      }),
      failing: (item) => {
        if (item.error) return true;
        const v = det(item).verdict;
        if (typeof v === 'string') return !/^correct$/i.test(v.trim());
        if (valueKey(item, 'recalled') === false) return true;
        return kind(item) === 'extracted' && v === 0;
      },
      summary: (item) =>
        `${verdict(item) ? `[${verdict(item)}] ` : ''}${short(text(det(item).question ?? det(item).memory ?? ''), 80)}`,
      detail(item) {
        const d = det(item);
        const rows: Array<[string, Child]> = [];
        for (const k of [
          'kind',
          'user',
          'session',
          'questionType',
          'difficulty',
          'memoryType',
          'source',
          'question',
          'memory',
          'answer',
          'reference',
          'verdict',
          'includedInGolden',
        ])
          if (d[k] !== undefined) rows.push([k, text(d[k])]);
        return [
          rows.length ? kv(rows) : null,
          d.reasoning !== undefined
            ? h('div', null, h('h4', null, "The judge's reasoning"), pre(text(d.reasoning)))
            : null,
          d.retrieved !== undefined
            ? h('details', null, h('summary', null, 'Memories retrieved by the system'), pre(d.retrieved))
            : null,
        ];
      },
      consumed: [
        'kind',
        'user',
        'session',
        'questionType',
        'difficulty',
        'memoryType',
        'source',
        'question',
        'memory',
        'answer',
        'reference',
        'verdict',
        'includedInGolden',
        'reasoning',
        'retrieved',
      ],
    };
  }

  function cgtView(): View {
    const curve = (item: Item) => arr(det(item).curve).filter((p) => isObj(p) && typeof p.step === 'number');
    return {
      charts() {
        const out: HTMLElement[] = [];
        for (const [metric, key] of [
          ['F1', 'f1'],
          ['DSC', 'dsc'],
        ] as const) {
          const points: any[] = [];
          runs.forEach((run) => {
            for (const i of run.items)
              for (const p of curve(i))
                if (typeof p[key] === 'number')
                  points.push({ series: multi ? `${i.id} · ${run.label}` : i.id, x: p.step, y: p[key] });
          });
          if (points.length)
            out.push(
              lineChart(
                `cgt-${key}`,
                `Accumulative ${metric} over each group's statements`,
                points,
                'statement',
                metric,
                false,
                true,
              ),
            );
        }
        return out;
      },
      facets: (item) => ({ group: item.group ? [item.group] : [] }),
      failing: genericFailing,
      summary: (item) => {
        const c = curve(item);
        const last = c[c.length - 1];
        return last ? `${c.length} statements, final F1 ${text(last.f1)}, DSC ${text(last.dsc)}` : '';
      },
      detail(item) {
        const c = curve(item);
        const st = arr(det(item).statements);
        return [
          c.length
            ? h(
                'div',
                null,
                h('h4', null, 'Accumulative curve'),
                table(
                  ['step', 'P', 'R', 'F1', 'DSC'],
                  c.map((p) => [p.step, p.p ?? null, p.r ?? null, p.f1 ?? null, p.dsc ?? null]),
                ),
              )
            : null,
          st.length
            ? h(
                'details',
                null,
                h('summary', null, `Statements (${st.length})`),
                h(
                  'ol',
                  null,
                  st.map((s) => h('li', null, text(s))),
                ),
              )
            : null,
        ];
      },
      consumed: ['curve', 'statements'],
    };
  }

  const view: View =
    benchmark === 'multiwoz'
      ? multiwozView()
      : benchmark === 'llm-judge'
        ? llmJudgeView()
        : benchmark === 'scorekeeping'
          ? scorekeepingView()
          : benchmark === 'memory'
            ? memoryView()
            : benchmark === 'cgt'
              ? cgtView()
              : genericView;

  // ---------- sections ----------
  function header(): HTMLElement {
    return h(
      'header',
      null,
      h('h1', null, data.title ?? 'Evaluation report'),
      h(
        'p',
        { class: 'muted' },
        `${benchmark} · ${runs.length} run${runs.length === 1 ? '' : 's'} · report generated ${data.generatedAt ?? ''} by @eval/report`,
      ),
      h('nav', { class: 'toc' }, [
        h('a', { href: '#evaluated' }, 'What was evaluated'),
        h('a', { href: '#metrics' }, 'Headline metrics'),
        comparison ? h('a', { href: '#comparison' }, 'Comparison') : null,
        h('a', { href: '#view' }, 'Benchmark view'),
        h('a', { href: '#distributions' }, 'Distributions'),
        h('a', { href: '#items' }, 'Items'),
      ]),
    );
  }

  function banners(): HTMLElement[] {
    const notes = arr(data.notes).map((n) =>
      h('div', { class: 'banner', 'data-banner': 'note', role: 'note' }, text(n)),
    );
    return notes.concat(
      runs.flatMap((run) => {
        const m = run.manifest;
        const erroredItems = run.items.filter((i) => i.error);
        if (!m) {
          return [
            h(
              'div',
              { class: 'banner failed', 'data-banner': 'unfinished', role: 'alert' },
              h('strong', null, `Unfinished run: ${run.label}. `),
              `${run.path ?? ''} has no run.json: the run did not finish (or is still running). It has no headline metrics; the ${run.items.length} items written so far are shown below and are not a complete result.`,
              erroredItems.length
                ? table(
                    ['item', 'error'],
                    erroredItems.slice(0, 20).map((i) => [i.id, i.error]),
                  )
                : null,
            ),
          ];
        }
        if (m.status === 'complete') return [];
        const failures = arr(m.failures);
        return [
          h(
            'div',
            { class: `banner${m.status === 'failed' ? ' failed' : ''}`, 'data-banner': m.status, role: 'alert' },
            h('strong', null, `${m.status === 'failed' ? 'Failed' : 'Partial'} run: ${run.label}. `),
            `Evaluated ${m.counts?.evaluated ?? '?'} of ${m.counts?.items ?? '?'} items; ${m.counts?.failed ?? 0} failed, ${m.counts?.skipped ?? 0} skipped. ` +
              (m.status === 'failed'
                ? 'The run failed: its figures are not a result.'
                : 'Its figures cover the evaluated items only; this is not a complete run.'),
            failures.length
              ? table(
                  ['item', 'reason'],
                  failures.map((f: any) => [text(f?.id), text(f?.reason)]),
                  { 'data-failures': run.label },
                )
              : null,
          ),
        ];
      }),
    );
  }

  function evaluated(): HTMLElement {
    const m = (r: Run) => r.manifest ?? {};
    const rows: Array<[string, (r: Run) => unknown]> = [
      ['system', (r) => m(r).system ?? r.started?.system],
      ['benchmark', (r) => m(r).benchmark ?? r.started?.benchmark],
      ['variant', (r) => m(r).variant ?? r.started?.variant],
      ['status', (r) => (r.manifest ? m(r).status : 'unfinished (no run.json)')],
      ['run id', (r) => m(r).id],
      ['directory', (r) => r.path],
      ['created', (r) => m(r).createdAt ?? r.started?.createdAt],
      ['finished', (r) => m(r).finishedAt],
      [
        'items (evaluated / failed / skipped)',
        (r) =>
          m(r).counts
            ? `${m(r).counts.items} (${m(r).counts.evaluated} / ${m(r).counts.failed} / ${m(r).counts.skipped})`
            : `${r.items.length} written`,
      ],
      ['model (requested)', (r) => m(r).llm?.model],
      ['model (reported)', (r) => arr(m(r).llm?.modelReported).join(', ') || undefined],
      ['endpoint host', (r) => m(r).llm?.endpointHost],
      [
        'LLM calls (made / cached / failed / retried)',
        (r) =>
          m(r).llm?.calls
            ? `${m(r).llm.calls.made} / ${m(r).llm.calls.cached} / ${m(r).llm.calls.failed} / ${m(r).llm.calls.retried}`
            : undefined,
      ],
      [
        'tokens (prompt / completion)',
        (r) => (m(r).llm?.tokens ? `${m(r).llm.tokens.prompt} / ${m(r).llm.tokens.completion}` : undefined),
      ],
      ['cost (USD)', (r) => m(r).llm?.costUsd],
      ['batch', (r) => m(r).llm?.batch],
      ['sampling', (r) => (m(r).llm?.sampling ? JSON.stringify(m(r).llm.sampling) : undefined)],
      ['LLM cache (identity)', (r) => m(r).llm?.cache],
      ['price table', (r) => (m(r).llm?.prices ? JSON.stringify(m(r).llm.prices) : undefined)],
      ['dialeval', (r) => m(r).tool?.cli],
      [
        'packages',
        (r) =>
          m(r).tool?.packages
            ? Object.entries(m(r).tool.packages)
                .map(([k, v]) => `${k}@${v}`)
                .join(', ')
            : undefined,
      ],
      ['node / platform', (r) => (m(r).tool ? `${m(r).tool.node} / ${m(r).tool.platform}` : undefined)],
      ['command', (r) => (Array.isArray(m(r).command) ? m(r).command.join(' ') : undefined)],
      ['options', (r) => (m(r).options && Object.keys(m(r).options).length ? JSON.stringify(m(r).options) : undefined)],
    ];
    const shown = rows.filter(([, f]) => runs.some((r) => f(r) !== undefined && f(r) !== null && f(r) !== ''));
    const section = h('section', { id: 'evaluated' }, h('h2', null, 'What was evaluated'));
    section.append(
      table(
        ['', ...runs.map((r) => r.label)],
        shown.map(([k, f]) => [k, ...runs.map((r) => f(r) ?? null)]),
        { 'data-table': 'evaluated' },
        'table-wrap full',
      ),
    );
    const inputs = runs.flatMap((r) =>
      arr(m(r).inputs).map((i: any) => [
        ...(multi ? [r.label] : []),
        i.role,
        i.path,
        i.size,
        h('code', null, text(i.sha256)),
      ]),
    );
    if (inputs.length)
      section.append(
        h('h3', null, 'Data files'),
        table([...(multi ? ['run'] : []), 'role', 'path', 'bytes', 'sha256'], inputs),
      );
    const resources = runs.flatMap((r) =>
      arr(m(r).resources).map((i: any) => [
        ...(multi ? [r.label] : []),
        i.name,
        i.commit ?? null,
        i.source ?? null,
        i.sha256 ? h('code', null, i.sha256) : null,
      ]),
    );
    if (resources.length)
      section.append(
        h('h3', null, 'Resource sets'),
        table([...(multi ? ['run'] : []), 'name', 'commit', 'source', 'file list sha256'], resources),
      );
    const artifacts = runs.flatMap((r) =>
      arr(m(r).artifacts).map((a: any) => [...(multi ? [r.label] : []), a.path, a.format]),
    );
    if (artifacts.length)
      section.append(h('h3', null, 'Native outputs'), table([...(multi ? ['run'] : []), 'path', 'format'], artifacts));
    return section;
  }

  function metrics(): HTMLElement {
    const section = h('section', { id: 'metrics' }, h('h2', null, 'Headline metrics'));
    const names = metricRows();
    if (!names.length) {
      section.append(h('p', { class: 'muted' }, 'No headline metrics (no finished run).'));
      return section;
    }
    const rows = names.flatMap((name) =>
      runs.map((run) => {
        const v = run.manifest?.metrics?.[name];
        return { name, run, v };
      }),
    );
    const tbl = h(
      'table',
      { 'data-table': 'metrics' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          [...(multi ? ['run'] : []), 'metric', 'value', '95% CI', 'CI method', 'n', 'unit'].map((c) =>
            h('th', { scope: 'col' }, c),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        rows
          .filter((r) => r.v)
          .map(({ name, run, v }) =>
            h(
              'tr',
              null,
              multi ? h('td', null, run.label) : null,
              h('th', { scope: 'row' }, name),
              h('td', { class: 'num', 'data-metric': name, 'data-run': run.label }, text(v.value)),
              h('td', { class: 'num' }, Array.isArray(v.ci) ? `[${text(v.ci[0])}, ${text(v.ci[1])}]` : '—'),
              h('td', null, v.ciMethod ?? '—'),
              h('td', { class: 'num' }, text(v.n)),
              h('td', null, v.unit ?? ''),
            ),
          ),
      ),
    );
    section.append(h('div', { class: 'table-wrap full' }, tbl));
    // one chart per unit; metrics without a unit are split into 0-1 figures and the rest, so counts do not hide rates
    const unitOf = (v: any): string =>
      v.unit ??
      (rows.every((r) => r.v?.unit !== undefined || typeof r.v?.value !== 'number' || Math.abs(r.v.value) <= 1)
        ? ''
        : Math.abs(v.value) <= 1
          ? '0–1'
          : 'other');
    const units = [...new Set(rows.filter((r) => typeof r.v?.value === 'number').map((r) => unitOf(r.v)))];
    const grid = h('div', { class: 'grid' });
    units.forEach((unit, k) => {
      const bars = rows
        .filter((r) => typeof r.v?.value === 'number' && unitOf(r.v) === unit)
        .map(({ name, run, v }) => ({
          label: multi ? `${name} · ${run.label}` : name,
          value: v.value,
          color: multi ? run.label : 'value',
          lo: v.ci?.[0],
          hi: v.ci?.[1],
          n: v.n,
        }));
      grid.append(
        barChart(
          `metrics-${k}`,
          `Headline metrics${unit ? ` (${unit})` : ''}${bars.some((b) => b.lo !== undefined) ? ' with 95% intervals' : ''}`,
          bars,
        ),
      );
    });
    section.append(grid);
    return section;
  }

  function distributions(): HTMLElement {
    const section = h('section', { id: 'distributions' }, h('h2', null, 'Distributions of the per-item values'));
    const keys: string[] = [];
    for (const { item } of allItems())
      for (const k of Object.keys(item.values ?? {})) if (!keys.includes(k)) keys.push(k);
    if (!keys.length) {
      section.append(h('p', { class: 'muted' }, 'No per-item values.'));
      return section;
    }
    const evaluatedItems = (run: Run) => run.items.filter((i) => !i.error);
    const isBinary = (k: string) => allItems().every(({ item }) => typeof item.values?.[k] !== 'number');
    const binaryKeys = keys.filter(
      (k) => isBinary(k) && allItems().some(({ item }) => typeof item.values?.[k] === 'boolean'),
    );
    if (binaryKeys.length) {
      const rows: any[] = [];
      runs.forEach((run) => {
        for (const k of binaryKeys) {
          const r = rate(evaluatedItems(run).map((i) => i.values?.[k]));
          if (r.rate !== null)
            rows.push({
              label: multi ? `${k} · ${run.label}` : k,
              value: r.rate,
              color: multi ? run.label : 'share true',
              n: r.n,
            });
        }
      });
      section.append(
        barChart('binary-values', 'Binary per-item outcomes: share of items with the value true', rows, {
          percent: true,
        }),
      );
    }
    const numericKeys = keys.filter((k) => !isBinary(k));
    if (numericKeys.length) {
      const select = h(
        'select',
        { 'aria-label': 'value to plot', 'data-control': 'distribution' },
        numericKeys.map((k) => h('option', { value: k }, k)),
      ) as HTMLSelectElement;
      const holder = h('div');
      const draw = () => {
        const k = select.value;
        const all = runs.flatMap((run) =>
          evaluatedItems(run)
            .map((i) => i.values?.[k])
            .filter((v): v is number => typeof v === 'number' && Number.isFinite(v)),
        );
        const [lo, hi] = d3.extent(all) as [number, number];
        const bin = d3
          .bin()
          .domain(lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi])
          .thresholds(20);
        const rows: any[] = [];
        runs.forEach((run) => {
          const vals = evaluatedItems(run)
            .map((i) => i.values?.[k])
            .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
          for (const b of bin(vals)) if (b.length) rows.push({ run: run.label, x0: b.x0, x1: b.x1, count: b.length });
        });
        holder.replaceChildren(
          chart(
            'distribution',
            `Distribution of ${k} (items)`,
            'rect',
            rows,
            () =>
              Plot.plot({
                width: 640,
                height: multi ? 120 * runs.length + 40 : 220,
                marginRight: multi ? 120 : 24,
                x: { label: k },
                y: { label: 'items', grid: true },
                fy: multi ? { label: null } : undefined,
                color: { domain: runs.map((r) => r.label), range: runs.map((_, i) => runColor(i)) },
                marks: [
                  Plot.rectY(rows, {
                    x1: 'x0',
                    x2: 'x1',
                    y: 'count',
                    fill: 'run',
                    fy: multi ? 'run' : undefined,
                    inset: 0.5,
                  }),
                  Plot.ruleY([0]),
                ],
              }),
            [...(multi ? ['run'] : []), 'from', 'to', 'items'],
            (r) => [...(multi ? [r.run] : []), r.x0, r.x1, r.count],
          ),
        );
      };
      select.addEventListener('change', draw);
      section.append(h('div', { class: 'controls' }, h('label', null, 'Value: ', select)), holder);
      draw();
    }
    return section;
  }

  /** Flipped items of one pair (from `compareRuns`): id -> what flipped. */
  function flipsOf(pair: any): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const m of arr(pair?.metrics)) {
      if (!isObj(m.flipped)) continue;
      for (const [key, dir] of [
        ['oneToZero', '1 → 0'],
        ['zeroToOne', '0 → 1'],
      ] as const) {
        for (const id of arr(m.flipped[key])) {
          if (!out.has(id)) out.set(id, []);
          out.get(id)!.push(`${m.name} ${dir}`);
        }
      }
    }
    return out;
  }
  const pairs: any[] = comparison ? arr(comparison.pairs) : [];
  const comparedLabel = (index: unknown): string => {
    const cr = arr(comparison?.runs)[index as number];
    const match = runs.find((r) => cr && r.path === cr.dir) ?? runs.find((r) => cr && r.manifest?.id === cr.id);
    return match?.label ?? cr?.system ?? String(index);
  };

  function comparisonSection(): HTMLElement | null {
    if (!comparison) return null;
    const section = h('section', { id: 'comparison' }, h('h2', null, 'Comparison'));
    const methods = isObj(comparison.methods) ? Object.entries(comparison.methods) : [];
    section.append(
      h(
        'p',
        { class: 'muted' },
        `Items paired by id; ${text(comparison.resamples)} resamples, seed ${text(comparison.seed)}, confidence ${text(comparison.confidence)}.`,
        arr(comparison.forced).length ? ` Compared despite: ${arr(comparison.forced).join('; ')}.` : '',
      ),
    );
    if (methods.length)
      section.append(
        h(
          'details',
          null,
          h('summary', null, 'How each figure is computed'),
          kv(methods.map(([k, v]) => [k, text(v)])),
        ),
      );
    if (comparison.partial)
      section.append(
        h(
          'div',
          { class: 'banner', 'data-banner': 'comparison-partial' },
          'Partial comparison: a run is not complete or some items did not pair; the figures cover the paired items only.',
        ),
      );
    pairs.forEach((pair, k) => {
      const a = comparedLabel(pair.a);
      const b = comparedLabel(pair.b);
      section.append(h('h3', null, `${b} − ${a}`));
      const u = isObj(pair.unpaired) ? pair.unpaired : {};
      section.append(
        h(
          'p',
          { class: 'muted' },
          `${text(pair.paired)} paired items; ${text(u.count ?? 0)} not paired` +
            (u.count
              ? ` (only in A ${arr(u.onlyA).length}, only in B ${arr(u.onlyB).length}, failed in A ${arr(u.failedA).length}, failed in B ${arr(u.failedB).length})`
              : '') +
            '. A and B are recomputed on the paired items; "recorded" are the runs\' own figures.',
        ),
      );
      const metricsList = arr(pair.metrics);
      if (metricsList.length) {
        const cols = [
          'metric',
          `A (${a})`,
          `B (${b})`,
          'B − A',
          '95% CI of B − A',
          'p randomisation',
          'p McNemar (b, c)',
          'p Holm',
          'recorded A',
          'recorded B',
        ];
        section.append(
          table(
            cols,
            metricsList.map((m: any) => [
              text(m.name),
              m.a ?? null,
              m.b ?? null,
              fixed4(m.delta),
              Array.isArray(m.ci) ? `[${text(fixed4(m.ci[0]))}, ${text(fixed4(m.ci[1]))}]` : '—',
              sig3(m.pRandomization),
              isObj(m.mcnemar) ? `${text(sig3(m.mcnemar.p))} (${text(m.mcnemar.b)}, ${text(m.mcnemar.c)})` : '—',
              sig3(m.pHolm),
              m.recordedA ?? null,
              m.recordedB ?? null,
            ]),
            { 'data-table': `comparison-${k}` },
            'table-wrap full',
          ),
        );
        // one pair of charts per unit of the metrics (as run.json gives it), so that no scale dwarfs another
        const runA = runs.find((r) => r.label === a);
        const unitOf = (name: string): string => runA?.manifest?.metrics?.[name]?.unit ?? '';
        const units = [...new Set(metricsList.map((m: any) => unitOf(String(m.name))))];
        units.forEach((unit, u) => {
          const ms = metricsList.filter((m: any) => unitOf(String(m.name)) === unit);
          const side: any[] = [];
          for (const m of ms) {
            if (typeof m.a === 'number') side.push({ label: `${m.name} · ${a}`, value: m.a, color: a });
            if (typeof m.b === 'number') side.push({ label: `${m.name} · ${b}`, value: m.b, color: b });
          }
          const deltas = ms
            .filter((m: any) => typeof m.delta === 'number')
            .map((m: any) => ({
              label: String(m.name),
              value: m.delta,
              color: 'B − A',
              lo: Array.isArray(m.ci) ? m.ci[0] : undefined,
              hi: Array.isArray(m.ci) ? m.ci[1] : undefined,
            }));
          const suffix = unit ? ` (${unit})` : '';
          const id = u === 0 ? `${k}` : `${k}-${u}`;
          if (side.length)
            section.append(
              barChart(`comparison-side-${id}`, `Side by side on the paired items${suffix}: ${a} and ${b}`, side),
            );
          if (deltas.length)
            section.append(
              barChart(
                `comparison-delta-${id}`,
                `Differences ${b} − ${a}${suffix} with 95% bootstrap intervals`,
                deltas,
              ),
            );
        });
      }
      const flips = flipsOf(pair);
      if (flips.size) {
        section.append(h('h4', null, `Flipped items (${flips.size})`));
        const list = h('ul', { 'data-list': `flipped-${k}` });
        for (const [id, what] of [...flips].slice(0, 300)) {
          list.append(
            h(
              'li',
              null,
              h(
                'a',
                {
                  href: `#item=${encodeURIComponent(id)}`,
                  'data-flipped': id,
                  onclick: (e: Event) => (e.preventDefault(), openItem(id)),
                },
                id,
              ),
              ` ${what.join(', ')}`,
            ),
          );
        }
        section.append(list);
        if (flips.size > 300)
          section.append(
            h('p', { class: 'muted' }, `… and ${flips.size - 300} more: choose "flipped between runs" in Items.`),
          );
      } else {
        section.append(h('p', { class: 'muted' }, 'No item flipped on a binary metric.'));
      }
    });
    return section;
  }

  // ---------- items and drill-down ----------
  const ids: string[] = [];
  const byRun: Array<Map<string, Item>> = runs.map((run) => new Map(run.items.map((i) => [i.id, i])));
  {
    const seen = new Set<string>();
    for (const run of runs) for (const i of run.items) if (!seen.has(i.id)) seen.add(i.id), ids.push(i.id);
  }
  const flippedIds = new Set<string>(pairs.flatMap((p) => [...flipsOf(p).keys()]));
  const facetCache = new Map<string, Record<string, string[]>>();
  function facetsOf(id: string): Record<string, string[]> {
    let f = facetCache.get(id);
    if (!f) {
      f = {};
      for (const m of byRun) {
        const it = m.get(id);
        if (!it) continue;
        for (const [k, vs] of Object.entries(view.facets(it))) f[k] = [...new Set([...(f[k] ?? []), ...vs])];
      }
      facetCache.set(id, f);
    }
    return f;
  }
  const searchCache = new Map<string, string>();
  const searchText = (id: string) => {
    let s = searchCache.get(id);
    if (s === undefined) {
      s = [id, ...byRun.map((m) => JSON.stringify(m.get(id) ?? ''))].join('\n').toLowerCase();
      searchCache.set(id, s);
    }
    return s;
  };
  const failingAny = (id: string) =>
    byRun.some((m) => {
      const it = m.get(id);
      return it ? view.failing(it) : false;
    });

  const detailPanel = h(
    'div',
    { class: 'item-detail', id: 'item-detail', 'aria-live': 'polite' },
    h('p', { class: 'muted' }, 'Click an item to see it here.'),
  );
  function itemDetail(run: Run, item: Item | undefined): HTMLElement {
    const box = h('div', { 'data-detail-run': run.label });
    if (multi) box.append(h('h4', null, run.label));
    if (!item) {
      box.append(h('p', { class: 'muted' }, 'Not in this run.'));
      return box;
    }
    if (item.error) box.append(h('p', { class: 'bad' }, `Not evaluated: ${item.error}`));
    const vals = Object.entries(item.values ?? {});
    if (vals.length)
      box.append(
        table(
          ['value', ''],
          vals.map(([k, v]) => [k, v]),
        ),
      );
    try {
      box.append(...(view.detail(item).filter(Boolean) as Node[]));
    } catch (error) {
      box.append(
        h(
          'p',
          { class: 'muted' },
          `(this item's detail has an unexpected shape: ${String((error as Error)?.message ?? error)})`,
        ),
      );
    }
    const rest = Object.fromEntries(Object.entries(det(item)).filter(([k]) => !view.consumed.includes(k)));
    if (Object.keys(rest).length) box.append(h('details', null, h('summary', null, 'Other detail'), pre(rest)));
    return box;
  }
  function openItem(id: string): void {
    const title = h(
      'h3',
      null,
      'Item ',
      h('code', null, id),
      flippedIds.has(id) ? h('span', { class: 'tag' }, 'flipped') : null,
    );
    const body = multi
      ? h(
          'div',
          { class: 'pair' },
          runs.map((run, i) => itemDetail(run, byRun[i]!.get(id))),
        )
      : itemDetail(runs[0]!, byRun[0]!.get(id));
    detailPanel.replaceChildren(title, body);
    detailPanel.setAttribute('data-item', id);
    listBody.querySelectorAll('tr.selected').forEach((tr: HTMLElement) => tr.classList.remove('selected'));
    listBody.querySelector(`tr[data-id="${CSS.escape(id)}"]`)?.classList.add('selected');
    document.getElementById('items')?.scrollIntoView({ block: 'start' });
  }

  const PAGE = 200;
  let shownCount = PAGE;
  let filtered: string[] = ids;
  const listBody = h('tbody');
  const countEl = h('p', { class: 'muted', 'data-count': '' });
  const moreBtn = h('button', { type: 'button', 'data-control': 'more' }, 'Show more') as HTMLButtonElement;
  const search = h('input', {
    type: 'search',
    placeholder: 'Search id, text, reason…',
    'aria-label': 'search items',
    'data-control': 'search',
  }) as HTMLInputElement;
  const statusSel = h(
    'select',
    { 'aria-label': 'status', 'data-control': 'status' },
    h('option', { value: '' }, 'all items'),
    h('option', { value: 'failing' }, 'failing / wrong'),
    h('option', { value: 'error' }, 'not evaluated (error)'),
    flippedIds.size ? h('option', { value: 'flipped' }, 'flipped between runs') : null,
  ) as HTMLSelectElement;
  const facetNames: string[] = [];
  for (const id of ids) for (const k of Object.keys(facetsOf(id))) if (!facetNames.includes(k)) facetNames.push(k);
  const facetSelects = facetNames
    .map((name) => {
      const values = new Map<string, number>();
      for (const id of ids) for (const v of facetsOf(id)[name] ?? []) values.set(v, (values.get(v) ?? 0) + 1);
      if (!values.size) return null;
      return h(
        'select',
        { 'aria-label': name, 'data-facet': name },
        h('option', { value: '' }, `any ${name}`),
        [...values].sort((a, b) => b[1] - a[1]).map(([v, n]) => h('option', { value: v }, `${v} (${n})`)),
      ) as HTMLSelectElement;
    })
    .filter((s): s is HTMLSelectElement => s !== null);

  function row(id: string): HTMLElement {
    const cells = runs.map((_run, i) => {
      const it = byRun[i]!.get(id);
      if (!it) return h('td', null, '—');
      if (it.error) return h('td', { class: 'bad', title: it.error }, 'error');
      return view.failing(it) ? h('td', { class: 'bad' }, '✗') : h('td', null, '✓');
    });
    const first = byRun.map((m) => m.get(id)).find(Boolean);
    return h(
      'tr',
      {
        'data-id': id,
        tabindex: 0,
        onclick: () => openItem(id),
        onkeydown: (e: KeyboardEvent) => e.key === 'Enter' && openItem(id),
      },
      h('td', null, h('code', null, id)),
      cells,
      h('td', null, first ? short(view.summary(first) || '', 80) : ''),
    );
  }
  function renderList(): void {
    listBody.replaceChildren(...filtered.slice(0, shownCount).map(row));
    countEl.textContent = `${filtered.length} of ${ids.length} items${filtered.length > shownCount ? ` (first ${shownCount} listed)` : ''}`;
    moreBtn.hidden = filtered.length <= shownCount;
    moreBtn.textContent = `Show ${Math.min(PAGE, filtered.length - shownCount)} more`;
  }
  function applyFilters(): void {
    const q = search.value.trim().toLowerCase();
    const st = statusSel.value;
    const fs = facetSelects.filter((s) => s.value).map((s) => [s.getAttribute('data-facet')!, s.value] as const);
    filtered = ids.filter((id) => {
      if (st === 'failing' && !failingAny(id)) return false;
      if (st === 'error' && !byRun.some((m) => m.get(id)?.error)) return false;
      if (st === 'flipped' && !flippedIds.has(id)) return false;
      for (const [k, v] of fs) if (!(facetsOf(id)[k] ?? []).includes(v)) return false;
      return !q || searchText(id).includes(q);
    });
    shownCount = PAGE;
    renderList();
  }
  moreBtn.addEventListener('click', () => {
    shownCount += PAGE;
    renderList();
  });
  let timer: number | undefined;
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = window.setTimeout(applyFilters, 120);
  });
  statusSel.addEventListener('change', applyFilters);
  for (const s of facetSelects) s.addEventListener('change', applyFilters);

  function itemsSection(): HTMLElement {
    const section = h('section', { id: 'items' }, h('h2', null, 'Items'));
    section.append(
      h('div', { class: 'controls' }, search, statusSel, facetSelects),
      countEl,
      h(
        'div',
        { class: 'items' },
        h(
          'div',
          null,
          h(
            'div',
            { class: 'item-list' },
            h(
              'table',
              { 'data-table': 'items' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  h('th', null, 'item'),
                  runs.map((r) => h('th', null, multi ? r.label : 'outcome')),
                  h('th', null, 'summary'),
                ),
              ),
              listBody,
            ),
          ),
          moreBtn,
        ),
        detailPanel,
      ),
    );
    renderList();
    return section;
  }

  function viewSection(): HTMLElement {
    const section = h('section', { id: 'view' }, h('h2', null, `${benchmark} view`));
    let charts: HTMLElement[] = [];
    try {
      charts = view.charts();
    } catch (error) {
      section.append(
        h(
          'p',
          { class: 'muted' },
          `(the items' detail has an unexpected shape: ${String((error as Error)?.message ?? error)})`,
        ),
      );
    }
    if (!charts.some((c) => c.matches?.('figure.chart'))) {
      // the items carry no detail this view plots: it shows the runs' headline figures (from run.json) instead
      const rows: any[] = [];
      runs.forEach((run) => {
        for (const [m, v] of Object.entries<any>(run.manifest?.metrics ?? {})) {
          if (typeof v?.value === 'number')
            rows.push({
              label: multi ? `${m} · ${run.label}` : m,
              value: v.value,
              color: v.unit ?? 'value',
              lo: v.ci?.[0],
              hi: v.ci?.[1],
              n: v.n,
            });
        }
      });
      section.append(
        h('p', { class: 'muted' }, `The items carry no ${benchmark} detail to plot; the headline figures of run.json:`),
      );
      if (rows.length) charts.push(barChart(`${benchmark}-figures`, 'Headline figures (from run.json)', rows));
    }
    section.append(...charts);
    return section;
  }

  /** One section that cannot be built (data of an unexpected shape) shows why, and the rest of the report stays. */
  function safe(name: string, build: () => HTMLElement | HTMLElement[] | null): HTMLElement[] {
    try {
      const out = build();
      return out === null ? [] : Array.isArray(out) ? out : [out];
    } catch (error) {
      return [
        h(
          'section',
          { 'data-broken': name },
          h('h2', null, name),
          h('p', { class: 'bad' }, `This section could not be shown: ${String((error as Error)?.message ?? error)}`),
        ),
      ];
    }
  }
  app.replaceChildren(
    ...safe('Report', header),
    ...safe('Run status', banners),
    ...safe('What was evaluated', evaluated),
    ...safe('Headline metrics', metrics),
    ...safe('Comparison', comparisonSection),
    ...safe('Benchmark view', viewSection),
    ...safe('Distributions', distributions),
    ...safe('Items', itemsSection),
  );
  const hash = decodeURIComponent(location.hash.replace(/^#item=/, ''));
  if (location.hash.startsWith('#item=') && ids.includes(hash)) openItem(hash);
  app.removeAttribute('aria-busy');
  document.body.setAttribute('data-ready', 'true');
}
