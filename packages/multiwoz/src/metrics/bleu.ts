/**
 * sacreBLEU `corpus_bleu(hyps, [refs])` with its defaults (13a tokenisation, `exp` smoothing, no lower-casing, max order
 * 4, one reference per segment): bit-identical statistics and the same score up to the last bit of `exp`/`log`.
 * Spec: shared/specs/multiwoz.md § 5.2.
 */
import { pyRstrip, pySplit } from '@eval/core/python';

const TOK_1 = /([{-~[-` -&(-+:-@/])/g;
const TOK_2 = /([^0-9])([.,])/gu;
const TOK_3 = /([.,])([^0-9])/gu;
const TOK_4 = /([0-9])(-)/g;

/** The 13a tokens of a line (sacreBLEU's `tokenize_13a` split on whitespace). */
function tokens13a(line: string): string[] {
  if (line.includes('<skipped>')) line = line.split('<skipped>').join('');
  if (line.includes('\n')) line = line.split('-\n').join('').split('\n').join(' ');
  if (line.includes('&')) {
    line = line.split('&quot;').join('"').split('&amp;').join('&').split('&lt;').join('<').split('&gt;').join('>');
  }
  line = ` ${line} `;
  line = line.replace(TOK_1, ' $1 ');
  line = line.replace(TOK_2, '$1 $2 ');
  line = line.replace(TOK_3, ' $1 $2');
  line = line.replace(TOK_4, '$1 $2 ');
  return pySplit(line);
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

/** How often each n-gram occurs in `tokens` (an n-gram keyed by its tokens joined by spaces; tokens have none). */
function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = tokens.slice(i, i + n).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Statistics of one segment (hypothesis against its single reference), tokens split as sacreBLEU does. */
export function segmentBleuStats(hypothesis: string, reference: string): BleuStats {
  const h = tokens13a(pyRstrip(hypothesis));
  const r = tokens13a(pyRstrip(reference));
  const stats = emptyBleuStats();
  stats.sysLen = h.length;
  stats.refLen = r.length;
  for (let n = 1; n <= 4; n++) {
    const refCounts = ngramCounts(r, n);
    let correct = 0;
    let total = 0;
    // clipped counts: each distinct hypothesis n-gram counts at most as often as it occurs in the reference
    for (const [gram, count] of ngramCounts(h, n)) {
      total += count;
      correct += Math.min(count, refCounts.get(gram) ?? 0);
    }
    stats.correct[n - 1] = correct;
    stats.total[n - 1] = total;
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
