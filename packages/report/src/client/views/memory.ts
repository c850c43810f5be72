// Memory (HaluMem): each question with the system's answer, the gold answer and the judge's verdict and reasoning;
// each memory point with what the judge said of it.
import { type Item, type View, det, valueOf } from '../data';
import { type Child, h, kv, short, text } from '../dom';

const verdict = (item: Item): string => {
  const v = det(item).verdict;
  return v === undefined || v === null ? '' : text(v);
};
const kind = (item: Item): string => {
  const k = det(item).kind;
  return typeof k === 'string' ? k : item.id.includes(':') ? item.id.split(':')[0]! : '';
};
const FIELDS: Array<[string, string]> = [
  ['question', 'Question'],
  ['answer', "System's answer"],
  ['reference', 'Gold answer'],
  ['memory', 'Memory'],
  ['verdict', 'Verdict'],
  ['questionType', 'Question type'],
  ['memoryType', 'Memory type'],
  ['difficulty', 'Difficulty'],
  ['source', 'Source'],
  ['includedInGolden', 'In the golden memories'],
  ['user', 'User'],
  ['session', 'Session'],
  ['judgeFailure', 'Judge failure'],
];

export const memoryView: View = {
  facets: (item) => ({
    kind: kind(item) ? [kind(item)] : [],
    verdict: verdict(item) ? [verdict(item)] : [],
    'question type': typeof det(item).questionType === 'string' ? [det(item).questionType as string] : [],
    user: det(item).user !== undefined ? [text(det(item).user)] : [],
  }),
  failing: (item) => {
    if (item.error) return true;
    const v = det(item).verdict;
    if (typeof v === 'string') return !/^correct$/i.test(v.trim());
    if (valueOf(item, 'recalled') === false) return true;
    return kind(item) === 'extracted' && v === 0;
  },
  summary: (item) =>
    `${verdict(item) ? `[${verdict(item)}] ` : ''}${short(text(det(item).question ?? det(item).memory ?? ''), 80)}`,
  detail(items, labels) {
    const out: Child[] = [];
    items.forEach((item, k) => {
      if (!item) return;
      const d = det(item);
      const rows: Array<[string, Child]> = FIELDS.filter(([key]) => d[key] !== undefined).map(([key, name]) => [
        name,
        key === 'verdict' ? h('b', { class: memoryView.failing(item) ? 'bad' : null }, text(d[key])) : text(d[key]),
      ]);
      if (labels.length > 1) out.push(h('h4', { class: 'run-label' }, labels[k]));
      if (rows.length) out.push(kv(rows, { 'data-table': 'memory-item' }));
      if (d.reasoning !== undefined)
        out.push(h('h4', null, "The judge's reasoning"), h('p', { class: 'prose' }, text(d.reasoning)));
      if (d.retrieved !== undefined)
        out.push(
          h(
            'details',
            null,
            h('summary', null, 'Memories retrieved by the system'),
            h('p', { class: 'prose' }, text(d.retrieved)),
          ),
        );
    });
    return out;
  },
  consumed: [...FIELDS.map(([k]) => k), 'kind', 'reasoning', 'retrieved'],
};
