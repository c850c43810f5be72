import type { Command } from 'commander';
import { registerDemo } from './demo';
import { registerResources } from './resources';

/**
 * Every subcommand registers itself here. A registrar only declares arguments and options; the code that
 * imports a metric package lives in `../actions/*` and is loaded with `import()` when the subcommand runs,
 * so `dialeval --help` imports no metric package.
 */
export const commands: Array<(program: Command) => void> = [registerDemo, registerResources];
