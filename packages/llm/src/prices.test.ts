import { describe, expect, it } from 'vitest';
import { costOf, DEFAULT_PRICES, priceOf } from './prices';

describe('prices', () => {
  it('finds a model by exact name, dated snapshot or provider prefix', () => {
    expect(priceOf('gpt-4o-mini', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceOf('gpt-4o-2024-08-06', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4o']);
    expect(priceOf('gpt-4o-mini-2024-07-18', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceOf('openai/gpt-4.1', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4.1']);
    expect(priceOf('llama3.1:8b', DEFAULT_PRICES)).toBeUndefined();
    expect(priceOf('gpt-4o-super', DEFAULT_PRICES)).toBeUndefined();
  });

  it('bills cached prompt tokens at the cached price, and applies a factor (Batch API)', () => {
    const p = { input: 2, cachedInput: 0.5, output: 8 };
    // (600 x 2 + 400 x 0.5 + 50 x 8) / 1e6 = (1200 + 200 + 400) / 1e6
    expect(costOf(p, { promptTokens: 1000, completionTokens: 50, cachedTokens: 400 })).toBeCloseTo(1800 / 1e6, 15);
    expect(costOf(p, { promptTokens: 1000, completionTokens: 50, cachedTokens: 400 }, 0.5)).toBeCloseTo(900 / 1e6, 15);
    // without a cached price, cached tokens cost the input price
    expect(costOf({ input: 2, output: 8 }, { promptTokens: 1000, completionTokens: 0, cachedTokens: 400 })).toBeCloseTo(
      2000 / 1e6,
      15,
    );
  });
});
