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
