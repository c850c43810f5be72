// The text of items.jsonl (internal: not exported by the package).
import type { RunItem } from './schema';

/**
 * Between two items of a batch, an element no item can be mistaken for: a string starting with NUL, with a random
 * part drawn once per process. In the batch's JSON array it reads `,"\u0000…",`.
 */
let itemSeparator: ItemSeparator | undefined;

/** The separator's value and its JSON text. */
export interface ItemSeparator {
  value: string;
  json: string;
}

/**
 * The lines of items.jsonl for a batch of items: `JSON.stringify(item)` and a newline each. One `JSON.stringify` call
 * on the batch, with the separator between its items, then each `,"<separator>",` replaced by a newline: the same
 * text as one call per item, at under half the cost (one call walks the whole batch in V8's serialiser; per-item calls
 * each set it up and return a small string to concatenate). Should an item itself hold the separator string as an
 * array element, the replacements outnumber the separators and the text is shorter than it must be: then the batch is
 * serialised item by item.
 */
export function serializeItems(
  items: readonly RunItem[],
  sep: ItemSeparator = (itemSeparator ??=
    separator()),
): string {
  if (items.length === 1) return `${JSON.stringify(items[0])}\n`;
  const parts: unknown[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts.push(sep.value);
    parts.push(items[i]);
  }
  const text = JSON.stringify(parts);
  const lines = `${text.slice(1, -1).replaceAll(`,${sep.json},`, '\n')}\n`;
  if (lines.length === text.length - 1 - (items.length - 1) * (sep.json.length + 1)) return lines;
  let out = '';
  for (const item of items) out += `${JSON.stringify(item)}\n`;
  return out;
}

/** A new separator (random part from `Math.random`: it only has to be absent from the items, not secret). */
export function separator(): ItemSeparator {
  const value = `\u0000dialeval-item-separator-${Math.floor(Math.random() * 2 ** 52).toString(36)}${Math.floor(Math.random() * 2 ** 52).toString(36)}`;
  return { value, json: JSON.stringify(value) };
}
