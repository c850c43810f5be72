export { METHODS, JUDGE_METHODS, isJudgeMethod, methodRoles } from './internal/methods';
export type { JudgeMethod, MethodInfo, TemplateRole } from './internal/methods';
export { SLOTS, NUMERICAL_SLOT_VALUES, DEFAULT_SCHEMA, slotSchema } from './internal/slots';
export type { SlotSchema } from './internal/slots';
export {
  checkRecordOrder,
  groupByDialogue,
  readTurnRecords,
  recordFromJson,
  recordFromPy,
  recordToJson,
  serializeTurnRecords,
  splitFlag,
} from './internal/records';
export type { ReadRecordsOptions, SlotValues, TurnRecord, TurnRecordJson } from './internal/records';
export { TEMPLATE_FILES, TEMPLATE_FIELDS, TEMPLATE_RESOURCE, checkTemplate, loadTemplates } from './internal/templates';
export type { LoadTemplatesOptions, PromptTemplate } from './internal/templates';
export {
  REFERENCE_MODEL,
  REFERENCE_SYSTEM_MESSAGE,
  REFERENCE_TEMPERATURE,
  SKIPPED_ACCURACY_OUTPUT,
  historyObject,
  judgeMessages,
  promptFields,
  renderPrompt,
} from './internal/render';
export { extractJsonFromString, parseAccuracyOutput, parseCompletenessOutput, parseSingleStepOutput } from './internal/parse';
export type {
  AccuracyParse,
  CompletenessParse,
  ParseFailure,
  ParseFailureOutcome,
  ParsedVia,
  SingleStepParse,
} from './internal/parse';
export { integrateSingleStep, integrateTwoStep } from './internal/integrate';
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
} from './internal/integrate';
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
} from './internal/evaluate';
export type { EvaluateOptions, EvaluationSummary, MethodEvaluation, MethodOutputs } from './internal/evaluate';
export { readOutputEntries, serializeOutputEntries, verifyPrompts } from './internal/recorded';
export type { OutputEntry, PromptCheck, PromptMismatch } from './internal/recorded';
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
} from './internal/convert';
export type {
  ConversionResult,
  ConversionWarnings,
  RawPrediction,
  SourceDialogue,
  SourceTurn,
  StatePredictions,
} from './internal/convert';
export { humanCheck, readHumanJudgements } from './internal/meta';
export type { Confusion, HumanCheckResult, HumanCheckRow, HumanJudgements, MetaJudge } from './internal/meta';
export { isConfigurationError, runJudge } from './internal/run';
export type { CallFailure, CallStage, JudgeRun, RunJudgeOptions } from './internal/run';
export { importRecordedOutputs } from './internal/import';
export type { ImportFileReport, ImportRecordedOptions, ImportResult } from './internal/import';
export { pythonFormat } from './internal/python';
export { evalPythonLiteral, PythonEvalError } from './internal/python';
export { parseJsonPy, stringifyJson } from './internal/json';
export { PyDict, PySet, PyTuple, PyOpaque, pythonRepr, toPlain } from './internal/python';
export type { PyValue } from './internal/python';
export { beliefStateFromMetadata, dialoguesFromMultiwoz21 } from './internal/convert';
export { loadMultiwozDialogues } from './internal/multiwoz-source';
export type { MultiwozSourceOptions } from './internal/multiwoz-source';
export { llmJudgeRunItems, llmJudgeRunMetrics, llmJudgeRunVariant, runBenchmark } from './runs';
export type { LlmJudgeRunItemsOptions, LlmJudgeTurnSource } from './runs';
