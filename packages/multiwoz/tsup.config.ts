import { evalTsupConfig } from '../../tsup.shared.ts';

export default evalTsupConfig({ entry: ['src/index.ts', 'src/schemas.ts'] });
