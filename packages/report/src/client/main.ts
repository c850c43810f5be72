// The report page: reads the embedded data and builds the page in the order a reader wants it: the verdict (or the
// headline figures of one run), the agreement of judges (one system's items judged by several judges), the
// comparison, the breakdowns, the items, and the provenance folded at the end.
import { agreementSection } from './agreement';
import { breakdownCharts, breakdownTables } from './breakdowns';
import { comparisonSection } from './comparison';
import { readPageData } from './data';
import { distributions } from './distributions';
import { h } from './dom';
import { itemsSection } from './items';
import { banners, header, headlineSection, provenance, verdict } from './summary';
import { viewFor } from './views/index';

function main(): void {
  const data = readPageData();
  const app = document.getElementById('app')!;
  const view = viewFor(data.benchmark);

  /** One part that cannot be built (data of an unexpected shape) says why; the rest of the report stays. */
  const safe = (name: string, build: () => HTMLElement | HTMLElement[] | null): HTMLElement[] => {
    try {
      const out = build();
      return out === null ? [] : Array.isArray(out) ? out : [out];
    } catch (error) {
      return [
        h(
          'section',
          { 'data-broken': name },
          h('h2', null, name),
          h('p', { class: 'bad' }, `This section could not be shown: ${String((error as Error).message ?? error)}`),
        ),
      ];
    }
  };
  const items = itemsSection(data, view);
  const breakdownSection = (): HTMLElement => {
    const section = h('section', { id: 'view' }, h('h2', null, `${data.benchmark}: breakdowns`));
    const charts = [...breakdownCharts(data), ...(view.charts?.(data.runs) ?? [])];
    if (!charts.length)
      section.append(
        h(
          'p',
          { class: 'muted', 'data-no-breakdown': '' },
          'run.json records no breakdown figures (per domain, round, method...) for this run.',
        ),
      );
    section.append(h('div', { class: 'grid' }, charts), ...breakdownTables(data));
    return section;
  };
  app.replaceChildren(
    ...safe('Report', () => header(data)),
    ...safe('Verdict', () => verdict(data)),
    ...safe('Agreement of judges', () => agreementSection(data, items)),
    ...safe('Run status', () => banners(data)),
    ...safe('Headline figures', () => headlineSection(data)),
    ...safe('Comparison', () => comparisonSection(data, items)),
    ...safe('Breakdowns', breakdownSection),
    ...safe('Items', () => items.section),
    ...safe('Distributions', () => distributions(data)),
    ...safe('Provenance', () => provenance(data)),
  );
  const hash = decodeURIComponent(location.hash.replace(/^#item=/, ''));
  if (location.hash.startsWith('#item=') && items.ids.includes(hash)) items.open(hash);
  app.removeAttribute('aria-busy');
  document.body.setAttribute('data-ready', 'true');
}

main();
