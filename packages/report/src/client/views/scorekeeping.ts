// Scorekeeping: an episode as a conversation (game master and players apart, as clembench's transcripts show it),
// each probing question inline with the model's answer against the truth, and where and why it stopped.
import { type Item, type View, det, valueOf } from '../data';
import { type Child, arr, h, isObj, str, table, text } from '../dom';

const probes = (item: Item) => arr(det(item).probes).filter(isObj);
const outcome = (item: Item): string => {
  const o = det(item).outcome;
  if (typeof o === 'string') return o;
  if (valueOf(item, 'played') === true) return 'played';
  if (valueOf(item, 'played') === false) return 'aborted';
  return '';
};

function probeVerdict(p: Record<string, unknown>): HTMLElement {
  const correct = p.correct === true ? '✓ correct' : p.correct === false ? '✗ wrong' : 'not scored';
  return h(
    'div',
    { class: `probe-result ${p.correct === false ? 'bad' : ''}`, 'data-probe': '' },
    h(
      'b',
      null,
      `Probe${p.round !== undefined ? `, round ${text(p.round)}` : ''}${p.kind ? ` (${text(p.kind)})` : ''}: `,
    ),
    `answer ${text(p.answer)} · truth ${text(p.truth)} · ${correct}`,
    p.slot !== undefined ? h('span', { class: 'muted' }, ` · slot ${text(p.slot)}`) : null,
  );
}

/** The transcript: messages to and from the game master as a conversation; the GM's own notes small and muted. */
function conversation(item: Item): Child[] {
  const d = det(item);
  const transcript = arr(d.transcript).filter(isObj);
  const ps = probes(item);
  const questions = transcript.filter((t) => t.type === 'probe question').length;
  // probes pair with the transcript's probe questions in order when the counts agree
  const inline = questions > 0 && questions === ps.length;
  let next = 0;
  let pending: Record<string, unknown> | undefined;
  const msgs: Child[] = [];
  for (const t of transcript) {
    const from = str(t.from) ?? '?';
    const to = str(t.to) ?? '?';
    const type = str(t.type) ?? '';
    const said = text(t.text);
    if (from === to) {
      msgs.push(
        h('div', { class: 'msg note' }, h('span', { class: 'muted' }, `${from}${type ? ` (${type})` : ''}: ${said}`)),
      );
      if (pending && type === 'parse') {
        msgs.push(probeVerdict(pending));
        pending = undefined;
      }
      continue;
    }
    const gm = from === 'GM';
    const probe = type === 'probe question' || type === 'probe answer';
    msgs.push(
      h(
        'div',
        { class: `msg ${gm ? 'left' : 'right'}${probe ? ' probe' : ''}`, 'data-from': from },
        h('span', { class: 'who' }, gm ? `GM → ${to}` : from, probe ? ' · probe' : ''),
        h('div', { class: 'bubble' }, said),
      ),
    );
    if (inline && type === 'probe question') pending = ps[next++];
  }
  if (pending) msgs.push(probeVerdict(pending));
  const out: Child[] = [
    h(
      'details',
      { open: true },
      h('summary', null, `Transcript (${transcript.length} messages)`),
      h('div', { class: 'conversation' }, msgs),
    ),
  ];
  if (ps.length && !inline)
    out.push(
      h('h4', null, 'Probes'),
      table(
        ['round', 'kind', 'question', 'answer', 'truth', 'correct'],
        ps.map((p) => [
          text(p.round ?? null),
          text(p.kind ?? ''),
          text(p.question ?? ''),
          text(p.answer ?? null),
          text(p.truth ?? null),
          p.correct === true ? '✓' : p.correct === false ? '✗' : '—',
        ]),
      ),
    );
  else if (ps.length)
    out.unshift(
      h(
        'p',
        { class: 'muted' },
        `Probes: ${ps.filter((p) => p.correct === true).length} of ${ps.length} answered correctly, shown inline.`,
      ),
    );
  return out;
}

export const scorekeepingView: View = {
  facets: (item) => ({
    outcome: outcome(item) ? [outcome(item)] : [],
    model: arr(det(item).models).map(String),
    experiment: item.group ? [item.group] : item.id.includes('/') ? [item.id.slice(0, item.id.lastIndexOf('/'))] : [],
  }),
  failing: (item) =>
    Boolean(item.error) ||
    (outcome(item) !== '' && outcome(item) !== 'played') ||
    probes(item).some((p) => p.correct === false),
  summary: (item) => {
    const ps = probes(item);
    const abort = str(det(item).abortReason);
    return [
      outcome(item),
      abort ?? '',
      ps.length ? `${ps.filter((p) => p.correct === true).length}/${ps.length} probes correct` : '',
    ]
      .filter(Boolean)
      .join(', ');
  },
  detail(items, labels) {
    const boxes = items.map((item, k) => {
      const box = h('div', { class: 'episode' });
      if (labels.length > 1) box.append(h('p', { class: 'run-label' }, labels[k]));
      if (!item) return box;
      const d = det(item);
      box.append(
        h(
          'p',
          null,
          outcome(item) ? h('span', { class: `tag${outcome(item) === 'played' ? '' : ' bad'}` }, outcome(item)) : null,
          arr(d.models).map((m) => h('span', { class: 'tag' }, `model ${text(m)}`)),
        ),
      );
      if (d.abortReason !== undefined) box.append(h('p', { class: 'bad' }, `Stopped: ${text(d.abortReason)}`));
      if (arr(d.transcript).length) box.append(...(conversation(item).filter(Boolean) as Node[]));
      else if (typeof d.interactions === 'string')
        // kept by location and not read back (runBenchmark.itemDetails leaves an item so when its file is gone)
        box.append(
          h(
            'p',
            { class: 'bad' },
            'Transcript not found at ',
            h('code', null, d.interactions),
            /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(d.interactions) ? '' : ' (relative to the run directory)',
          ),
        );
      else if (probes(item).length) box.append(...(conversation(item).filter(Boolean) as Node[]));
      return box;
    });
    return [h('div', { class: labels.length > 1 ? 'pair' : '' }, boxes)];
  },
  consumed: ['probes', 'transcript', 'interactions', 'models', 'outcome', 'abortReason', 'modelPair'],
};
