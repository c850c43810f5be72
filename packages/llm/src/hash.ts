import { hash } from 'node:crypto';

/** JSON with object keys sorted recursively and `undefined` members dropped: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value));
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortDeep(v)));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortDeep(v);
    }
    return out;
  }
  return value;
}

/** Hex sha256 of the UTF-8 text (one-shot `crypto.hash`: no `Hash` object per call). */
export function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}
