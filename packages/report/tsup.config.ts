import { evalTsupConfig } from '../../tsup.shared.ts';

export default evalTsupConfig();
