export * from './internal/schema';
export { pyFormat, pyInt, pyStr, pyStrip, pyTruthy, pythonJsonDumps, type PyIntResult } from './internal/python';
export * from './internal/inputs';
export {
  JudgeJsonError,
  accuracyFields,
  extractJudgeJson,
  integrityFields,
  questionFields,
  updateFields,
} from './internal/parse';
export * from './metrics';
export * from './internal/files';
export * from './internal/judge';
export * from './internal/leaderboard';
export * from './internal/system';
export * from './internal/baselines/index';
export * from './internal/answer-prompts';
export {
  EVALUATION_PROMPT_FOR_MEMORY_ACCURACY,
  EVALUATION_PROMPT_FOR_MEMORY_INTEGRITY,
  EVALUATION_PROMPT_FOR_QUESTION,
  EVALUATION_PROMPT_FOR_UPDATE_MEMORY,
} from './internal/judge-prompts.generated';
export { memoryRunItems, memoryRunMetrics, memoryRunVariant, runBenchmark, type MemoryVariantOptions } from './runs';
