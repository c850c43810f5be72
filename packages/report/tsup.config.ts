import { join } from 'node:path';
import { evalTsupConfig } from '../../tsup.shared.ts';
import { bundleClient } from './src/internal/bundle';

// The page scripts are bundled here (esbuild, with Observable Plot) and inlined into the build as string constants:
// a built @eval/report reads no client source and needs no bundler at run time.
const define = {
  __REPORT_CLIENT__: JSON.stringify(bundleClient(join(__dirname, 'src', 'client', 'main.ts'))),
  __LEADERBOARD_CLIENT__: JSON.stringify(bundleClient(join(__dirname, 'src', 'client', 'leaderboard.ts'))),
};

export default evalTsupConfig({
  esbuildOptions(options, context) {
    options.define = { ...options.define, ...define };
    if (context.format === 'cjs') options.supported = { ...options.supported, 'dynamic-import': false };
  },
});
