/**
 * Vitest plumbing for reference data (see `reference-data.ts`), wired into every package by `evalVitestConfig()`:
 * - {@link ReferenceDataReporter} counts the tests skipped for lack of reference data and prints one line saying how
 *   to get it (or, under `scripts/test.mjs`, appends the count to `EVAL_REFERENCE_SKIP_LOG` for one line overall);
 * - {@link findDirectSharedPaths} finds test code that builds a path to `../shared` itself instead of using
 *   `referencePath()` (the config refuses to run such a package, so new tests are caught automatically).
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** Appended to the name of every suite or test skipped for lack of reference data (the reporter counts these). */
export const REFERENCE_DATA_MARK = '[skipped: no reference data]';

/**
 * Parts of `shared/` that a resource set also provides: [prefix under shared/, set name, prefix inside the set].
 * Add a row when a new set makes more reference data fetchable.
 */
export const FETCHABLE_REFERENCE_DATA: ReadonlyArray<readonly [string, string, string]> = [
  ['cgt/cga_originals', 'cgt', 'cga_originals'],
  ['cgt/cga_new', 'cgt', 'cga_new'],
  ['multiwoz/data/database', 'multiwoz', 'database'],
  ['multiwoz/data/booked_domains.json', 'multiwoz', 'booked_domains.json'],
  ['llm-judge/templates', 'llm-dst-eval', ''],
  ['scorekeeping/clemgame.json', 'clembench-privateshared', 'clemgame.json'],
  ['scorekeeping/resources', 'clembench-privateshared', 'resources'],
  ['scorekeeping/in', 'clembench-privateshared', 'in'],
];

/** The one line printed when tests were skipped for lack of reference data (`scripts/test.mjs` prints the total). */
export function referenceDataSkipLine(skipped: number): string {
  return `reference data missing: ${skipped} parity test${skipped === 1 ? '' : 's'} skipped. ${referenceDataHint()}`;
}

function referenceDataHint(): string {
  return (
    'Get it with ' +
    `\`dialeval resources fetch NAME\` (${[...new Set(FETCHABLE_REFERENCE_DATA.map(([, set]) => set))].join(', ')}: part of it) or place the project's shared/ directory beside ` +
    'the checkout (all of it); see CONTRIBUTING.md.'
  );
}

export class ReferenceDataReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped'))
        if (test.fullName.includes(REFERENCE_DATA_MARK)) skipped++;
    }
    const log = process.env.EVAL_REFERENCE_SKIP_LOG;
    if (log)
      appendFileSync(
        log,
        `${JSON.stringify({ package: process.env.npm_package_name ?? process.cwd(), skipped, hint: referenceDataHint() })}\n`,
      );
    else if (skipped > 0) process.stdout.write(`\n${referenceDataSkipLine(skipped)}\n`);
    if (skipped > 0 && process.env.EVAL_REQUIRE_REFERENCE_DATA === '1') process.exitCode = 1;
  }
}

// A string that walks up to a `shared` directory ('../../shared/x', '..', 'shared') or names the machine's copy.
const DIRECT = [/['"`](?:\.\.\/)+shared(?:\/|['"`])/, /['"]\.\.['"]\s*,\s*['"]shared['"]/, /\/work\/(?:wt\/)?shared\b/];

/** `file:line` of every code line (not comment) under `src/` and `test/` of `root` that builds a path to `../shared` itself. */
export function findDirectSharedPaths(root: string): string[] {
  const hits: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(path);
      } else if (/\.[cm]?[jt]s$/.test(e.name)) {
        readFileSync(path, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (!/^\s*(\/\/|\/?\*)/.test(line) && DIRECT.some((re) => re.test(line)))
              hits.push(`${relative(root, path)}:${i + 1}`);
          });
      }
    }
  };
  walk(join(root, 'src'));
  walk(join(root, 'test'));
  return hits;
}
