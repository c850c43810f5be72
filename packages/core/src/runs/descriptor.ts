import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EvalError } from '../errors';
import { meanOfValues } from './compare';
import type { RunBenchmark } from './schema';

/** What {@link loadRunBenchmark} found: the descriptor and where it came from (a package name, or the fallback). */
export interface FoundRunBenchmark {
  benchmark: RunBenchmark;
  /** The package the descriptor came from, or `mean of item values` for the fallback. */
  source: string;
  /** True when no descriptor was found and the metrics are recomputed as means of item values. */
  fallback: boolean;
}

/** What of a run's record names its descriptor (a whole `RunManifest` will do). */
export interface RunBenchmarkRef {
  benchmark: string;
  benchmarkPackage?: string;
  tool?: { packages?: Record<string, string> };
}

export interface LoadRunBenchmarkOptions {
  /**
   * When no descriptor can be found, recompute every metric as the mean of the item values of the same name
   * ({@link meanOfValues}) instead of refusing. The caller should say so wherever it shows the figures.
   */
  fallbackToItemMeans?: boolean;
  /** Where the user's own packages are installed (default: the current directory): searched first. */
  cwd?: string;
  /**
   * How the calling program loads its own dependencies (a CLI that depends on the benchmark packages):
   * `resolve(name)` as `require.resolve` from the program, `import(name)` as the program imports it. Packages not
   * installed under `cwd`, or installed there as the very files the program itself would load, come from it.
   */
  own?: { resolve(name: string): string; import(name: string): Promise<unknown> };
}

/** The code of a refused benchmark: no descriptor found (the CLI maps input errors to exit 2). */
const NO_DESCRIPTOR = 'input_no_descriptor';

/**
 * The package whose `runBenchmark` recomputes a run's metrics: the manifest's `benchmarkPackage`, else
 * `@eval/<benchmark>` when the run's `tool.packages` lists it (runs written before `benchmarkPackage` existed).
 */
export function runBenchmarkPackage(manifest: RunBenchmarkRef): string | undefined {
  if (manifest.benchmarkPackage !== undefined) return manifest.benchmarkPackage;
  const builtIn = `@eval/${manifest.benchmark}`;
  return Object.hasOwn(manifest.tool?.packages ?? {}, builtIn) ? builtIn : undefined;
}

function isRunBenchmark(x: unknown): x is RunBenchmark {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as RunBenchmark).recompute === 'function' &&
    typeof (x as RunBenchmark).benchmark === 'string'
  );
}

/** The `runBenchmark` export of a loaded module (an ES module, or a CommonJS one seen through `default`). */
export function runBenchmarkOf(mod: unknown): RunBenchmark | undefined {
  const m = mod as { runBenchmark?: unknown; default?: { runBenchmark?: unknown } } | null;
  const candidate = m?.runBenchmark ?? m?.default?.runBenchmark;
  return isRunBenchmark(candidate) ? candidate : undefined;
}

/** The directory of an installed package, given a file inside it. */
function packageRoot(file: string, name: string): string | undefined {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const json = join(dir, 'package.json');
    if (!existsSync(json)) continue;
    try {
      if ((JSON.parse(readFileSync(json, 'utf8')) as { name?: unknown }).name === name) return realpathSync(dir);
    } catch {
      // an unreadable package.json: look further up
    }
  }
  return undefined;
}

function tryResolve(resolve: (name: string) => string, name: string): string | undefined {
  try {
    return resolve(name);
  } catch {
    return undefined;
  }
}

/**
 * Finds the `runBenchmark` descriptor of a run through its record ({@link runBenchmarkPackage}): the package is
 * imported from the user's project (`cwd`) first, then from the calling program's own dependencies (`own`). A run
 * whose descriptor cannot be found is refused (an input error naming the benchmark and the package) unless
 * `fallbackToItemMeans`.
 */
export async function loadRunBenchmark(
  manifest: RunBenchmarkRef,
  options: LoadRunBenchmarkOptions = {},
): Promise<FoundRunBenchmark> {
  const name = runBenchmarkPackage(manifest);
  let why: string;
  if (name === undefined) {
    why = `its run.json names no benchmarkPackage (and ${'`tool.packages`'} lists no @eval/${manifest.benchmark})`;
  } else {
    const cwd = options.cwd ?? process.cwd();
    const local = tryResolve(createRequire(join(cwd, 'noop.js')).resolve, name);
    const own = options.own && tryResolve(options.own.resolve, name);
    const same = local !== undefined && own !== undefined && packageRoot(local, name) === packageRoot(own, name);
    let mod: unknown;
    try {
      if (local !== undefined && !same) mod = await import(pathToFileURL(local).href);
      else if (options.own && own !== undefined) mod = await options.own.import(name);
    } catch (error) {
      throw new EvalError(
        NO_DESCRIPTOR,
        `benchmark "${manifest.benchmark}": cannot load ${name} (${(error as Error).message})`,
        {
          cause: error,
        },
      );
    }
    if (mod === undefined) why = `${name} is not installed (neither in ${cwd} nor beside dialeval)`;
    else {
      const benchmark = runBenchmarkOf(mod);
      if (benchmark) return { benchmark, source: name, fallback: false };
      why = `${name} exports no runBenchmark (with benchmark and recompute)`;
    }
  }
  if (options.fallbackToItemMeans)
    return { benchmark: meanOfValues(manifest.benchmark), source: 'mean of item values', fallback: true };
  throw new EvalError(
    NO_DESCRIPTOR,
    `cannot recompute the metrics of benchmark "${manifest.benchmark}": ${why}. Install the benchmark's package, or pass --fallback-item-means to compare the means of the item values instead of its own metrics`,
  );
}
