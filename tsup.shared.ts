import { defineConfig, type Options } from 'tsup';

/** Shared build of every package: ESM + CJS + .d.ts/.d.cts for node 20. `overrides` sets entries and extras. */
export function evalTsupConfig(overrides: Options = {}) {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: false,
    target: 'node20',
    // CommonJS builds load lazily with require() (every dependency has a CommonJS build): a CommonJS consumer gets
    // CommonJS dependencies, and the CLI's compile cache (apps/cli/src/compile-cache.ts) can keep these modules too
    esbuildOptions(options, context) {
      if (context.format === 'cjs') options.supported = { ...options.supported, 'dynamic-import': false };
    },
    // With shared chunks (`splitting`), tsup turns the CommonJS chunks into CommonJS with sucrase, which also rewrites
    // `a?.b`, `??` and class fields into helper calls (an array and closures built on every evaluation); rollup
    // (`treeshake`) does that step instead and keeps the syntax, as the ESM builds have it.
    treeshake: overrides.splitting === true,
    ...overrides,
  });
}
