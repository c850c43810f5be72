export { createLlm } from './llm';
export {
  DEFAULT_COMPLETION_TOKENS,
  DEFAULT_CONFIG_ERROR_THRESHOLD,
  DEFAULT_UPPER_COMPLETION_TOKENS,
  jobKey,
} from './types';
export type {
  CallCountEstimate,
  DryRunEstimate,
  DryRunOptions,
  DryRunReport,
  DryRunTime,
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
} from './types';
export { catchInterrupts, formatSummary } from './summary';
export type { CatchInterruptsOptions, FormatSummaryOptions } from './summary';
export { chatJson, extractJson, fencedBlocks, JsonExtractError } from './json';
export type { ChatJsonOptions, ChatJsonResult, JsonExtract } from './json';
export { CACHE_MODES, DiskCache } from './cache';
export type { CacheMode, CachedResponse } from './cache';
export { buildRequest, requestKey, wireBody } from './request';
export type { CanonicalRequest, KeyExtras, MaxTokensParam } from './request';
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
  LlmCallError,
  LlmConfigError,
  MissingApiKeyError,
  RequestDeferredError,
} from './errors';
export { LLM_CONFIG_CAUSES, LLM_CONFIG_ERRORS, quotaCause } from './internal/config-errors';
export type { ConfigContext, LlmConfigCause, LlmConfigErrorInfo } from './internal/config-errors';
export { backoffDelay, redact } from './internal/transport';
export { parseDuration, readRateLimits, retryAfterMs } from './internal/rate-headers';
export type { RateLimitInfo } from './internal/rate-headers';
export type { PacingReport } from './internal/pacer';
export { DEFAULT_QUOTA } from './internal/dry-run';
export type { BatchOptions, BatchReport } from './batch';
export { countPromptTokens } from './tokens';
export { progressLine } from './progress';
