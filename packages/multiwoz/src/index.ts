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
} from './evaluator';
export {
  DATA_FILES,
  DialogueTable,
  MULTIWOZ_RESOURCE,
  loadMultiwozData,
  multiwozDataFrom,
  requiredDataFiles,
  resolveMultiwozDataDir,
  type LoadDataOptions,
  type MultiwozData,
} from './data';
export {
  domainsFromSlotNames,
  hasDomainPredictions,
  hasStatePredictions,
  parsePredictions,
  type PredictionTurn,
  type Predictions,
} from './input';
export {
  CANONICAL_SLOT_NAMES,
  foodToCanonical,
  nameToCanonical,
  normalizeResponse,
  normalizeSlotName,
  normalizeState,
  normalizeStateSlotName,
  normalizeStateSlotValue,
  timeStrToMinutes,
  timeToCanonical,
  typeToCanonical,
  type BeliefState,
  type NormalizationVersion,
  type NormalizeResponseOptions,
} from './normalize';
export { mosesDetokenize, mosesTokenize } from './moses/moses';
export {
  charProfile,
  levenshteinRatio,
  matchingBlocks,
  partialRatio,
  partialRatioAtLeast,
  partialRatioReaches,
  type CharProfile,
  type MatchingBlock,
} from './fuzzy';
export { bleuFromStats, corpusBleu, segmentBleuStats, tokenize13a, type BleuStats } from './bleu';
export { msttr, richness, richnessTokenize, type RichnessResult } from './richness';
export {
  DB_DOMAINS,
  FUZZY_KEYS,
  VenueDatabase,
  type DbDomain,
  type RawDatabase,
  type VenueDatabaseOptions,
} from './database';
export {
  REQUESTABLE_SLOTS,
  aggregateSuccess,
  dialogSuccess,
  estimateActiveDomains,
  type DialogSuccess,
  type DomainOutcome,
  type Goal,
  type SuccessResult,
} from './success';
export { DST_MISSING_STATES, dstFromCounts, dstTurnCounts, type DstCounts, type DstResult } from './dst';
export {
  bootstrapMultiwoz,
  compareMultiwoz,
  formatMwzevalJson,
  type MetricComparison,
  type MultiwozComparison,
  type MultiwozIntervals,
} from './report';
export {
  SOURCE_FILES,
  delexicalize22,
  goalFromMultiwoz21,
  goalsFromMultiwoz21,
  parseState22,
  prepareMultiwozResource,
  referencesFromMultiwoz22,
  type DialogActs22,
  type Dialogue22,
  type References22,
} from './prepare';
export { PythonValueError } from '@eval/core/python';
export {
  MULTIWOZ_BENCHMARK,
  bleuMetricName,
  multiwozRunItem,
  multiwozRunItems,
  multiwozRunMetrics,
  multiwozVariant,
  prepareMultiwoz,
  recomputeMultiwoz,
  runBenchmark,
} from './runs';
