export { METHODS, JUDGE_METHODS, isJudgeMethod, methodRoles } from './methods';
export type { JudgeMethod, MethodInfo, TemplateRole } from './methods';
export { SLOTS, NUMERICAL_SLOT_VALUES, DEFAULT_SCHEMA, slotSchema } from './slots';
export type { SlotSchema } from './slots';
export {
  checkRecordOrder,
  groupByDialogue,
  readTurnRecords,
  recordFromJson,
  recordFromPy,
  recordToJson,
  serializeTurnRecords,
  splitFlag,
} from './records';
export type { ReadRecordsOptions, SlotValues, TurnRecord, TurnRecordJson } from './records';
export { TEMPLATE_FILES, TEMPLATE_FIELDS, TEMPLATE_RESOURCE, checkTemplate, loadTemplates } from './templates';
export type { LoadTemplatesOptions, PromptTemplate } from './templates';
export {
  REFERENCE_MODEL,
  REFERENCE_SYSTEM_MESSAGE,
  REFERENCE_TEMPERATURE,
  SKIPPED_ACCURACY_OUTPUT,
  historyObject,
  judgeMessages,
  promptFields,
  renderPrompt,
} from './render';
export { extractJsonFromString, parseAccuracyOutput, parseCompletenessOutput, parseSingleStepOutput } from './parse';
export type {
  AccuracyParse,
  CompletenessParse,
  ParseFailure,
  ParseFailureOutcome,
  ParsedVia,
  SingleStepParse,
} from './parse';
export { integrateSingleStep, integrateTwoStep } from './integrate';
export type {
  FailureStage,
  IntegrateOptions,
  IntegrationResult,
  OnParseFailure,
  SingleStepOutputs,
  TrackedSets,
  TurnFailure,
  TurnJudgement,
  TwoStepOutputs,
} from './integrate';
export {
  computeMetrics,
  judgeTurns,
  percent,
  ruleJudgements,
  ruleMetrics,
  ruleTurnLabel,
  stateMatches,
} from './metrics';
export type { JudgedTurn, JudgeMetrics, MetricOptions, RuleJoint, RuleMetrics, RuleNormalization } from './metrics';
export {
  evaluateIntegration,
  evaluateOutputFiles,
  evaluateOutputs,
  evaluationToJson,
  readOutputFiles,
} from './evaluate';
export type { EvaluateOptions, EvaluationSummary, MethodEvaluation, MethodOutputs } from './evaluate';
export { readOutputEntries, serializeOutputEntries, verifyPrompts } from './recorded';
export type { OutputEntry, PromptCheck, PromptMismatch } from './recorded';
export {
  convertRawPredictions,
  convertStatePredictions,
  dialogueKey,
  dialoguesFromRecords,
  dialoguesFromTrade,
  fixGeneralLabelError,
  fixSlotValue,
  fixTimeLabel,
  parseRawPredictions,
  readDialogueSource,
  tradeSlotName,
  updateState,
} from './convert';
export type {
  ConversionResult,
  ConversionWarnings,
  RawPrediction,
  SourceDialogue,
  SourceTurn,
  StatePredictions,
} from './convert';
export { humanCheck, readHumanJudgements } from './meta';
export type { Confusion, HumanCheckResult, HumanCheckRow, HumanJudgements, MetaJudge } from './meta';
export { isConfigurationError, runJudge } from './run';
export type { CallFailure, CallStage, JudgeRun, RunJudgeOptions } from './run';
export { importRecordedOutputs } from './import';
export type { ImportFileReport, ImportRecordedOptions, ImportResult } from './import';
export { pythonFormat } from './python';
export { evalPythonLiteral, PythonEvalError } from './python';
export { parseJsonPy, stringifyJson } from './json';
export { PyDict, PySet, PyTuple, PyOpaque, pythonRepr, toPlain } from './python';
export type { PyValue } from './python';
export { beliefStateFromMetadata, dialoguesFromMultiwoz21 } from './convert';
export { loadMultiwozDialogues } from './multiwoz-source';
export type { MultiwozSourceOptions } from './multiwoz-source';
export { llmJudgeRunItems, llmJudgeRunMetrics, llmJudgeRunVariant, runBenchmark } from './runs';
export type { LlmJudgeRunItemsOptions, LlmJudgeTurnSource } from './runs';
