import { describe, expect, it } from 'vitest';
import type { RunSummary } from './llm';
import { formatSummary } from './summary';

const base: RunSummary = {
  name: 'judge',
  items: 10,
  done: 7,
  failed: 2,
  skipped: 3,
  notRun: 1,
  stoppedByBudget: true,
  stopped: 'budget',
  failures: [
    { key: 'd1', error: 'HTTP 500: boom (after 5 attempts)' },
    { key: 'd2#1', error: 'HTTP 429: slow down (after 5 attempts)' },
  ],
  repeats: 2,
  calls: 12,
  cacheHits: 4,
  failedCalls: 2,
  retries: 9,
  batchCalls: 0,
  promptTokens: 12000,
  completionTokens: 3456,
  cachedTokens: 100,
  totalTokens: 15456,
  cost: 0.01234,
  costKnown: true,
  elapsedMs: 1000,
  concurrency: { max: 16, min: 8, final: 16 },
  model: 'gpt-4o-mini',
  cacheMode: 'use',
};

describe('formatSummary', () => {
  it('one block: items, calls, tokens, cost, stop reason, failures, how to resume', () => {
    expect(formatSummary(base, { resume: 'run the same command again' })).toBe(
      [
        'LLM run summary',
        '  judge: 10 item(s) (5 x 2 repeats): 7 done, 2 failed, 3 skipped (finished earlier), 1 not run',
        '  calls: 12 made, 4 cached, 9 retried, 2 failed',
        '  tokens: 15,456 (12,000 prompt, 3,456 completion, 100 cached prompt)',
        '  cost: $0.0123',
        '  stopped: judge reached the budget (--max-cost); finished items are kept',
        '  failed: d1: HTTP 500: boom (after 5 attempts)',
        '  failed: d2#1: HTTP 429: slow down (after 5 attempts)',
        '  INCOMPLETE: run the same command again',
      ].join('\n'),
    );
  });

  it('sums several runs; many runs give one line of totals; a complete run says so', () => {
    const ok: RunSummary = {
      ...base,
      name: 'u',
      items: 2,
      done: 2,
      failed: 0,
      skipped: 0,
      notRun: 0,
      stoppedByBudget: false,
      stopped: undefined,
      failures: [],
      repeats: 1,
      cost: 0.5,
    };
    const text = formatSummary(Array.from({ length: 6 }, () => ok));
    // 6 runs x 2 items; 6 x 12 calls; 6 x $0.50
    expect(text).toMatch(/^ {2}6 runs: 12 item\(s\): 12 done, 0 failed, 0 skipped \(finished earlier\), 0 not run$/m);
    expect(text).toMatch(/^ {2}calls: 72 made, 24 cached, 54 retried, 12 failed$/m);
    expect(text).toMatch(/^ {2}cost: \$3\.00$/m);
    expect(text.split('\n').at(-1)).toBe('  complete: every item was evaluated');
    expect(formatSummary([])).toBe('LLM run summary\n  no LLM run was started');
  });
});
