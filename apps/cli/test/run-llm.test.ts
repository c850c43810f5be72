import { describe, expect, it } from 'vitest';
import { cacheIdentity, endpointHost, runLlmRecord } from '../src/run-llm';

describe('the llm block of a run record', () => {
  it('keeps only host and port of the endpoint: no user info, path or query', () => {
    expect(endpointHost('https://user:sk-secret@llm.example.com:8443/v1?api_key=sk-secret')).toBe(
      'llm.example.com:8443',
    );
    expect(endpointHost('http://127.0.0.1:11434/v1')).toBe('127.0.0.1:11434');
    expect(endpointHost(undefined)).toBe('api.openai.com');
    expect(endpointHost('not a url')).toBe('unknown');
  });

  it('maps the client usage onto RunLlm; the cache directory only as a hash', async () => {
    const usage = {
      calls: 7,
      cacheHits: 3,
      failedCalls: 1,
      retries: 2,
      batchCalls: 0,
      promptTokens: 1000,
      completionTokens: 200,
      cachedTokens: 0,
      totalTokens: 1200,
      cost: 0.0123,
      costKnown: true,
    };
    const llm = {
      options: {
        model: 'gpt-4o',
        baseURL: 'https://a:b@api.example.org/v1?k=1',
        cacheDir: '/home/someone/.cache/dialeval/llm-cache',
        cache: 'use',
        batch: false,
      },
      usage: () => usage,
    };
    const r = await runLlmRecord(llm as never, { sampling: { temperature: 0, seed: undefined } });
    expect(r).toMatchObject({
      endpointHost: 'api.example.org',
      model: 'gpt-4o',
      sampling: { temperature: 0 },
      calls: { made: 7, cached: 3, failed: 1, retried: 2 },
      tokens: { prompt: 1000, completion: 200 },
      costUsd: 0.0123,
      batch: false,
      cache: cacheIdentity('/home/someone/.cache/dialeval/llm-cache'),
    });
    expect(r.prices).toHaveProperty('gpt-4o');
    expect(JSON.stringify(r)).not.toMatch(/someone|a:b|k=1/);
  });
});
