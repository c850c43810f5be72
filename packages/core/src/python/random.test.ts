import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PythonRandom } from './random';

const hasPython = spawnSync('python3', ['-c', 'import random'], { encoding: 'utf8' }).status === 0;

describe('PythonRandom (CPython MT19937)', () => {
  // Values from the spec §2.3 (CPython 3.11).
  it('seed(42): first getrandbits(32) outputs and random()', () => {
    const r = new PythonRandom(42);
    expect([r.getrandbits(32), r.getrandbits(32), r.getrandbits(32)]).toEqual([2746317213, 478163327, 107420369]);
    expect(new PythonRandom(42).random()).toBe(0.6394267984578837);
  });

  it('seed(42): five choice(range(5)) then sample of five letters', () => {
    const r = new PythonRandom(42);
    const picks = Array.from({ length: 5 }, () => r.randbelow(5));
    expect(picks).toEqual([0, 0, 2, 1, 1]);
    expect(r.sample(['a', 'b', 'c', 'd', 'e'], 5)).toEqual(['b', 'a', 'c', 'd', 'e']);
  });

  it('choice(range(1)) consumes two outputs when the first bit is 1 (2746317213 >> 31 = 1 is rejected)', () => {
    const r = new PythonRandom(42);
    expect(r.choice([0])).toBe(0);
    expect(r.getrandbits(32)).toBe(107420369);
  });

  it('seed(2102): first outputs', () => {
    const r = new PythonRandom(2102);
    expect([r.getrandbits(32), r.getrandbits(32), r.getrandbits(32)]).toEqual([1290363956, 3017589305, 2151620475]);
  });

  it('getrandbits(k) for k <= 32 is the top k bits of one output; seed(-a) equals seed(a)', () => {
    const a = new PythonRandom(42);
    const b = new PythonRandom(42);
    expect(a.getrandbits(7)).toBe(b.getrandbits(32) >>> 25);
    expect(new PythonRandom(-42).getrandbits(32)).toBe(2746317213);
  });

  it('shuffle is Fisher-Yates from the end with randbelow(i + 1) (derivation: same stream, swaps by hand)', () => {
    const xs = ['a', 'b', 'c', 'd', 'e', 'f'];
    const shuffled = new PythonRandom(7).shuffle(xs.slice());
    const r = new PythonRandom(7);
    const expected = xs.slice();
    for (let i = expected.length - 1; i > 0; i--) {
      const j = r.randbelow(i + 1);
      [expected[i], expected[j]] = [expected[j]!, expected[i]!];
    }
    expect(shuffled).toEqual(expected);
  });

  it('rejects bad arguments like CPython', () => {
    const r = new PythonRandom(1);
    expect(() => r.choice([])).toThrow(/empty sequence/);
    expect(() => r.sample([1, 2], 3)).toThrow(/Sample larger/);
    expect(() => r.randbelow(0)).toThrow();
  });

  it.skipIf(!hasPython)('matches the local CPython on mixed streams, large seeds and the set branch of sample', () => {
    const script = `
import random, json
out = []
for seed in [0, 1, 42, 2102, 2**32 + 5, 2**70 + 12345, 123456789012345678901234567890]:
    r = random.Random(seed)
    row = [r.getrandbits(32), r.random(), r._randbelow(1), r._randbelow(1000003), r.choice(range(7)),
           r.sample(list(range(15)), 15), r.sample(list(range(100)), 5), r.getrandbits(45), r.getrandbits(64)]
    xs = list(range(12)); r.shuffle(xs); row.append(xs); row.append(r.random())
    out.append([str(x) if isinstance(x, int) and x > 2**53 else x for x in row])
print(json.dumps(out))
`;
    const py = spawnSync('python3', ['-c', script], { encoding: 'utf8' });
    expect(py.status).toBe(0);
    const expected = JSON.parse(py.stdout) as unknown[][];
    const seeds = [0n, 1n, 42n, 2102n, 2n ** 32n + 5n, 2n ** 70n + 12345n, 123456789012345678901234567890n];
    seeds.forEach((seed, k) => {
      const r = new PythonRandom(seed);
      const row: unknown[] = [
        r.getrandbits(32),
        r.random(),
        r.randbelow(1),
        r.randbelow(1000003),
        r.randbelow(7),
        r.sample(
          Array.from({ length: 15 }, (_, i) => i),
          15,
        ),
        r.sample(
          Array.from({ length: 100 }, (_, i) => i),
          5,
        ),
        r.getrandbits(45),
      ];
      const big = r.getrandbitsBig(64);
      row.push(big > 2n ** 53n ? big.toString() : Number(big));
      row.push(r.shuffle(Array.from({ length: 12 }, (_, i) => i)));
      row.push(r.random());
      expect(row).toEqual(expected[k]);
    });
  });
});
