#!/usr/bin/env node
// Benchmark: MultiWOZ Inform/Success + richness of a predictions file on the full test set (v2022 evaluator), this
// package beside the Python reference (mwzeval) in the same run, on the same predictions and data files:
//  1. whole process (start-up, imports and data loading included): `dialeval multiwoz FILE --success --richness`
//     (the built CLI; without a build, the package in a child process) against `python -c 'Evaluator(...).evaluate'`;
//  2. warm, in process, as a training loop calls it: one evaluator, `evaluate` called again and again (the first call
//     is not counted), against mwzeval's `Evaluator.evaluate` called the same way.
//
//   pnpm bench                                  (builds dist/ first)
//   MULTIWOZ_BENCH_FILES=ubar,augpt MULTIWOZ_BENCH_REPS=5 pnpm bench
//
// The reference is measured when it can run (the README's Benchmark section gives the setup):
//   MWZEVAL_SRC     a checkout of Tomiinek/MultiWOZ_Evaluation at 7f19ee0 with mwzeval/data/goals.json
//                   (default: ../reference/mwzeval beside the repository, if present);
//   MWZEVAL_PYTHON  a Python 3 with fuzzywuzzy, python-Levenshtein, sacrebleu, sacremoses and lexical-diversity
//                   (default: ../reference/mwzeval-venv/bin/python if present, else python3).
// Otherwise it prints "reference not measured: <why>". Both read the reference's mwzeval/data when it runs; else ours
// reads ../shared/multiwoz (database, booked domains, reconstructed goals). mwzeval's run time depends on Python's
// string-hash seed (its database query iterates a set), so its run k uses PYTHONHASHSEED=k and means are compared.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const SHARED = join(root, '..', '..', '..', 'shared', 'multiwoz');
const MWZEVAL_COMMIT = '7f19ee01ffd97652bfad5b067fce40704d9c9de2';
const built = existsSync(join(root, 'dist', 'index.js')) && existsSync(join(root, '..', 'core', 'dist', 'index.js'));
const WARM_CALLS = 20;

/** The child: evaluates one predictions file `calls` times with one evaluator; prints figures and per-call times. */
async function child(predictionsFile, dataDir, calls) {
  const m = await import(pathToFileURL(join(root, built ? 'dist/index.js' : 'src/index.ts')).href);
  const evaluator = new m.MultiwozEvaluator(await m.readMultiwozData({ dir: dataDir, success: true }), {
    success: true,
    richness: true,
  });
  const text = readFileSync(predictionsFile, 'utf8');
  const ms = [];
  let report;
  for (let k = 0; k < calls; k++) {
    const input = JSON.parse(text);
    const t0 = performance.now();
    report = evaluator.evaluate(input, { file: predictionsFile });
    ms.push(performance.now() - t0);
  }
  const out = { inform: report.success.inform.total, success: report.success.success.total, ms };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** The reference, the same way: `calls` evaluations with one Evaluator (it normalises its input in place: fresh copies). */
const PYTHON_CHILD = [
  'import json, sys, time',
  'from mwzeval.metrics import Evaluator',
  'text = open(sys.argv[1]).read()',
  'e = Evaluator(bleu=False, success=True, richness=True)',
  'ms = []',
  'for _ in range(int(sys.argv[2])):',
  '    data = json.loads(text)',
  '    t0 = time.perf_counter()',
  '    r = e.evaluate(data)',
  '    ms.append((time.perf_counter() - t0) * 1000)',
  'print(json.dumps({"inform": r["success"]["inform"]["total"], "success": r["success"]["success"]["total"], "ms": ms}))',
].join('\n');

function pythonEnv(src, seed) {
  const path = [src, process.env.PYTHONPATH].filter(Boolean).join(':');
  return { ...process.env, PYTHONPATH: path, PYTHONHASHSEED: String(seed) };
}

/** Why the reference cannot run here, or undefined when it can. */
function referenceUnavailable(python, src) {
  if (!src) return 'MWZEVAL_SRC is not set (a checkout of Tomiinek/MultiWOZ_Evaluation at 7f19ee0)';
  if (!existsSync(join(src, 'mwzeval', 'metrics.py'))) return `MWZEVAL_SRC=${src} has no mwzeval/metrics.py`;
  const goals = join(src, 'mwzeval', 'data', 'goals.json');
  if (!existsSync(goals) || readFileSync(goals).length === 0) return `${goals} is missing or empty`;
  const head = spawnSync('git', ['-C', src, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  if (head.status === 0 && head.stdout.trim() !== MWZEVAL_COMMIT)
    return `MWZEVAL_SRC is at ${head.stdout.trim().slice(0, 7)}, not the pinned ${MWZEVAL_COMMIT.slice(0, 7)}`;
  const probe = spawnSync(python, ['-c', 'import fuzzywuzzy, Levenshtein, sacrebleu, sacremoses, lexical_diversity'], {
    encoding: 'utf8',
    cwd: src,
    env: pythonEnv(src, 0),
  });
  if (probe.error) return `${python} cannot be run (${probe.error.message}); set MWZEVAL_PYTHON`;
  if (probe.status !== 0)
    return `${python} lacks mwzeval's dependencies (${(probe.stderr || '').trim().split('\n').pop()})`;
  return undefined;
}

/** Runs a whole process: its wall time and the JSON of its last output line. */
function measure(cmd, args, options = {}) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  const wallMs = performance.now() - t0;
  if (r.status !== 0)
    throw new Error(`${cmd} exited ${r.status}: ${(r.stderr || '').trim().split('\n').slice(-3).join(' | ')}`);
  return { wallMs, out: JSON.parse(r.stdout.trim().split('\n').pop()) };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (xs) => `${mean(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`;
const faster = (ref, ours) => `${(ref / ours).toFixed(1)}x`;

/** mwzeval's data/ layout from ../shared/multiwoz (the reconstructed test goals), as links in a temporary directory. */
function sharedDataDir() {
  const dir = mkdtempSync(join(tmpdir(), 'mwz-bench-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'database'));
  for (const f of readdirSync(join(SHARED, 'data', 'database')))
    symlinkSync(join(SHARED, 'data', 'database', f), join(dir, 'database', f));
  symlinkSync(join(SHARED, 'derived', 'goals_test_reconstructed.json'), join(dir, 'goals.json'));
  symlinkSync(join(SHARED, 'data', 'booked_domains.json'), join(dir, 'booked_domains.json'));
  return dir;
}

async function main() {
  if (process.argv[2] === '--child') return child(process.argv[3], process.argv[4], Number(process.argv[5]));
  if (!existsSync(join(SHARED, 'predictions'))) {
    process.stdout.write(`skipped: reference data not found at ${SHARED}\n`);
    return;
  }
  const names = (process.env.MULTIWOZ_BENCH_FILES ?? 'augpt').split(',').filter(Boolean);
  const reps = Math.max(1, Number(process.env.MULTIWOZ_BENCH_REPS ?? 3));
  const beside = join(root, '..', '..', '..', 'reference');
  const src =
    process.env.MWZEVAL_SRC || (existsSync(join(beside, 'mwzeval', 'mwzeval')) ? join(beside, 'mwzeval') : undefined);
  const venv = join(beside, 'mwzeval-venv', 'bin', 'python');
  const python = process.env.MWZEVAL_PYTHON || (existsSync(venv) ? venv : 'python3');
  const why = referenceUnavailable(python, src);
  const data = why ? sharedDataDir() : join(src, 'mwzeval', 'data');
  const cliDir = join(root, '..', '..', 'apps', 'cli');
  const cliBin = join(cliDir, JSON.parse(readFileSync(join(cliDir, 'package.json'), 'utf8')).bin.dialeval);
  const cli = built && existsSync(cliBin) ? cliBin : undefined;
  const childArgs = (file, calls) => [
    ...(built ? [] : ['--conditions=@eval/source', '--import', 'tsx']),
    fileURLToPath(import.meta.url),
    '--child',
    file,
    data,
    String(calls),
  ];
  process.stdout.write(
    `@eval/multiwoz vs mwzeval: Inform/Success + richness on the full test set (v2022); ${reps} whole-process runs ` +
      `each, ${WARM_CALLS} warm calls of ours; ${built ? 'built dist/' : 'sources via tsx (run `pnpm build` first)'}; ` +
      `ours whole process: ${cli ? 'the built CLI' : 'the package in a child process'}; ` +
      `load ${loadavg()[0].toFixed(1)} on ${cpus().length} cores\n`,
  );
  if (why) process.stdout.write(`reference not measured: ${why}\n`);
  for (const name of names) {
    const file = join(SHARED, 'predictions', `${name}.json`);
    const ours = [];
    const py = [];
    for (let k = 0; k < reps; k++) {
      ours.push(
        cli
          ? measure(process.execPath, [
              cli,
              'multiwoz',
              file,
              '--success',
              '--richness',
              '--data',
              data,
              '--format',
              'json',
            ])
          : measure(process.execPath, childArgs(file, 1), { cwd: root }),
      );
      if (!why) py.push(measure(python, ['-c', PYTHON_CHILD, file, '1'], { cwd: src, env: pythonEnv(src, k) }));
    }
    const figures = (o) =>
      o.success?.inform ? [o.success.inform.total, o.success.success.total] : [o.inform, o.success];
    const [inform, success] = figures(ours[0].out);
    const oursWall = ours.map((m) => m.wallMs);
    let text = `\n${name} (Inform ${inform}, Success ${success})\n  whole process: @eval/multiwoz ${ms(oursWall)}`;
    const warm = measure(process.execPath, childArgs(file, WARM_CALLS + 1), { cwd: root }).out.ms.slice(1);
    let warmText = `  warm evaluate: @eval/multiwoz ${ms(warm)} per call`;
    if (why) text += '; mwzeval: reference not measured (see above)';
    else {
      const pyWall = py.map((m) => m.wallMs);
      const same = py.every((m) => m.out.inform === inform && m.out.success === success);
      const ratio = mean(pyWall) / mean(oursWall);
      text +=
        `, mwzeval ${ms(pyWall)} (PYTHONHASHSEED 0..${reps - 1}${same ? ', same figures' : ', FIGURES DIFFER'}): ` +
        `${faster(mean(pyWall), mean(oursWall))} (target: at least 10x${ratio >= 10 ? ', met' : ', NOT MET'})`;
      const pyWarm = measure(python, ['-c', PYTHON_CHILD, file, '2'], { cwd: src, env: pythonEnv(src, 0) }).out.ms;
      warmText += `, mwzeval ${ms(pyWarm.slice(1))} (its second call): ${faster(mean(pyWarm.slice(1)), mean(warm))}`;
      if (!same || ratio < 10) process.exitCode = 1;
    }
    process.stdout.write(`${text}\n${warmText}\n`);
  }
}

await main();
