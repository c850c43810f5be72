import { evalTsupConfig } from '../../tsup.shared.ts';

export default evalTsupConfig({
  entry: ['src/index.ts', 'src/bin.ts'],
  dts: { entry: 'src/index.ts' },
  splitting: true,
  shims: true,
});
