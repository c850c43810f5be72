import { EvalError } from '@eval/core';

/** A model call failed for good (retries exhausted or not retryable). The message never contains the API key. */
export class LlmCallError extends EvalError {
  readonly attempts: number;
  readonly status?: number;
  readonly retryable: boolean;
  /** System error code of a connection failure (`ECONNREFUSED`, `ENOTFOUND`...). */
  readonly errno?: string;
  constructor(
    message: string,
    details: { attempts: number; status?: number; retryable: boolean; errno?: string; cause?: unknown },
  ) {
    super('llm_call_failed', message, { cause: details.cause });
    this.name = 'LlmCallError';
    this.attempts = details.attempts;
    this.status = details.status;
    this.retryable = details.retryable;
    this.errno = details.errno;
  }
}

/** `cache: 'replay'` and the request is not in the cache. */
export class CacheMissError extends EvalError {
  readonly key: string;
  constructor(key: string) {
    super(
      'cache_miss',
      `cache miss in replay mode (request ${key.slice(0, 16)}...): run once with --cache use to record it`,
    );
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

/** Why a run cannot work as configured (every call would fail the same way). */
export type LlmConfigCause =
  | 'missing-key'
  | 'unauthorized'
  | 'forbidden'
  | 'model-not-found'
  | 'connection-refused'
  | 'dns'
  | 'replay-miss';

export const LLM_CONFIG_CAUSES: readonly LlmConfigCause[] = [
  'missing-key',
  'unauthorized',
  'forbidden',
  'model-not-found',
  'connection-refused',
  'dns',
  'replay-miss',
];

const CONFIG_MARKER = Symbol.for('@eval/llm.config-error');

/**
 * The run is misconfigured: no key, a key the endpoint refuses (401/403), an unknown model (404), an endpoint that
 * refuses connections or whose host does not resolve, a replay-mode cache miss. Raised as soon as it is certain
 * (a missing key) or after the first few identical failures (`configErrorThreshold`), never after burning through
 * every item. `cause` says which; `fix` says what to change (the variable, the URL, the flag). Code `llm_config`
 * (`missing_api_key` for a missing key); the CLI exits 2 with `message` and no stack trace.
 */
export class LlmConfigError extends EvalError {
  readonly [CONFIG_MARKER] = true;
  declare readonly cause: LlmConfigCause;
  /** What to change, naming the variable, URL or flag. */
  readonly fix: string;
  /** The failure as the endpoint or the network reported it (key redacted). */
  readonly detail: string;
  /** HTTP status of the failures, when there was one. */
  readonly status?: number;
  /** Identical failures seen before the run stopped. */
  readonly failures: number;

  constructor(
    cause: LlmConfigCause,
    details: { detail: string; fix: string; status?: number; failures?: number; code?: string },
  ) {
    super(details.code ?? 'llm_config', `${CONFIG_TITLES[cause]}: ${details.detail}. Fix: ${details.fix}`);
    Object.defineProperty(this, 'cause', { value: cause, enumerable: false, writable: false, configurable: true });
    this.name = 'LlmConfigError';
    this.fix = details.fix;
    this.detail = details.detail;
    this.status = details.status;
    this.failures = details.failures ?? 1;
  }

  /** Works across duplicated package copies. */
  static override isInstance(error: unknown): error is LlmConfigError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[CONFIG_MARKER] === true;
  }
}

const CONFIG_TITLES: Record<LlmConfigCause, string> = {
  'missing-key': 'no API key',
  unauthorized: 'the endpoint refused the API key (HTTP 401)',
  forbidden: 'the API key may not use this endpoint or model (HTTP 403)',
  'model-not-found': 'unknown model or endpoint path (HTTP 404)',
  'connection-refused': 'the endpoint refused the connection',
  dns: 'the endpoint host name does not resolve',
  'replay-miss': 'replay mode, and the cache does not hold the requests',
};

/** No API key in the environment variable named by `apiKeyEnv` (the variable is named, the value never). */
export class MissingApiKeyError extends LlmConfigError {
  constructor(envVar: string) {
    super('missing-key', {
      code: 'missing_api_key',
      detail: `environment variable ${envVar} is not set`,
      fix: `set ${envVar} to your API key, or name another variable with --api-key-env`,
    });
    this.name = 'MissingApiKeyError';
  }
}

export function isCode(error: unknown, code: string): boolean {
  return EvalError.isInstance(error) && error.code === code;
}
