import { EvalError } from '@eval/core';

/** A model call failed for good (retries exhausted or not retryable). The message never contains the API key. */
export class LlmCallError extends EvalError {
  readonly attempts: number;
  readonly status?: number;
  readonly retryable: boolean;
  constructor(message: string, details: { attempts: number; status?: number; retryable: boolean; cause?: unknown }) {
    super('llm_call_failed', message, { cause: details.cause });
    this.name = 'LlmCallError';
    this.attempts = details.attempts;
    this.status = details.status;
    this.retryable = details.retryable;
  }
}

/** `cache: 'replay'` and the request is not in the cache. */
export class CacheMissError extends EvalError {
  readonly key: string;
  constructor(key: string) {
    super('cache_miss', `cache miss in replay mode (request ${key.slice(0, 16)}...): run once with --cache use to record it`);
    this.name = 'CacheMissError';
    this.key = key;
  }
}

/** The call would take the run past `maxCost`; the run stops cleanly, the item is left for a later run. */
export class BudgetExceededError extends EvalError {
  constructor(message: string) {
    super('budget_exceeded', message);
    this.name = 'BudgetExceededError';
  }
}

/**
 * Dry run (or the collecting phase of batch mode): the request was recorded instead of sent.
 * The item cannot go further; `runJobs` counts it as planned, not as failed.
 */
export class RequestDeferredError extends EvalError {
  readonly key: string;
  constructor(key: string, reason: 'dry-run' | 'batch') {
    super('request_deferred', `request ${key.slice(0, 16)}... recorded, not sent (${reason})`);
    this.name = 'RequestDeferredError';
    this.key = key;
  }
}

/** No API key in the environment variable named by `apiKeyEnv` (the variable is named, the value never). */
export class MissingApiKeyError extends EvalError {
  constructor(envVar: string) {
    super('missing_api_key', `no API key: environment variable ${envVar} is not set (choose another with --api-key-env)`);
    this.name = 'MissingApiKeyError';
  }
}

export function isCode(error: unknown, code: string): boolean {
  return EvalError.isInstance(error) && error.code === code;
}
