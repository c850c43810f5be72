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
  // Counts in first-occurrence order (the order of the reference's Counters, which fixes the float summation order).
  const unigrams = new Map<string, number>();
  const bigrams = new Map<string, { head: string; count: number }>(); // "a b" -> its first token and count
  const trigrams = new Set<string>();
  const all: string[] = [];
  let count = 0;
  for (const response of responses) {
    count++;
    const tokens = richnessTokenize(response);
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      all.push(t);
      unigrams.set(t, (unigrams.get(t) ?? 0) + 1);
      if (i + 1 < tokens.length) {
        // tokens hold no whitespace, so joining them with spaces keys each n-gram uniquely
        const key = `${t} ${tokens[i + 1]}`;
        const bigram = bigrams.get(key);
        if (bigram) bigram.count++;
        else bigrams.set(key, { head: t, count: 1 });
      }
      if (i + 2 < tokens.length) trigrams.add(`${t} ${tokens[i + 1]} ${tokens[i + 2]}`);
    }
  }
  if (count === 0) throw new EvalError('empty_data', 'richness needs at least one response');
  const total = all.length;
  let entropy = 0;
  for (const c of unigrams.values()) {
    const p = c / total;
    entropy += p * log2py(p);
  }
  let cond = 0;
  for (const { head, count: c } of bigrams.values()) cond += (c / total) * log2py(c / unigrams.get(head)!);
  return {
    entropy: -entropy,
    cond_entropy: -cond,
    avg_lengths: total / count,
    msttr: msttr(all, 50),
    num_unigrams: unigrams.size,
    num_bigrams: bigrams.size,
    num_trigrams: trigrams.size,
  };
}
