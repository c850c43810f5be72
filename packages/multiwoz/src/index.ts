// The evaluator (mwzeval's `Evaluator.evaluate`) and reading its inputs
export {
  MultiwozEvaluator,
  evaluateMultiwozFile,
  mwzevalResults,
  type DialogueResult,
  type EvaluateFileOptions,
  type EvaluatorOptions,
  type MultiwozMetrics,
  type MultiwozReport,
  type MwzevalResults,
} from './metrics/evaluator';
export { parsePredictions, readMultiwozPredictions, type PredictionTurn, type Predictions } from './internal/input';
export {
  MULTIWOZ_RESOURCE,
  multiwozDataFrom,
  readMultiwozData,
  type MultiwozData,
  type ReadDataOptions,
} from './internal/data';
export type { RawDatabase } from './internal/database';
export type { BeliefState, NormalizationVersion } from './internal/normalize';
export type { DomainOutcome, Goal, SuccessResult } from './metrics/success';
export type { DstResult } from './metrics/dst';
export { prepareMultiwozResource } from './internal/prepare';

// mwzeval's output, intervals and the comparison of two systems
export {
  bootstrapMultiwoz,
  compareMultiwoz,
  formatMwzevalJson,
  type MetricComparison,
  type MultiwozComparison,
  type MultiwozIntervals,
} from './internal/report';

// Building blocks, each at parity with the library mwzeval uses
export { normalizeResponse } from './internal/normalize';
export { mosesDetokenize, mosesTokenize } from './internal/moses/moses';
export { partialRatio } from './internal/fuzzy';
export { bleuFromStats, corpusBleu, tokenize13a, type BleuStats } from './metrics/bleu';
export { richness, type RichnessResult } from './metrics/richness';

// The run record
export {
  MULTIWOZ_BENCHMARK,
  multiwozRunItems,
  multiwozRunMetrics,
  multiwozRunOptions,
  multiwozRunResource,
  multiwozVariant,
  recomputeMultiwoz as recompute,
  runBenchmark,
  type MultiwozRunSettings,
} from './runs';
