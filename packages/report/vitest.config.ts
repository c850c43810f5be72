import { evalVitestConfig } from '../../vitest.shared.ts';

export default evalVitestConfig();
