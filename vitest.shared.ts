import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { findDirectSharedPaths, ReferenceDataReporter } from './test-support/reference-data-reporter.ts';

// Vite's default conditions, with the workspace's source condition first: tests run on `src/`
// through the `@eval/source` export condition, so no package has to be built before its dependants are tested.
const clientConditions = ['@eval/source', 'module', 'browser', 'development|production'];
const serverConditions = ['@eval/source', 'module', 'node', 'development|production'];

export function evalVitestConfig(overrides: NonNullable<ViteUserConfig['test']> = {}): ViteUserConfig {
  // Reference data is located only through test-support/reference-data.ts (skipped with one summary line when absent).
  const direct = findDirectSharedPaths(process.cwd());
  if (direct.length > 0) {
    throw new Error(
      `these lines build a path to ../shared themselves; use referencePath() and describeWithReferenceData() from ` +
        `test-support/reference-data.ts instead (CONTRIBUTING.md, "Reference data in tests"):\n  ${direct.join('\n  ')}`,
    );
  }
  return defineConfig({
    resolve: { conditions: clientConditions },
    ssr: { resolve: { conditions: serverConditions, externalConditions: ['@eval/source', 'node'] } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      reporters: ['default', new ReferenceDataReporter()],
      // one temporary directory per run, removed at its end (test-support/temp-dir-setup.ts)
      globalSetup: [fileURLToPath(new URL('./test-support/temp-dir-setup.ts', import.meta.url))],
      ...overrides,
    },
  });
}
