import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from './fixtures/helpers';
import { createLlm, type Llm, type LlmOptions } from './llm';
import { startTestServer, type TestServer, type TestServerOptions } from './testing/index';

const KEY_ENV = 'EVAL_LLM_BATCH_KEY';

describe('batch mode (OpenAI Batch API on the test server)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let server: TestServer | undefined;
  const open: Llm[] = [];
  const logs: string[] = [];
  beforeEach(async () => {
    process.env[KEY_ENV] = 'sk-batch-test';
    ({ dir, cleanup } = await tempDir());
    logs.length = 0;
  });
  afterEach(async () => {
    for (const l of open.splice(0)) await l.close();
    await server?.close();
    await cleanup();
  });
  const start = async (o: TestServerOptions = {}) => (server = await startTestServer(o));
  const make = (o: Partial<LlmOptions> = {}) => {
    const llm = createLlm({
      model: 'test-model',
      baseURL: server!.baseURL,
      apiKeyEnv: KEY_ENV,
      cacheDir: join(dir, 'cache'),
      batch: { pollIntervalMs: 5 },
      progress: false,
      log: (l) => logs.push(l),
      ...o,
    });
    open.push(llm);
    return llm;
  };
  const paths = () => server!.requests.map((r) => `${r.method} ${r.path.replace(/(file|batch)-\d+/g, '$1-N')}`);
  const count = (p: string) => paths().filter((x) => x === p).length;
  const items = ['a', 'b', 'c', 'd', 'e'];
  const simple = (llm: Llm) =>
    llm.runJobs({
      name: 'batch',
      items,
      id: (x) => x,
      run: async (x, { model }) => (await model.chat([{ role: 'user', content: `q ${x}` }])).text,
    });

  it('submits one batch, fills the cache from its output, and the run completes from cache without chat calls', async () => {
    await start({ batch: { completeAfterPolls: 2 } });
    const { results, summary } = await simple(make());
    expect(results).toEqual(items.map((x) => ({ id: x, ok: true, value: `echo: q ${x}` })));
    expect(count('POST /v1/chat/completions')).toBe(0);
    expect(count('POST /v1/files')).toBe(1);
    expect(count('POST /v1/batches')).toBe(1);
    expect(count('GET /v1/files/file-N/content')).toBe(1);
    expect(count('GET /v1/batches/batch-N')).toBeGreaterThanOrEqual(2);
    expect(summary.batch).toMatchObject({
      rounds: 1,
      requests: 5,
      answered: 5,
      failed: 0,
      resumed: 0,
      stoppedByBudget: false,
    });
    expect(summary).toMatchObject({ done: 5, calls: 0, batchCalls: 5, cacheHits: 5 });
    // the uploaded file is Batch API JSONL with the request key as custom_id
    const uploaded = [...server!.files.values()].find((f) => f.purpose === 'batch')!;
    const lines = uploaded.bytes
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions', body: { model: 'test-model' } });
    expect(lines[0].custom_id).toMatch(/^[0-9a-f]{64}$/);
    // answers are in the shared cache: a replay run needs neither network nor key
    delete process.env[KEY_ENV];
    const replay = createLlm({ model: 'test-model', cacheDir: join(dir, 'cache'), cache: 'replay', progress: false });
    open.push(replay);
    expect((await simple(replay)).results).toEqual(results);
  });

  it('is resumable: a second invocation finds the batch already submitted', async () => {
    await start({ batch: { completeAfterPolls: 3 } });
    await expect(simple(make({ batch: { pollIntervalMs: 5, maxWaitMs: 0 } }))).rejects.toThrow(
      /still (validating|in_progress) after .*run again later to resume it/,
    );
    expect(count('POST /v1/batches')).toBe(1);
    const states = await readdir(join(dir, 'cache', 'batches'));
    expect(states).toHaveLength(1);
    expect(JSON.parse(await readFile(join(dir, 'cache', 'batches', states[0]!), 'utf8'))).toMatchObject({
      status: 'submitted',
      requests: 5,
    });
    const { results, summary } = await simple(make());
    expect(results.every((r) => r.ok)).toBe(true);
    expect(count('POST /v1/batches')).toBe(1);
    expect(count('POST /v1/files')).toBe(1);
    expect(count('POST /v1/chat/completions')).toBe(0);
    expect(summary.batch).toMatchObject({ resumed: 1, answered: 5 });
    expect(logs.join('\n')).toMatch(/found \(submitted earlier\)/);
  });

  it('a resumed run first collects every outstanding batch, then submits only what is missing (no request paid twice)', async () => {
    await start({ batch: { completeAfterPolls: Number.POSITIVE_INFINITY } });
    const twoStep = (llm: Llm, names: string[]) =>
      llm.runJobs({
        name: 'two-step',
        items: names,
        id: (s) => s,
        run: async (s, { model }) => {
          const first = await model.chat([{ role: 'user', content: `step1 ${s}` }]);
          return (await model.chat([{ role: 'user', content: `step2 after "${first.text}"` }])).text;
        },
      });
    // Round 1's batch is let through; the second round's batch stays outstanding and the run gives up waiting
    // (as a run killed during the second round would leave it).
    const first = make({ batch: { pollIntervalMs: 5, maxWaitMs: 300 } });
    const firstRun = twoStep(first, ['x', 'y']).catch((e: unknown) => e);
    const { setTimeout: wait } = await import('node:timers/promises');
    while (server!.batches().length < 1) await wait(2);
    server!.completeBatches();
    expect(await firstRun).toMatchObject({ message: expect.stringMatching(/still in_progress/) });
    expect(server!.batches()).toHaveLength(2);
    // The resumed run has one more item: its request set differs from the outstanding batch's. From now on
    // batches complete (the outstanding one included).
    const release = setInterval(() => server!.completeBatches(), 2);
    const { results, summary } = await twoStep(make(), ['x', 'y', 'z']).finally(() => clearInterval(release));
    expect(results.map((r) => r.ok && r.value)).toEqual(
      ['x', 'y', 'z'].map((s) => `echo: step2 after "echo: step1 ${s}"`),
    );
    expect(summary).toMatchObject({ done: 3, calls: 0 });
    expect(summary.batch!.resumed).toBe(1);
    expect(logs.join('\n')).toMatch(
      /found \(submitted earlier\), status \w+; collecting it before submitting anything/,
    );
    // every request went into exactly one batch: nothing submitted twice
    const ids = [...server!.files.values()]
      .filter((f) => f.purpose === 'batch')
      .flatMap((f) =>
        f.bytes
          .toString('utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).custom_id as string),
      );
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
  });

  it('a key the Batch API refuses (401 on upload) is a configuration error; an interrupted batch run resolves as stopped', async () => {
    await start({ failAll: { status: 401 } });
    await expect(simple(make())).rejects.toMatchObject({
      name: 'LlmConfigError',
      cause: 'unauthorized',
      message: expect.stringMatching(/Batch API: .*401/),
    });
    expect(count('POST /v1/chat/completions')).toBe(0);
    server!.setFailAll(undefined);
    const outstanding = await startTestServer({ batch: { completeAfterPolls: Number.POSITIVE_INFINITY } });
    try {
      const llm = createLlm({
        model: 'test-model',
        baseURL: outstanding.baseURL,
        apiKeyEnv: KEY_ENV,
        cacheDir: join(dir, 'cache2'),
        batch: { pollIntervalMs: 5 },
        progress: false,
        log: () => {},
      });
      open.push(llm);
      const run = simple(llm);
      while (outstanding.batches().length === 0) await new Promise((r) => setTimeout(r, 2));
      llm.interrupt('test');
      const { summary } = await run;
      expect(summary).toMatchObject({ stopped: 'aborted', done: 0, notRun: 5, failed: 0 });
      expect(outstanding.chatRequests()).toHaveLength(0);
    } finally {
      await outstanding.close();
    }
  });

  it('finds a batch created just before a crash (state written, batch id not yet) through its metadata', async () => {
    await start({ batch: { completeAfterPolls: 3 } });
    await expect(simple(make({ batch: { pollIntervalMs: 5, maxWaitMs: 0 } }))).rejects.toThrow(/still/);
    // forget the batch id, as if the run died between creating the batch and recording it
    const stateDir = join(dir, 'cache', 'batches');
    const [name] = await readdir(stateDir);
    const state = JSON.parse(await readFile(join(stateDir, name!), 'utf8'));
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(stateDir, name!), JSON.stringify({ ...state, batchId: undefined, status: 'uploaded' }));
    const { summary } = await simple(make());
    expect(summary.batch).toMatchObject({ resumed: 1, answered: 5 });
    expect(count('POST /v1/batches')).toBe(1);
    expect(count('GET /v1/batches')).toBe(1);
  });

  it('runs rounds for requests that depend on earlier answers', async () => {
    await start();
    const llm = make();
    const { results, summary } = await llm.runJobs({
      name: 'two-step',
      items: ['x', 'y'],
      id: (s) => s,
      run: async (s, { model }) => {
        const first = await model.chat([{ role: 'user', content: `step1 ${s}` }]);
        const second = await model.chat([{ role: 'user', content: `step2 after "${first.text}"` }]);
        return second.text;
      },
    });
    expect(results).toEqual([
      { id: 'x', ok: true, value: 'echo: step2 after "echo: step1 x"' },
      { id: 'y', ok: true, value: 'echo: step2 after "echo: step1 y"' },
    ]);
    expect(summary.batch).toMatchObject({ rounds: 2, requests: 4, answered: 4 });
    expect(count('POST /v1/batches')).toBe(2);
    expect(count('POST /v1/chat/completions')).toBe(0);
  });

  it('sends the requests a batch could not answer live', async () => {
    await start({ rules: [{ match: 'q c', times: 1, reply: { status: 500 } }] });
    const { results, summary } = await simple(make());
    expect(results.every((r) => r.ok)).toBe(true);
    expect(summary.batch).toMatchObject({ rounds: 1, answered: 4, failed: 1 });
    expect(count('POST /v1/batches')).toBe(1);
    expect(server!.chatRequests().map((r) => r.body.messages[0].content)).toEqual(['q c']);
    expect(summary).toMatchObject({ calls: 1, batchCalls: 4 });
  });

  it('falls back to live calls when the whole batch fails', async () => {
    await start({ batch: { fail: true } });
    const { results, summary } = await simple(make());
    expect(results.every((r) => r.ok)).toBe(true);
    expect(summary.batch).toMatchObject({ answered: 0, failed: 5 });
    expect(server!.chatRequests()).toHaveLength(5);
    expect(logs.join('\n')).toMatch(/failed \(scripted batch failure\); its requests will be sent live/);
  });

  it('bills batch answers at half price', async () => {
    await start({ respond: () => ({ content: 'ok', usage: { promptTokens: 100, completionTokens: 10 } }) });
    const { summary } = await simple(make({ model: 'gpt-4o-mini' }));
    // 5 x (100 x 0.15 + 10 x 0.60) / 1e6 x 0.5 = 5 x 21e-6 x 0.5 = 52.5e-6
    expect(summary.cost).toBeCloseTo(52.5e-6, 12);
    expect(summary).toMatchObject({ promptTokens: 500, completionTokens: 50, batchCalls: 5 });
  });
});

describe('batch mode with a budget', () => {
  it('submits only what fits, completes those items from the batch, and leaves the rest for a later run', async () => {
    process.env[KEY_ENV] = 'sk-batch-test';
    const { dir, cleanup } = await tempDir();
    const server = await startTestServer({
      respond: () => ({ content: 'ok', usage: { promptTokens: 5, completionTokens: 10 } }),
    });
    try {
      // 1000 USD per 1M tokens, batch at half price: the worst case of one request is (prompt tokens counted locally
      // + max tokens 10) x 0.0005 USD, about 0.01 USD; 0.035 USD lets 3 of the 5 requests into the batch.
      const llm = createLlm({
        model: 'priced',
        prices: { priced: { input: 1000, output: 1000 } },
        maxTokens: 10,
        maxCost: 0.035,
        baseURL: server.baseURL,
        apiKeyEnv: KEY_ENV,
        cacheDir: join(dir, 'cache'),
        batch: { pollIntervalMs: 5 },
        progress: false,
        log: () => {},
      });
      const { results, summary } = await llm.runJobs({
        name: 'b',
        items: ['a', 'b', 'c', 'd', 'e'],
        id: (x) => x,
        run: async (x, { model }) => (await model.chat([{ role: 'user', content: `q ${x}` }])).text,
      });
      await llm.close();
      expect(summary.batch).toMatchObject({ stoppedByBudget: true, requests: 3, answered: 3 });
      expect(summary).toMatchObject({ stoppedByBudget: true, done: 3, notRun: 2, failed: 0, batchCalls: 3, calls: 0 });
      expect(results.map((r) => r.id)).toEqual(['a', 'b', 'c']);
      // 3 answers x (5 + 10) tokens x 0.001 USD x 0.5
      expect(summary.cost).toBeCloseTo(0.0225, 10);
      expect(server.chatRequests()).toHaveLength(0);
    } finally {
      await server.close();
      await cleanup();
    }
  });
});
