#!/usr/bin/env node
// `pnpm bench`: the `bench` script of every workspace package that has one, then `scripts/bench-llm-quota.mjs` when
// it exists, one after another (benchmarks must not compete for the cores). Each bench prints its figures beside the
// reference implementation's, measured in the same run where the reference can run here, else a line
// `reference not measured: <why>`. This script adds each bench's wall time and the total, which is meant to stay under
// 5 minutes. `pnpm bench multiwoz` runs only the benches whose package name contains `multiwoz`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const wanted = (name) => only.length === 0 || only.some((o) => name.includes(o));
const BUDGET_S = 300;

/** Every bench to run: [name, command, arguments, directory]. */
const benches = [];
for (const dir of [
  ...readdirSync(join(root, 'packages')).map((d) => join(root, 'packages', d)),
  join(root, 'apps', 'cli'),
]) {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) continue;
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  if (pkg.scripts?.bench && wanted(pkg.name)) benches.push([pkg.name, 'pnpm', ['run', '--silent', 'bench'], dir]);
}
const quota = join(root, 'scripts', 'bench-llm-quota.mjs');
if (existsSync(quota) && wanted('llm-quota')) benches.push(['llm-quota', process.execPath, [quota], root]);

const times = [];
let failed = 0;
const started = performance.now();
for (const [name, cmd, args, cwd] of benches) {
  process.stdout.write(`\n=== bench ${name}\n`);
  const t = performance.now();
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  const seconds = (performance.now() - t) / 1000;
  times.push([name, seconds, r.status]);
  if (r.status !== 0) {
    failed++;
    process.stdout.write(`=== bench ${name} FAILED (exit ${r.status})\n`);
  }
}
const total = (performance.now() - started) / 1000;
process.stdout.write('\nwall time of each bench\n');
for (const [name, seconds, status] of times)
  process.stdout.write(`  ${name.padEnd(22)} ${seconds.toFixed(1).padStart(6)} s${status === 0 ? '' : '   FAILED'}\n`);
process.stdout.write(
  `  ${'total'.padEnd(22)} ${total.toFixed(1).padStart(6)} s   ${only.length > 0 ? '(a selection)' : total <= BUDGET_S ? `within ${BUDGET_S} s` : `OVER the ${BUDGET_S} s budget`}\n`,
);
process.stdout.write(`\nbenchmarks: ${benches.length - failed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
