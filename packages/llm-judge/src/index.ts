// The run record: the benchmark's name, its descriptor for `compare`/`runs`/`report`, items and metrics of a run
export {
  LLM_JUDGE_BENCHMARK,
  llmJudgeRunItems,
  llmJudgeRunMetrics,
  llmJudgeRunSetup,
  recompute,
  runBenchmark,
} from './runs';
export type { LlmJudgeRunItemsOptions, LlmJudgeTurnSource } from './runs';

// The methods and their templates
export { JUDGE_METHODS, METHODS, isJudgeMethod, methodRoles } from './internal/methods';
export type { JudgeMethod, MethodInfo, TemplateRole } from './internal/methods';
export { loadTemplates } from './internal/templates';
export type { LoadTemplatesOptions, PromptTemplate } from './internal/templates';

// Reading inputs: per-turn records, judge outputs
export { readJudgeInput } from './internal/workflow';
export type { JudgeInput, JudgeInputSource } from './internal/workflow';
export { readTurnRecords, recordFromJson, serializeTurnRecords } from './internal/records';
export type { SlotValues, TurnRecord, TurnRecordJson } from './internal/records';
export { readOutputEntries } from './internal/recorded';
export type { OutputEntry } from './internal/recorded';

// The metrics
export { evaluateOutputFiles, evaluateOutputs, evaluationToJson, readOutputFiles } from './internal/evaluate';
export type { EvaluateOptions, EvaluationSummary, MethodEvaluation, MethodOutputs } from './internal/evaluate';
export { ruleMetrics } from './metrics';
export type { JudgeMetrics, RuleMetrics } from './metrics';

// Judging with an LLM, importing recorded runs, reporting
export { runJudge } from './internal/run';
export type { CallFailure, JudgeRun, RunJudgeOptions } from './internal/run';
export {
  findJudgeOutputs,
  judgeReportJson,
  judgeResultJson,
  judgeToDirectory,
  reportJudgeOutputs,
} from './internal/workflow';
export type {
  JudgeDirectoryOptions,
  JudgeDirectoryResult,
  JudgedDirectory,
  JudgeOutputSource,
  JudgeReport,
  JudgeReportOptions,
  JudgeRunRecord,
} from './internal/workflow';
export { importRecordedOutputs } from './internal/import';
export type { ImportFileReport, ImportRecordedOptions, ImportResult } from './internal/import';
export type { HumanCheckResult, HumanCheckRow } from './internal/meta';
