// MultiWOZ: a dialogue's goal, where each system failed per domain, and (when the items carry them) the turns side
// by side. Figures per domain come from run.json's breakdown metrics (the Breakdowns section), never from here.
import { type Item, type View, det, valueOf } from '../data';
import { type Child, arr, h, isObj, str, table, text } from '../dom';

const domainsOf = (item: Item): Record<string, Record<string, unknown>> => {
  const d = det(item).domains;
  if (!isObj(d)) return {};
  return Object.fromEntries(Object.entries(d).filter((e): e is [string, Record<string, unknown>] => isObj(e[1])));
};
const reasonsOf = (item: Item): string[] => {
  const r = new Set<string>(arr(det(item).reasons).filter((x): x is string => typeof x === 'string'));
  for (const d of Object.values(domainsOf(item))) if (typeof d.reason === 'string') r.add(d.reason);
  return [...r];
};
const mark = (v: unknown): string => (v === true ? '✓' : v === false ? '✗' : '—');

/** The goal: as recorded, else each goal domain with the slots the user requested. */
function goalOf(items: Array<Item | undefined>): Child {
  const first = items.find((i) => i !== undefined);
  if (!first) return null;
  const recorded = det(first).goal;
  const domains = Object.entries(domainsOf(first));
  if (recorded !== undefined && !isObj(recorded)) return h('p', null, text(recorded));
  const lines: Child[] = domains.map(([d, v]) => {
    const requested = arr(v.requested).map(String);
    return h(
      'li',
      null,
      h('b', null, d),
      requested.length ? `: requestable ${requested.join(', ')}` : ': find a venue (no slot requested)',
    );
  });
  if (isObj(recorded))
    for (const [k, v] of Object.entries(recorded))
      if (k !== 'domains') lines.push(h('li', null, h('b', null, k), `: ${text(v)}`));
  return lines.length ? h('div', { class: 'goal' }, h('h4', null, 'Goal'), h('ul', null, lines)) : null;
}

/** One turn as a run records it (when the items carry the responses): its response and state, if any. */
function turnsOf(item: Item | undefined): Array<Record<string, unknown>> {
  return arr(item ? det(item).turns : undefined).filter(isObj);
}

/** A belief state as a reader scans it: one line per domain, `restaurant  area = north, food = indian`. */
function stateCell(state: unknown): Node | string {
  if (state === undefined) return '';
  if (!isObj(state)) return text(state);
  const domains = Object.entries(state);
  if (!domains.length) return h('span', { class: 'muted' }, 'empty');
  return h(
    'div',
    null,
    domains.map(([domain, slots]) =>
      h(
        'div',
        null,
        h('b', null, domain),
        ' ',
        isObj(slots)
          ? Object.entries(slots)
              .map(([slot, value]) => `${slot} = ${text(value)}`)
              .join(', ')
          : text(slots),
      ),
    ),
  );
}

export const multiwozView: View = {
  facets: (item) => ({ domain: Object.keys(domainsOf(item)), reason: reasonsOf(item) }),
  failing: (item) =>
    Boolean(item.error) ||
    valueOf(item, 'success') === false ||
    valueOf(item, 'inform') === false ||
    reasonsOf(item).length > 0,
  summary: (item) => {
    const failed = Object.entries(domainsOf(item)).filter(([, v]) => typeof v.reason === 'string');
    if (failed.length) return failed.map(([d, v]) => `${d}: ${String(v.reason)}`).join('; ');
    // a dialogue that failed without a recorded reason says which figure failed; a successful one needs no line
    if (valueOf(item, 'inform') === false) return 'inform failed';
    if (valueOf(item, 'success') === false) return 'success failed';
    return '';
  },
  detail(items, labels) {
    const multi = labels.length > 1;
    const domains = [...new Set(items.flatMap((i) => (i ? Object.keys(domainsOf(i)) : [])))];
    const out: Child[] = [goalOf(items)];
    if (domains.length) {
      // where each system failed, domain by domain
      out.push(
        h('h4', null, 'Per goal domain'),
        table(
          [
            'domain',
            ...labels.flatMap((l) =>
              multi ? [`${l}: inform`, `${l}: success`, `${l}: why`] : ['inform', 'success', 'why'],
            ),
          ],
          domains.map((d) => [
            d,
            ...items.flatMap((it) => {
              const v = it ? domainsOf(it)[d] : undefined;
              if (!v) return ['', '', ''];
              const why = [str(v.reason), str(v.explanation)].filter(Boolean).join(': ');
              return [mark(v.inform), mark(v.success), why || (v.success === true ? 'succeeded' : '')];
            }),
          ]),
          { 'data-table': 'domains' },
        ),
      );
    }
    const reasons = [...new Set(items.flatMap((i) => (i ? reasonsOf(i) : [])))];
    if (reasons.length)
      out.push(
        h(
          'p',
          null,
          'Reasons: ',
          reasons.map((r) => h('span', { class: 'tag bad' }, r)),
        ),
      );
    const turns = items.map(turnsOf);
    const n = Math.max(0, ...turns.map((t) => t.length));
    if (n > 0) {
      // turn by turn, the systems side by side
      out.push(
        h('h4', null, 'Turns'),
        table(
          ['turn', ...labels.flatMap((l) => [multi ? l : 'response', multi ? `${l}: state` : 'state'])],
          Array.from({ length: n }, (_, t) => [
            t,
            ...turns.flatMap((ts) => {
              const turn = ts[t];
              return [str(turn?.response) ?? text(turn?.text ?? ''), stateCell(turn?.state)];
            }),
          ]),
          { 'data-table': 'turns' },
          'table-wrap full',
        ),
      );
    } else {
      const counts = items.map((i) => (i && typeof det(i).turns === 'number' ? (det(i).turns as number) : null));
      if (counts.some((c) => c !== null))
        out.push(
          h(
            'p',
            { class: 'muted' },
            `${counts.find((c) => c !== null)} turns (the run records no responses per turn).`,
          ),
        );
    }
    return out;
  },
  consumed: ['domains', 'reasons', 'goal', 'turns'],
};
