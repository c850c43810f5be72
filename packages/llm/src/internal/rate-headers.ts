/** What one response's headers say about the endpoint's rate limits (every field optional). */
export interface RateLimitInfo {
  /** `x-ratelimit-limit-requests`: requests per minute. */
  limitRequests?: number;
  /** `x-ratelimit-limit-tokens`: tokens per minute. */
  limitTokens?: number;
  /** `x-ratelimit-remaining-requests`. */
  remainingRequests?: number;
  /** `x-ratelimit-remaining-tokens`. */
  remainingTokens?: number;
  /** `x-ratelimit-reset-requests` in ms: until the request bucket is full again. */
  resetRequestsMs?: number;
  /** `x-ratelimit-reset-tokens` in ms: until the token bucket is full again. */
  resetTokensMs?: number;
  /** `retry-after-ms`, else `retry-after` (seconds or an HTTP date), in ms. */
  retryAfterMs?: number;
}

type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined> | undefined;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const v = (headers as { get(name: string): string | null }).get(name);
    return v === null || v.trim() === '' ? undefined : v.trim();
  }
  const v = (headers as Record<string, string | string[] | undefined>)[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * A duration in OpenAI's header format (`120ms`, `1.5s`, `6m0s`, `1h2m3.5s`) in ms; a bare number is seconds.
 * `undefined` when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const part = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;
  let ms = 0;
  let pos = 0;
  while (pos < t.length) {
    part.lastIndex = pos;
    const m = part.exec(t);
    if (!m) return undefined;
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    pos = part.lastIndex;
  }
  return ms;
}

function count(headers: HeaderSource, name: string): number | undefined {
  const v = header(headers, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function duration(headers: HeaderSource, name: string): number | undefined {
  const v = header(headers, name);
  return v === undefined ? undefined : parseDuration(v);
}

/** Delay asked for by `retry-after-ms` (ms) or `retry-after` (seconds or an HTTP date); undefined if none. */
export function retryAfterMs(headers: HeaderSource, now = Date.now()): number | undefined {
  const ms = count(headers, 'retry-after-ms');
  if (ms !== undefined) return ms;
  const ra = header(headers, 'retry-after');
  if (ra === undefined) return undefined;
  const s = Number(ra);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Reads OpenAI's `x-ratelimit-*` headers and `retry-after(-ms)` (absent or malformed ones are left out). */
export function readRateLimits(headers: HeaderSource, now = Date.now()): RateLimitInfo {
  const info: RateLimitInfo = {
    limitRequests: count(headers, 'x-ratelimit-limit-requests'),
    limitTokens: count(headers, 'x-ratelimit-limit-tokens'),
    remainingRequests: count(headers, 'x-ratelimit-remaining-requests'),
    remainingTokens: count(headers, 'x-ratelimit-remaining-tokens'),
    resetRequestsMs: duration(headers, 'x-ratelimit-reset-requests'),
    resetTokensMs: duration(headers, 'x-ratelimit-reset-tokens'),
    retryAfterMs: retryAfterMs(headers, now),
  };
  for (const k of Object.keys(info) as Array<keyof RateLimitInfo>) if (info[k] === undefined) delete info[k];
  return info;
}
