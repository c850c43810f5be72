import { type View, genericFailing } from '../data';
import { text } from '../dom';

/** Any other benchmark: its items' values and detail as they are. */
export const genericView: View = {
  facets: (item) => ({ group: item.group ? [item.group] : [] }),
  failing: genericFailing,
  summary: (item) =>
    Object.entries(item.values ?? {})
      .slice(0, 4)
      .map(([k, v]) => `${k} ${text(v)}`)
      .join(', '),
  detail: () => [],
  consumed: [],
};
