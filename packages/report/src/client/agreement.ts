// The agreement of judges: runs of one system over the same items, each judged by another judge (a model, a prompt
// variant, a repeat). Krippendorff's alpha with its interval, Cohen's kappa per pair with both judges' base rates
// beside it, the flip matrix, and each headline metric under each judge with the largest shift. Every figure comes
// written from node.
import { fold, h, table } from './dom';
import type { PageData } from './model';

/** Opens an item in the items section (a flipped item's row). */
export interface AgreementItemOpener {
  open(id: string): void;
  ids: string[];
}

export function agreementSection(data: PageData, items: AgreementItemOpener): HTMLElement | null {
  const a = data.agreement;
  if (!a) return null;
  const judge = (i: number): string => a.judges[i]?.name ?? `judge ${i + 1}`;
  const section = h('section', { id: 'agreement' }, h('h2', null, 'Agreement of judges'));
  section.append(
    h(
      'p',
      { class: 'muted' },
      `${a.judges.length} judges of the verdict "${a.value}" on ${a.over}: how far the result depends on the judge. ` +
        `${a.resamples.toLocaleString('en-US')} bootstrap resamples, seed ${a.seed}.`,
    ),
    h(
      'p',
      { class: 'headline-alpha', 'data-alpha': '' },
      h('b', null, `Krippendorff's alpha (${a.level}): ${a.alpha.value || 'undefined'}`),
      a.alpha.ci ? `, 95% interval ${a.alpha.ci}` : '',
      ` (over the ${a.alpha.pairable} items judged at least twice)`,
    ),
    table(
      ['judge', 'source', 'judged', 'base rates'],
      a.judges.map((j) => [j.name, j.source ?? '', j.judged, j.baseRates]),
      { 'data-table': 'agreement-judges' },
      'table-wrap full',
    ),
    h('h3', null, "Cohen's kappa per pair of judges"),
    h(
      'p',
      { class: 'muted' },
      "On the items both judged, with each judge's label shares there: a high kappa on a skewed label is no good judge.",
    ),
    table(
      [
        'judge A',
        'judge B',
        'compared',
        'agreement',
        'kappa',
        'base rates A',
        'base rates B',
        'flips',
        'changes (A → B)',
      ],
      a.pairs.map((p) => [
        judge(p.a),
        judge(p.b),
        p.compared,
        p.observed,
        p.kappa,
        p.baseRatesA,
        p.baseRatesB,
        p.flips,
        p.changes,
      ]),
      { 'data-table': 'agreement-kappa' },
      'table-wrap full',
    ),
    h('h3', null, 'Flip matrix'),
    h('p', { class: 'muted' }, 'Items both judges judged and labelled differently.'),
    table(
      ['judge', ...a.judges.map((j) => j.name)],
      a.flipMatrix.map((row, i) => [judge(i), ...row]),
      { 'data-table': 'agreement-flips' },
      'table-wrap full',
    ),
    flippedItems(a.pairs, judge, items),
  );
  if (a.metrics.length > 0) {
    const runJudges = a.metrics[0]!.values.map((_, i) => judge(i));
    section.append(
      h('h3', null, 'Headline metrics under each judge'),
      h(
        'p',
        { class: 'muted' },
        `Recomputed on the ${a.common} items every run evaluated; the largest shift is what judge choice alone moves, ` +
          'with its paired 95% interval.',
      ),
      table(
        ['metric', ...runJudges, 'largest shift', 'difference', '95% CI', 'p (randomisation)'],
        a.metrics.map((m) => [
          m.name,
          ...m.values,
          m.shift ? `${judge(m.shift.to)} − ${judge(m.shift.from)}` : '',
          m.shift?.delta ?? '',
          m.shift?.ci ?? '',
          m.shift?.p ?? '',
        ]),
        { 'data-table': 'agreement-metrics' },
        'table-wrap full',
      ),
    );
  }
  if (a.notes.length > 0)
    section.append(
      h(
        'ul',
        { class: 'muted', 'data-agreement-notes': '' },
        a.notes.map((n) => h('li', null, n)),
      ),
    );
  section.append(
    fold(
      'How the figures are computed',
      false,
      h(
        'ul',
        null,
        Object.entries(a.methods).map(([k, v]) => h('li', null, h('b', null, k), `: ${v}`)),
      ),
    ),
  );
  return section;
}

/** Per pair, the items labelled differently; a row opens the item (when the report lists it). */
function flippedItems(
  pairs: NonNullable<PageData['agreement']>['pairs'],
  judge: (i: number) => string,
  items: AgreementItemOpener,
): HTMLElement {
  const known = new Set(items.ids);
  const rows = pairs.flatMap((p) =>
    p.flipped.map((f) => ({ id: f.id, pair: `${judge(p.a)} – ${judge(p.b)}`, a: f.a, b: f.b })),
  );
  const body = h(
    'tbody',
    null,
    rows.map((r) =>
      h(
        'tr',
        known.has(r.id)
          ? {
              'data-agreement-flip': r.id,
              tabindex: 0,
              onclick: () => items.open(r.id),
              onkeydown: (e: Event) => {
                if ((e as KeyboardEvent).key === 'Enter') items.open(r.id);
              },
            }
          : { 'data-agreement-flip': r.id },
        h('td', null, h('code', null, r.id)),
        h('td', null, r.pair),
        h('td', null, r.a),
        h('td', null, r.b),
      ),
    ),
  );
  return fold(
    `Flipped items (${rows.length})`,
    false,
    h(
      'div',
      { class: 'table-wrap flipped' },
      h(
        'table',
        { 'data-table': 'agreement-flipped' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['item', 'judges A – B', 'A', 'B'].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        body,
      ),
    ),
  );
}
