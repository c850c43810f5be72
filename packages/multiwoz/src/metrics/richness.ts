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
  // Tokens as ids in first-occurrence order, bigrams numbered in first-occurrence order (the order of the reference's
  // Counters, which fixes the float summation order), trigrams as (bigram number, third token id).
  const ids = new Map<string, number>();
  const uniCount: number[] = [];
  const bigramOf = new Map<number, Map<number, number>>(); // head id -> next id -> bigram number
  const biHead: number[] = [];
  const biCount: number[] = [];
  const trigrams = new Map<number, Set<number>>(); // bigram number -> third token ids
  let numTrigrams = 0;
  const all: number[] = [];
  // responses repeat a lot (templates): each distinct one is tokenised once
  const tokenized = new Map<string, number[]>();
  let count = 0;
  for (const response of responses) {
    count++;
    let tokens = tokenized.get(response);
    if (tokens === undefined) {
      tokens = richnessTokenize(response).map((t) => {
        let id = ids.get(t);
        if (id === undefined) {
          ids.set(t, (id = ids.size));
          uniCount.push(0);
        }
        return id;
      });
      tokenized.set(response, tokens);
    }
    let previous = -1; // the bigram ending at the previous token
    for (let i = 0; i < tokens.length; i++) {
      const id = tokens[i]!;
      all.push(id);
      uniCount[id]!++;
      if (i === 0) continue;
      const head = tokens[i - 1]!;
      let next = bigramOf.get(head);
      if (next === undefined) bigramOf.set(head, (next = new Map()));
      let k = next.get(id);
      if (k === undefined) {
        next.set(id, (k = biCount.length));
        biHead.push(head);
        biCount.push(0);
      }
      biCount[k]!++;
      if (previous >= 0) {
        let thirds = trigrams.get(previous);
        if (thirds === undefined) trigrams.set(previous, (thirds = new Set()));
        if (!thirds.has(id)) {
          thirds.add(id);
          numTrigrams++;
        }
      }
      previous = k;
    }
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
  return {
    entropy: -entropy,
    cond_entropy: -cond,
    avg_lengths: total / count,
    msttr: msttr(all, 50),
    num_unigrams: ids.size,
    num_bigrams: biCount.length,
    num_trigrams: numTrigrams,
  };
}
