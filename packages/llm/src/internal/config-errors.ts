/** Why a run cannot work as configured (every call would fail the same way, or no wait would help). */
export type LlmConfigCause =
  | 'missing-key'
  | 'unauthorized'
  | 'forbidden'
  | 'model-not-found'
  | 'connection-refused'
  | 'dns'
  | 'replay-miss'
  | 'insufficient-quota'
  | 'daily-limit';

/** A rate-limit answer that no wait cures. */
export type QuotaCause = Extract<LlmConfigCause, 'insufficient-quota' | 'daily-limit'>;

/** What a fix names: the key variable, the endpoint URL, the model. */
export interface ConfigContext {
  apiKeyEnv: string;
  /** The endpoint actually called (`https://api.openai.com/v1` when none is set). */
  endpoint: string;
  model: string;
}

export interface LlmConfigErrorInfo {
  /** What went wrong, in a few words (the start of the error message). */
  title: string;
  /** What the user must change, naming the variable, URL, model or flag. */
  fix: (ctx: ConfigContext) => string;
}

/**
 * The one table of configuration-error causes and their fixes, used by the runtime (`LlmConfigError` carries the fix)
 * and by the CLI (its exit message). Every fix names what to change.
 */
export const LLM_CONFIG_ERRORS: Readonly<Record<LlmConfigCause, LlmConfigErrorInfo>> = {
  'missing-key': {
    title: 'no API key',
    fix: (c) => `set ${c.apiKeyEnv} to your API key (it is unset), or name another variable with --api-key-env`,
  },
  unauthorized: {
    title: 'the endpoint refused the API key (HTTP 401)',
    fix: (c) =>
      `check the key in ${c.apiKeyEnv} (or name another variable with --api-key-env); it must be valid for ${c.endpoint}`,
  },
  forbidden: {
    title: 'the API key may not use this endpoint or model (HTTP 403)',
    fix: (c) =>
      `use a key (${c.apiKeyEnv}) that may use model "${c.model}" at ${c.endpoint}, or choose another --model`,
  },
  'model-not-found': {
    title: 'unknown model or endpoint path (HTTP 404)',
    fix: (c) =>
      `check --model "${c.model}" (the endpoint does not know it) and --base-url ${c.endpoint} (an OpenAI-compatible URL ends in /v1)`,
  },
  'connection-refused': {
    title: 'the endpoint refused the connection',
    fix: (c) =>
      `nothing accepts connections at ${c.endpoint}: start the server, or correct --base-url (or OPENAI_BASE_URL)`,
  },
  dns: {
    title: 'the endpoint host name does not resolve',
    fix: (c) =>
      `the host of ${c.endpoint} does not resolve: correct --base-url (or OPENAI_BASE_URL), or check the network`,
  },
  'replay-miss': {
    title: 'replay mode, and the cache does not hold the requests',
    fix: () =>
      'run once with --cache use (it needs the network and a key) to record the answers, or point --cache-dir at the cache that holds them',
  },
  'insufficient-quota': {
    title: 'the account has no quota left (HTTP 429 insufficient_quota)',
    fix: (c) =>
      `add credit or raise the spending limit of the account of the key in ${c.apiKeyEnv} (at ${c.endpoint}), or use another key; waiting does not help`,
  },
  'daily-limit': {
    title: 'the daily request or token limit is reached (HTTP 429)',
    fix: (c) =>
      `run again after the daily limit resets, or use a key (${c.apiKeyEnv}) with a higher daily limit for model "${c.model}"; finished items are kept`,
  },
};

export const LLM_CONFIG_CAUSES: readonly LlmConfigCause[] = Object.keys(LLM_CONFIG_ERRORS) as LlmConfigCause[];

/**
 * A 429 that no wait cures: OpenAI's `insufficient_quota` (no credit), or a per-day limit (`requests per day (RPD)`,
 * `tokens per day (TPD)`, "daily limit"). Other 429s are rate limits that refill.
 */
export function quotaCause(error: {
  code?: string | null;
  type?: string | null;
  message?: string;
}): QuotaCause | undefined {
  if (error.code === 'insufficient_quota' || error.type === 'insufficient_quota') return 'insufficient-quota';
  const m = error.message ?? '';
  if (/\bquota\b.*\bexceeded\b|exceeded your current quota/i.test(m)) return 'insufficient-quota';
  if (/\b(requests|tokens) per day\b|\b(RPD|TPD)\b|\bdaily (request |token )?limit\b|\bper-day\b/i.test(m))
    return 'daily-limit';
  return undefined;
}
