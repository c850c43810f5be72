// Building the page: elements, tables (sortable), key-value lists, plain-number formatting of item values.

export type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** `h('td', { class: 'num' }, '60.1')`: an element with attributes (on* are listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Array<Child | Child[]>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'object' ? c : String(c));
  }
  return el;
}

export const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * A plain number as a person reads it: integers with thousands separators, other numbers to at most three decimals
 * (item-level values that run.json does not declare; every metric comes written from node).
 */
export function num(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return x.toLocaleString('en-US');
  const t = x.toFixed(Math.abs(x) >= 100 ? 1 : 3);
  return t.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}

/** Any value as text: numbers through {@link num}, booleans as yes/no, objects as `key: value` lines. */
export function text(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return num(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(text).join(', ');
  if (isObj(v))
    return Object.entries(v)
      .map(([k, x]) => `${k}: ${text(x)}`)
      .join('; ');
  return String(v);
}

export const short = (s: string, n = 90): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** A table cell's content: a node, or a value shown with {@link text} (numbers right-aligned). */
export type Cell = Node | string | number | boolean | null | undefined;

function cell(c: Cell, numeric: boolean): HTMLTableCellElement {
  if (c instanceof Node) return h('td', null, c);
  return h('td', { class: numeric ? 'num' : null }, text(c));
}

/** A table; `attrs` go on the `<table>`. Columns whose cells are all numbers are right-aligned. */
export function table(columns: string[], rows: Cell[][], attrs: Attrs = {}, wrap = 'table-wrap'): HTMLDivElement {
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
            r.map((c, j) => cell(c, numeric[j]!)),
          ),
        ),
      ),
    ),
  );
}

/** Two columns: a header cell and its value per row. */
export function kv(rows: Array<[string, Child | Child[]]>, attrs: Attrs = {}): HTMLDivElement {
  return h(
    'div',
    { class: 'table-wrap full' },
    h(
      'table',
      { class: 'kv', ...attrs },
      h(
        'tbody',
        null,
        rows.map(([k, v]) => h('tr', null, h('th', { scope: 'row' }, k), h('td', null, v))),
      ),
    ),
  );
}

/**
 * Makes a table sortable by clicking a column header (again: the other way round). A cell sorts by its
 * `data-sort` attribute when it has one (numbers), else by its text.
 */
export function sortable(tableEl: HTMLTableElement): void {
  const heads = [...tableEl.tHead!.rows[0]!.cells];
  heads.forEach((th, j) => {
    th.classList.add('sortable');
    th.setAttribute('aria-sort', 'none');
    th.tabIndex = 0;
    const sort = () => {
      const body = tableEl.tBodies[0]!;
      const ascending = th.getAttribute('aria-sort') !== 'ascending';
      for (const other of heads) other.setAttribute('aria-sort', 'none');
      th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
      const key = (tr: HTMLTableRowElement): number | string => {
        const c = tr.cells[j];
        const s = c?.getAttribute('data-sort');
        if (s !== null && s !== undefined && s !== '' && !Number.isNaN(Number(s))) return Number(s);
        return (c?.textContent ?? '').toLowerCase();
      };
      const rows = [...body.rows].sort((x, y) => {
        const a = key(x);
        const b = key(y);
        const cmp = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
        return ascending ? cmp : -cmp;
      });
      body.append(...rows);
    };
    th.addEventListener('click', sort);
    th.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') sort();
    });
  });
}

/** A `<details>` block: collapsed unless `open`. */
export function fold(summary: string, open: boolean, ...children: Array<Child | Child[]>): HTMLDetailsElement {
  return h('details', { open }, h('summary', null, summary), ...children);
}
