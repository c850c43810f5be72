import { evalTsupConfig } from '../../tsup.shared.ts';

// Two entries: `@eval/core` and the `@eval/core/python` subpath (shared code in common chunks, so classes such as
// `PyInt` are the same in both).
export default evalTsupConfig({ entry: { index: 'src/index.ts', python: 'src/python/index.ts' }, splitting: true });
