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
    ...overrides,
  });
}
