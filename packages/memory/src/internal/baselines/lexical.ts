/**
 * A small lexical retriever (Okapi BM25, k1 = 1.2, b = 0.75) used by the baselines: lower-cased Unicode word tokens,
 * a short English stop-word list, ties broken by recency (later documents first), documents with no matching term
 * left out. Deliberately simple: the baselines exist to run the pipeline end to end, not to compete.
 */

const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can did do does for from had has have he her his how i if in into is it its ' +
    'me my of on or our she so than that the their them then there these they this to was we were what when where ' +
    'which who whom why will with would you your'
  ).split(' '),
);

/** Lower-cased letter/digit runs without stop words. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    if (!STOP_WORDS.has(m[0])) out.push(m[0]);
  }
  return out;
}

interface Doc {
  text: string;
  terms: Map<string, number>;
  length: number;
}

export class LexicalIndex {
  private readonly docs: Doc[] = [];
  private readonly df = new Map<string, number>();
  private totalLength = 0;

  get size(): number {
    return this.docs.length;
  }

  add(text: string): void {
    const tokens = tokenize(text);
    const terms = new Map<string, number>();
    for (const t of tokens) terms.set(t, (terms.get(t) ?? 0) + 1);
    for (const t of terms.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    this.docs.push({ text, terms, length: tokens.length });
    this.totalLength += tokens.length;
  }

  /** The `topK` best documents for `query`, best first. */
  search(query: string, topK: number): string[] {
    const q = [...new Set(tokenize(query))];
    const n = this.docs.length;
    if (n === 0 || q.length === 0 || topK <= 0) return [];
    const avg = this.totalLength / n || 1;
    const k1 = 1.2;
    const b = 0.75;
    const scored: Array<{ i: number; s: number }> = [];
    this.docs.forEach((doc, i) => {
      let s = 0;
      for (const t of q) {
        const tf = doc.terms.get(t);
        if (!tf) continue;
        const df = this.df.get(t)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / avg));
      }
      if (s > 0) scored.push({ i, s });
    });
    scored.sort((x, y) => y.s - x.s || y.i - x.i);
    return scored.slice(0, topK).map((d) => this.docs[d.i]!.text);
  }
}
