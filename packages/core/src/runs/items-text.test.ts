import { describe, expect, it } from 'vitest';
import type { RunItem } from './schema';
import { separator, serializeItems } from './items-text';

/** What items.jsonl must hold: `JSON.stringify(item)` and a newline per item (spec runs.md section 3). */
const oneByOne = (items: readonly RunItem[]) => items.map((item) => `${JSON.stringify(item)}\n`).join('');

const items: RunItem[] = [
  {
    id: 'a',
    values: { correct: true, score: 0.5 },
    detail: { why: 'ok', nested: [{ a: 1 }, { b: [1, 2, { c: 'x' }] }] },
  },
  { id: 'b,"c"', group: 'g', values: { n: -0, big: 1e21, small: 5e-324 }, error: 'call failed: 500' },
  { id: 'ü ✓ 🎉', values: {}, detail: { text: 'line\nbreak\ttab "quoted" \\ back', lone: '\ud800x', nul: '\u0000' } },
  { id: 'd', values: { x: null }, detail: { list: ['a', 'b', '', ','] } },
];

describe('serializeItems (the text of items.jsonl)', () => {
  it('gives the text of one JSON.stringify per item, for every batch size', () => {
    for (let n = 1; n <= items.length; n++) expect(serializeItems(items.slice(0, n))).toBe(oneByOne(items.slice(0, n)));
    const many = Array.from({ length: 600 }, (_, i) => ({
      id: `i${i}`,
      values: { v: i % 3 === 0 },
      detail: { k: [String(i), i] },
    }));
    expect(serializeItems(many)).toBe(oneByOne(many));
  });

  it('falls back to one call per item when an item holds the separator as an array element', () => {
    const sep = separator();
    // the separator between two elements of an item's array: `,"<separator>",` inside the item's own text
    const tricky: RunItem[] = [
      { id: 'x', values: {}, detail: { list: ['a', sep.value, 'b'] } },
      { id: 'y', values: {}, detail: { only: sep.value, last: ['a', sep.value] } },
      items[0]!,
    ];
    const batchText = JSON.stringify([tricky[0], sep.value, tricky[1]]);
    // (the item's own text holds the pattern the batch's separators are replaced by)
    expect(batchText.split(`,${sep.json},`)).toHaveLength(3);
    expect(serializeItems(tricky, sep)).toBe(oneByOne(tricky));
    // a string equal to the separator elsewhere (an object's value, an array's last element) is no separator
    expect(serializeItems(tricky.slice(1), sep)).toBe(oneByOne(tricky.slice(1)));
  });
});
