// CGT: each group's statements with their ground truth and prediction, the accumulative scores after each, and the
// curves the package recorded (accumulative F1 and DSC per statement).
import { lines } from '../charts';
import { type Item, type View, det, genericFailing } from '../data';
import { type Child, arr, h, isObj, num, table, text } from '../dom';
import type { PageRun } from '../model';

const curve = (item: Item) =>
  arr(det(item).curve).filter((p): p is Record<string, unknown> => isObj(p) && typeof p.step === 'number');
const rows = (item: Item) => arr(det(item).rows).filter(isObj);
const score = (v: unknown): string => (typeof v === 'number' ? num(v) : '—');

export const cgtView: View = {
  facets: (item) => ({ group: item.group ? [item.group] : [] }),
  failing: genericFailing,
  summary: (item) => {
    const c = curve(item);
    const last = c[c.length - 1];
    return last ? `${c.length} statements, final F1 ${score(last.f1)}, DSC ${score(last.dsc)}` : '';
  },
  detail(items, labels) {
    const out: Child[] = [];
    items.forEach((item, k) => {
      if (!item) return;
      const c = curve(item);
      const byStep = new Map(c.map((p) => [p.step as number, p]));
      const rs = rows(item);
      const st = arr(det(item).statements);
      if (labels.length > 1) out.push(h('h4', { class: 'run-label' }, labels[k]));
      if (rs.length)
        out.push(
          h('h4', null, 'Statements'),
          table(
            ['#', 'statement', 'ground truth', 'prediction', 'P', 'R', 'F1', 'DSC'],
            rs.map((r) => {
              const p = byStep.get(r.step as number);
              return [
                r.step as number,
                text(r.key),
                text(r.gold),
                text(r.pred),
                score(p?.p),
                score(p?.r),
                score(p?.f1),
                score(p?.dsc),
              ];
            }),
            { 'data-table': 'statements' },
            'table-wrap full',
          ),
        );
      else if (c.length)
        out.push(
          h('h4', null, 'Accumulative scores'),
          table(
            ['step', 'statement', 'P', 'R', 'F1', 'DSC'],
            c.map((p) => [
              p.step as number,
              text(p.key ?? st[p.step as number] ?? ''),
              score(p.p),
              score(p.r),
              score(p.f1),
              score(p.dsc),
            ]),
          ),
        );
      if (!rs.length && st.length)
        out.push(
          h('h4', null, `Statements (${st.length})`),
          h(
            'ol',
            null,
            st.map((s) => h('li', null, text(s))),
          ),
        );
    });
    return out;
  },
  charts(runs: PageRun[]) {
    const out: HTMLElement[] = [];
    for (const [metric, key] of [
      ['F1', 'f1'],
      ['DSC', 'dsc'],
    ] as const) {
      const points = runs.flatMap((run) =>
        run.items.flatMap((i) =>
          curve(i).flatMap((p) =>
            typeof p[key] === 'number'
              ? [
                  {
                    series: runs.length > 1 ? `${i.id} · ${run.label}` : i.id,
                    x: p.step as number,
                    y: p[key] as number,
                    text: num(p[key] as number),
                  },
                ]
              : [],
          ),
        ),
      );
      if (points.length && new Set(points.map((p) => p.y)).size > 1)
        out.push(
          lines(
            `cgt-${key}`,
            `Accumulative ${metric} over each group's statements (recorded per item)`,
            points,
            'statement',
            metric,
            [0, 1],
          ),
        );
    }
    return out;
  },
  consumed: ['curve', 'statements', 'rows'],
};
