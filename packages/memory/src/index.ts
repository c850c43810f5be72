export * from './schema';
export { pyFormat, pyInt, pyStr, pyStrip, pyTruthy, pythonJsonDumps, type PyIntResult } from './python';
export * from './inputs';
export {
  JudgeJsonError,
  accuracyFields,
  extractJudgeJson,
  integrityFields,
  questionFields,
  updateFields,
} from './parse';
export * from './aggregate';
export * from './files';
export * from './judge';
export * from './leaderboard';
export * from './system';
export * from './baselines/index';
export * from './answer-prompts';
export {
  EVALUATION_PROMPT_FOR_MEMORY_ACCURACY,
  EVALUATION_PROMPT_FOR_MEMORY_INTEGRITY,
  EVALUATION_PROMPT_FOR_QUESTION,
  EVALUATION_PROMPT_FOR_UPDATE_MEMORY,
} from './judge-prompts.generated';
export { memoryRunItems, memoryRunMetrics, memoryRunVariant, runBenchmark, type MemoryVariantOptions } from './runs';
