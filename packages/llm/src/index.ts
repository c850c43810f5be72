export { createLlm } from './llm';
export type {
  DryRunOptions,
  DryRunReport,
  JobContext,
  JobResult,
  Llm,
  LlmOptions,
  ResolvedOptions,
  RunJobsResult,
  RunJobsSpec,
  RunSummary,
  UsageSummary,
} from './llm';
export { chatJson, extractJson, fencedBlocks, JsonExtractError } from './json';
export type { ChatJsonOptions, ChatJsonResult, JsonExtract } from './json';
export { CACHE_MODES, DiskCache } from './cache';
export type { CacheMode, CachedResponse } from './cache';
export { buildRequest, requestKey, wireBody } from './request';
export type { CanonicalRequest, MaxTokensParam, WireResponseFormat } from './request';
export { BATCH_DISCOUNT, costOf, DEFAULT_PRICES, DEFAULT_PRICES_DATE, priceOf, priceTableSchema, readPriceTable } from './prices';
export type { ModelPrice, PriceTable } from './prices';
export { BudgetExceededError, CacheMissError, LlmCallError, MissingApiKeyError, RequestDeferredError } from './errors';
export { AdaptiveLimiter } from './limiter';
export { backoffDelay, redact, retryAfterMs } from './transport';
export type { BatchOptions, BatchReport } from './batch';
export { countPromptTokens } from './tokens';
export { progressLine } from './progress';
