import { evalTsupConfig } from '../../tsup.shared.ts';

// Three entries: `@eval/core`, the `@eval/core/python` subpath and the `@eval/core/schemas` subpath (the run record's
// zod schemas, which `@eval/core` loads only when it validates). Shared code is in common chunks, so classes such as
// `PyInt` are the same in all of them.
export default evalTsupConfig({
  entry: { index: 'src/index.ts', python: 'src/python/index.ts', schemas: 'src/schemas.ts' },
  splitting: true,
});
