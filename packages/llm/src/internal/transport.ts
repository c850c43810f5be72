import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatUsage, FinishReason } from '@eval/core';
import type { CachedResponse } from '../cache';
import { LlmCallError } from '../errors';
import { onAbort } from './abort';
import { quotaCause, type QuotaCause } from './config-errors';
import type { Pacer, PacerTicket } from './pacer';
import { readRateLimits, retryAfterMs } from './rate-headers';

export { retryAfterMs };

export interface RetryPolicy {
  /** Attempts per call, first one included (default 5); rate-limit answers (429) do not use any up. */
  maxAttempts: number;
  /** Timeout of one attempt in ms (default 120,000). */
  timeoutMs: number;
  /** First backoff delay in ms (default 500); doubles per attempt, with jitter. */
  backoffBaseMs: number;
  /** Longest wait between attempts in ms, retry-after included (default 60,000). */
  backoffMaxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  timeoutMs: 120_000,
  backoffBaseMs: 500,
  backoffMaxMs: 60_000,
};

export interface AttemptInfo {
  attempt: number;
  reason: string;
  status?: number;
  delayMs: number;
  /** A rate-limit answer: waited for, not counted as an attempt. */
  rateLimited?: boolean;
}

/** Hides the key: any occurrence of it (or of a 12-character piece of it) becomes `[redacted]`. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  let out = text.split(secret).join('[redacted]');
  if (secret.length > 12) {
    for (let i = 0; i + 12 <= secret.length; i++) {
      const piece = secret.slice(i, i + 12);
      if (out.includes(piece)) out = out.split(piece).join('[redacted]');
    }
  }
  return out;
}

/** Exponential backoff with jitter: uniform in [d/2, d] where d = base * 2^(attempt-1), capped. */
export function backoffDelay(
  attempt: number,
  policy: Pick<RetryPolicy, 'backoffBaseMs' | 'backoffMaxMs'>,
  random = Math.random,
): number {
  const d = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** (attempt - 1));
  return Math.round(d / 2 + random() * (d / 2));
}

interface Classified {
  retryable: boolean;
  /** 429, or 503 with retry-after: wait and retry without using up an attempt. */
  rateLimited: boolean;
  /** A quota no wait restores (`insufficient_quota`, a daily limit). */
  quota?: QuotaCause;
  status?: number;
  reason: string;
  retryAfter?: number;
  headers?: unknown;
  /** System error code of a connection failure (`ECONNREFUSED`, `ENOTFOUND`...). */
  errno?: string;
}

/** Connection failures that mean the endpoint is not there at all (wrong URL), not a passing fault. */
export const UNREACHABLE_ERRNOS: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_NODATA',
]);

/** The first system error code (`ECONNREFUSED`...) in an error's cause chain. */
export function errnoOf(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function classify(error: unknown): Classified {
  if (error instanceof APIConnectionTimeoutError) return { retryable: true, rateLimited: false, reason: 'timeout' };
  if (error instanceof APIUserAbortError) return { retryable: false, rateLimited: false, reason: 'aborted' };
  if (error instanceof APIConnectionError) {
    const errno = errnoOf(error.cause);
    const cause = errno ?? (error.cause as Error | undefined)?.message;
    return { retryable: true, rateLimited: false, reason: `connection error${cause ? ` (${cause})` : ''}`, errno };
  }
  if (error instanceof APIError) {
    const status = error.status;
    const headers = error.headers;
    const retryAfter = retryAfterMs(headers);
    const msg = (error.message || '').slice(0, 300);
    const reason = `HTTP ${status ?? '?'}: ${msg}`;
    if (status === 429) {
      const quota = quotaCause({ code: error.code, type: error.type, message: error.message });
      if (quota) return { retryable: false, rateLimited: false, quota, status, reason, headers };
      return { retryable: true, rateLimited: true, status, reason, retryAfter, headers };
    }
    if (status === 503 && retryAfter !== undefined)
      return { retryable: true, rateLimited: true, status, reason, retryAfter, headers };
    if (status !== undefined && (status >= 500 || status === 408 || status === 409))
      return { retryable: true, rateLimited: false, status, reason, retryAfter };
    return { retryable: false, rateLimited: false, status, reason };
  }
  if (error instanceof MalformedResponseError) return { retryable: true, rateLimited: false, reason: error.message };
  // A body cut in transit or not JSON surfaces from the SDK as a TypeError or SyntaxError: transient.
  const message = (error as Error)?.message ?? String(error);
  return { retryable: true, rateLimited: false, reason: `invalid response (${message.slice(0, 200)})` };
}

class MalformedResponseError extends Error {}

function finishReasonOf(raw: unknown): FinishReason {
  switch (raw) {
    case 'stop':
    case 'length':
    case 'content_filter':
    case 'tool_calls':
      return raw;
    default:
      return 'other';
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A quota that no wait restores: the run stops with it (see `LlmConfigError`). */
export class QuotaExhaustedError extends Error {
  readonly quota: QuotaCause;
  readonly status?: number;
  constructor(quota: QuotaCause, reason: string, status?: number) {
    super(reason);
    this.name = 'QuotaExhaustedError';
    this.quota = quota;
    this.status = status;
  }
}

export interface TransportOptions {
  baseURL?: string;
  apiKey: string;
  policy: RetryPolicy;
  pacer: Pacer;
  random?: () => number;
  /** `fetch` for the SDK (e.g. one with a proxy dispatcher); default: the SDK's own. */
  fetch?: typeof fetch;
}

/** What a request costs the quota before it is sent: its estimated prompt tokens and the completion it reserves. */
export interface RequestCost {
  promptTokens: number;
  /** Counted with the tokenizer (else estimated from the characters while it loads). */
  exact?: boolean;
  reserveTokens: number;
}

/**
 * Sends chat completions through the official `openai` SDK (`client.chat.completions.create`, its own fetch, its
 * retries off: `maxRetries: 0`), with this runtime's pacing, retries and classification around it: every call waits
 * for the quota (`Pacer`), every answer's rate-limit headers are read (`.withResponse()`, `APIError.headers`), and a
 * rate-limit answer waits and retries without using up an attempt.
 */
export class OpenAITransport {
  readonly client: OpenAI;
  private readonly opts: TransportOptions;
  /** Whether the endpoint ever answered: until it has, a refused connection or an unknown host is not retried. */
  private reached = false;

  constructor(opts: TransportOptions) {
    this.opts = opts;
    this.client = new OpenAI({
      apiKey: opts.apiKey,
      baseURL: opts.baseURL,
      maxRetries: 0,
      timeout: opts.policy.timeoutMs,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
  }

  async send(
    body: Record<string, unknown>,
    signal?: AbortSignal,
    onRetry?: (info: AttemptInfo) => void,
    cost: RequestCost | (() => RequestCost) = { promptTokens: 0, reserveTokens: 0 },
  ): Promise<{ response: CachedResponse; attempts: number }> {
    const { policy, pacer } = this.opts;
    const random = this.opts.random ?? Math.random;
    let last: Classified | undefined;
    let attempt = 0;
    let limitedInARow = 0;
    for (;;) {
      // Counted only once a token limit is known.
      const counted = typeof cost === 'function' ? (pacer.countsTokens ? cost() : undefined) : cost;
      const tokens = counted ? pacer.cost(counted.promptTokens, counted.reserveTokens, counted.exact ?? true) : 0;
      const ticket: PacerTicket = await pacer.acquire(
        tokens,
        counted?.promptTokens ?? 0,
        signal,
        counted?.exact ?? true,
        counted?.reserveTokens ?? 0,
      );
      let c: Classified;
      try {
        // The SDK listens on the signal it is given and never lets go: give it one per attempt, linked to the run's.
        const attemptController = new AbortController();
        const unlink = signal ? onAbort(signal, () => attemptController.abort(signal.reason)) : undefined;
        const { data, response } = await this.client.chat.completions
          .create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, {
            signal: attemptController.signal,
          })
          .withResponse()
          .finally(() => unlink?.());
        const out = toResponse(data);
        this.reached = true;
        pacer.onSuccess(ticket, readRateLimits(response.headers), out.usage);
        return { response: out, attempts: attempt + 1 };
      } catch (error) {
        if (signal?.aborted) {
          pacer.release(ticket);
          throw signal.reason ?? error;
        }
        c = classify(error);
        c.reason = redact(c.reason, this.opts.apiKey);
        if (c.status !== undefined) this.reached = true;
        if (c.rateLimited) pacer.onRateLimited(ticket, readRateLimits(c.headers as Headers | undefined));
        else pacer.release(ticket);
        // Never reached and the host refuses or does not resolve: a wrong URL, not a fault worth waiting for.
        if (c.errno && UNREACHABLE_ERRNOS.has(c.errno) && !this.reached) c.retryable = false;
      }
      if (c.quota) throw new QuotaExhaustedError(c.quota, c.reason, c.status);
      last = c;
      let delay: number;
      if (c.rateLimited) {
        // The quota refills: wait as asked (or back off when not told) and try again; attempts are not used up.
        limitedInARow++;
        delay =
          c.retryAfter !== undefined
            ? c.retryAfter + Math.round(random() * 50)
            : backoffDelay(
                Math.min(limitedInARow, 8),
                { ...policy, backoffMaxMs: Math.min(policy.backoffMaxMs, 30_000) },
                random,
              );
      } else {
        attempt++;
        if (!c.retryable || attempt >= policy.maxAttempts) break;
        delay = Math.min(
          policy.backoffMaxMs,
          c.retryAfter !== undefined ? c.retryAfter + Math.round(random() * 50) : backoffDelay(attempt, policy, random),
        );
      }
      onRetry?.({
        attempt: attempt + 1,
        reason: c.reason,
        status: c.status,
        delayMs: delay,
        rateLimited: c.rateLimited,
      });
      await sleep(delay, signal);
    }
    const attempts = last && !last.retryable ? 'not retryable' : `after ${attempt} attempt${attempt === 1 ? '' : 's'}`;
    throw new LlmCallError(`${last?.reason ?? 'unknown error'} (${attempts})`, {
      attempts: attempt,
      status: last?.status,
      retryable: last?.retryable ?? false,
      errno: last?.errno,
    });
  }
}

/** Reads text, finish reason, usage and model out of a chat-completion object (live or from a batch output line). */
export function toResponse(res: unknown): CachedResponse {
  const r = res as {
    model?: string;
    choices?: Array<{ message?: { content?: string | null; refusal?: string | null }; finish_reason?: string }>;
    usage?: {
      prompt_tokens?: number;
      completion_tokens?: number;
      prompt_tokens_details?: { cached_tokens?: number } | null;
    };
  };
  const choice = r?.choices?.[0];
  if (!r || typeof r !== 'object' || !choice || typeof choice !== 'object' || !choice.message) {
    throw new MalformedResponseError('malformed response: no choices[0].message');
  }
  const content = choice.message.content ?? choice.message.refusal ?? '';
  if (typeof content !== 'string') throw new MalformedResponseError('malformed response: content is not a string');
  const out: CachedResponse = { text: content, finishReason: finishReasonOf(choice.finish_reason) };
  if (r.usage && typeof r.usage.prompt_tokens === 'number') {
    const usage: ChatUsage = { promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens ?? 0 };
    const cached = r.usage.prompt_tokens_details?.cached_tokens;
    if (typeof cached === 'number') usage.cachedTokens = cached;
    out.usage = usage;
  }
  if (typeof r.model === 'string') out.model = r.model;
  return out;
}
