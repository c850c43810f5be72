// llm-judge: a turn's dialogue context as a conversation, the predicted state beside the gold state with the slots
// the judge disputed marked, and each judge's verdict and explanation as text.
import { type Item, type View, det, valueOf } from '../data';
import { type Child, arr, h, isObj, str, text } from '../dom';

const judgeLabel = (item: Item): string[] => {
  const j = det(item).judge;
  if (!isObj(j)) return [];
  const out: string[] = [];
  if (typeof j.accurate === 'boolean') out.push(j.accurate ? 'accurate' : 'not accurate');
  if (typeof j.complete === 'boolean') out.push(j.complete ? 'complete' : 'not complete');
  return out;
};
const disagree = (item: Item) => det(item).disagree === true;
const slots = (v: unknown): Record<string, unknown> => (isObj(v) ? v : {});

/** A label from a JSON key (`step_by_step_thinking` -> `Step by step thinking`). */
const keyLabel = (k: string) => {
  const s = k.replace(/[_-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
};

/** A judge's output as readable text: a fenced or bare JSON object becomes labelled paragraphs; other text stays. */
export function readableExplanation(raw: string): Child[] {
  const out: Child[] = [];
  const parts = raw.split(/```(?:json)?\s*\n?([\s\S]*?)```/g);
  parts.forEach((part, i) => {
    const chunk = part.trim();
    if (!chunk) return;
    let parsed: unknown;
    if (i % 2 === 1 || /^\{[\s\S]*\}$/.test(chunk)) {
      try {
        parsed = JSON.parse(chunk);
      } catch {
        parsed = undefined;
      }
    }
    if (isObj(parsed)) {
      for (const [k, v] of Object.entries(parsed)) {
        const value =
          isObj(v) && Object.keys(v).length
            ? h(
                'ul',
                null,
                Object.entries(v).map(([s, x]) => h('li', null, h('code', null, s), ` = ${text(x)}`)),
              )
            : isObj(v)
              ? h('span', { class: 'muted' }, 'none')
              : text(v);
        out.push(h('div', { class: 'explanation-part' }, h('b', null, `${keyLabel(k)}: `), value));
      }
    } else out.push(h('p', { class: 'prose' }, chunk));
  });
  return out;
}

function context(item: Item): Child {
  const turns = arr(det(item).context);
  if (!turns.length) return null;
  return h(
    'div',
    { class: 'conversation' },
    turns.map((t) => {
      const speaker = isObj(t) ? (str(t.speaker) ?? '') : '';
      const said = isObj(t) ? text(t.text) : text(t);
      return h(
        'div',
        { class: `msg ${speaker === 'user' ? 'left' : 'right'}` },
        h('span', { class: 'who' }, speaker || '?'),
        h('div', { class: 'bubble' }, said),
      );
    }),
  );
}

/**
 * The predicted state (accumulated, when the run records it) beside the gold state, with this turn's prediction; the
 * slots the judge called incorrect or missed are marked, and so are slots where prediction and gold differ.
 */
function stateTable(item: Item): Child {
  const d = det(item);
  const turn = slots(d.predicted);
  const predicted = d.predictedState !== undefined ? slots(d.predictedState) : turn;
  const gold = slots(d.gold);
  const names = [...new Set([...Object.keys(predicted), ...Object.keys(gold), ...Object.keys(turn)])].sort();
  if (!names.length)
    return d.predicted !== undefined || d.gold !== undefined
      ? h('p', { class: 'muted' }, 'Predicted and gold state are both empty.')
      : null;
  const incorrect = new Set(arr(d.incorrect).map(String));
  const missed = new Set(arr(d.missed).map(String));
  const accumulated = d.predictedState !== undefined;
  return h(
    'table',
    { 'data-table': 'states' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        [
          'slot',
          accumulated ? 'predicted state' : 'predicted',
          'gold state',
          ...(accumulated ? ['this turn'] : []),
          'judge',
        ].map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h(
      'tbody',
      null,
      names.map((s) => {
        const differs = text(predicted[s] ?? null) !== text(gold[s] ?? null);
        const said = incorrect.has(s) ? 'incorrect' : missed.has(s) ? 'missed' : '';
        return h(
          'tr',
          { class: said || differs ? 'disputed' : null, 'data-slot': s },
          h('td', null, h('code', null, s)),
          h('td', null, s in predicted ? text(predicted[s]) : '—'),
          h('td', null, s in gold ? text(gold[s]) : '—'),
          accumulated ? h('td', null, s in turn ? text(turn[s]) : '') : null,
          h(
            'td',
            null,
            said
              ? h('span', { class: 'tag bad' }, `judge: ${said}`)
              : differs
                ? h('span', { class: 'tag' }, 'differs from gold')
                : '',
          ),
        );
      }),
    ),
  );
}

export const llmJudgeView: View = {
  facets: (item) => ({
    verdict: judgeLabel(item),
    agreement:
      typeof det(item).disagree === 'boolean'
        ? [disagree(item) ? 'judge and rules disagree' : 'judge and rules agree']
        : [],
    dialogue: item.group ? [item.group] : [],
  }),
  failing: (item) => Boolean(item.error) || disagree(item) || valueOf(item, 'judge') === false,
  summary: (item) => {
    const d = det(item);
    const disputed = [
      ...arr(d.incorrect).map((s) => `incorrect ${String(s)}`),
      ...arr(d.missed).map((s) => `missed ${String(s)}`),
    ];
    return [judgeLabel(item).join(', '), disagree(item) ? 'rules disagree' : '', disputed.join(', ')]
      .filter(Boolean)
      .join('; ');
  },
  detail(items, labels) {
    const first = items.find((i) => i !== undefined);
    const head: Child[] =
      first && arr(det(first).context).length ? [h('h4', null, 'Dialogue context'), context(first)] : [];
    const out: HTMLElement[] = [];
    items.forEach((item, k) => {
      if (!item) return;
      const d = det(item);
      const rules = slots(d.rules);
      const box = h('div', { class: 'judge-box', 'data-judge-run': labels[k]! });
      box.append(h('h4', null, labels.length > 1 ? `Judge: ${labels[k]}` : 'Judge'));
      box.append(
        h(
          'p',
          null,
          judgeLabel(item).map((l) => h('span', { class: `tag${/^not /.test(l) ? ' bad' : ''}` }, l)),
          Object.entries(rules).map(([r, v]) =>
            h('span', { class: 'tag' }, `rules ${r}: ${v === true ? 'correct' : v === false ? 'wrong' : text(v)}`),
          ),
          disagree(item) ? h('span', { class: 'tag bad' }, 'judge and rules disagree') : null,
        ),
      );
      const st = stateTable(item);
      if (st) box.append(h('div', { class: 'table-wrap full' }, st as Node));
      if (d.failure !== undefined) box.append(h('p', { class: 'bad' }, `Judge output unusable: ${text(d.failure)}`));
      if (typeof d.explanation === 'string')
        box.append(
          h('h4', null, "The judge's explanation"),
          h('div', { class: 'explanation' }, readableExplanation(d.explanation)),
        );
      out.push(box);
    });
    return [...head, h('div', { class: labels.length > 1 ? 'pair' : '' }, out)];
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
    'goldM24',
    'incorrect',
    'missed',
    'failure',
    'source',
  ],
};
