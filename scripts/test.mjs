#!/usr/bin/env node
// `pnpm test`: every package's vitest suite through turbo, then one line for the parity tests that were skipped because
// the reference data (../shared beside the checkout, or the resource cache) is absent. Each package's reporter
// (test-support/reference-data-reporter.ts) appends its count to EVAL_REFERENCE_SKIP_LOG.
// EVAL_REQUIRE_REFERENCE_DATA=1 (CI) makes missing reference data a failure instead of a skip.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'eval-test-'));
const log = join(dir, 'reference-data-skips.jsonl');
const turbo = spawnSync('pnpm', ['exec', 'turbo', 'run', 'test', '--concurrency=2', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, EVAL_REFERENCE_SKIP_LOG: log },
});
const rows = existsSync(log)
  ? readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
rmSync(dir, { recursive: true, force: true });
const skipped = rows.reduce((n, r) => n + r.skipped, 0);
let status = turbo.status ?? 1;
if (skipped > 0) {
  const where = rows
    .filter((r) => r.skipped > 0)
    .map((r) => `${r.package} ${r.skipped}`)
    .join(', ');
  console.log(`\nreference data missing: ${skipped} parity tests skipped (${where}). ${rows[0].hint}`);
  if (process.env.EVAL_REQUIRE_REFERENCE_DATA === '1') {
    console.error('EVAL_REQUIRE_REFERENCE_DATA=1: no parity test may be skipped');
    status = 1;
  }
} else if (rows.length > 0) {
  console.log(`\nreference data: found; no parity test skipped (${rows.length} packages)`);
}
process.exit(status);
