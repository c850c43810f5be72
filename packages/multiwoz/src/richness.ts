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

/** `a` in an array with room for at least `need` entries (doubling). */
function withRoom(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  let size = a.length * 2;
  while (size < need) size *= 2;
  const b = new Int32Array(size);
  b.set(a);
  return b;
}

/**
 * Open-addressing hash table from a pair of non-negative int32 to a non-negative int32, in typed arrays (one table
 * instead of a Map or Set per token: nothing for the garbage collector to trace or copy).
 */
class PairTable {
  private keyA: Int32Array;
  private keyB: Int32Array;
  private value: Int32Array;
  private mask: number;
  size = 0;

  constructor(capacity = 1 << 12) {
    this.keyA = new Int32Array(capacity);
    this.keyB = new Int32Array(capacity);
    this.value = new Int32Array(capacity).fill(-1);
    this.mask = capacity - 1;
  }

  /** The value of (x, y); when absent, stores `value` for it and returns -1. */
  getOrAdd(x: number, y: number, value: number): number {
    const keyA = this.keyA;
    const keyB = this.keyB;
    const values = this.value;
    const mask = this.mask;
    const h = Math.imul(x ^ Math.imul(y, 0x85ebca6b), 0x9e3779b1);
    let i = (h ^ (h >>> 15)) & mask;
    for (;;) {
      const v = values[i]!;
      if (v === -1) {
        keyA[i] = x;
        keyB[i] = y;
        values[i] = value;
        if (++this.size * 2 > values.length) this.grow();
        return -1;
      }
      if (keyA[i] === x && keyB[i] === y) return v;
      i = (i + 1) & mask;
    }
  }

  private grow(): void {
    const { keyA, keyB, value } = this;
    const capacity = value.length * 2;
    const mask = capacity - 1;
    const a = new Int32Array(capacity);
    const b = new Int32Array(capacity);
    const v = new Int32Array(capacity).fill(-1);
    for (let j = 0; j < value.length; j++) {
      if (value[j] === -1) continue;
      const x = keyA[j]!;
      const y = keyB[j]!;
      const h = Math.imul(x ^ Math.imul(y, 0x85ebca6b), 0x9e3779b1);
      let i = (h ^ (h >>> 15)) & mask;
      while (v[i] !== -1) i = (i + 1) & mask;
      a[i] = x;
      b[i] = y;
      v[i] = value[j]!;
    }
    this.keyA = a;
    this.keyB = b;
    this.value = v;
    this.mask = mask;
  }
}

/** `msttr` of token ids `0 <= id < vocabulary` (the same figure as {@link msttr} of the tokens they number). */
function msttrOfIds(tokens: Int32Array, n: number, vocabulary: number, windowLength: number): number {
  const seen = new Int32Array(vocabulary).fill(-1); // token -> last window it was counted in
  if (n < windowLength + 1) {
    if (n === 0) return 0;
    let distinct = 0;
    for (let i = 0; i < n; i++) {
      if (seen[tokens[i]!] !== 0) {
        seen[tokens[i]!] = 0;
        distinct++;
      }
    }
    return distinct / n;
  }
  const k = Math.floor(n / windowLength);
  let sum = 0;
  for (let j = 0; j < k; j++) {
    let distinct = 0;
    for (let i = j * windowLength; i < (j + 1) * windowLength; i++) {
      if (seen[tokens[i]!] !== j) {
        seen[tokens[i]!] = j;
        distinct++;
      }
    }
    sum += distinct / windowLength;
  }
  return sum / k;
}

/**
 * `get_richness` over responses (already normalised), in order. Throws on an empty input (the reference divides by
 * zero).
 */
export function richness(responses: Iterable<string>): RichnessResult {
  // Tokens as integer ids (id order = first occurrence); bigrams numbered in first-occurrence order (the order of the
  // reference's Counter, which fixes the float summation order); trigrams as (bigram, third token) pairs. The hot
  // loops work on local typed arrays (`all` holds every token id in order).
  const ids = new Map<string, number>();
  let uniCount = new Int32Array(1024);
  const bigrams = new PairTable(); // (head id, next id) -> bigram number
  let biHead = new Int32Array(4096);
  let biCount = new Int32Array(4096);
  let numBigrams = 0;
  const trigrams = new PairTable(); // (bigram number, third id) -> 0
  let all = new Int32Array(1 << 16);
  let total = 0;
  let responseBigrams = new Int32Array(1 << 16); // the bigram numbers of each distinct response, one after another
  let numResponseBigrams = 0;
  let count = 0;
  // A response seen before (responses repeat a lot) has the same token and bigram numbers, and adds no new bigram or
  // trigram: only its counts are added again. Its tokens are in `all` from where it first occurred.
  const repeated = new Map<string, number>(); // response -> its number among distinct responses
  let firstToken = new Int32Array(1024); // per distinct response: where its tokens start in `all`, how many, where
  let tokenCount = new Int32Array(1024); // its bigram numbers start in `responseBigrams`
  let firstBigram = new Int32Array(1024);
  const list = Array.isArray(responses) ? (responses as readonly string[]) : [...responses];
  for (let r = 0; r < list.length; r++) {
    const response = list[r]!;
    count++;
    const hit = repeated.get(response);
    if (hit !== undefined) {
      const from = firstToken[hit]!;
      const n = tokenCount[hit]!;
      all = withRoom(all, total + n);
      all.copyWithin(total, from, from + n);
      for (let i = from; i < from + n; i++) uniCount[all[i]!]!++;
      total += n;
      const b0 = firstBigram[hit]!;
      for (let i = b0; i < b0 + n - 1; i++) biCount[responseBigrams[i]!]!++;
      continue;
    }
    const tokens = richnessTokenize(response);
    const n = tokens.length;
    const distinct = repeated.size;
    repeated.set(response, distinct);
    if (distinct === firstToken.length) {
      firstToken = withRoom(firstToken, distinct + 1);
      tokenCount = withRoom(tokenCount, distinct + 1);
      firstBigram = withRoom(firstBigram, distinct + 1);
    }
    firstToken[distinct] = total;
    tokenCount[distinct] = n;
    firstBigram[distinct] = numResponseBigrams;
    const start = total;
    all = withRoom(all, total + n);
    for (let i = 0; i < n; i++) {
      let id = ids.get(tokens[i]!);
      if (id === undefined) {
        id = ids.size;
        ids.set(tokens[i]!, id);
        if (id === uniCount.length) uniCount = withRoom(uniCount, id + 1);
      }
      uniCount[id]!++;
      all[total++] = id;
    }
    responseBigrams = withRoom(responseBigrams, numResponseBigrams + n);
    for (let i = 0; i + 1 < n; i++) {
      const head = all[start + i]!;
      let k = bigrams.getOrAdd(head, all[start + i + 1]!, numBigrams);
      if (k === -1) {
        k = numBigrams++;
        if (k === biCount.length) {
          biHead = withRoom(biHead, k + 1);
          biCount = withRoom(biCount, k + 1);
        }
        biHead[k] = head;
      }
      biCount[k]!++;
      responseBigrams[numResponseBigrams++] = k;
      // the trigram ending here: (previous bigram, this bigram's second token)
      if (i >= 1) trigrams.getOrAdd(responseBigrams[numResponseBigrams - 2]!, all[start + i + 1]!, 0);
    }
  }
  if (count === 0) throw new EvalError('empty_data', 'richness needs at least one response');
  let entropy = 0;
  for (let id = 0; id < ids.size; id++) {
    const p = uniCount[id]! / total;
    entropy += p * log2py(p);
  }
  let cond = 0;
  for (let k = 0; k < numBigrams; k++) {
    const c = biCount[k]!;
    cond += (c / total) * log2py(c / uniCount[biHead[k]!]!);
  }
  return {
    entropy: -entropy,
    cond_entropy: -cond,
    avg_lengths: total / count,
    msttr: msttrOfIds(all, total, ids.size, 50),
    num_unigrams: ids.size,
    num_bigrams: numBigrams,
    num_trigrams: trigrams.size,
  };
}
