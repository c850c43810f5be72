#!/usr/bin/env node
// `pnpm bench`: runs the `bench` script of every workspace package that has one, in sequence (benchmarks must not
// compete for the 2 cores). Each bench prints its own figures and ratios and skips cleanly what cannot run here.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const dirs = [...readdirSync(join(root, 'packages')).map((d) => join(root, 'packages', d)), join(root, 'apps', 'cli')];
let failed = 0;
let ran = 0;
// The run record's share of every evaluating command's wall time (issue 10: at most 5%), on the built CLI: built
// first (turbo: nothing to do when the build is current), so the figures are those of this checkout. It runs before the
// packages' benches: @eval/core's (compare and runs) creates and deletes thousands of run directories, and on some file
// systems (ext4 without a journal, as here) creating files stays several times slower for a while after mass deletions,
// a state of the machine that no user's command starts from.
const overhead = join(root, 'scripts', 'bench-run-overhead.mjs');
if (existsSync(overhead) && (only.length === 0 || only.some((o) => 'run-overhead'.includes(o)))) {
  process.stdout.write('\n=== bench run record overhead (scripts/bench-run-overhead.mjs)\n');
  const build = spawnSync(
    'pnpm',
    ['exec', 'turbo', 'run', 'build', '--filter=dialeval...', '--output-logs=errors-only'],
    { cwd: root, stdio: 'inherit' },
  );
  const r = build.status === 0 ? spawnSync(process.execPath, [overhead], { cwd: root, stdio: 'inherit' }) : build;
  ran++;
  if (r.status !== 0) {
    failed++;
    process.stdout.write(
      `=== bench run record overhead FAILED (${build.status === 0 ? '' : 'build, '}exit ${r.status})\n`,
    );
  }
}
// The run record's benchmark (scripts/bench-runs.mjs: compare and runs) is @eval/core's `bench` script, run below with
// the loader it needs (it imports the sources).
for (const dir of dirs) {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) continue;
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  if (!pkg.scripts?.bench) continue;
  if (only.length > 0 && !only.some((o) => pkg.name.includes(o))) continue;
  process.stdout.write(`\n=== bench ${pkg.name}\n`);
  const r = spawnSync('pnpm', ['run', '--silent', 'bench'], { cwd: dir, stdio: 'inherit' });
  ran++;
  if (r.status !== 0) {
    failed++;
    process.stdout.write(`=== bench ${pkg.name} FAILED (exit ${r.status})\n`);
  }
}
process.stdout.write(`\nbenchmarks: ${ran - failed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
