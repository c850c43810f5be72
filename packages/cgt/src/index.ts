// Reading recorded answers: a setting folder, a folder of settings, or one group file.
export {
  type CgtGroup,
  type CgtRow,
  type CgtSetting,
  type InvalidPredictionMode,
  type ReadGroupOptions,
  readGroupFile,
  readPredictions,
  readSettingDir,
} from './data';
export { type ParsedPrediction, type Weights, normalizeKey, parseGoldList, parsePrediction } from './normalize';
// The metrics: accumulative P/R/F1 and cumulative Dice-Sørensen, per row and per group.
export {
  type DscMode,
  type DscRow,
  type MeanMode,
  type Prf1,
  type Prf1Row,
  type Prf1Variant,
  type Series,
  accumulativePrf1,
  cumulativeDsc,
  prf1,
} from './metrics';
// Evaluating a group, a setting, or a predictions folder (with the gold replayed from CGA annotations).
export {
  type CgtEvaluation,
  type CgtGoldOptions,
  type CgtOptions,
  type EvaluateCgtOptions,
  type GroupResult,
  type PyNumber,
  type SettingResult,
  evaluateCgt,
  evaluateGroup,
  evaluateSetting,
} from './evaluate';
// The gold common ground replayed from CGA annotation CSVs.
export {
  type CgaVariant,
  type CommonGroundHistory,
  type CommonGroundSnapshot,
  CommonGround,
  loadCgaHistory,
  replayCga,
} from './common-ground';
// Output: the reference's JSON layout and its printout.
export { type ReportOptions, REFERENCE, formatReferenceOutput, formatReport } from './report';
// The run record.
export {
  type CgtRunRecord,
  CGT_BENCHMARK,
  cgtRun,
  cgtRunItems,
  cgtRunMetrics,
  recompute,
  runBenchmark,
} from './runs';
