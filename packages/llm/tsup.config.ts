import { evalTsupConfig } from '../../tsup.shared.ts';

export default evalTsupConfig({ entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' } });
