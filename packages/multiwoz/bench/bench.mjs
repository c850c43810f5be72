#!/usr/bin/env node
// Benchmark: MultiWOZ Inform/Success + richness of one predictions file on the full test set (v2022 evaluator), this
// package and the Python reference (mwzeval) side by side in the same run, each as a whole process (start-up and
// imports included) on the same predictions file, goals, database and booked domains (when the reference runs, both read
// its own mwzeval/data directory). Several runs each, interleaved; means (and medians, ranges) of wall time, medians of peak RSS.
//
//   pnpm bench                                  (builds dist/ first; measures the built CLI)
//   MULTIWOZ_BENCH_FILES=ubar,augpt MULTIWOZ_BENCH_REPS=9 pnpm bench
//
// The reference is measured when it can run (the README's Benchmark section gives the setup):
//   MWZEVAL_SRC     a checkout of Tomiinek/MultiWOZ_Evaluation at 7f19ee0 (v2022, the published numbers) whose
//                   mwzeval/data/goals.json is present (default: ../reference/mwzeval beside the repository, if present);
//   MWZEVAL_PYTHON  a Python 3 interpreter with fuzzywuzzy, python-Levenshtein, sacrebleu, sacremoses and
//                   lexical-diversity importable (default: ../reference/mwzeval-venv/bin/python if present, else python3).
// Otherwise it prints "reference not measured: <why>" and no ratio.
// mwzeval's run time depends on Python's string-hash seed (its database query iterates a set of keys, so the fuzzy
// name match comes first or not): run k uses PYTHONHASHSEED=k, the headline ratio is of the means over the runs (a
// user's expected time), and the fastest and slowest reference runs are printed too.
// Data for this package otherwise: ../shared/multiwoz (predictions, database, booked domains, reconstructed goals).
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
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** The measured child: this package on one predictions file (prints one JSON line). */
async function child(name) {
  const m = built
    ? await import(pathToFileURL(join(root, 'dist', 'index.js')).href)
    : await import(pathToFileURL(join(root, 'src', 'index.ts')).href);
  const json = (rel) => JSON.parse(readFileSync(join(SHARED, rel), 'utf8'));
  const predictionsFile = join(SHARED, 'predictions', `${name}.json`);
  const predictions = m.parsePredictions(json(`predictions/${name}.json`), predictionsFile);
  const data = m.multiwozDataFrom({
    database: Object.fromEntries(
      ['restaurant', 'attraction', 'hotel', 'train'].map((d) => [
        d,
        json(`data/database/${d}_db${d === 'restaurant' ? '.v2022' : ''}.json`),
      ]),
    ),
    goals: json('derived/goals_test_reconstructed.json'),
    bookedDomains: json('data/booked_domains.json'),
  });
  const report = new m.MultiwozEvaluator(data, { bleu: false, success: true, richness: true }).evaluate(predictions, {
    file: predictionsFile,
  });
  const out = {
    inform: report.success.inform.total,
    success: report.success.success.total,
    maxRssKb: process.resourceUsage().maxRSS,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** The reference's environment: its checkout first on PYTHONPATH (before any the user set). */
function pythonEnv(src, seed) {
  const path = [src, process.env.PYTHONPATH].filter(Boolean).join(':');
  return { ...process.env, PYTHONPATH: path, ...(seed === undefined ? {} : { PYTHONHASHSEED: String(seed) }) };
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
    env: pythonEnv(src),
  });
  if (probe.error) return `${python} cannot be run (${probe.error.message}); set MWZEVAL_PYTHON`;
  if (probe.status !== 0)
    return `${python} lacks mwzeval's dependencies (${(probe.stderr || '').trim().split('\n').pop()})`;
  return undefined;
}

/** Runs a whole process; wall time from spawn to exit, peak RSS from /usr/bin/time (KiB) or the child's own report. */
function measure(cmd, args, options = {}) {
  const timed = TIME ? [TIME, ['-f', '%M', cmd, ...args]] : [cmd, args];
  const t0 = performance.now();
  const r = spawnSync(timed[0], timed[1], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  const wallMs = performance.now() - t0;
  if (r.status !== 0)
    throw new Error(`${cmd} exited ${r.status}: ${(r.stderr || '').trim().split('\n').slice(-3).join(' | ')}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  const timeKb = TIME ? Number((r.stderr || '').trim().split('\n').pop()) : NaN;
  return { wallMs, maxRssKb: Number.isFinite(timeKb) ? timeKb : out.maxRssKb, out };
}

const mib = (kb) => (kb / 1024).toFixed(0);
const ratio = (r) => (r >= 1 ? `${r.toFixed(1)}x faster` : `${(1 / r).toFixed(1)}x slower`);

async function main() {
  if (process.argv[2] === '--child') return child(process.argv[3]);
  if (!existsSync(join(SHARED, 'predictions'))) {
    process.stdout.write(`skipped: reference data not found at ${SHARED}\n`);
    return;
  }
  const names = (process.env.MULTIWOZ_BENCH_FILES ?? 'ubar,augpt,galaxy-e2e')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const reps = Math.max(1, Number(process.env.MULTIWOZ_BENCH_REPS ?? 10));
  const beside = join(root, '..', '..', '..', 'reference');
  const src =
    process.env.MWZEVAL_SRC || (existsSync(join(beside, 'mwzeval', 'mwzeval')) ? join(beside, 'mwzeval') : undefined);
  const python =
    process.env.MWZEVAL_PYTHON ||
    (existsSync(join(beside, 'mwzeval-venv', 'bin', 'python'))
      ? join(beside, 'mwzeval-venv', 'bin', 'python')
      : 'python3');
  const why = referenceUnavailable(python, src);
  process.stdout.write(
    `@eval/multiwoz: Inform/Success + richness of one predictions file on the full test set (v2022), whole processes ` +
      `(${built ? 'built dist/' : 'sources via tsx: run `pnpm build` first for the published figures'}), ${reps} interleaved runs each; ` +
      `load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores; peak RSS from ${TIME ? '/usr/bin/time' : 'the processes themselves'}\n`,
  );
  if (why) process.stdout.write(`reference not measured: ${why}\n`);
  else {
    const version = spawnSync(python, ['--version'], { encoding: 'utf8' });
    process.stdout.write(
      `reference: mwzeval ${MWZEVAL_COMMIT.slice(0, 7)} at ${src}, ${(version.stdout || version.stderr).trim()} (${python}); runs use PYTHONHASHSEED=0..${reps - 1}\n`,
    );
  }
  // the V8 settings `dialeval multiwoz` applies to itself (apps/cli/src/bin.ts), so the child measures what the CLI does
  const v8 = ['--semi-space-growth-factor=1'];
  if (process.versions.v8.startsWith('11.'))
    v8.push('--no-turbo-inlining', '--no-turbo-inline-array-builtins', '--no-turbo-loop-peeling');
  const nodeArgs = built
    ? [...v8, fileURLToPath(import.meta.url)]
    : [...v8, '--conditions=@eval/source', '--import', 'tsx', fileURLToPath(import.meta.url)];
  // the file the installed `dialeval` runs (the CLI package's `bin`)
  const cliDir = join(root, '..', '..', 'apps', 'cli');
  const cliBin = join(cliDir, JSON.parse(readFileSync(join(cliDir, 'package.json'), 'utf8')).bin.dialeval);
  const cli = built && existsSync(cliBin) ? cliBin : undefined;
  let data;
  // mwzeval's data/ layout from the reference data (the reconstructed test goals), as links
  const dataDir = () => {
    if (data) return data;
    data = mkdtempSync(join(tmpdir(), 'mwz-bench-'));
    mkdirSync(join(data, 'database'));
    for (const f of readdirSync(join(SHARED, 'data', 'database')))
      symlinkSync(join(SHARED, 'data', 'database', f), join(data, 'database', f));
    symlinkSync(join(SHARED, 'derived', 'goals_test_reconstructed.json'), join(data, 'goals.json'));
    symlinkSync(join(SHARED, 'data', 'booked_domains.json'), join(data, 'booked_domains.json'));
    return data;
  };
  // with the reference, both read the same data files: its own mwzeval/data (our --data takes that layout)
  const ourData = () => (why ? dataDir() : join(src, 'mwzeval', 'data'));
  process.on('exit', () => data && rmSync(data, { recursive: true, force: true }));
  process.stdout.write(
    cli
      ? `ours: ${cliBin} (the built CLI)\n`
      : 'ours: the package in a child process (build the CLI for the published path)\n',
  );
  const script = [
    'import json, resource, sys',
    'from mwzeval.metrics import Evaluator',
    'r = Evaluator(bleu=False, success=True, richness=True).evaluate(json.load(open(sys.argv[1])))',
    'print(json.dumps({"inform": r["success"]["inform"]["total"], "success": r["success"]["success"]["total"], "maxRssKb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))',
  ].join('\n');
  // One untimed run of each first, as a user's runs after their first: it fills the CLI's compile cache and
  // Python's __pycache__ (a fresh checkout has neither).
  if (names.length > 0) {
    const first = join(SHARED, 'predictions', `${names[0]}.json`);
    if (cli)
      spawnSync(
        process.execPath,
        [cli, 'multiwoz', first, '--success', '--richness', '--data', ourData(), '--format', 'json'],
        { cwd: root, stdio: 'ignore' },
      );
    if (!why) spawnSync(python, ['-c', script, first], { cwd: src, env: pythonEnv(src, 0), stdio: 'ignore' });
    process.stdout.write(
      `warm-up: one untimed run of ${why ? 'ours' : 'each'} (fills the CLI's compile cache${why ? '' : " and the reference's __pycache__"})\n`,
    );
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const spread = (xs) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
  const times = (ms) => `mean ${mean(ms).toFixed(0)} ms (median ${median(ms).toFixed(0)}, ${spread(ms)})`;
  for (const name of names) {
    const predictions = join(SHARED, 'predictions', `${name}.json`);
    const ours = [];
    const py = [];
    let failure;
    for (let k = 0; k < reps && !failure; k++) {
      try {
        if (cli) {
          // the published path: the built `dialeval multiwoz FILE --success --richness` as a whole process
          const m = measure(
            process.execPath,
            [cli, 'multiwoz', predictions, '--success', '--richness', '--data', ourData(), '--format', 'json'],
            { cwd: root },
          );
          m.out = { inform: m.out.success.inform.total, success: m.out.success.success.total };
          ours.push(m);
        } else ours.push(measure(process.execPath, [...nodeArgs, '--child', name], { cwd: root }));
      } catch (error) {
        failure = `@eval/multiwoz FAILED ${error.message}`;
        process.exitCode = 1;
        break;
      }
      if (why) continue;
      try {
        py.push(measure(python, ['-c', script, predictions], { cwd: src, env: pythonEnv(src, k) }));
      } catch (error) {
        failure = `reference not measured: mwzeval failed (${error.message})`;
      }
    }
    if (ours.length === 0) {
      process.stdout.write(`\n${name}: ${failure}\n`);
      continue;
    }
    const o = ours[0].out;
    const oWall = ours.map((m) => m.wallMs);
    const oRss = median(ours.map((m) => m.maxRssKb));
    let line = `\n${name}: @eval/multiwoz ${times(oWall)}, peak RSS ${mib(oRss)} MiB (Inform ${o.inform}, Success ${o.success})`;
    if (failure) line += `\n  ${failure}`;
    else if (py.length > 0) {
      const p = py[0].out;
      const same =
        py.every((m) => m.out.inform === o.inform && m.out.success === o.success) &&
        ours.every((m) => m.out.inform === o.inform && m.out.success === o.success);
      const pWall = py.map((m) => m.wallMs);
      const pRss = median(py.map((m) => m.maxRssKb));
      // mwzeval's time is bimodal in the hash seed (its database query iterates a set of keys): the mean over seeds is
      // what a user's run takes on average; its fastest and slowest runs are printed beside it
      line +=
        `\n  mwzeval ${times(pWall)} over PYTHONHASHSEED=0..${py.length - 1}, peak RSS ${mib(pRss)} MiB (Inform ${p.inform}, Success ${p.success}${same ? ', same figures' : ', FIGURES DIFFER'})` +
        `\n  whole process, means: @eval/multiwoz ${ratio(mean(pWall) / mean(oWall))} than mwzeval (target: 20x; ` +
        `${ratio(Math.min(...pWall) / mean(oWall))} than its fastest run, ${ratio(Math.max(...pWall) / mean(oWall))} than its slowest); ` +
        `peak RSS medians ${mib(oRss)} vs ${mib(pRss)} MiB (target: at or below)`;
      if (!same) process.exitCode = 1;
    }
    process.stdout.write(`${line}\n`);
  }
  // the run record's share of this command's wall time (issue 10) is timed by scripts/bench-run-overhead.mjs, which
  // `pnpm bench` at the root runs first, beside every other evaluating command
}

await main();
