/**
 * sacreBLEU `corpus_bleu(hyps, [refs])` with its defaults (13a tokenisation, `exp` smoothing, no lower-casing, max order
 * 4, one reference per segment): bit-identical statistics and the same score up to the last bit of `exp`/`log`.
 * Spec: shared/specs/multiwoz.md § 5.2.
 */
import { isAscii, pyRstrip, pySplit } from '@eval/core/python';

const TOK_1 = /([{-~[-` -&(-+:-@/])/g;
const TOK_2 = /([^0-9])([.,])/gu;
const TOK_3 = /([.,])([^0-9])/gu;
const TOK_4 = /([0-9])(-)/g;

// The characters the first 13a rule pads with spaces: { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
const PAD_13A = new Uint8Array(128);
for (const c of '{|}~[\\]^_` !"#$%&()*+:;<=>?@/') PAD_13A[c.charCodeAt(0)] = 1;

const isDigit = (c: number) => c >= 48 && c <= 57;

let bufA: Uint16Array = new Uint16Array(512);
let bufB: Uint16Array = new Uint16Array(512);

function grow(buf: Uint16Array, n: number): Uint16Array {
  return buf.length >= n ? buf : new Uint16Array(Math.max(n, buf.length * 2));
}

const isAsciiSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f);

/**
 * The four 13a substitutions by hand for ASCII lines, on character codes: each is a global, left-to-right,
 * non-overlapping regex replacement of a one- or two-character pattern, emulated with the same scanning (a match
 * consumes both characters). Returns the tokens (the result split on whitespace).
 */
function tokens13aAscii(line: string): string[] {
  const n0 = line.length;
  bufA = grow(bufA, 3 * n0 + 8);
  bufB = grow(bufB, 6 * n0 + 16);
  let a = bufA;
  const b = bufB;
  // ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "
  let n = 0;
  for (let i = 0; i < n0; i++) {
    const c = line.charCodeAt(i);
    if (PAD_13A[c]) {
      a[n++] = 32;
      a[n++] = c;
      a[n++] = 32;
    } else a[n++] = c;
  }
  // ([^0-9])([\.,]) -> "\1 \2 "
  let m = 0;
  let i = 0;
  for (; i + 1 < n; i++) {
    const c = a[i]!;
    const d = a[i + 1]!;
    if (!isDigit(c) && (d === 46 || d === 44)) {
      b[m++] = c;
      b[m++] = 32;
      b[m++] = d;
      b[m++] = 32;
      i++;
    } else b[m++] = c;
  }
  if (i < n) b[m++] = a[i]!;
  // ([\.,])([^0-9]) -> " \1 \2"
  if (a.length < 2 * m) a = bufA = grow(bufA, 2 * m);
  n = 0;
  for (i = 0; i + 1 < m; i++) {
    const c = b[i]!;
    const d = b[i + 1]!;
    if ((c === 46 || c === 44) && !isDigit(d)) {
      a[n++] = 32;
      a[n++] = c;
      a[n++] = 32;
      a[n++] = d;
      i++;
    } else a[n++] = c;
  }
  if (i < m) a[n++] = b[i]!;
  // ([0-9])(-) -> "\1 \2 " ; then split on whitespace
  const tokens: string[] = [];
  let start = -1;
  const emit = (end: number) => {
    tokens.push(String.fromCharCode.apply(null, a.subarray(start, end) as unknown as number[]));
    start = -1;
  };
  for (i = 0; i < n; i++) {
    const c = a[i]!;
    if (isDigit(c) && i + 1 < n && a[i + 1] === 45) {
      // "<digit> - ": the digit ends a token, "-" is a token of its own
      if (start < 0) start = i;
      emit(i + 1);
      tokens.push('-');
      i++;
      continue;
    }
    if (isAsciiSpace(c)) {
      if (start >= 0) emit(i);
    } else if (start < 0) start = i;
  }
  if (start >= 0) emit(n);
  return tokens;
}

function tokens13a(line: string): string[] {
  const prepared = prepare13a(line);
  return isAscii(prepared) ? tokens13aAscii(prepared) : pySplit(tokenize13aRegex(line));
}

/** sacreBLEU's `13a` tokenizer with its regular expressions (the reference implementation of {@link tokenize13a}). */
export function tokenize13aRegex(line: string): string {
  line = prepare13a(line);
  line = line.replace(TOK_1, ' $1 ');
  line = line.replace(TOK_2, '$1 $2 ');
  line = line.replace(TOK_3, ' $1 $2');
  line = line.replace(TOK_4, '$1 $2 ');
  return pySplit(line).join(' ');
}

function prepare13a(line: string): string {
  if (line.includes('<skipped>')) line = line.split('<skipped>').join('');
  if (line.includes('\n')) line = line.split('-\n').join('').split('\n').join(' ');
  if (line.includes('&')) {
    line = line.split('&quot;').join('"').split('&amp;').join('&').split('&lt;').join('<').split('&gt;').join('>');
  }
  return ` ${line} `;
}

/** sacreBLEU's `13a` tokenizer (mteval-v13a): returns the tokenised line, tokens joined by single spaces. */
export function tokenize13a(line: string): string {
  return tokens13a(line).join(' ');
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
  const tokens = tokens13a(pyRstrip(line));
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

/** The same counts with hash maps of string keys (any vocabulary size, any length). */
function mapSegmentStats(h: Int32Array, r: Int32Array, stats: BleuStats): BleuStats {
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

const BASE = 8192; // n-gram keys: ids in base 2^13, exact in a double up to 4-grams (2^52)

function ngramKeys(ids: Int32Array, n: number, out: Float64Array): number {
  const count = ids.length - n + 1;
  for (let i = 0; i < count; i++) {
    let key = 0;
    for (let k = 0; k < n; k++) key = key * BASE + ids[i + k]!;
    out[i] = key;
  }
  return Math.max(count, 0);
}

let hKeys = new Float64Array(256);
let rKeys = new Float64Array(256);

/** Statistics of one segment (hypothesis against its single reference), tokens split as sacreBLEU does. */
export function segmentBleuStats(hypothesis: string, reference: string): BleuStats {
  const h = tokenIds(hypothesis);
  const r = tokenIds(reference);
  const stats = emptyBleuStats();
  stats.sysLen = h.length;
  stats.refLen = r.length;
  if (vocabulary.size >= BASE) return mapSegmentStats(h, r, stats);
  if (hKeys.length < h.length) hKeys = new Float64Array(h.length * 2);
  if (rKeys.length < r.length) rKeys = new Float64Array(r.length * 2);
  for (let n = 1; n <= 4; n++) {
    const hn = ngramKeys(h, n, hKeys);
    if (hn === 0) break;
    const rn = ngramKeys(r, n, rKeys);
    const hk = hKeys.subarray(0, hn).sort();
    const rk = rKeys.subarray(0, rn).sort();
    // clipped counts: for each distinct hypothesis n-gram, min(count in hyp, count in ref), by merging sorted keys
    let correct = 0;
    let j = 0;
    for (let i = 0; i < hn; ) {
      const key = hk[i]!;
      let ch = 0;
      while (i < hn && hk[i] === key) {
        ch++;
        i++;
      }
      while (j < rn && rk[j]! < key) j++;
      let cr = 0;
      while (j < rn && rk[j] === key) {
        cr++;
        j++;
      }
      correct += ch < cr ? ch : cr;
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
export function corpusBleu(
  hypotheses: readonly string[],
  references: readonly string[],
): { score: number; stats: BleuStats } {
  if (hypotheses.length !== references.length) {
    throw new Error(`corpusBleu: ${hypotheses.length} hypotheses but ${references.length} references`);
  }
  const stats = emptyBleuStats();
  for (let i = 0; i < hypotheses.length; i++) addBleuStats(stats, segmentBleuStats(hypotheses[i]!, references[i]!));
  return { score: bleuFromStats(stats), stats };
}
