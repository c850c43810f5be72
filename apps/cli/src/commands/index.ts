import type { Command } from 'commander';
import { registerAgreement } from './agreement';
import { registerCgt } from './cgt';
import { registerCompare } from './compare';
import { registerDemo } from './demo';
import { registerLlmJudge } from './llm-judge';
import { registerMemory } from './memory';
import { registerMultiwoz } from './multiwoz';
import { registerReport } from './report';
import { registerResources } from './resources';
import { registerRuns } from './runs';
import { registerScorekeeping } from './scorekeeping';

/**
 * Every subcommand registers itself here, under the name it registers. A registrar only declares arguments and
 * options; the code that imports a metric package lives in `../actions/*` and is loaded with `import()` when the
 * subcommand runs, so `dialeval --help` imports no metric package.
 */
export const commands: Readonly<Record<string, (program: Command) => void>> = {
  demo: registerDemo,
  resources: registerResources,
  cgt: registerCgt,
  memory: registerMemory,
  scorekeeping: registerScorekeeping,
  'llm-judge': registerLlmJudge,
  multiwoz: registerMultiwoz,
  compare: registerCompare,
  agreement: registerAgreement,
  runs: registerRuns,
  report: registerReport,
};
