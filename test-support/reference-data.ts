/**
 * The one way a test finds the project's reference data (specs' fixtures, recorded outputs of the reference
 * implementations, their input data): `shared/` beside the checkout (`../shared`), or, for the files that
 * `dialeval resources fetch NAME` downloads, the resource cache (`$DIALEVAL_HOME/resources/NAME`).
 *
 * A fresh clone has neither: tests that need the data are then skipped (marked with {@link REFERENCE_DATA_MARK},
 * counted in one summary line by `ReferenceDataReporter`), unless `EVAL_REQUIRE_REFERENCE_DATA=1` (CI), where missing
 * data fails the run. Test files never build a path to `../shared` themselves: `vitest.shared.ts` rejects any that do.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { resourceCachePath } from '../packages/core/src/resources/index';
import { FETCHABLE_REFERENCE_DATA, REFERENCE_DATA_MARK } from './reference-data-reporter';

export { REFERENCE_DATA_MARK };

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `../shared` beside the checkout (`EVAL_SHARED_DIR` overrides it, e.g. to try the suite without it). */
export const SHARED_ROOT = process.env.EVAL_SHARED_DIR
  ? resolve(process.env.EVAL_SHARED_DIR)
  : join(REPO_ROOT, '..', 'shared');

function inCache(rel: string): string | undefined {
  for (const [prefix, set, inSet] of FETCHABLE_REFERENCE_DATA) {
    if (rel !== prefix && !rel.startsWith(`${prefix}/`)) continue;
    const dir = resourceCachePath(set);
    if (!existsSync(join(dir, '.dialeval-resource.json'))) return undefined;
    return join(dir, inSet, rel.slice(prefix.length));
  }
  return undefined;
}

/**
 * The path of reference data `rel` (a path relative to `shared/`, `/`-separated, e.g. `'multiwoz/data/database'`):
 * under `../shared` when it exists there, else in the resource cache when a fetched set provides it, else (missing)
 * the `../shared` path. Guard the tests that read it with {@link describeWithReferenceData} or
 * {@link itWithReferenceData}.
 */
export function referencePath(rel: string): string {
  const clean = rel.replace(/^\/+|\/+$/g, '');
  const shared = join(SHARED_ROOT, clean);
  if (existsSync(shared)) return shared;
  return inCache(clean) ?? shared;
}

/** Whether every one of `rels` is available; with `EVAL_REQUIRE_REFERENCE_DATA=1` a missing one throws instead. */
export function hasReferenceData(...rels: string[]): boolean {
  const missing = rels.filter((rel) => !existsSync(referencePath(rel)));
  if (missing.length === 0) return true;
  if (process.env.EVAL_REQUIRE_REFERENCE_DATA === '1') {
    throw new Error(
      `reference data missing: ${missing.map((m) => `shared/${m}`).join(', ')} (looked in ${SHARED_ROOT} and the resource cache; ` +
        'EVAL_REQUIRE_REFERENCE_DATA=1 forbids skipping)',
    );
  }
  return false;
}

const mark = (name: unknown) => (typeof name === 'string' ? `${name} ${REFERENCE_DATA_MARK}` : name);

type Fn = (...args: any[]) => any;

/** A `describe`/`it` stand-in that registers everything as skipped, with the mark appended to each name. */
function skipping<T extends typeof describe | typeof it>(skip: Fn & { each: Fn }, suite: boolean): T {
  // A skipped suite's body still runs (to register its tests); if it reads the data, register one test instead.
  const body = (fn: unknown) =>
    suite && typeof fn === 'function'
      ? (...args: unknown[]) => {
          try {
            return (fn as Fn)(...args);
          } catch {
            it.skip('(the suite body reads the data)', () => {});
          }
        }
      : fn;
  const api = (name: unknown, fn?: unknown, ...rest: unknown[]) => skip(mark(name), body(fn), ...rest);
  const each =
    (...cases: unknown[]) =>
    (name: unknown, fn?: unknown, ...rest: unknown[]) =>
      skip.each(...cases)(mark(name), body(fn), ...rest);
  return Object.assign(api, {
    each,
    skip: api,
    skipIf: () => api,
    runIf: () => api,
    only: api,
    concurrent: api,
    sequential: api,
  }) as unknown as T;
}

/**
 * `describe` when every one of the reference data `rels` (paths relative to `shared/`) is available, else a
 * `describe` that registers its suites as skipped and marked (counted in the run's summary line):
 * `const describeParity = describeWithReferenceData('cgt'); describeParity('parity', () => { ... })`.
 * `.each` works as on `describe`.
 */
export function describeWithReferenceData(...rels: string[]): typeof describe {
  return hasReferenceData(...rels)
    ? describe
    : skipping<typeof describe>(describe.skip as unknown as Fn & { each: Fn }, true);
}

/** `it` when every one of the reference data `rels` is available, else an `it` that registers skipped, marked tests. */
export function itWithReferenceData(...rels: string[]): typeof it {
  return hasReferenceData(...rels) ? it : skipping<typeof it>(it.skip as unknown as Fn & { each: Fn }, false);
}
