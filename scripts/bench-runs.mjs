#!/usr/bin/env node
// Bench of the run record (issue 10): `compare` of two synthetic 1,000-dialogue runs at R = 10,000 with a corpus
// BLEU recomputed from per-item sufficient statistics (plus Inform and Success), and `runs` over 1,000 run
// directories. Prints the targets (5 s, 2 s) beside the measurements. No reference implementation compares or lists
// runs (the Python projects keep no run record), so no reference figure is measured.
// Run: node --conditions=@eval/source --import tsx scripts/bench-runs.mjs   (`pnpm bench` runs it via @eval/core)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const core = await import(join(root, 'packages', 'core', 'src', 'index.ts'));
const { compareRuns, listRuns, readRun, seededRandom, startRun } = core;

const N = 1000;
const R = 10_000;
const RUNS = 1000;
const COLUMNS = ['m1', 'm2', 'm3', 'm4', 't1', 't2', 't3', 't4', 'hyp', 'ref'];

/** BLEU (sacreBLEU's formula, no smoothing) from summed n-gram matches/totals and lengths. */
function bleu(s) {
  let logSum = 0;
  for (let n = 1; n <= 4; n++) {
    if (s[`m${n}`] === 0 || s[`t${n}`] === 0) return 0;
    logSum += Math.log(s[`m${n}`] / s[`t${n}`]);
  }
  const bp = s.hyp < s.ref ? Math.exp(1 - s.ref / s.hyp) : 1;
  return 100 * bp * Math.exp(logSum / 4);
}

/** A corpus-level benchmark: BLEU from per-dialogue sufficient statistics, Inform and Success rates. */
const benchmark = {
  benchmark: 'bench-mwz',
  binary: { Inform: 'inform', Success: 'success' },
  recompute(items) {
    const s = Object.fromEntries(COLUMNS.map((c) => [c, 0]));
    let inform = 0;
    let success = 0;
    let n = 0;
    for (const item of items) {
      if (item.error !== undefined) continue;
      for (const c of COLUMNS) s[c] += item.values[c];
      inform += item.values.inform ? 1 : 0;
      success += item.values.success ? 1 : 0;
      n++;
    }
    return { BLEU: bleu(s), Inform: (100 * inform) / n, Success: (100 * success) / n };
  },
  // The fast path: one row-major Float64Array of the per-item columns, built once; each resample sums rows.
  prepare(items) {
    const width = COLUMNS.length + 2;
    const rows = new Float64Array(items.length * width);
    items.forEach((item, i) => {
      COLUMNS.forEach((c, j) => (rows[i * width + j] = item.values[c]));
      rows[i * width + COLUMNS.length] = item.values.inform ? 1 : 0;
      rows[i * width + COLUMNS.length + 1] = item.values.success ? 1 : 0;
    });
    const sums = new Float64Array(width);
    return (indices) => {
      sums.fill(0);
      for (let k = 0; k < indices.length; k++) {
        const base = indices[k] * width;
        for (let c = 0; c < width; c++) sums[c] += rows[base + c];
      }
      const s = {};
      COLUMNS.forEach((c, j) => (s[c] = sums[j]));
      const n = indices.length;
      return { BLEU: bleu(s), Inform: (100 * sums[COLUMNS.length]) / n, Success: (100 * sums[COLUMNS.length + 1]) / n };
    };
  },
};

function syntheticItems(seed, quality) {
  const rand = seededRandom(seed);
  return Array.from({ length: N }, (_, d) => {
    const ref = 40 + Math.floor(rand() * 80);
    const hyp = ref + Math.floor(rand() * 20) - 10;
    const values = { hyp, ref, inform: rand() < quality + 0.2, success: rand() < quality };
    for (let n = 1; n <= 4; n++) {
      const total = Math.max(0, hyp - n + 1);
      values[`t${n}`] = total;
      values[`m${n}`] = Math.floor(total * quality ** n * (0.5 + rand()));
    }
    return { id: `mul${String(d).padStart(4, '0')}`, values };
  });
}

async function writeRun(dir, system, items) {
  const run = await startRun(dir, { benchmark: 'bench-mwz', variant: '2022', system });
  await run.finish({
    items,
    metrics: Object.fromEntries(
      Object.entries(benchmark.recompute(items)).map(([k, v]) => [k, { value: v, n: items.length }]),
    ),
  });
}

const work = mkdtempSync(join(tmpdir(), 'bench-runs-'));
process.stdout.write('reference not measured: none of the reference implementations records, compares or lists runs\n');
const line = (what, seconds, target) =>
  process.stdout.write(
    `${what.padEnd(64)} ${seconds.toFixed(2).padStart(6)} s   target < ${target} s   ${seconds < target ? 'ok' : 'OVER TARGET'}\n`,
  );
try {
  await writeRun(join(work, 'a'), 'a', syntheticItems(1, 0.5));
  await writeRun(join(work, 'b'), 'b', syntheticItems(2, 0.55));
  let t = performance.now();
  const cpu = process.cpuUsage();
  const runs = await Promise.all([readRun(join(work, 'a')), readRun(join(work, 'b'))]);
  const c = compareRuns(runs, benchmark, { resamples: R, seed: 0 });
  line(`compare: 2 runs x ${N} items, R = ${R}, BLEU (corpus) + Inform + Success`, (performance.now() - t) / 1000, 5);
  const used = process.cpuUsage(cpu);
  process.stdout.write(
    `  (CPU time ${((used.user + used.system) / 1e6).toFixed(2)} s: wall time above includes waiting for a shared core)\n`,
  );
  const bleuRow = c.pairs[0].metrics.find((m) => m.name === 'BLEU');
  process.stdout.write(
    `  (BLEU ${bleuRow.a.toFixed(2)} -> ${bleuRow.b.toFixed(2)}, 95% CI [${bleuRow.ci.map((x) => x.toFixed(2)).join(', ')}], p ${bleuRow.pRandomization.toFixed(4)})\n`,
  );
  const slow = { benchmark: benchmark.benchmark, binary: benchmark.binary, recompute: benchmark.recompute };
  t = performance.now();
  compareRuns(runs, slow, { resamples: 1000, seed: 0 });
  process.stdout.write(
    `  (without the prepare fast path: ${((performance.now() - t) / 1000).toFixed(2)} s at R = 1000)\n`,
  );

  const many = join(work, 'many');
  const small = syntheticItems(3, 0.5).slice(0, 20);
  for (let i = 0; i < RUNS; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        writeRun(join(many, `sys${(i + j) % 25}`, `t${i + j}`), `sys${(i + j) % 25}`, small),
      ),
    );
  }
  t = performance.now();
  const rows = await listRuns(many, { sortBy: 'BLEU' });
  line(`runs: listRuns over ${rows.length} run directories`, (performance.now() - t) / 1000, 2);
  const { main } = await import(join(root, 'apps', 'cli', 'src', 'main.ts'));
  const write = process.stdout.write;
  t = performance.now();
  process.stdout.write = () => true;
  let code;
  try {
    code = await main(['runs', many, '--sort', 'BLEU']);
  } finally {
    process.stdout.write = write;
  }
  line(
    `runs: \`dialeval runs\` (in process, table) over ${RUNS} runs, exit ${code}`,
    (performance.now() - t) / 1000,
    2,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
