import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/helpers';
import { createLlm } from '../llm';
import { formatDuration } from './dry-run';

describe('dry run: the time at the quota', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(() => cleanup());

  it('a long run at the stated quota also says what --batch would cost', async () => {
    const lines: string[] = [];
    const llm = createLlm({
      model: 'gpt-4',
      maxTokens: 20,
      rpm: 0.2,
      cacheDir: dir,
      dryRun: { requestsFile: `${dir}/plan.jsonl` },
      progress: false,
      log: (l) => lines.push(l),
      env: {},
    });
    const { summary } = await llm.runJobs({
      name: 'slow',
      items: [1, 2, 3, 4],
      id: String,
      run: async (i, { model }) => (await model.chat([{ role: 'user', content: `hello world ${i}` }])).text,
    });
    await llm.close();
    // 4 calls at 0.2 requests a minute: 20 minutes (no token limit stated). Cost as in llm.test.ts: 11 prompt tokens
    // and 20 completion tokens (max tokens; none observed) per call at gpt-4's 30 / 60 USD per 1M:
    // 4 x (11 x 30 + 20 x 60) / 1e6 = 0.00612 USD; the Batch API at half of it: 0.00306 USD.
    expect(summary.dryRun!.time).toEqual({
      ms: 20 * 60_000,
      rpm: 0.2,
      source: 'stated',
      batch: { cost: expect.closeTo(0.00306, 10), explanation: expect.stringMatching(/half price/) },
    });
    expect(lines.join('\n')).toMatch(
      /time: ~20 min at 0\.2 requests\/min \(as stated\)\n {2}with --batch instead: \$0\.0031/,
    );
  });

  it('formats durations', () => {
    expect(formatDuration(45_000)).toBe('45 s');
    expect(formatDuration(750_000)).toBe('12 min 30 s');
    expect(formatDuration(3_900_000)).toBe('1 h 05 min');
  });
});
