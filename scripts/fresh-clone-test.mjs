#!/usr/bin/env node
// What a contributor's fresh clone sees: clones the committed HEAD into a temporary directory (no ../shared beside
// it, an empty resource cache), installs, runs `pnpm test` and checks that it passes and prints the one summary line
// of the skipped parity tests. Used by .ci/run; run it locally with `node scripts/fresh-clone-test.mjs`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'eval-fresh-clone-'));
const repo = join(work, 'repo');
const home = join(work, 'home');
mkdirSync(home);

function run(cmd, args, cwd, capture = false) {
  const env = { ...process.env, DIALEVAL_HOME: home, CI: 'true' };
  for (const k of ['EVAL_REQUIRE_REFERENCE_DATA', 'EVAL_SHARED_DIR', 'EVAL_REFERENCE_SKIP_LOG']) delete env[k];
  for (const k of Object.keys(env)) if (/^DIALEVAL_.*_DIR$/.test(k)) delete env[k];
  const r = spawnSync(cmd, args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (capture) process.stdout.write(r.stdout + r.stderr);
  return r;
}

let failed = '';
try {
  if (run('git', ['clone', '--quiet', '--no-local', root, repo], work).status !== 0)
    throw new Error('git clone failed');
  if (existsSync(join(work, 'shared'))) throw new Error('unexpected shared/ beside the clone');
  if (run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=silent'], repo).status !== 0)
    throw new Error('pnpm install failed');
  const test = run('pnpm', ['test'], repo, true);
  const out = (test.stdout + test.stderr).replace(/\x1b\[[0-9;]*m/g, '');
  const line = /^reference data missing: (\d+) parity tests? skipped .*$/m.exec(out);
  if (test.status !== 0) failed = `pnpm test exited ${test.status} in a fresh clone without ../shared`;
  else if (!line) failed = 'pnpm test passed but printed no "reference data missing: N parity tests skipped" line';
  else
    console.log(
      `\nfresh clone without ../shared: pnpm test passed, ${line[1]} parity tests skipped with the summary line`,
    );
} catch (error) {
  failed = String(error instanceof Error ? error.message : error);
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed) {
  console.error(`fresh-clone test FAILED: ${failed}`);
  process.exit(1);
}
