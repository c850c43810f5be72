// The top of the page: title, the verdict (comparison) or the headline figures (one run), run status banners, and
// the provenance (files, hashes, options, versions) folded below.
import { bars } from './charts';
import { headline } from './data';
import { type Cell, arr, fold, h, kv, table, text } from './dom';
import type { PageData, PageMetric, PageRun } from './model';

export function header(data: PageData): HTMLElement {
  const runs = data.runs;
  return h(
    'header',
    null,
    h('h1', null, data.title),
    h(
      'p',
      { class: 'muted' },
      `${data.benchmark} · ${runs.length} run${runs.length === 1 ? '' : 's'} · report generated ${data.generatedAt} by @eval/report`,
    ),
    h(
      'nav',
      { class: 'toc' },
      data.comparison ? h('a', { href: '#verdict' }, 'Verdict') : h('a', { href: '#metrics' }, 'Headline figures'),
      data.comparison ? h('a', { href: '#comparison' }, 'Comparison') : null,
      h('a', { href: '#view' }, 'Breakdowns'),
      h('a', { href: '#items' }, 'Items'),
      h('a', { href: '#evaluated' }, 'Provenance'),
    ),
  );
}

/** The comparison's verdict: core's sentence per headline metric of each pair, ready to paste. */
export function verdict(data: PageData): HTMLElement | null {
  const c = data.comparison;
  if (!c) return null;
  const section = h('section', { id: 'verdict', class: 'verdict' }, h('h2', null, 'Verdict'));
  for (const [k, pair] of c.pairs.entries()) {
    const sentences = pair.metrics.filter((m) => m.verdict !== null);
    if (c.pairs.length > 1)
      section.append(h('h3', null, `${data.runs[pair.b]?.label ?? ''} vs ${data.runs[pair.a]?.label ?? ''}`));
    section.append(
      h(
        'ul',
        { class: 'sentences', 'data-verdict': k },
        sentences.map((m) => h('li', { 'data-verdict-metric': m.name }, m.verdict)),
      ),
    );
  }
  section.append(
    h(
      'p',
      { class: 'muted' },
      `Paired by item, resampled by ${c.unit === 'item' ? 'item' : `${c.unit} (whole ${c.unit}s drawn and swapped)`}; ${c.resamples.toLocaleString('en-US')} bootstrap resamples, seed ${c.seed}; significant at p < ${(1 - c.confidence).toFixed(2)}. `,
      'The same sentences as `dialeval compare`.',
      c.forced.length ? ` Compared despite: ${c.forced.join('; ')}.` : '',
    ),
  );
  if (c.notes.length > 0)
    section.append(
      h(
        'ul',
        { class: 'notes' },
        c.notes.map((n) => h('li', null, `Warning: ${n}`)),
      ),
    );
  return section;
}

/** Headline figures: a table per run (value, interval, n) and one chart per scale with runs side by side. */
export function headlineSection(data: PageData): HTMLElement {
  const runs = data.runs;
  const multi = runs.length > 1;
  const section = h('section', { id: 'metrics' }, h('h2', null, 'Headline figures'));
  const names: string[] = [];
  for (const run of runs) for (const m of headline(run)) if (!names.includes(m.name)) names.push(m.name);
  if (!names.length) {
    section.append(h('p', { class: 'muted' }, 'No headline figures (no finished run).'));
    return section;
  }
  const of = (run: PageRun, name: string): PageMetric | undefined => run.metrics.find((m) => m.name === name);
  const withCi = runs.some((r) => headline(r).some((m) => m.ciText !== null));
  const tbl = h(
    'table',
    { 'data-table': 'metrics' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, 'metric'),
        runs.flatMap((r) => [
          h('th', { scope: 'col', class: 'num' }, multi ? r.label : 'value'),
          withCi ? h('th', { scope: 'col' }, '95% CI') : null,
        ]),
        h('th', { scope: 'col', class: 'num' }, 'n'),
      ),
    ),
    h(
      'tbody',
      null,
      names.map((name) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, name),
          runs.flatMap((run) => {
            const m = of(run, name);
            return [
              h(
                'td',
                { class: 'num headline', 'data-metric': name, 'data-run': run.label },
                m ? (m.value === null ? '—' : m.text) : '',
              ),
              withCi ? h('td', { class: 'muted' }, m?.ciText ?? '') : null,
            ];
          }),
          h(
            'td',
            { class: 'num' },
            [...new Set(runs.map((r) => of(r, name)?.n).filter((n) => n !== undefined))]
              .map((n) => text(n))
              .join(' / '),
          ),
        ),
      ),
    ),
  );
  section.append(h('div', { class: 'table-wrap full' }, tbl));
  // one chart per declared scale (never entropy beside counts), the runs side by side; figures without a unit are
  // plain numbers of different kinds: with several runs each gets its own small chart, alone they stay in the table.
  // A chart of one bar, or whose bars would all be one value, is not drawn (no chart of a constant).
  const rowsOf = (pick: (m: PageMetric) => boolean) =>
    names.flatMap((name) =>
      runs.flatMap((run) => {
        const m = of(run, name);
        if (!m || m.scaled === null || !pick(m)) return [];
        return [
          {
            label: name,
            run: run.label,
            value: m.scaled,
            lo: m.scaledCi?.[0] ?? null,
            hi: m.scaledCi?.[1] ?? null,
            text: m.text,
            ciText: m.ciText,
          },
        ];
      }),
    );
  const grid = h('div', { class: 'grid' });
  const labels = runs.map((r) => r.label);
  const scales: string[] = [];
  for (const run of runs)
    for (const m of headline(run)) if (m.scaled !== null && m.scale && !scales.includes(m.scale)) scales.push(m.scale);
  scales.forEach((scale, k) => {
    const rows = rowsOf((m) => m.scale === scale);
    // one bar, or bars that all show one value, say nothing the table does not: no chart of a constant
    if (rows.length < 2 || rows.every((r) => r.value === rows[0]!.value)) return;
    grid.append(bars(`metrics-${k}`, `Headline figures (${scale})`, rows, scale, labels));
  });
  if (multi)
    names.forEach((name, k) => {
      const rows = rowsOf((m) => m.name === name && m.scale === '');
      if (rows.length < 2 || rows.every((r) => r.value === rows[0]!.value)) return;
      grid.append(bars(`metrics-plain-${k}`, name, rows, '', labels));
    });
  section.append(grid);
  return section;
}

export function banners(data: PageData): HTMLElement[] {
  const notes = data.notes.map((n) => h('div', { class: 'banner', 'data-banner': 'note', role: 'note' }, n));
  return notes.concat(
    data.runs.flatMap((run) => {
      const m = run.manifest;
      const erroredItems = run.items.filter((i) => i.error);
      if (!m) {
        return [
          h(
            'div',
            { class: 'banner failed', 'data-banner': 'unfinished', role: 'alert' },
            h('strong', null, `Unfinished run: ${run.label}. `),
            `${run.path ?? ''} has no run.json: the run did not finish (or is still running). It has no headline figures; the ${run.items.length} items written so far are shown below and are not a complete result.`,
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
      return [
        h(
          'div',
          { class: `banner${m.status === 'failed' ? ' failed' : ''}`, 'data-banner': m.status, role: 'alert' },
          h('strong', null, `${m.status === 'failed' ? 'Failed' : 'Partial'} run: ${run.label}. `),
          `Evaluated ${m.counts.evaluated} of ${m.counts.items} items; ${m.counts.failed} failed, ${m.counts.skipped} skipped. ` +
            (m.status === 'failed'
              ? 'The run failed: its figures are not a result.'
              : 'Its figures cover the evaluated items only; this is not a complete run.'),
          m.failures.length
            ? table(
                ['item', 'reason'],
                m.failures.map((f) => [f.id, f.reason]),
                { 'data-failures': run.label },
              )
            : null,
        ),
      ];
    }),
  );
}

/** Files, hashes, options, versions, model and cost: folded, after the results. */
export function provenance(data: PageData): HTMLElement {
  const runs = data.runs;
  const multi = runs.length > 1;
  type Row = [string, (r: PageRun) => string | undefined];
  const llm = (r: PageRun) => r.manifest?.llm;
  const rows: Row[] = [
    ['system', (r) => r.manifest?.system ?? r.started?.system],
    ['benchmark', (r) => r.manifest?.benchmark ?? r.started?.benchmark],
    ['variant', (r) => r.manifest?.variant ?? r.started?.variant],
    ['status', (r) => (r.manifest ? r.manifest.status : 'unfinished (no run.json)')],
    ['run id', (r) => r.manifest?.id],
    ['directory', (r) => r.path ?? undefined],
    ['created', (r) => r.manifest?.createdAt ?? r.started?.createdAt],
    ['finished', (r) => r.manifest?.finishedAt],
    [
      'items (evaluated / failed / skipped)',
      (r) => {
        const c = r.manifest?.counts;
        return c
          ? `${c.items.toLocaleString('en-US')} (${c.evaluated.toLocaleString('en-US')} / ${c.failed} / ${c.skipped})`
          : `${r.items.length} written`;
      },
    ],
    ['model (requested)', (r) => llm(r)?.model],
    ['model (reported)', (r) => arr(llm(r)?.modelReported).join(', ') || undefined],
    ['endpoint host', (r) => llm(r)?.endpointHost],
    [
      'LLM calls (made / cached / failed / retried)',
      (r) => {
        const c = llm(r)?.calls;
        return c ? `${c.made} / ${c.cached} / ${c.failed} / ${c.retried}` : undefined;
      },
    ],
    [
      'tokens (prompt / completion)',
      (r) => (llm(r)?.tokens ? `${llm(r)!.tokens!.prompt} / ${llm(r)!.tokens!.completion}` : undefined),
    ],
    ['cost', (r) => (typeof llm(r)?.costUsd === 'number' ? `$${llm(r)!.costUsd!.toFixed(4)}` : undefined)],
    ['dialeval', (r) => r.manifest?.tool?.cli],
    [
      'packages',
      (r) =>
        Object.entries(r.manifest?.tool?.packages ?? {})
          .map(([k, v]) => `${k}@${v}`)
          .join(', ') || undefined,
    ],
    [
      'node / platform',
      (r) => (r.manifest?.tool ? `${r.manifest.tool.node} / ${r.manifest.tool.platform}` : undefined),
    ],
    ['command', (r) => (r.manifest?.command?.length ? r.manifest.command.join(' ') : undefined)],
  ];
  const shown = rows.filter(([, f]) => runs.some((r) => f(r)));
  const section = h('section', { id: 'evaluated' }, h('h2', null, 'Provenance'));
  const body = h('div');
  body.append(
    table(
      ['', ...runs.map((r) => r.label)],
      shown.map(([k, f]) => [k, ...runs.map((r) => f(r) ?? '')]),
      { 'data-table': 'evaluated' },
      'table-wrap full',
    ),
  );
  for (const run of runs) {
    const options = run.manifest?.options ?? {};
    if (Object.keys(options).length)
      body.append(
        h('h3', null, `Options${multi ? `: ${run.label}` : ''}`),
        kv(Object.entries(options).map(([k, v]) => [k, text(v)])),
      );
  }
  const inputs = runs.flatMap((r) =>
    (r.manifest?.inputs ?? []).map(
      (i) => [...(multi ? [r.label] : []), i.role, i.path, i.size, h('code', null, i.sha256)] as Cell[],
    ),
  );
  if (inputs.length)
    body.append(
      h('h3', null, 'Data files'),
      table([...(multi ? ['run'] : []), 'role', 'path', 'bytes', 'sha256'], inputs),
    );
  const resources = runs.flatMap((r) =>
    (r.manifest?.resources ?? []).map(
      (i) =>
        [
          ...(multi ? [r.label] : []),
          i.name,
          i.commit ?? '',
          i.source ?? '',
          i.sha256 ? h('code', null, i.sha256) : '',
        ] as Cell[],
    ),
  );
  if (resources.length)
    body.append(
      h('h3', null, 'Resource sets'),
      table([...(multi ? ['run'] : []), 'name', 'commit', 'source', 'file list sha256'], resources),
    );
  const artifacts = runs.flatMap((r) =>
    (r.manifest?.artifacts ?? []).map((a) => [...(multi ? [r.label] : []), a.path, a.format] as Cell[]),
  );
  if (artifacts.length)
    body.append(h('h3', null, 'Native outputs'), table([...(multi ? ['run'] : []), 'path', 'format'], artifacts));
  section.append(fold('Files, hashes, options and versions', false, body));
  return section;
}
