import { VERSION as SDK_VERSION } from 'openai/version';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatUsage, FinishReason } from '@eval/core';
import type { CachedResponse } from './cache';
import { onAbort } from './abort';
import { LlmCallError } from './errors';
import { leanFetch, leanFetchWith } from './http-fetch';
import type { AdaptiveLimiter } from './limiter';

export interface RetryPolicy {
  /** Attempts per call, first one included (default 5). */
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

function headerValue(headers: unknown, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const v = (headers as Record<string, string | undefined>)[name];
  return v ?? null;
}

/** Delay asked for by `retry-after-ms` (ms) or `retry-after` (seconds or an HTTP date); undefined if none. */
export function retryAfterMs(headers: unknown, now = Date.now()): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const ra = headerValue(headers, 'retry-after');
  if (ra !== null && ra.trim() !== '') {
    const s = Number(ra);
    if (Number.isFinite(s) && s >= 0) return s * 1000;
    const date = Date.parse(ra);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return undefined;
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
  rateLimited: boolean;
  status?: number;
  reason: string;
  retryAfter?: number;
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
    const retryAfter = retryAfterMs(error.headers);
    const msg = (error.message || '').slice(0, 300);
    if (status === 429) return { retryable: true, rateLimited: true, status, reason: `HTTP 429: ${msg}`, retryAfter };
    if (status !== undefined && (status >= 500 || status === 408 || status === 409)) {
      return { retryable: true, rateLimited: false, status, reason: `HTTP ${status}: ${msg}`, retryAfter };
    }
    return { retryable: false, rateLimited: false, status, reason: `HTTP ${status ?? '?'}: ${msg}` };
  }
  if (error instanceof MalformedResponseError) return { retryable: true, rateLimited: false, reason: error.message };
  // A body that is not JSON (truncated, garbage) surfaces as a SyntaxError or TypeError from the SDK: transient.
  const message = (error as Error)?.message ?? String(error);
  return { retryable: true, rateLimited: false, reason: `invalid response (${message.slice(0, 200)})` };
}

class MalformedResponseError extends Error {}

/** The SDK's `safeJSON`: the parsed body, or `undefined` when it is not JSON. */
function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

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

export interface TransportOptions {
  baseURL?: string;
  apiKey: string;
  policy: RetryPolicy;
  limiter: AdaptiveLimiter;
  onRetry?: (info: AttemptInfo) => void;
  random?: () => number;
  /** `fetch` used by the SDK (default: a lean keep-alive node:http fetch; the global fetch for uploads). */
  fetch?: typeof fetch;
}

/**
 * Sends chat-completion bodies through the official `openai` SDK (its own retries off: `maxRetries: 0`), with
 * our retry loop around it so that the run's limiter sees every 429 and every attempt is logged.
 */
export class OpenAITransport {
  readonly client: OpenAI;
  private readonly opts: TransportOptions;
  /** Whether the endpoint ever answered: until it has, a refused connection or an unknown host is not retried. */
  private reached = false;

  private readonly chatURL: string;
  private readonly headers: Record<string, string>;

  constructor(opts: TransportOptions) {
    this.opts = opts;
    this.client = new OpenAI({
      apiKey: opts.apiKey,
      baseURL: opts.baseURL,
      maxRetries: 0,
      timeout: opts.policy.timeoutMs,
      fetch: opts.fetch ?? leanFetch,
    });
    // The SDK's own URL and credentials (base URL, OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment).
    const base = this.client.baseURL;
    this.chatURL = `${base}${base.endsWith('/') ? '' : '/'}chat/completions`;
    this.headers = {
      accept: 'application/json',
      'content-type': 'application/json',
      'user-agent': `OpenAI/JS ${SDK_VERSION}`,
      authorization: `Bearer ${opts.apiKey}`,
    };
    if (this.client.organization) this.headers['openai-organization'] = this.client.organization;
    if (this.client.project) this.headers['openai-project'] = this.client.project;
  }

  /**
   * `POST /chat/completions` as `client.chat.completions.create(body)` makes it (no retries), failing with the SDK's
   * own error classes (`APIError.generate` for HTTP errors, `APIConnectionError`, `APIConnectionTimeoutError`,
   * `APIUserAbortError`), without the SDK's per-request machinery: its header merging, request logging and response
   * wrapping cost more client CPU than the HTTP exchange itself at hundreds of calls per second (llm bench).
   * The timeout covers the whole exchange, body included.
   */
  private async postChatCompletion(body: Record<string, unknown>, signal: AbortSignal | undefined): Promise<unknown> {
    if (signal?.aborted) throw new APIUserAbortError();
    const timeoutMs = this.opts.policy.timeoutMs;
    const init: RequestInit = { method: 'POST', headers: this.headers, body: JSON.stringify(body) };
    let timedOut = false;
    let release: (() => void) | undefined;
    let response: Response;
    let text: string;
    try {
      if (this.opts.fetch) {
        const controller = new AbortController();
        const timer = setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs);
        const unlink = signal ? onAbort(signal, () => controller.abort()) : undefined;
        release = () => {
          clearTimeout(timer);
          unlink?.();
        };
        response = await this.opts.fetch(this.chatURL, { ...init, signal: controller.signal });
      } else {
        // The default fetch reads the body before it resolves: the timeout covers the whole exchange.
        response = await leanFetchWith(this.chatURL, init, (cancel) => {
          const timer = setTimeout(() => {
            timedOut = true;
            cancel(new Error('timed out'));
          }, timeoutMs);
          const unlink = signal ? onAbort(signal, () => cancel(new Error('aborted'))) : undefined;
          return () => {
            clearTimeout(timer);
            unlink?.();
          };
        });
      }
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw new APIUserAbortError();
      // As the SDK: our timeout, or a connection error that says it timed out (ETIMEDOUT...), is a timeout.
      const cause = (error as { cause?: unknown } | null)?.cause;
      if (timedOut || /timed? ?out/i.test(String(error) + (cause ? String(cause) : '')))
        throw new APIConnectionTimeoutError();
      throw new APIConnectionError({ cause: error instanceof Error ? error : new Error(String(error)) });
    } finally {
      release?.();
    }
    if (!response.ok) {
      const json = safeJson(text);
      throw APIError.generate(response.status, json as object | undefined, json ? undefined : text, response.headers);
    }
    // As the SDK: a JSON body is parsed (a SyntaxError if it is not JSON), anything else is handed over as text.
    const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim();
    return mediaType?.includes('application/json') || mediaType?.endsWith('+json') ? JSON.parse(text) : text;
  }

  async send(
    body: Record<string, unknown>,
    signal?: AbortSignal,
    onRetry?: (info: AttemptInfo) => void,
  ): Promise<{ response: CachedResponse; attempts: number }> {
    const { policy, limiter } = this.opts;
    let last: Classified | undefined;
    let made = 0;
    for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
      await limiter.acquire(signal);
      made = attempt;
      let c: Classified;
      try {
        const res = await this.postChatCompletion(body, signal);
        const response = toResponse(res);
        this.reached = true;
        limiter.onSuccess();
        return { response, attempts: attempt };
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        c = classify(error);
        c.reason = redact(c.reason, this.opts.apiKey);
        if (c.status !== undefined) this.reached = true;
        // Never reached and the host refuses or does not resolve: a wrong URL, not a fault worth waiting for.
        if (c.errno && UNREACHABLE_ERRNOS.has(c.errno) && !this.reached) c.retryable = false;
        if (c.rateLimited) limiter.onRateLimited();
      } finally {
        limiter.release();
      }
      last = c;
      if (!c.retryable || attempt === policy.maxAttempts) break;
      const delay = Math.min(
        policy.backoffMaxMs,
        c.retryAfter !== undefined
          ? c.retryAfter + Math.round((this.opts.random ?? Math.random)() * 50)
          : backoffDelay(attempt, policy, this.opts.random),
      );
      const info = { attempt, reason: c.reason, status: c.status, delayMs: delay };
      this.opts.onRetry?.(info);
      onRetry?.(info);
      await sleep(delay, signal);
    }
    const attempts = last && !last.retryable ? 'not retryable' : `after ${made} attempt${made === 1 ? '' : 's'}`;
    throw new LlmCallError(`${last?.reason ?? 'unknown error'} (${attempts})`, {
      attempts: made,
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
