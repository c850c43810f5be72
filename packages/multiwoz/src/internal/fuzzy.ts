/**
 * fuzzywuzzy 0.18 `fuzz.partial_ratio` with python-Levenshtein 0.12 installed (what mwzeval's numbers depend on):
 * matching blocks from python-Levenshtein's particular optimal edit path, windows scored with `Levenshtein.ratio`.
 * Spec: shared/specs/multiwoz.md § 9. Strings are compared by code point.
 */

/** A matching block `[a, b, size]`: `s1[a:a+size] == s2[b:b+size]`. The last block is always `[len1, len2, 0]`. */
export type MatchingBlock = [number, number, number];

const REPLACE = 0;
const INSERT = 1;
const DELETE = 2;

// Reusable buffers (single-threaded): code points of the two strings, the cost matrix, the edit operations, one DP row.
let bufA = new Int32Array(64);
let bufB = new Int32Array(64);
let matrix = new Uint32Array(1024);
let opType = new Uint8Array(64);
let opSpos = new Int32Array(64);
let opDpos = new Int32Array(64);
let row = new Uint32Array(64);
/** The matching blocks of the last blocksOf call, flat (reused: read before the next call). */
let blockBuf = new Int32Array(96);

/** Writes the code points of `s` into bufA (which 0) or bufB (which 1), grown as needed; returns the length. */
function codesInto(s: string, which: 0 | 1): number {
  let buf = which === 0 ? bufA : bufB;
  if (buf.length < s.length) {
    buf = new Int32Array(Math.max(s.length, buf.length * 2));
    if (which === 0) bufA = buf;
    else bufB = buf;
  }
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        buf[n++] = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        i++;
        continue;
      }
    }
    buf[n++] = c;
  }
  return n;
}

/**
 * python-Levenshtein's `editops(s1, s2)` (lev_editops_find + editops_from_cost_matrix): common prefix and suffix
 * stripped, unit-cost matrix, then the backtrace that prefers continuing in the same direction.
 * Fills opType/opSpos/opDpos in forward order and returns the number of operations.
 */
function editops(a: Int32Array, aLen: number, b: Int32Array, bLen: number): number {
  let len1 = aLen;
  let len2 = bLen;
  let p = 0;
  while (len1 > 0 && len2 > 0 && a[p] === b[p]) {
    p++;
    len1--;
    len2--;
  }
  while (len1 > 0 && len2 > 0 && a[p + len1 - 1] === b[p + len2 - 1]) {
    len1--;
    len2--;
  }
  const R = len1 + 1;
  const C = len2 + 1;
  if (matrix.length < R * C) matrix = new Uint32Array(Math.max(R * C, matrix.length * 2));
  const M = matrix;
  for (let j = 0; j < C; j++) M[j] = j;
  for (let i = 1; i < R; i++) {
    const rowStart = i * C;
    const prevRow = rowStart - C;
    M[rowStart] = i;
    const ch = a[p + i - 1];
    let x = i;
    for (let j = 1; j < C; j++) {
      let c3 = M[prevRow + j - 1]! + (ch !== b[p + j - 1] ? 1 : 0);
      x++;
      if (x > c3) x = c3;
      c3 = M[prevRow + j]! + 1;
      if (x > c3) x = c3;
      M[rowStart + j] = x;
    }
  }
  const n = M[R * C - 1]!;
  if (opType.length < n) {
    const size = Math.max(n, opType.length * 2);
    opType = new Uint8Array(size);
    opSpos = new Int32Array(size);
    opDpos = new Int32Array(size);
  }
  let pos = n;
  let i = R - 1;
  let j = C - 1;
  let dir = 0;
  while (i > 0 || j > 0) {
    const here = M[i * C + j]!;
    if (dir < 0 && j > 0 && here === M[i * C + j - 1]! + 1) {
      j--;
      pos--;
      opType[pos] = INSERT;
      opSpos[pos] = i + p;
      opDpos[pos] = j + p;
      continue;
    }
    if (dir > 0 && i > 0 && here === M[(i - 1) * C + j]! + 1) {
      i--;
      pos--;
      opType[pos] = DELETE;
      opSpos[pos] = i + p;
      opDpos[pos] = j + p;
      continue;
    }
    if (i > 0 && j > 0 && here === M[(i - 1) * C + j - 1]! && a[p + i - 1] === b[p + j - 1]) {
      i--;
      j--;
      dir = 0;
      continue;
    }
    if (i > 0 && j > 0 && here === M[(i - 1) * C + j - 1]! + 1) {
      i--;
      j--;
      pos--;
      opType[pos] = REPLACE;
      opSpos[pos] = i + p;
      opDpos[pos] = j + p;
      dir = 0;
      continue;
    }
    if (dir === 0 && j > 0 && here === M[i * C + j - 1]! + 1) {
      j--;
      pos--;
      opType[pos] = INSERT;
      opSpos[pos] = i + p;
      opDpos[pos] = j + p;
      dir = -1;
      continue;
    }
    if (dir === 0 && i > 0 && here === M[(i - 1) * C + j]! + 1) {
      i--;
      pos--;
      opType[pos] = DELETE;
      opSpos[pos] = i + p;
      opDpos[pos] = j + p;
      dir = 1;
      continue;
    }
    throw new Error('lost in the cost matrix');
  }
  return n;
}

/**
 * Matching blocks from the edit operations (editops -> opcodes -> KEEP blocks), sentinel included, written flat into
 * blockBuf (`[a0, b0, size0, a1, b1, size1, ...]`); returns the number of values written.
 */
function blocksOf(a: Int32Array, aLen: number, b: Int32Array, bLen: number): number {
  const n = editops(a, aLen, b, bLen);
  // at most one block per operation, one after the last and the sentinel
  if (blockBuf.length < 3 * (n + 2)) blockBuf = new Int32Array(Math.max(3 * (n + 2), blockBuf.length * 2));
  const blocks = blockBuf;
  let m = 0;
  let sp = 0;
  let dp = 0;
  let k = 0;
  while (k < n) {
    const t = opType[k]!;
    const os = opSpos[k]!;
    const od = opDpos[k]!;
    if (sp < os || dp < od) {
      blocks[m++] = sp;
      blocks[m++] = dp;
      blocks[m++] = os - sp;
      sp = os;
      dp = od;
    }
    do {
      if (t === REPLACE) {
        sp++;
        dp++;
      } else if (t === DELETE) sp++;
      else dp++;
      k++;
    } while (k < n && opType[k] === t && opSpos[k] === sp && opDpos[k] === dp);
  }
  if (sp < aLen || dp < bLen) {
    blocks[m++] = sp;
    blocks[m++] = dp;
    blocks[m++] = aLen - sp;
  }
  blocks[m++] = aLen;
  blocks[m++] = bLen;
  blocks[m++] = 0;
  return m;
}

/** `Levenshtein.matching_blocks(Levenshtein.opcodes(s1, s2), s1, s2)` of python-Levenshtein 0.12. */
export function matchingBlocks(s1: string, s2: string): MatchingBlock[] {
  const aLen = codesInto(s1, 0);
  const bLen = codesInto(s2, 1);
  const m = blocksOf(bufA, aLen, bufB, bLen);
  const flat = blockBuf;
  const out: MatchingBlock[] = [];
  for (let i = 0; i < m; i += 3) out.push([flat[i]!, flat[i + 1]!, flat[i + 2]!]);
  return out;
}

/** Edit distance with insert = delete = 1 and substitute = 2 (python-Levenshtein's `ratio` distance). */
function indelDistance(a: Int32Array, aFrom: number, aLen: number, b: Int32Array, bFrom: number, bLen: number): number {
  while (aLen > 0 && bLen > 0 && a[aFrom] === b[bFrom]) {
    aFrom++;
    bFrom++;
    aLen--;
    bLen--;
  }
  while (aLen > 0 && bLen > 0 && a[aFrom + aLen - 1] === b[bFrom + bLen - 1]) {
    aLen--;
    bLen--;
  }
  if (aLen === 0) return bLen;
  if (bLen === 0) return aLen;
  if (row.length < bLen + 1) row = new Uint32Array(Math.max(bLen + 1, row.length * 2));
  const r = row;
  for (let j = 0; j <= bLen; j++) r[j] = j;
  for (let i = 1; i <= aLen; i++) {
    let diag = r[0]!;
    r[0] = i;
    const ch = a[aFrom + i - 1];
    for (let j = 1; j <= bLen; j++) {
      const up = r[j]!;
      let v = diag + (ch === b[bFrom + j - 1] ? 0 : 2);
      const left = r[j - 1]! + 1;
      if (left < v) v = left;
      if (up + 1 < v) v = up + 1;
      r[j] = v;
      diag = up;
    }
  }
  return r[bLen]!;
}

function ratioOfCodes(a: Int32Array, aFrom: number, aLen: number, b: Int32Array, bFrom: number, bLen: number): number {
  const lensum = aLen + bLen;
  if (lensum === 0) return 1;
  const d = indelDistance(a, aFrom, aLen, b, bFrom, bLen);
  return (lensum - d) / lensum;
}

/** `Levenshtein.ratio(s1, s2)`: `(L - d) / L` with `L = len1 + len2` and substitutions costing 2; 1.0 for two empties. */
export function levenshteinRatio(s1: string, s2: string): number {
  const aLen = codesInto(s1, 0);
  const bLen = codesInto(s2, 1);
  return ratioOfCodes(bufA, 0, aLen, bufB, 0, bLen);
}

/** Python 3 `round(x)` for a float (half to even), as an integer. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * `fuzz.partial_ratio(s1, s2)` of fuzzywuzzy 0.18 with python-Levenshtein: the best `Levenshtein.ratio` of the
 * shorter string against windows of the longer one aligned on each matching block; 0..100, an integer.
 * `("", "")` gives 100 (equality is checked first), an empty string against a non-empty one 0.
 */
export function partialRatio(s1: string, s2: string): number {
  if (s1 === s2) return 100;
  if (s1.length === 0 || s2.length === 0) return 0;
  const len1 = codesInto(s1, 0);
  const len2 = codesInto(s2, 1);
  const swap = len1 > len2;
  const a = swap ? bufB : bufA;
  const b = swap ? bufA : bufB;
  const aLen = swap ? len2 : len1;
  const bLen = swap ? len1 : len2;
  // a = shorter, b = longer (s1 when the lengths are equal)
  const m = blocksOf(a, aLen, b, bLen);
  const blocks = blockBuf;
  let best = 0;
  for (let k = 0; k < m; k += 3) {
    const start = Math.max(blocks[k + 1]! - blocks[k]!, 0);
    const end = Math.min(start + aLen, bLen);
    const r = ratioOfCodes(a, 0, aLen, b, start, end - start);
    if (r > 0.995) return 100;
    if (r > best) best = r;
  }
  return roundHalfEven(100 * best);
}

/** The character multiset of a string (code points), for the partial-ratio bound. */
export interface CharProfile {
  /** Length in code points. */
  length: number;
  counts: Map<number, number>;
  /** The distinct code points and their counts (the entries of `counts`, as arrays). */
  codes: Int32Array;
  freqs: Int32Array;
}

export function charProfile(s: string): CharProfile {
  const counts = new Map<number, number>();
  let length = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        i++;
      }
    }
    counts.set(c, (counts.get(c) ?? 0) + 1);
    length++;
  }
  const codes = new Int32Array(counts.size);
  const freqs = new Int32Array(counts.size);
  let k = 0;
  counts.forEach((n, c) => {
    codes[k] = c;
    freqs[k++] = n;
  });
  return { length, counts, codes, freqs };
}

/**
 * Whether `partialRatio(s1, s2) >= minimum`, given both strings' character profiles, skipping the computation when a
 * bound rules it out: every window's ratio is at most `2K / (m + K)`, where `m` is the shorter length and `K` the size
 * of the two character multisets' intersection (an upper bound of any LCS with a window), first over the whole
 * strings, then over the best window of length `m`.
 */
export function partialRatioReaches(
  s1: string,
  p1: CharProfile,
  s2: string,
  p2: CharProfile,
  minimum: number,
): boolean {
  if (s1 === s2) return 100 >= minimum;
  if (p1.length === 0 || p2.length === 0) return 0 >= minimum;
  const m = Math.min(p1.length, p2.length);
  const small = p1.counts.size <= p2.counts.size ? p1 : p2;
  const large = small === p1 ? p2.counts : p1.counts;
  let K = 0;
  for (let i = 0; i < small.codes.length; i++) {
    const n = small.freqs[i]!;
    const o = large.get(small.codes[i]!);
    if (o !== undefined) K += n < o ? n : o;
  }
  // score = round(100 r) with r <= 2K/(m+K); it cannot reach `minimum` when 200K/(m+K) < minimum - 1/2 by a margin
  // far above float error: 400K <= (2 minimum - 1)(m + K) - 1.
  if (400 * K <= (2 * minimum - 1) * (m + K) - 1) return false;
  // The same bound with the best window instead of the whole longer string (every window partial_ratio scores is a
  // substring of the longer string of at most m code points, so within one of its windows of exactly m).
  const W = bestWindowCommon(s1, s2);
  if (W >= 0 && 400 * W <= (2 * minimum - 1) * (m + W) - 1) return false;
  return partialRatio(s1, s2) >= minimum;
}

// need[c]: count of code point c in the shorter string; have[c]: in the current window (BMP only, shorter string of at
// most 255 code points, so that a byte holds every count; reset after use)
let need: Uint8Array | undefined;
let have: Uint8Array | undefined;

/**
 * The largest multiset intersection of the shorter string with a window of the longer one of the shorter's length
 * (code points), or -1 when not computed (equal lengths, a shorter string of more than 255 code points, or a code
 * point beyond the BMP).
 */
function bestWindowCommon(s1: string, s2: string): number {
  const len1 = codesInto(s1, 0);
  const len2 = codesInto(s2, 1);
  if (len1 === len2 || Math.min(len1, len2) > 255) return -1;
  const a = len1 < len2 ? bufA : bufB;
  const b = len1 < len2 ? bufB : bufA;
  const m = len1 < len2 ? len1 : len2;
  const n = len1 < len2 ? len2 : len1;
  for (let i = 0; i < m; i++) if (a[i]! > 0xffff) return -1;
  for (let i = 0; i < n; i++) if (b[i]! > 0xffff) return -1;
  need ??= new Uint8Array(0x10000);
  have ??= new Uint8Array(0x10000);
  for (let i = 0; i < m; i++) need[a[i]!]!++;
  let common = 0;
  for (let i = 0; i < m; i++) {
    const c = b[i]!;
    if (have[c]! < need[c]!) common++;
    have[c]!++;
  }
  let best = common;
  for (let i = m; i < n; i++) {
    const out = b[i - m]!;
    have[out]!--;
    if (have[out]! < need[out]!) common--;
    const c = b[i]!;
    if (have[c]! < need[c]!) common++;
    have[c]!++;
    if (common > best) best = common;
  }
  for (let i = 0; i < m; i++) need[a[i]!] = 0;
  for (let i = 0; i < n; i++) have[b[i]!] = 0;
  return best;
}

/** Whether `partialRatio(s1, s2) >= minimum` (see {@link partialRatioReaches}; this one profiles both strings). */
export function partialRatioAtLeast(s1: string, s2: string, minimum: number): boolean {
  return partialRatioReaches(s1, charProfile(s1), s2, charProfile(s2), minimum);
}
