// Items: a filterable, sortable list of every item (each run's outcome and why, side by side) and the drill-down of
// the item clicked, built by the benchmark's view with the runs side by side.
import type { ItemOpener } from './comparison';
import { type Item, type View, det } from './data';
import { fold, h, short, table, text } from './dom';
import type { PageData } from './model';

const PAGE = 200;

export interface ItemsPart extends ItemOpener {
  section: HTMLElement;
  ids: string[];
}

export function itemsSection(data: PageData, view: View): ItemsPart {
  const runs = data.runs;
  const multi = runs.length > 1;
  const labels = runs.map((r) => r.label);
  const byRun = runs.map((run) => new Map(run.items.map((i) => [i.id, i])));
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const run of runs) for (const i of run.items) if (!seen.has(i.id)) seen.add(i.id), ids.push(i.id);
  const flippedIds = new Set<string>();
  for (const pair of data.comparison?.pairs ?? [])
    for (const m of pair.metrics)
      for (const id of [...(m.flipped?.oneToZero ?? []), ...(m.flipped?.zeroToOne ?? [])]) flippedIds.add(id);

  const facetCache = new Map<string, Record<string, string[]>>();
  const facetsOf = (id: string): Record<string, string[]> => {
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
  };
  const searchCache = new Map<string, string>();
  const searchText = (id: string): string => {
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

  /** Which run is which in the drill-down; a run that lacks the item or could not evaluate it says so. */
  function runBox(k: number, item: Item | undefined): HTMLElement {
    const box = h('div', { 'data-detail-run': labels[k]! });
    if (multi) box.append(h('h4', { class: 'run-label' }, labels[k]));
    if (!item) box.append(h('p', { class: 'muted' }, 'Not in this run.'));
    else if (item.error) box.append(h('p', { class: 'bad' }, `Not evaluated: ${item.error}`));
    else if (multi) box.append(h('p', { class: 'muted' }, view.summary(item) || 'passed'));
    return box;
  }

  function open(id: string): void {
    const items = byRun.map((m) => m.get(id));
    const title = h(
      'h3',
      null,
      'Item ',
      h('code', null, id),
      flippedIds.has(id) ? h('span', { class: 'tag' }, 'flipped') : null,
    );
    const parts: HTMLElement[] = [title];
    parts.push(
      h(
        'div',
        { class: 'pair' },
        items.map((it, k) => runBox(k, it)),
      ),
    );
    // the per-item values, runs side by side
    const keys = [...new Set(items.flatMap((it) => Object.keys(it?.values ?? {})))];
    if (keys.length)
      parts.push(
        fold(
          'Values',
          !multi,
          table(
            ['value', ...labels],
            keys.map((k) => [k, ...items.map((it) => (it ? (it.values[k] ?? null) : null))]),
            { 'data-table': 'item-values' },
          ),
        ),
      );
    try {
      parts.push(h('div', { class: 'view-detail' }, view.detail(items, labels)));
    } catch (error) {
      parts.push(
        h(
          'p',
          { class: 'muted' },
          `(this item's detail has an unexpected shape: ${String((error as Error).message ?? error)})`,
        ),
      );
    }
    items.forEach((it, k) => {
      if (!it) return;
      const rest = Object.entries(det(it)).filter(([key]) => !view.consumed.includes(key));
      if (rest.length)
        parts.push(
          fold(
            `Other detail${multi ? ` (${labels[k]})` : ''}`,
            false,
            table(
              ['key', 'value'],
              rest.map(([key, v]) => [key, text(v)]),
            ),
          ),
        );
    });
    detailPanel.replaceChildren(...parts);
    detailPanel.setAttribute('data-item', id);
    for (const tr of listBody.querySelectorAll('tr.selected')) tr.classList.remove('selected');
    listBody.querySelector(`tr[data-id="${CSS.escape(id)}"]`)?.classList.add('selected');
    detailPanel.scrollIntoView({ block: 'nearest' });
  }

  let shownCount = PAGE;
  let filtered: string[] = ids;
  const listBody = h('tbody');
  const countEl = h('p', { class: 'muted', 'data-count': '', 'data-status': '', 'data-query': '', 'data-facets': '' });
  const moreBtn = h('button', { type: 'button', 'data-control': 'more' }, 'Show more');
  const search = h('input', {
    type: 'search',
    placeholder: 'Search id, text, reason…',
    'aria-label': 'search items',
    'data-control': 'search',
  });
  const statusSel = h(
    'select',
    { 'aria-label': 'status', 'data-control': 'status' },
    h('option', { value: '' }, 'all items'),
    h('option', { value: 'failing' }, 'failing / wrong'),
    h('option', { value: 'error' }, 'not evaluated (error)'),
    flippedIds.size ? h('option', { value: 'flipped' }, 'flipped between runs') : null,
  );
  const facetNames: string[] = [];
  for (const id of ids) for (const k of Object.keys(facetsOf(id))) if (!facetNames.includes(k)) facetNames.push(k);
  const facetSelects = facetNames.flatMap((name) => {
    const values = new Map<string, number>();
    for (const id of ids) for (const v of facetsOf(id)[name] ?? []) values.set(v, (values.get(v) ?? 0) + 1);
    if (!values.size) return [];
    return [
      h(
        'select',
        { 'aria-label': name, 'data-facet': name },
        h('option', { value: '' }, `any ${name}`),
        [...values].sort((a, b) => b[1] - a[1]).map(([v, n]) => h('option', { value: v }, `${v} (${n})`)),
      ),
    ];
  });

  const outcome = (k: number, id: string): 'error' | 'fail' | 'pass' | 'absent' => {
    const it = byRun[k]!.get(id);
    if (!it) return 'absent';
    if (it.error) return 'error';
    return view.failing(it) ? 'fail' : 'pass';
  };
  const why = (k: number, id: string): string => {
    const it = byRun[k]!.get(id);
    return it ? short(it.error ?? view.summary(it), 100) : '';
  };
  function row(id: string): HTMLTableRowElement {
    const cells = runs.flatMap((_r, k) => {
      const o = outcome(k, id);
      return [
        h(
          'td',
          { class: o === 'pass' ? 'ok' : 'bad', title: o },
          o === 'pass' ? '✓' : o === 'fail' ? '✗' : o === 'error' ? 'error' : '—',
        ),
        h('td', { class: 'why' }, why(k, id)),
      ];
    });
    return h(
      'tr',
      {
        'data-id': id,
        tabindex: 0,
        onclick: () => open(id),
        onkeydown: (e: Event) => {
          if ((e as KeyboardEvent).key === 'Enter') open(id);
        },
      },
      h('td', null, h('code', null, id)),
      cells,
    );
  }
  function renderList(): void {
    listBody.replaceChildren(...filtered.slice(0, shownCount).map(row));
    countEl.textContent = `${filtered.length} of ${ids.length} items${filtered.length > shownCount ? ` (first ${shownCount} listed)` : ''}`;
    moreBtn.hidden = filtered.length <= shownCount;
    moreBtn.textContent = `Show ${Math.min(PAGE, filtered.length - shownCount)} more`;
  }
  // sorting the whole filtered list (not only the rows shown): by id, or by a run's outcome (failing first) or reason
  let sortKey: ((id: string) => string) | null = null;
  let sortAscending = true;
  function applyFilters(): void {
    const q = search.value.trim().toLowerCase();
    const st = statusSel.value;
    const fs = facetSelects.filter((s) => s.value).map((s) => [s.getAttribute('data-facet')!, s.value] as const);
    // what the list now shows, on the count line: tests (and scripts) wait for it rather than for time
    countEl.setAttribute('data-status', st);
    countEl.setAttribute('data-query', q);
    countEl.setAttribute('data-facets', fs.map(([k, v]) => `${k}=${v}`).join('&'));
    filtered = ids.filter((id) => {
      if (st === 'failing' && !failingAny(id)) return false;
      if (st === 'error' && !byRun.some((m) => m.get(id)?.error)) return false;
      if (st === 'flipped' && !flippedIds.has(id)) return false;
      for (const [k, v] of fs) if (!(facetsOf(id)[k] ?? []).includes(v)) return false;
      return !q || searchText(id).includes(q);
    });
    if (sortKey) {
      const key = sortKey;
      filtered = [...filtered].sort((x, y) => (sortAscending ? 1 : -1) * key(x).localeCompare(key(y)));
    }
    shownCount = PAGE;
    renderList();
  }
  moreBtn.addEventListener('click', () => {
    shownCount += PAGE;
    renderList();
  });
  let timer: number | undefined;
  search.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(applyFilters, 120);
  });
  statusSel.addEventListener('change', applyFilters);
  for (const s of facetSelects) s.addEventListener('change', applyFilters);

  const order = { fail: '0', error: '1', pass: '2', absent: '3' } as const;
  const columns: Array<[string, (id: string) => string]> = [
    ['item', (id) => id],
    ...runs.flatMap(
      (r, k): Array<[string, (id: string) => string]> => [
        [multi ? r.label : 'outcome', (id) => order[outcome(k, id)] + id],
        [multi ? `${r.label}: why` : 'why', (id) => why(k, id)],
      ],
    ),
  ];
  const headRow = h(
    'tr',
    null,
    columns.map(([name, key]) => {
      const th = h('th', { scope: 'col', class: 'sortable', tabindex: 0, 'aria-sort': 'none' }, name);
      const sort = () => {
        sortAscending = sortKey === key ? !sortAscending : true;
        sortKey = key;
        for (const other of headRow.cells) other.setAttribute('aria-sort', 'none');
        th.setAttribute('aria-sort', sortAscending ? 'ascending' : 'descending');
        applyFilters();
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') sort();
      });
      return th;
    }),
  );
  const section = h('section', { id: 'items' }, h('h2', null, 'Items'));
  section.append(
    h('div', { class: 'controls' }, search, statusSel, facetSelects),
    countEl,
    h(
      'div',
      { class: multi ? 'items stacked' : 'items' },
      h(
        'div',
        null,
        h('div', { class: 'item-list' }, h('table', { 'data-table': 'items' }, h('thead', null, headRow), listBody)),
        moreBtn,
      ),
      detailPanel,
    ),
  );
  renderList();
  return { section, ids, open, byRun, view };
}
