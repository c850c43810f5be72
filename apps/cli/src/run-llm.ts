import { createHash } from 'node:crypto';
import type { RunLlm } from '@eval/core';
// Types only: @eval/llm is loaded lazily, by the actions that call a model.
import type { Llm, UsageSummary } from '@eval/llm';

/** Host (and port) of an endpoint URL: never its user info, path or query; `api.openai.com` when none is set. */
export function endpointHost(baseURL: string | undefined): string {
  if (!baseURL) return 'api.openai.com';
  try {
    return new URL(baseURL).host || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The identity of a cache directory: a short hash of its resolved path (never the path, which names a home directory). */
export function cacheIdentity(dir: string): string {
  return `sha256:${createHash('sha256').update(dir, 'utf8').digest('hex').slice(0, 16)}`;
}

export interface RunLlmInit {
  /** Sampling settings sent with every call (temperature, seed, max tokens, ...): undefined ones are dropped. */
  sampling?: Record<string, unknown>;
  /** The `--prices FILE` given, if any (merged over the built-in table, as the client does). */
  pricesFile?: string;
  /** Usage to record (default `llm.usage()`, every call of the process's client). */
  usage?: UsageSummary;
}

/**
 * The run record's `llm` block from `@eval/llm`'s client: endpoint host, model, sampling, calls made / from cache /
 * failed / retried, tokens, cost in USD with the price used, batch or not, and the cache directory's identity.
 */
export async function runLlmRecord(llm: Pick<Llm, 'options' | 'usage'>, init: RunLlmInit = {}): Promise<RunLlm> {
  const { DEFAULT_PRICES, DEFAULT_PRICES_DATE, priceOf, readPriceTable } = await import('@eval/llm');
  const o = llm.options;
  const u = init.usage ?? llm.usage();
  const pricesFile = init.pricesFile ?? process.env.DIALEVAL_LLM_PRICES;
  const table = pricesFile ? { ...DEFAULT_PRICES, ...(await readPriceTable(pricesFile)) } : DEFAULT_PRICES;
  const price = priceOf(o.model, table);
  const sampling = Object.fromEntries(Object.entries(init.sampling ?? {}).filter(([, v]) => v !== undefined));
  return {
    endpointHost: endpointHost(o.baseURL),
    model: o.model,
    ...(Object.keys(sampling).length > 0 ? { sampling } : {}),
    calls: { made: u.calls, cached: u.cacheHits, failed: u.failedCalls, retried: u.retries },
    tokens: { prompt: u.promptTokens, completion: u.completionTokens },
    costUsd: u.cost,
    prices: {
      table: pricesFile ? 'built-in + file' : `built-in (${DEFAULT_PRICES_DATE})`,
      costKnown: u.costKnown,
      ...(price ? { [o.model]: price } : {}),
    },
    batch: Boolean(o.batch) || u.batchCalls > 0,
    ...(o.cache === 'off' ? {} : { cache: cacheIdentity(o.cacheDir) }),
  };
}
