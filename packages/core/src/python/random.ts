/**
 * A port of CPython's `random.Random` (Mersenne Twister MT19937, `Modules/_randommodule.c` and `Lib/random.py`
 * of CPython 3.11), bit-exact for: `seed(int)`, `seed(str)` (version 2), `random()`, `getrandbits(k)`,
 * `_randbelow(n)`, `randrange(n)`, `randint(a, b)`, `choice`, `sample` and `shuffle`.
 */
import { createHash } from 'node:crypto';

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

function bitLength(n: number): number {
  // n is a non-negative integer <= 2^53
  if (n === 0) return 0;
  if (n < 0x100000000) return 32 - Math.clz32(n);
  return 32 + (32 - Math.clz32(Math.floor(n / 0x100000000)));
}

export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  /** `random.Random(seed)`: seeds from an int or a str exactly as CPython does (see {@link seed}). */
  constructor(seed: number | bigint | string = 0) {
    this.seed(seed);
  }

  /**
   * `random.seed(a)` for an int `a` (`init_by_array` of |a|'s 32-bit words) or a str `a` (version 2: the int whose
   * big-endian bytes are `a.encode()` followed by its SHA-512 digest).
   */
  seed(a: number | bigint | string): void {
    if (typeof a === 'number' && !Number.isInteger(a))
      throw new RangeError(`PythonRandom.seed expects an integer, got ${a}`);
    let n: bigint;
    if (typeof a === 'string') {
      const bytes = Buffer.from(a, 'utf8');
      const all = Buffer.concat([bytes, createHash('sha512').update(bytes).digest()]);
      n = BigInt(`0x${all.toString('hex')}`);
    } else n = typeof a === 'bigint' ? a : BigInt(a);
    if (n < 0n) n = -n;
    const key: number[] = [];
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      // 1812433253 * prev + i, modulo 2^32
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    const keyLength = key.length;
    for (let k = N > keyLength ? N : keyLength; k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= keyLength) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
    this.mti = N;
  }

  /** One raw 32-bit output (`genrand_uint32`). */
  nextUint32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
        mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      const y = (mt[N - 1]! & UPPER_MASK) | (mt[0]! & LOWER_MASK);
      mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random.random()`: a float in [0, 1) with 53 random bits. */
  random(): number {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  /** `random.getrandbits(k)` for 0 <= k <= 53 (as a number; see {@link getrandbitsBig} for more bits). */
  getrandbits(k: number): number {
    if (!Number.isInteger(k) || k < 0) throw new RangeError('number of bits must be non-negative');
    if (k === 0) return 0;
    if (k <= 32) return this.nextUint32() >>> (32 - k);
    if (k > 53) throw new RangeError('getrandbits(k) with k > 53: use getrandbitsBig');
    return Number(this.getrandbitsBig(k));
  }

  /** `random.getrandbits(k)` for any k >= 0 (little-endian 32-bit words, the last one truncated, as CPython). */
  getrandbitsBig(k: number): bigint {
    if (!Number.isInteger(k) || k < 0) throw new RangeError('number of bits must be non-negative');
    if (k === 0) return 0n;
    if (k <= 32) return BigInt(this.nextUint32() >>> (32 - k));
    let result = 0n;
    let shift = 0n;
    for (let remaining = k; remaining > 0; remaining -= 32) {
      let r = this.nextUint32();
      if (remaining < 32) r >>>= 32 - remaining;
      result |= BigInt(r) << shift;
      shift += 32n;
    }
    return result;
  }

  /** `random._randbelow(n)` (the getrandbits variant): a uniform integer in [0, n). */
  randbelow(n: number): number {
    if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`randbelow expects a positive integer, got ${n}`);
    const k = bitLength(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `random.randrange(n)`. */
  randrange(n: number): number {
    return this.randbelow(n);
  }

  /** `random.randint(a, b)`: `a + _randbelow(b - a + 1)`, both ends included. */
  randint(a: number, b: number): number {
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || b < a)
      throw new RangeError(`empty range for randint(${a}, ${b})`);
    return a + this.randbelow(b - a + 1);
  }

  /** `random.choice(seq)`. */
  choice<T>(seq: ArrayLike<T>): T {
    if (seq.length === 0) throw new RangeError('Cannot choose from an empty sequence');
    return seq[this.randbelow(seq.length)]!;
  }

  /** `random.sample(population, k)` (CPython 3.x algorithm, pool and set branches). */
  sample<T>(population: ArrayLike<T>, k: number): T[] {
    const n = population.length;
    if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError('Sample larger than population or is negative');
    const result: T[] = new Array<T>(k);
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    if (n <= setsize) {
      const pool = Array.from(population);
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result[i] = pool[j]!;
        pool[j] = pool[n - i - 1]!;
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = population[j]!;
      }
    }
    return result;
  }

  /** `random.shuffle(x)` in place (CPython 3.11+ algorithm). */
  shuffle<T>(x: T[]): T[] {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      const t = x[i]!;
      x[i] = x[j]!;
      x[j] = t;
    }
    return x;
  }
}
