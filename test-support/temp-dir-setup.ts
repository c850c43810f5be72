/**
 * Vitest global setup, wired into every package by `evalVitestConfig()`: the tests of one `vitest run` make their
 * temporary files in one directory of their own (`TMPDIR`, which `os.tmpdir()` and the CLI processes the tests start
 * read), removed when the run ends. Tests create temporary directories freely (`mkdtempSync(join(tmpdir(), ...))`)
 * without cleaning up each; without this, every run of the suite left hundreds of them (about 1 GB) behind.
 * `EVAL_KEEP_TEST_TMP=1` keeps the directory (its path is printed) to look at what a test wrote.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'eval-tests-'));
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (process.env.EVAL_KEEP_TEST_TMP === '1') process.stdout.write(`test temporary files kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  };
}
