import { defineConfig, type ViteUserConfig } from 'vitest/config';

// Vite's default conditions, with the workspace's source condition first: tests run on `src/`
// through the `@eval/source` export condition, so no package has to be built before its dependants are tested.
const clientConditions = ['@eval/source', 'module', 'browser', 'development|production'];
const serverConditions = ['@eval/source', 'module', 'node', 'development|production'];

export function evalVitestConfig(overrides: NonNullable<ViteUserConfig['test']> = {}): ViteUserConfig {
  return defineConfig({
    resolve: { conditions: clientConditions },
    ssr: { resolve: { conditions: serverConditions, externalConditions: ['@eval/source', 'node'] } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      ...overrides,
    },
  });
}
