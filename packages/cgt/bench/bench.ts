// `pnpm bench` for @eval/cgt: throughput on the reference fixtures (if ../shared is present) and on synthetic groups,
// the cost of the exact (statistics.mean) versus naive mean, and linear scaling in the number of rows.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { referencePath } from '../../../test-support/reference-data';
import { cgaFileName, loadCgaHistory } from '../src/common-ground';
import { groupFromRows, readSettingDir } from '../src/data';
import { evaluateSetting } from '../src/evaluate';

const SHARED = referencePath('cgt');
const COLORS = ['red', 'blue', 'green', 'purple', 'yellow'];
const WEIGHTS = ['10', '20', '30', '40', '50'];

function time<T>(f: () => T, repeat = 1): { ms: number; value: T } {
  let value!: T;
  const t0 = performance.now();
  for (let i = 0; i < repeat; i++) value = f();
  return { ms: (performance.now() - t0) / repeat, value };
}

function synthetic(groups: number, rowsPerGroup: number, seed = 1) {
  let s = seed >>> 0;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  return Array.from({ length: groups }, (_, g) => {
    const gold: Record<string, string> = {};
    return groupFromRows(
      Array.from({ length: rowsPerGroup }, () => {
        const c = COLORS[Math.floor(rnd() * 5)]!;
        gold[c] = WEIGHTS[Math.floor(rnd() * 5)]!;
        const pred: Record<string, string> = {};
        for (const k of COLORS)
          if (rnd() < 0.5) pred[k] = rnd() < 0.7 ? (gold[k] ?? WEIGHTS[0]!) : WEIGHTS[Math.floor(rnd() * 5)]!;
        return { gold: { ...gold }, pred };
      }),
      String(g + 1),
    );
  });
}

async function main() {
  if (existsSync(SHARED)) {
    const names = ['dp-gpt4o', 'text-gpt3.5', 'vision-4o-mini', 'text-mm-gpt3.5', 'dp-gpt3.5'];
    const t0 = performance.now();
    const settings = await Promise.all(names.map((n) => readSettingDir(join(SHARED, 'predictions', n))));
    const load = performance.now() - t0;
    const score = time(() => settings.map((s) => evaluateSetting(s, { bootstrap: false })), 20);
    const t1 = performance.now();
    for (const v of ['cga_originals', 'cga_new'])
      for (let g = 1; g <= 10; g++) await loadCgaHistory(join(SHARED, v, cgaFileName(g)));
    const replay = performance.now() - t1;
    console.log(
      `reference fixtures (5 settings x 10 groups, 225 rows): read+parse ${load.toFixed(1)} ms, score ${score.ms.toFixed(2)} ms, CGA replay of 20 CSVs ${replay.toFixed(1)} ms`,
    );
  } else {
    console.log('reference fixtures: skipped (../shared/cgt not found)');
  }

  const small = synthetic(100, 50);
  const large = synthetic(1000, 50);
  const exact = time(() => evaluateSetting(large, { bootstrap: false }), 3);
  const naive = time(() => evaluateSetting(large, { bootstrap: false, mean: 'naive' }), 3);
  const smallT = time(() => evaluateSetting(small, { bootstrap: false }), 3);
  const rows = 1000 * 50;
  console.log(
    `synthetic 1000 groups x 50 rows: ${exact.ms.toFixed(1)} ms (${Math.round(rows / (exact.ms / 1000)).toLocaleString('en')} rows/s)`,
  );
  console.log(`exact / naive mean time ratio: ${(exact.ms / naive.ms).toFixed(2)}`);
  console.log(`scaling 10x rows -> time ratio ${(exact.ms / smallT.ms).toFixed(1)} (linear = 10)`);
  const boot = time(() => evaluateSetting(large, { bootstrap: { samples: 1000 } }), 1);
  console.log(`with a 1000-sample bootstrap over 1000 groups: ${boot.ms.toFixed(1)} ms`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
