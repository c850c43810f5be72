/**
 * mwzeval's lexical richness (`get_richness`): lexical_diversity 0.1.1 tokenisation (empty tokens kept), entropy,
 * conditional bigram entropy, MSTTR-50, average length, distinct uni/bi/tri-grams. Spec: shared/specs/multiwoz.md § 6.
 */
import { EvalError } from '@eval/core';
import { pyCollapseWhitespace } from '@eval/core/python';

/** The figures of `get_richness`, same keys. */
export interface RichnessResult {
  entropy: number;
  cond_entropy: number;
  avg_lengths: number;
  msttr: number;
  num_unigrams: number;
  num_bigrams: number;
  num_trigrams: number;
}

// lexical_diversity removes, in turn: `` '' ' . , ? ! ) ( % / - _ -LRB- -RRB- SYM : ;
// Removing single characters commutes, '' goes with ', and -LRB-/-RRB- cannot remain once - is gone, so the same text
// results from: ``, then the single characters ' . , ? ! ) ( % / - _ together, then SYM, then : and ;.
const SINGLE_PUNCTUATION = /['.,?!)(%/_-]/g;
const COLON_SEMICOLON = /[:;]/g;

/** `lexical_diversity.lex_div.tokenize(text)`: punctuation removed, whitespace collapsed, lower-cased, split on " ". */
export function richnessTokenize(text: string): string[] {
  if (text.includes('``')) text = text.split('``').join('');
  text = text.replace(SINGLE_PUNCTUATION, '');
  if (text.includes('SYM')) text = text.split('SYM').join('');
  text = text.replace(COLON_SEMICOLON, '');
  text = pyCollapseWhitespace(text, ' ');
  return text.toLowerCase().split(' ');
}

/** `lex_div.msttr(tokens, window_length=50)`: mean TTR over complete 50-token windows (TTR of all when < 51). */
export function msttr(tokens: ReadonlyArray<string | number>, windowLength = 50): number {
  if (tokens.length < windowLength + 1) return tokens.length === 0 ? 0 : new Set(tokens).size / tokens.length;
  const k = Math.floor(tokens.length / windowLength);
  // statistics.mean-free: lexical_diversity sums the TTRs in a Python float loop and divides by the count.
  let sum = 0;
  const seen = new Map<string | number, number>(); // token -> last window it was counted in
  for (let j = 0; j < k; j++) {
    let distinct = 0;
    for (let i = j * windowLength; i < (j + 1) * windowLength; i++) {
      if (seen.get(tokens[i]!) !== j) {
        seen.set(tokens[i]!, j);
        distinct++;
      }
    }
    sum += distinct / windowLength;
  }
  return sum / k;
}

/** Python `math.log(x, 2)`: `log(x) / log(2)`. */
function log2py(x: number): number {
  return Math.log(x) / Math.LN2;
}

/**
 * `get_richness` over responses (already normalised), in order. Throws on an empty input (the reference divides by
 * zero).
 */
export function richness(responses: Iterable<string>): RichnessResult {
  // Tokens as integer ids (id order = first occurrence); bigrams numbered in first-occurrence order (the order of the
  // reference's Counter, which fixes the float summation order); trigrams as sets of third tokens per bigram.
  const ids = new Map<string, number>();
  const uniCount: number[] = [];
  const biIndex: Array<Map<number, number>> = []; // head id -> (next id -> bigram number)
  const biHead: number[] = [];
  const biCount: number[] = [];
  const triNext: Array<Set<number>> = []; // bigram number -> third tokens seen
  let triCount = 0;
  const all: number[] = [];
  let count = 0;
  let lengths = 0;
  let t: number[] = [];
  let b: number[] = [];
  // A response seen before (responses repeat a lot) has the same token and bigram numbers, and adds no new bigram or
  // trigram: only its counts are added again.
  const repeated = new Map<string, { tokens: number[]; bigrams: number[] }>();
  for (const response of responses) {
    const hit = repeated.get(response);
    if (hit !== undefined) {
      const ts = hit.tokens;
      for (let i = 0; i < ts.length; i++) {
        uniCount[ts[i]!]!++;
        all.push(ts[i]!);
      }
      const bs = hit.bigrams;
      for (let i = 0; i < bs.length; i++) biCount[bs[i]!]!++;
      lengths += ts.length;
      count++;
      continue;
    }
    const tokens = richnessTokenize(response);
    t.length = tokens.length;
    for (let i = 0; i < tokens.length; i++) {
      let id = ids.get(tokens[i]!);
      if (id === undefined) {
        id = ids.size;
        ids.set(tokens[i]!, id);
        uniCount.push(0);
        biIndex.push(new Map());
      }
      uniCount[id]!++;
      t[i] = id;
      all.push(id);
    }
    lengths += tokens.length;
    count++;
    b.length = Math.max(tokens.length - 1, 0);
    for (let i = 0; i + 1 < tokens.length; i++) {
      const m = biIndex[t[i]!]!;
      let k = m.get(t[i + 1]!);
      if (k === undefined) {
        k = biCount.length;
        m.set(t[i + 1]!, k);
        biHead.push(t[i]!);
        biCount.push(0);
        triNext.push(new Set());
      }
      biCount[k]!++;
      b[i] = k;
    }
    for (let i = 0; i + 2 < tokens.length; i++) {
      const set = triNext[b[i]!]!;
      if (!set.has(t[i + 2]!)) {
        set.add(t[i + 2]!);
        triCount++;
      }
    }
    repeated.set(response, { tokens: t.slice(0, tokens.length), bigrams: b.slice(0, Math.max(tokens.length - 1, 0)) });
  }
  if (count === 0) throw new EvalError('empty_data', 'richness needs at least one response');
  const total = all.length;
  let entropy = 0;
  for (const c of uniCount) {
    const p = c / total;
    entropy += p * log2py(p);
  }
  let cond = 0;
  for (let k = 0; k < biCount.length; k++) {
    const c = biCount[k]!;
    cond += (c / total) * log2py(c / uniCount[biHead[k]!]!);
  }
  t = [];
  b = [];
  return {
    entropy: -entropy,
    cond_entropy: -cond,
    avg_lengths: lengths / count,
    msttr: msttr(all, 50),
    num_unigrams: ids.size,
    num_bigrams: biCount.length,
    num_trigrams: triCount,
  };
}
