import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listFiles, readLines, tempDir } from './fixtures/helpers';
import { journalChecksum } from './journal';
import { createLlm, type Llm } from './llm';
import { requestKey, buildRequest } from './request';
import { startTestServer, type TestServer } from './testing/index';

const KEY_ENV = 'EVAL_LLM_MAIN_KEY';
const KEY = 'sk-main-test-key-ABCDEFGHIJKLMNOPQRSTUV';

const ask = (llm: Llm, content: string) => llm.model.chat([{ role: 'user', content }]);

describe('createLlm', () => {
  let server: TestServer;
  let dir: string;
  let cleanup: () => Promise<void>;
  const open: Llm[] = [];
  const make = (o: Partial<Parameters<typeof createLlm>[0]> = {}) => {
    const llm = createLlm({
      model: 'test-model',
      baseURL: server.baseURL,
      apiKeyEnv: KEY_ENV,
      cacheDir: join(dir, 'cache'),
      progress: false,
      log: () => {},
      ...o,
    });
    open.push(llm);
    return llm;
  };

  beforeAll(async () => {
    server = await startTestServer({
      rules: [{ match: 'fail-me', reply: { status: 400, error: 'rejected' } }],
    });
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    process.env[KEY_ENV] = KEY;
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(async () => {
    for (const l of open.splice(0)) await l.close();
    await cleanup();
  });
  const sent = (content: string) =>
    server.chatRequests().filter((r) => r.body.messages.at(-1).content === content).length;

  it('validates its options', () => {
    expect(() => createLlm({ model: '' })).toThrow(/model name is required/);
    expect(() => createLlm({ model: 'm', cache: 'sometimes' as never })).toThrow(
      /cache mode must be one of use, refresh, off, replay/,
    );
    expect(() => createLlm({ model: 'm', concurrency: 0 })).toThrow(/concurrency must be a positive integer/);
    expect(() => createLlm({ model: 'm', maxCost: -1 })).toThrow(/maxCost/);
    expect(() => createLlm({ model: 'm', dryRun: true, batch: true })).toThrow(/cannot be combined/);
  });

  it('cache use: the second identical call is answered from disk', async () => {
    const a = make();
    const r1 = await ask(a, 'cached question');
    const b = make();
    const r2 = await ask(b, 'cached question');
    expect(r1).toMatchObject({ text: 'echo: cached question', cached: false });
    expect(r2).toMatchObject({ text: 'echo: cached question', cached: true });
    expect(sent('cached question')).toBe(1);
    expect(b.usage()).toMatchObject({ calls: 0, cacheHits: 1, cost: 0 });
  });

  it('identical calls in flight at once are sent once', async () => {
    const a = make();
    const rs = await Promise.all(Array.from({ length: 5 }, () => ask(a, 'same time')));
    expect(rs.map((r) => r.text)).toEqual(Array(5).fill('echo: same time'));
    expect(sent('same time')).toBe(1);
    expect(a.usage()).toMatchObject({ calls: 1, cacheHits: 4 });
  });

  it('cache refresh ignores hits and overwrites; off neither reads nor writes', async () => {
    await ask(make(), 'refresh me');
    await ask(make({ cache: 'refresh' }), 'refresh me');
    expect(sent('refresh me')).toBe(2);
    await ask(make({ cache: 'off' }), 'off question');
    await ask(make({ cache: 'off' }), 'off question');
    expect(sent('off question')).toBe(2);
    expect(await ask(make({ cache: 'replay' }), 'refresh me')).toMatchObject({ cached: true });
    await expect(ask(make({ cache: 'replay' }), 'off question')).rejects.toThrow(/cache miss in replay mode/);
  });

  it('replay needs neither network nor key, and a miss is an error', async () => {
    await ask(make(), 'for replay');
    delete process.env[KEY_ENV];
    const replay = make({ cache: 'replay', baseURL: 'http://127.0.0.1:9/v1' }); // nothing listens on port 9
    expect((await ask(replay, 'for replay')).text).toBe('echo: for replay');
    await expect(ask(replay, 'never asked')).rejects.toMatchObject({ code: 'cache_miss' });
    const { results, summary } = await replay.runJobs({
      name: 'replay',
      items: ['for replay', 'never asked'],
      id: (x) => x,
      run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }])).text,
    });
    expect(results).toEqual([
      { id: 'for replay', ok: true, value: 'echo: for replay' },
      { id: 'never asked', ok: false, error: expect.stringMatching(/cache miss in replay mode/), code: 'cache_miss' },
    ]);
    expect(summary).toMatchObject({ done: 1, failed: 1, calls: 0, cacheHits: 1 });
  });

  it('a missing key is a clear error naming the variable (for OpenAI itself)', async () => {
    delete process.env[KEY_ENV];
    const llm = createLlm({
      model: 'gpt-4o',
      apiKeyEnv: KEY_ENV,
      cacheDir: join(dir, 'cache'),
      progress: false,
      env: { [KEY_ENV]: '' },
    });
    open.push(llm);
    await expect(ask(llm, 'hi')).rejects.toThrow(`environment variable ${KEY_ENV} is not set`);
  });

  it('runJobs: results in item order, failures recorded with their reason, never aborting the run', async () => {
    const llm = make();
    const journal = join(dir, 'run.jsonl');
    const items = ['a', 'fail-me', 'b', 'throws', 'c'];
    const { results, summary } = await llm.runJobs({
      name: 'mixed',
      items,
      id: (x) => x,
      journal,
      run: async (x, { model }) => {
        if (x === 'throws') throw new Error('bad item');
        return { text: (await model.chat([{ role: 'user', content: x }])).text };
      },
    });
    expect(results).toEqual([
      { id: 'a', ok: true, value: { text: 'echo: a' } },
      {
        id: 'fail-me',
        ok: false,
        error: expect.stringMatching(/HTTP 400: .*rejected/),
        code: 'llm_call_failed',
        status: 400,
      },
      { id: 'b', ok: true, value: { text: 'echo: b' } },
      { id: 'throws', ok: false, error: 'bad item' },
      { id: 'c', ok: true, value: { text: 'echo: c' } },
    ]);
    expect(summary).toMatchObject({
      name: 'mixed',
      items: 5,
      done: 3,
      failed: 2,
      skipped: 0,
      notRun: 0,
      calls: 3,
      failedCalls: 1,
    });
    const lines = await readLines(journal);
    expect(lines.map((l) => [l.id, l.ok]).sort()).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
      ['fail-me', false],
      ['throws', false],
    ]);
  });

  it('runJobs resumes from the journal: finished items are skipped, failed ones retried, a torn last line ignored', async () => {
    const journal = join(dir, 'resume.jsonl');
    let flaky = true;
    const spec = (llm: Llm) =>
      llm.runJobs({
        name: 'resume',
        items: ['x', 'y', 'z'],
        id: (s) => s,
        journal,
        run: async (s, { model }) => {
          if (s === 'y' && flaky) throw new Error('transient');
          return (await model.chat([{ role: 'user', content: `resume ${s}` }])).text;
        },
      });
    const first = await spec(make());
    expect(first.summary).toMatchObject({ done: 2, failed: 1 });
    // simulate a crash in the middle of writing a line
    await writeFile(journal, `${await readFile(journal, 'utf8')}{"id":"z","ok":tr`);
    flaky = false;
    const before = server.chatRequests().length;
    const second = await spec(make());
    expect(second.summary).toMatchObject({ done: 3, failed: 0, skipped: 2, calls: 1 });
    expect(second.results).toEqual([
      { id: 'x', ok: true, value: 'echo: resume x' },
      { id: 'y', ok: true, value: 'echo: resume y' },
      { id: 'z', ok: true, value: 'echo: resume z' },
    ]);
    expect(server.chatRequests().length - before).toBe(1);
    // the journal is still valid JSONL after the torn line
    const third = await spec(make());
    expect(third.summary).toMatchObject({ done: 3, skipped: 3, calls: 0 });
  });

  it('runJobs rejects duplicate ids', async () => {
    await expect(make().runJobs({ name: 'dup', items: [1, 1], id: String, run: async () => 1 })).rejects.toThrow(
      /duplicate item id "1"/,
    );
  });

  it('writes the summary atomically and a per-call usage log', async () => {
    const summaryFile = join(dir, 'out', 'summary.json');
    const usageLog = join(dir, 'usage.jsonl');
    const llm = make({ summaryFile, usageLog, model: 'gpt-4o-mini' });
    const { summary } = await llm.runJobs({
      name: 'sum',
      items: ['p', 'q'],
      id: (x) => x,
      run: async (x, { model }) => (await model.chat([{ role: 'user', content: `sum ${x}` }])).text,
    });
    expect(JSON.parse(await readFile(summaryFile, 'utf8'))).toEqual(summary);
    await llm.close();
    const log = await readLines(usageLog);
    expect(log).toHaveLength(2);
    // test server usage: prompt = 3 + (3 + ceil(5 / 4)) = 8 tokens; answer "echo: sum p" = ceil(11 / 4) = 3 tokens
    expect(log[0]).toMatchObject({
      event: 'call',
      model: 'gpt-4o-mini',
      promptTokens: 8,
      completionTokens: 3,
      attempts: 1,
      finishReason: 'stop',
    });
    expect(summary).toMatchObject({ promptTokens: 16, completionTokens: 6, calls: 2 });
    // gpt-4o-mini: 2 x (8 x 0.15 + 3 x 0.6) / 1e6 = 6e-6 USD
    expect(summary.cost).toBeCloseTo(6e-6, 12);
  });

  it('--max-cost stops cleanly before the budget is passed, keeps finished items, and a rerun continues', async () => {
    // Price 1000 USD per 1M tokens = 0.001 USD per token. Every answer reports 5 prompt + 10 completion tokens,
    // i.e. 0.015 USD per call; the worst-case estimate before a call is (local prompt count + max tokens 10) x 0.001.
    const s = await startTestServer({
      respond: () => ({ content: 'fine', usage: { promptTokens: 5, completionTokens: 10 } }),
    });
    const prices = { 'priced-model': { input: 1000, output: 1000 } };
    const journal = join(dir, 'budget.jsonl');
    const items = [...Array(10).keys()];
    const run = (llm: Llm) =>
      llm.runJobs({
        name: 'budget',
        items,
        id: String,
        journal,
        run: async (i, { model }) => (await model.chat([{ role: 'user', content: `budget ${i}` }])).text,
      });
    const llm = make({
      baseURL: s.baseURL,
      model: 'priced-model',
      prices,
      maxTokens: 10,
      maxCost: 0.1,
      concurrency: 1,
      itemConcurrency: 1,
    });
    const first = await run(llm);
    expect(first.summary.stoppedByBudget).toBe(true);
    expect(first.summary.cost).toBeLessThanOrEqual(0.1);
    expect(first.summary.done).toBeGreaterThan(0);
    expect(first.summary.done + first.summary.notRun).toBe(10);
    expect(first.summary.failed).toBe(0);
    expect(first.summary.cost).toBeCloseTo(first.summary.done * 0.015, 10);
    expect(s.chatRequests()).toHaveLength(first.summary.done);
    expect(await readLines(journal)).toHaveLength(first.summary.done);
    const second = await run(make({ baseURL: s.baseURL, model: 'priced-model', prices, maxTokens: 10, maxCost: 1 }));
    expect(second.summary).toMatchObject({ done: 10, skipped: first.summary.done, stoppedByBudget: false });
    expect(s.chatRequests()).toHaveLength(10);
    await s.close();
  });

  it('--max-cost needs a price for the model', async () => {
    const llm = make({ model: 'unknown-model', maxCost: 1 });
    await expect(llm.runJobs({ name: 'x', items: [1], id: String, run: async () => 1 })).rejects.toThrow(
      /needs the price of model "unknown-model"/,
    );
  });

  it('reads a price table file over the defaults', async () => {
    const pricesFile = join(dir, 'prices.json');
    await writeFile(pricesFile, JSON.stringify({ 'test-model': { input: 2, output: 4 } }));
    const llm = make({ pricesFile });
    await ask(llm, 'priced by file');
    // prompt 3 + (3 + ceil(14 / 4) = 4) = 10 tokens; answer "echo: priced by file" 20 chars = 5 tokens
    expect(llm.usage().cost).toBeCloseTo((10 * 2 + 5 * 4) / 1e6, 12);
    await writeFile(pricesFile, JSON.stringify({ 'test-model': { input: 'cheap' } }));
    await expect(ask(make({ pricesFile }), 'x')).rejects.toThrow(/prices\.json/);
  });

  it('dry run: records every request, prints calls, tokens and cost, sends nothing and needs no key', async () => {
    await ask(make({ model: 'gpt-4', maxTokens: 20 }), 'hello world 0');
    delete process.env[KEY_ENV];
    const lines: string[] = [];
    const requestsFile = join(dir, 'planned.jsonl');
    const llm = make({ model: 'gpt-4', maxTokens: 20, dryRun: { requestsFile }, log: (l) => lines.push(l) });
    const before = server.chatRequests().length;
    const { summary, results } = await llm.runJobs({
      name: 'plan',
      items: [0, 1, 2, 3, 4],
      id: String,
      run: async (i, { model }) => (await model.chat([{ role: 'user', content: `hello world ${i}` }])).text,
    });
    expect(server.chatRequests().length).toBe(before);
    expect(results).toEqual([{ id: '0', ok: true, value: 'echo: hello world 0' }]);
    // cl100k_base (gpt-4): "hello world 1" = "hello" | " world" | " " | "1" = 4 tokens (the pre-tokenizer splits
    // digits from the space before them: `\p{N}{1,3}` vs `\s+`); "user" = 1 token.
    // Per request: 3 (reply priming) + 3 (message) + 1 + 4 = 11 prompt tokens; 20 completion tokens (max tokens).
    // gpt-4 price 30 / 60 USD per 1M: 4 x (11 x 30 + 20 x 60) / 1e6 = 0.00612 USD.
    // Upper bound: 20 completion tokens (max tokens) per call: 4 x (11 x 30 + 20 x 60) / 1e6 = 0.00612 USD.
    // Realistic: the mean completion tokens observed for this method in the run: item 0's cached answer
    // "echo: hello world 0" (19 chars, the test server counts ceil(19 / 4) = 5 tokens), capped by max tokens 20:
    // 4 x (11 x 30 + 5 x 60) / 1e6 = 0.00252 USD.
    expect(summary.dryRun).toEqual({
      calls: 4,
      cacheHits: 1,
      promptTokens: 44,
      completionTokens: 20,
      completionTokensAssumed: false,
      cost: expect.closeTo(0.00252, 10),
      costKnown: true,
      requestsFile,
      estimate: {
        realistic: {
          calls: 4,
          promptTokens: 44,
          completionTokens: 20,
          cost: expect.closeTo(0.00252, 10),
          explanation: expect.stringMatching(/observed for the same method/),
        },
        upper: {
          calls: 4,
          promptTokens: 44,
          completionTokens: 80,
          cost: expect.closeTo(0.00612, 10),
          explanation: expect.stringMatching(/max tokens/),
        },
      },
      // At the default first-tier quota (500 requests, 30,000 tokens a minute): 4 calls / 500 = 0.48 s; tokens
      // as the provider counts them, prompt + max tokens: 4 x (11 + 20) = 124 / 30,000 = 0.248 s; the larger.
      time: { ms: expect.closeTo(480, 6), rpm: 500, tpm: 30_000, source: 'default' },
    });
    expect(summary).toMatchObject({ done: 1, notRun: 4, failed: 0, calls: 0 });
    const planned = await readLines(requestsFile);
    expect(planned).toHaveLength(4);
    expect(planned[0]).toEqual({
      custom_id: requestKey(
        buildRequest([{ role: 'user', content: 'hello world 1' }], { maxTokens: 20 }, { model: 'gpt-4' }),
      ),
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'gpt-4', messages: [{ role: 'user', content: 'hello world 1' }], max_tokens: 20 },
    });
    // a dry run of a resumed run plans only the unfinished items, and leaves the journal alone
    const journal = join(dir, 'dry.jsonl');
    const record = { id: '1', ok: true, value: 'done before' };
    await writeFile(journal, `${JSON.stringify({ ...record, c: journalChecksum(record) })}\n`);
    const resumed = await make({
      model: 'gpt-4',
      maxTokens: 20,
      dryRun: { requestsFile: join(dir, 'planned2.jsonl') },
    }).runJobs({
      name: 'plan2',
      items: [1, 2],
      id: String,
      journal,
      run: async (i, { model }) => (await model.chat([{ role: 'user', content: `fresh ${i}` }])).text,
    });
    expect(resumed.summary).toMatchObject({ skipped: 1, notRun: 1, dryRun: { calls: 1 } });
    expect(await readLines(journal)).toHaveLength(1);
    expect(lines.join('\n')).toMatch(
      /dry run "plan": 4 calls to send \(1 answered from cache\).*\n {2}realistic: 4 calls, ~44 prompt \+ ~20 completion tokens, \$0\.0025 .*\n {2}upper bound: 4 calls, ~44 prompt \+ ~80 completion tokens, \$0\.0061/,
    );
  });

  it('the API key appears in none of the files a run writes', async () => {
    const s = await startTestServer({
      apiKey: KEY,
      rules: [
        { match: 'leak', reply: { status: 400, error: `your key ${KEY} is not allowed here` } },
        { match: 'json', reply: '```json\n{"ok": true}\n```' },
      ],
    });
    const journal = join(dir, 'key.jsonl');
    const opts = { baseURL: s.baseURL, summaryFile: join(dir, 'summary.json'), usageLog: join(dir, 'usage.jsonl') };
    const llm = make(opts);
    const { results } = await llm.runJobs({
      name: 'key',
      items: ['one', 'leak', 'json'],
      id: (x) => x,
      journal,
      run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }])).text,
    });
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    await llm.close();
    await make({ ...opts, dryRun: { requestsFile: join(dir, 'dry.jsonl') } }).runJobs({
      name: 'key-dry',
      items: ['two'],
      id: (x) => x,
      run: async (x, { model }) => model.chat([{ role: 'user', content: x }]),
    });
    const files = await listFiles(dir);
    // journal, summary, usage log, dry-run requests and the cache segment holding the two answers
    expect(files.filter((f) => !f.startsWith(join(dir, 'cache'))).sort()).toEqual(
      ['dry.jsonl', 'key.jsonl', 'summary.json', 'usage.jsonl'].map((f) => join(dir, f)),
    );
    const cached = files.filter((f) => f.startsWith(join(dir, 'cache')));
    expect(cached).toHaveLength(1);
    expect((await readFile(cached[0]!, 'utf8')).trimEnd().split('\n')).toHaveLength(2);
    for (const f of files) {
      const text = await readFile(f, 'utf8');
      expect(text.includes(KEY), f).toBe(false);
      expect(text.includes(KEY.slice(5, 20)), f).toBe(false);
    }
    // the server did receive the key (so it was really sent)
    expect(s.chatRequests().every((r) => r.status !== 401)).toBe(true);
    await s.close();
  });
});
