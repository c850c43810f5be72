import { readJson } from '@eval/core';
import { z } from 'zod';

/** USD per 1,000,000 tokens. `cachedInput` is the price of prompt tokens served from the provider's prompt cache. */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
}

export type PriceTable = Record<string, ModelPrice>;

/**
 * Default prices (USD per 1M tokens, standard tier, not Batch API) of common OpenAI models.
 * Source: the OpenAI pricing page (https://platform.openai.com/docs/pricing), as the authors knew it in
 * August 2025; not re-checked at build time (this machine has no network). Prices change: pass your own table
 * (`prices` option, or a JSON file with `pricesFile` / `DIALEVAL_LLM_PRICES`) when the bill matters.
 * The Batch API is billed at half these prices ({@link BATCH_DISCOUNT}).
 */
export const DEFAULT_PRICES_DATE = '2025-08';
export const DEFAULT_PRICES: Readonly<PriceTable> = Object.freeze({
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o3-mini': { input: 1.1, cachedInput: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  o1: { input: 15, cachedInput: 7.5, output: 60 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-4': { input: 30, output: 60 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
});

/** Batch API jobs cost this fraction of the standard price. */
export const BATCH_DISCOUNT = 0.5;

const priceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cachedInput: z.number().nonnegative().optional(),
});
export const priceTableSchema = z.record(z.string(), priceSchema);

/** Reads a price table file: `{ "<model>": { "input": 0.15, "output": 0.6, "cachedInput": 0.075 } }` (USD per 1M tokens). */
export async function readPriceTable(file: string): Promise<PriceTable> {
  return readJson(file, priceTableSchema);
}

const SNAPSHOT_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{4}|latest)$/;

/**
 * The price of `model`: an exact entry, else the entry of the model with a dated snapshot suffix removed
 * (`gpt-4o-2024-08-06` -> `gpt-4o`), else the part after a provider prefix (`openai/gpt-4o`). Undefined if unknown.
 */
export function priceOf(model: string, table: PriceTable): ModelPrice | undefined {
  const candidates = [model];
  const slash = model.lastIndexOf('/');
  if (slash >= 0) candidates.push(model.slice(slash + 1));
  for (const c of candidates) {
    if (table[c]) return table[c];
    const base = c.replace(SNAPSHOT_SUFFIX, '');
    if (base !== c && table[base]) return table[base];
  }
  return undefined;
}

/** Cost in USD of one call's usage; cached prompt tokens are billed at `cachedInput` when the table gives it. */
export function costOf(
  price: ModelPrice,
  usage: { promptTokens: number; completionTokens: number; cachedTokens?: number },
  factor = 1,
): number {
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  const cachedPrice = price.cachedInput ?? price.input;
  const usd =
    ((usage.promptTokens - cached) * price.input + cached * cachedPrice + usage.completionTokens * price.output) / 1e6;
  return usd * factor;
}
