import { EvalError } from '@eval/core';
import { LLM_CONFIG_ERRORS, type LlmConfigCause } from './internal/config-errors';

/**
 * A model call failed for good (retries exhausted or not retryable). The message never contains the API key. When the
 * failure is a configuration problem (401, 403, 404, nothing listening), `config` says which and what to change.
 */
export class LlmCallError extends EvalError {
  readonly attempts: number;
  readonly status?: number;
  readonly retryable: boolean;
  /** System error code of a connection failure (`ECONNREFUSED`, `ENOTFOUND`...). */
  readonly errno?: string;
  /** Set by the runtime when the failure is a configuration problem: its cause and fix (see `LLM_CONFIG_ERRORS`). */
  config?: { cause: LlmConfigCause; fix: string };
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
  /** A replay miss is a configuration problem: its cause and fix. */
  readonly config = {
    cause: 'replay-miss' as const,
    fix: LLM_CONFIG_ERRORS['replay-miss'].fix({ apiKeyEnv: '', endpoint: '', model: '' }),
  };
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

export type { LlmConfigCause } from './internal/config-errors';
export { LLM_CONFIG_CAUSES } from './internal/config-errors';

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
    super(details.code ?? 'llm_config', `${LLM_CONFIG_ERRORS[cause].title}: ${details.detail}. Fix: ${details.fix}`);
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

/** No API key in the environment variable named by `apiKeyEnv` (the variable is named, the value never). */
export class MissingApiKeyError extends LlmConfigError {
  constructor(envVar: string) {
    super('missing-key', {
      code: 'missing_api_key',
      detail: `environment variable ${envVar} is not set`,
      fix: LLM_CONFIG_ERRORS['missing-key'].fix({ apiKeyEnv: envVar, endpoint: '', model: '' }),
    });
    this.name = 'MissingApiKeyError';
  }
}

export function isCode(error: unknown, code: string): boolean {
  return EvalError.isInstance(error) && error.code === code;
}
