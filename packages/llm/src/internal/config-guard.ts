import { isCode, LlmCallError, LlmConfigError, MissingApiKeyError } from '../errors';
import { type ConfigContext, LLM_CONFIG_ERRORS, type LlmConfigCause } from './config-errors';
import { errnoOf, QuotaExhaustedError, redact, UNREACHABLE_ERRNOS } from './transport';

/** Before the endpoint has answered once, a call waits at most this long for the call before it. */
const FIRST_CONTACT_WAIT_MS = 5000;

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** The configuration cause behind a failed call, if it is one. */
function configCauseOf(error: unknown): { cause: LlmConfigCause; status?: number } | undefined {
  if (LlmConfigError.isInstance(error)) return { cause: error.cause, status: error.status };
  if (isCode(error, 'cache_miss')) return { cause: 'replay-miss' };
  if (error instanceof LlmCallError) {
    if (error.status === 401) return { cause: 'unauthorized', status: 401 };
    if (error.status === 403) return { cause: 'forbidden', status: 403 };
    if (error.status === 404) return { cause: 'model-not-found', status: 404 };
    if (!error.retryable && error.errno === 'ECONNREFUSED') return { cause: 'connection-refused' };
    if (!error.retryable && error.errno && UNREACHABLE_ERRNOS.has(error.errno)) return { cause: 'dns' };
  }
  return undefined;
}

/**
 * Stops a misconfigured run early. Identical configuration failures in a row (401, 403, 404, nothing listening,
 * replay misses; any success resets the count) stop the runtime after `threshold`; a missing key or a quota no wait
 * restores stops it at once. Until the endpoint has answered once, calls go one at a time (`throughGate`), so that a
 * wrong key, model or URL costs a few requests, not one per item in flight.
 */
export class ConfigGuard {
  /** The error that stopped the runtime. */
  stopped: LlmConfigError | undefined;
  private run: { cause?: LlmConfigCause; count: number; status?: number; detail: string } = { count: 0, detail: '' };
  private reached = false;
  private gateTail: Promise<void> = Promise.resolve();

  constructor(
    private readonly threshold: number,
    private readonly context: () => ConfigContext,
    private readonly secret: () => string | undefined,
    private readonly onStop: (error: LlmConfigError) => void,
  ) {}

  fix(cause: LlmConfigCause): string {
    return LLM_CONFIG_ERRORS[cause].fix(this.context());
  }

  noteSuccess(): void {
    if (this.run.count > 0) this.run = { count: 0, detail: '' };
  }

  /** Counts a failed call; identical configuration failures in a row stop the runtime. */
  noteFailure(error: unknown): void {
    if (error instanceof LlmCallError && !error.config) {
      const c = configCauseOf(error);
      if (c) error.config = { cause: c.cause, fix: this.fix(c.cause) };
    }
    if (this.stopped) return;
    if (error instanceof MissingApiKeyError) {
      this.stop(error);
      return;
    }
    if (error instanceof QuotaExhaustedError) {
      this.stop(
        new LlmConfigError(error.quota, {
          detail: redact(error.message, this.secret()),
          fix: this.fix(error.quota),
          status: error.status,
        }),
      );
      return;
    }
    const c = configCauseOf(error);
    if (!c) return;
    const detail = redact(errorMessage(error), this.secret());
    if (this.run.cause === c.cause) this.run = { ...this.run, count: this.run.count + 1, detail };
    else this.run = { cause: c.cause, count: 1, status: c.status, detail };
    if (this.run.count >= this.threshold) {
      this.stop(
        new LlmConfigError(c.cause, {
          detail: `${this.run.count} calls in a row failed: ${detail}`,
          fix: this.fix(c.cause),
          status: c.status,
          failures: this.run.count,
        }),
      );
    }
  }

  /** A Batch API failure (files, batches) that means the configuration is wrong, as an `LlmConfigError`. */
  batchError(error: unknown): LlmConfigError | undefined {
    if (LlmConfigError.isInstance(error)) return error;
    const status = (error as { status?: unknown })?.status;
    const errno = errnoOf(error);
    const cause: LlmConfigCause | undefined =
      status === 401
        ? 'unauthorized'
        : status === 403
          ? 'forbidden'
          : status === 404
            ? 'model-not-found'
            : errno === 'ECONNREFUSED'
              ? 'connection-refused'
              : errno && UNREACHABLE_ERRNOS.has(errno)
                ? 'dns'
                : undefined;
    if (!cause) return undefined;
    return new LlmConfigError(cause, {
      detail: `Batch API: ${redact(errorMessage(error), this.secret())}`,
      fix: this.fix(cause),
      status: typeof status === 'number' ? status : undefined,
    });
  }

  stop(error: LlmConfigError): void {
    this.stopped = error;
    this.onStop(error);
  }

  /**
   * Until the endpoint has answered one call, calls go one at a time; a call waits for the one before it at most
   * FIRST_CONTACT_WAIT_MS (an endpoint that hangs does not serialise the run).
   */
  async throughGate<T>(send: () => Promise<T>): Promise<T> {
    if (this.reached) return send();
    const previous = this.gateTail;
    let release!: () => void;
    this.gateTail = new Promise<void>((r) => (release = r));
    try {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([previous, new Promise<void>((r) => (timer = setTimeout(r, FIRST_CONTACT_WAIT_MS)))]);
      clearTimeout(timer);
      if (this.stopped) throw this.stopped;
      if (this.reached) {
        // The call before answered: the calls queued behind this one go now too, all at once (not one by one).
        release();
        return await send();
      }
      const out = await send();
      this.reached = true;
      release();
      return out;
    } catch (error) {
      // Let the caller count this failure (it may stop the runtime) before the next call is let through.
      setImmediate(release);
      throw error;
    }
  }
}
