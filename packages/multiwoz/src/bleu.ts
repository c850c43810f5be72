/**
 * sacreBLEU `corpus_bleu(hyps, [refs])` with its defaults (13a tokenisation, `exp` smoothing, no lower-casing, max order
 * 4, one reference per segment): bit-identical statistics and the same score up to the last bit of `exp`/`log`.
 * Spec: shared/specs/multiwoz.md § 5.2.
 */
import { pyRstrip, pySplit } from './pystr';

const TOK_1 = /([{-~[-` -&(-+:-@/])/g;
const TOK_2 = /([^0-9])([.,])/gu;
const TOK_3 = /([.,])([^0-9])/gu;
const TOK_4 = /([0-9])(-)/g;

/** sacreBLEU's `13a` tokenizer (mteval-v13a): returns the tokenised line, tokens joined by single spaces. */
export function tokenize13a(line: string): string {
  line = line.split('<skipped>').join('').split('-\n').join('').split('\n').join(' ');
  if (line.includes('&')) {
    line = line.split('&quot;').join('"').split('&amp;').join('&').split('&lt;').join('<').split('&gt;').join('>');
  }
  line = ` ${line} `;
  line = line.replace(TOK_1, ' $1 ');
  line = line.replace(TOK_2, '$1 $2 ');
  line = line.replace(TOK_3, ' $1 $2');
  line = line.replace(TOK_4, '$1 $2 ');
  return pySplit(line).join(' ');
}

/** Sufficient statistics of corpus BLEU (max order 4). */
export interface BleuStats {
  sysLen: number;
  refLen: number;
  /** Clipped n-gram matches, n = 1..4. */
  correct: [number, number, number, number];
  /** Hypothesis n-grams, n = 1..4. */
  total: [number, number, number, number];
}

export function emptyBleuStats(): BleuStats {
  return { sysLen: 0, refLen: 0, correct: [0, 0, 0, 0], total: [0, 0, 0, 0] };
}

export function addBleuStats(into: BleuStats, s: BleuStats): BleuStats {
  into.sysLen += s.sysLen;
  into.refLen += s.refLen;
  for (let n = 0; n < 4; n++) {
    into.correct[n]! += s.correct[n]!;
    into.total[n]! += s.total[n]!;
  }
  return into;
}

// Token ids shared by every segment (a token is a string without whitespace): n-grams are compared as integers.
const vocabulary = new Map<string, number>();
// sacreBLEU memoises its tokenizer (lru_cache); hypotheses repeat a lot. Bounded: cleared when it grows large.
const tokenCache = new Map<string, Int32Array>();

function tokenIds(line: string): Int32Array {
  let ids = tokenCache.get(line);
  if (ids) return ids;
  const tokens = pySplit(tokenize13a(pyRstrip(line)));
  ids = new Int32Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) {
    let id = vocabulary.get(tokens[i]!);
    if (id === undefined) {
      id = vocabulary.size;
      vocabulary.set(tokens[i]!, id);
    }
    ids[i] = id;
  }
  if (tokenCache.size > 200_000) tokenCache.clear();
  tokenCache.set(line, ids);
  return ids;
}

function sameGram(a: Int32Array, i: number, b: Int32Array, j: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (a[i + k] !== b[j + k]) return false;
  return true;
}

/** The same counts with hash maps, for long segments (the pairwise scan is quadratic). */
function longSegmentStats(h: Int32Array, r: Int32Array, stats: BleuStats): BleuStats {
  const counts = (ids: Int32Array, n: number) => {
    const m = new Map<string, number>();
    for (let i = 0; i + n <= ids.length; i++) {
      const key = ids.subarray(i, i + n).join(',');
      m.set(key, (m.get(key) ?? 0) + 1);
    }
    return m;
  };
  for (let n = 1; n <= 4; n++) {
    const hc = counts(h, n);
    const rc = counts(r, n);
    let correct = 0;
    let total = 0;
    for (const [g, c] of hc) {
      total += c;
      correct += Math.min(c, rc.get(g) ?? 0);
    }
    stats.correct[n - 1] = correct;
    stats.total[n - 1] = total;
  }
  return stats;
}

/** Statistics of one segment (hypothesis against its single reference), tokens split as sacreBLEU does. */
export function segmentBleuStats(hypothesis: string, reference: string): BleuStats {
  const h = tokenIds(hypothesis);
  const r = tokenIds(reference);
  const stats = emptyBleuStats();
  stats.sysLen = h.length;
  stats.refLen = r.length;
  if (h.length > 128 || r.length > 512) return longSegmentStats(h, r, stats);
  for (let n = 1; n <= 4; n++) {
    const hn = h.length - n + 1;
    const rn = r.length - n + 1;
    if (hn <= 0) break;
    let correct = 0;
    // clipped counts: for each distinct hypothesis n-gram (at its first occurrence), min(count in hyp, count in ref)
    for (let i = 0; i < hn; i++) {
      let seen = false;
      for (let j = 0; j < i && !seen; j++) seen = sameGram(h, i, h, j, n);
      if (seen) continue;
      let inHyp = 1;
      for (let j = i + 1; j < hn; j++) if (sameGram(h, i, h, j, n)) inHyp++;
      let inRef = 0;
      for (let j = 0; j < rn; j++) if (sameGram(h, i, r, j, n)) inRef++;
      correct += Math.min(inHyp, inRef);
    }
    stats.correct[n - 1] = correct;
    stats.total[n - 1] = hn;
  }
  return stats;
}

/** sacreBLEU's `my_log`. */
function myLog(x: number): number {
  return x === 0 ? -9999999999 : Math.log(x);
}

/** `BLEU.compute_bleu(...)` with `smooth_method="exp"`, `effective_order=False`: the score, 0..100. */
export function bleuFromStats(stats: BleuStats): number {
  const { sysLen, refLen, correct, total } = stats;
  const bp = sysLen < refLen ? (sysLen > 0 ? Math.exp(1 - refLen / sysLen) : 0) : 1;
  if (!correct.some((c) => c !== 0)) return 0;
  const precisions = [0, 0, 0, 0];
  let smooth = 1;
  for (let n = 0; n < 4; n++) {
    if (total[n] === 0) break;
    if (correct[n] === 0) {
      smooth *= 2;
      precisions[n] = 100 / (smooth * total[n]!);
    } else {
      precisions[n] = (100 * correct[n]!) / total[n]!;
    }
  }
  let sum = 0;
  for (const p of precisions) sum += myLog(p);
  return bp * Math.exp(sum / 4);
}

/** Corpus BLEU of hypotheses against one reference each (`sacrebleu.corpus_bleu(hyps, [refs]).score`). */
export function corpusBleu(hypotheses: readonly string[], references: readonly string[]): { score: number; stats: BleuStats } {
  if (hypotheses.length !== references.length) {
    throw new Error(`corpusBleu: ${hypotheses.length} hypotheses but ${references.length} references`);
  }
  const stats = emptyBleuStats();
  for (let i = 0; i < hypotheses.length; i++) addBleuStats(stats, segmentBleuStats(hypotheses[i]!, references[i]!));
  return { score: bleuFromStats(stats), stats };
}
