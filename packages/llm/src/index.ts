export {
  createLlm,
  DEFAULT_COMPLETION_TOKENS,
  DEFAULT_CONFIG_ERROR_THRESHOLD,
  DEFAULT_UPPER_COMPLETION_TOKENS,
  jobKey,
} from './llm';
export type {
  CallCountEstimate,
  DryRunEstimate,
  DryRunOptions,
  DryRunReport,
  JobContext,
  JobFailure,
  JobResult,
  Llm,
  LlmOptions,
  ResolvedOptions,
  RunJobsResult,
  RunJobsSpec,
  RunStop,
  RunSummary,
  UsageSummary,
} from './llm';
export { catchInterrupts, formatSummary } from './summary';
export type { CatchInterruptsOptions, FormatSummaryOptions } from './summary';
export { chatJson, extractJson, fencedBlocks, JsonExtractError } from './json';
export type { ChatJsonOptions, ChatJsonResult, JsonExtract } from './json';
export { CACHE_MODES, DiskCache } from './cache';
export type { CacheMode, CachedResponse } from './cache';
export { buildRequest, requestKey, wireBody } from './request';
export type { CanonicalRequest, KeyExtras, MaxTokensParam, WireResponseFormat } from './request';
export {
  BATCH_DISCOUNT,
  costOf,
  DEFAULT_PRICES,
  DEFAULT_PRICES_DATE,
  priceOf,
  priceTableSchema,
  readPriceTable,
} from './prices';
export type { ModelPrice, PriceTable } from './prices';
export {
  BudgetExceededError,
  CacheMissError,
  LLM_CONFIG_CAUSES,
  LlmCallError,
  LlmConfigError,
  MissingApiKeyError,
  RequestDeferredError,
} from './errors';
export type { LlmConfigCause } from './errors';
export { AdaptiveLimiter } from './limiter';
export { backoffDelay, redact, retryAfterMs } from './transport';
export type { BatchOptions, BatchReport } from './batch';
export { countPromptTokens } from './tokens';
export { progressLine } from './progress';
