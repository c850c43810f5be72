import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLines, tempDir } from './fixtures/helpers';
import { canonicalJson, sha256 } from './hash';
import { createLlm, jobKey, type Llm, type LlmOptions } from './llm';
import { buildRequest, requestKey } from './request';
import { countPromptTokens } from './tokens';
import { catchInterrupts, formatSummary } from './summary';
import { refusedBaseURL, startTestServer, type TestServer, type TestServerOptions } from './testing/index';

const KEY_ENV = 'EVAL_LLM_ISSUE13_KEY';
const KEY = 'sk-issue13-key-ABCDEFGHIJKLMNOPQRSTUV';

describe('issue 13 at library level (real openai SDK against the scripted server)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let server: TestServer | undefined;
  const open: Llm[] = [];
  const logs: string[] = [];
  beforeEach(async () => {
    process.env[KEY_ENV] = KEY;
    ({ dir, cleanup } = await tempDir());
    logs.length = 0;
  });
  afterEach(async () => {
    for (const l of open.splice(0)) await l.close();
    await server?.close();
    server = undefined;
    await cleanup();
  });
  const start = async (o: TestServerOptions = {}) => (server = await startTestServer(o));
  const make = (o: Partial<LlmOptions> = {}) => {
    const llm = createLlm({
      model: 'test-model',
      baseURL: server?.baseURL,
      apiKeyEnv: KEY_ENV,
      cacheDir: join(dir, 'cache'),
      progress: false,
      backoffBaseMs: 1,
      backoffMaxMs: 5,
      log: (l) => logs.push(l),
      ...o,
    });
    open.push(llm);
    return llm;
  };
  const items = Array.from({ length: 40 }, (_, i) => `item-${i}`);
  const echoJobs = (llm: Llm, extra: Record<string, unknown> = {}) =>
    llm.runJobs({
      name: 'echo',
      items,
      id: (x) => x,
      run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }])).text,
      ...extra,
    });

  describe('configuration errors stop early with cause and fix', () => {
    for (const [status, cause, fix] of [
      [401, 'unauthorized', new RegExp(`check the key in ${KEY_ENV}`)],
      [403, 'forbidden', /may use model "test-model"/],
      [404, 'model-not-found', /check --model "test-model"/],
    ] as const) {
      it(`HTTP ${status} everywhere: LlmConfigError "${cause}" after 3 calls, not 40; summary written`, async () => {
        await start({ failAll: { status } });
        const summaryFile = join(dir, 'summary.json');
        // default concurrency (16): until the endpoint has answered once, calls go one at a time
        const llm = make({ summaryFile });
        const error = await echoJobs(llm).catch((e: unknown) => e);
        expect(error).toMatchObject({ name: 'LlmConfigError', code: 'llm_config', cause, status, failures: 3 });
        expect((error as Error).message).toMatch(fix);
        expect((error as Error).message).not.toContain(KEY);
        // 4xx other than 429 are not retried: 3 calls, one per item, then the run stops
        expect(server!.chatRequests()).toHaveLength(3);
        const summary = JSON.parse(await readFile(summaryFile, 'utf8'));
        expect(summary).toMatchObject({
          stopped: 'config',
          configError: { cause },
          done: 0,
          failed: 3,
          notRun: 37,
          items: 40,
        });
        expect(llm.summaries()).toHaveLength(1);
        // every later call fails at once, without a request
        await expect(llm.model.chat([{ role: 'user', content: 'later' }])).rejects.toMatchObject({ cause });
        expect(server!.chatRequests()).toHaveLength(3);
      });
    }

    it('a refused connection: "connection-refused" without retries, naming the URL', async () => {
      const url = await refusedBaseURL();
      const llm = make({ baseURL: url, maxAttempts: 5 });
      const error = await echoJobs(llm).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'LlmConfigError', cause: 'connection-refused', failures: 3 });
      expect((error as Error).message).toContain(url);
      expect((error as Error).message).toMatch(/--base-url/);
      expect(llm.usage()).toMatchObject({ retries: 0, failedCalls: 3 });
    });

    it('an unknown host: "dns" (the fetch reports ENOTFOUND as node does; no lookup leaves the machine)', async () => {
      const enotfound: typeof fetch = async () => {
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('getaddrinfo ENOTFOUND api.nowhere.invalid'), { code: 'ENOTFOUND' }),
        });
      };
      const llm = make({
        baseURL: 'http://api.nowhere.invalid/v1',
        fetch: enotfound,
        concurrency: 1,
        itemConcurrency: 1,
      });
      await expect(echoJobs(llm)).rejects.toMatchObject({
        cause: 'dns',
        fix: expect.stringContaining('http://api.nowhere.invalid/v1'),
      });
    });

    it('a missing key stops at once (no request), naming the variable', async () => {
      const llm = createLlm({
        model: 'gpt-4o-mini',
        apiKeyEnv: KEY_ENV,
        cacheDir: join(dir, 'cache'),
        progress: false,
        env: {},
        log: () => {},
      });
      open.push(llm);
      const error = await echoJobs(llm).catch((e: unknown) => e);
      expect(error).toMatchObject({
        name: 'MissingApiKeyError',
        code: 'missing_api_key',
        cause: 'missing-key',
        fix: expect.stringContaining(KEY_ENV),
      });
      // no item was evaluated nor failed on its own: all 40 are "not run"
      expect(llm.summaries()[0]).toMatchObject({ stopped: 'config', done: 0, failed: 0, notRun: 40, calls: 0 });
    });

    it('replay misses: "replay-miss" after 3 in a row; the cached items before them are kept', async () => {
      await start();
      await make().runJobs({
        name: 'warm',
        items: items.slice(0, 2),
        id: (x) => x,
        run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }])).text,
      });
      const before = server!.chatRequests().length;
      const replay = make({ cache: 'replay' }); // default item concurrency (32): misses after the stop are "not run"
      const error = await echoJobs(replay).catch((e: unknown) => e);
      expect(error).toMatchObject({ cause: 'replay-miss', fix: expect.stringMatching(/--cache use/) });
      expect(replay.summaries()[0]).toMatchObject({ done: 2, failed: 3, notRun: 35, stopped: 'config' });
      expect(server!.chatRequests().length).toBe(before);
    });

    it('a first call that hangs does not hold the others back for its whole timeout', async () => {
      await start({ respond: (req, ctx) => (ctx.index === 0 ? { hang: true } : `ok ${req.messages[0]!.content}`) });
      // item-0's call hangs until its 2.5 s timeout; the next call waits at most 2 s for it, then the endpoint
      // answers and every other call goes at once
      const { summary, results } = await echoJobs(make({ timeoutMs: 2500, maxAttempts: 1 }));
      expect(summary).toMatchObject({ done: 39, failed: 1, notRun: 0 });
      expect(results[0]).toMatchObject({ id: 'item-0', ok: false, error: expect.stringMatching(/timeout/) });
    });

    it('once the first call is answered, the calls queued behind it go at once, not one by one', async () => {
      // Each answer is held until 9 requests are in flight at the server (or 1.5 s, below the 2 s first-contact wait).
      let inFlight = 0;
      let most = 0;
      const waiting: Array<() => void> = [];
      await start({
        respond: async (req, ctx) => {
          if (ctx.index > 0) {
            inFlight++;
            most = Math.max(most, inFlight);
            if (inFlight >= 9) for (const w of waiting.splice(0)) w();
            else await new Promise<void>((r) => (waiting.push(r), setTimeout(r, 1500)));
            inFlight--;
          }
          return `ok ${req.messages[0]!.content}`;
        },
      });
      const { summary } = await make({ concurrency: 16 }).runJobs({
        name: 'q',
        items: items.slice(0, 10),
        id: (x) => x,
        run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }])).text,
      });
      expect(summary).toMatchObject({ done: 10, failed: 0 });
      expect(server!.chatRequests()).toHaveLength(10);
      expect(most).toBe(9);
    });

    it('isolated failures do not stop a run: a success resets the count', async () => {
      await start({ rules: [{ match: /item-\d*[05]$/, reply: { status: 404, error: 'no such thing' } }] });
      const { summary, failed } = await echoJobs(make({ itemConcurrency: 1 }));
      // items 0, 5, 10, ..., 35 (8 items) answer 404, never 3 in a row
      expect(summary).toMatchObject({ done: 32, failed: 8, notRun: 0 });
      expect(summary.stopped).toBeUndefined();
      expect(failed).toEqual(items.filter((_, i) => i % 5 === 0));
    });
  });

  describe('failed items are failed, listed, and retried exactly next run', () => {
    it('mixed faults (500s after all retries, retry-after in seconds, truncated bodies): every item accounted for', async () => {
      const doomed = new Set(['item-3', 'item-17', 'item-29']);
      let healed = false;
      await start({
        respond: (req, ctx) => {
          const text = req.messages.at(-1)!.content;
          if (doomed.has(text) && !healed) return { status: 500, error: `boom ${text}` };
          if (text === 'item-8' && ctx.attempt === 0) return { status: 429, headers: { 'retry-after': '0' } };
          if (text === 'item-9' && ctx.attempt === 0) return { truncate: true };
          return `ok ${text}`;
        },
      });
      const journal = join(dir, 'journal.jsonl');
      const first = await echoJobs(make({ maxAttempts: 2 }), { journal });
      expect(first.summary).toMatchObject({ items: 40, done: 37, failed: 3, notRun: 0, skipped: 0 });
      expect(first.failed.sort()).toEqual([...doomed].sort());
      for (const r of first.results) {
        if (doomed.has(r.id))
          expect(r).toMatchObject({
            ok: false,
            code: 'llm_call_failed',
            status: 500,
            error: expect.stringMatching(/HTTP 500: .*boom item-\d+ \(after 2 attempts\)/),
          });
        else expect(r).toEqual({ id: r.id, ok: true, value: `ok ${r.id}` });
      }
      expect(first.summary.failures.map((f) => f.key).sort()).toEqual([...doomed].sort());
      // item-8 (429, retry-after 0 s) and item-9 (truncated body) were retried once each, then answered
      expect(first.summary.retries).toBe(2 + 3); // + one retry of each doomed item (2 attempts)
      const text = formatSummary(first.summary);
      expect(text).toMatch(/echo: 40 item\(s\): 37 done, 3 failed, 0 skipped/);
      expect(text).toMatch(/INCOMPLETE/);
      expect(text).toMatch(/failed: item-3: HTTP 500/);

      healed = true;
      const sentBefore = server!.chatRequests().length;
      const second = await echoJobs(make(), { journal });
      expect(second.summary).toMatchObject({ done: 40, failed: 0, skipped: 37, calls: 3 });
      expect(
        server!
          .chatRequests()
          .slice(sentBefore)
          .map((r) => r.body.messages[0].content)
          .sort(),
      ).toEqual([...doomed].sort());
      expect(formatSummary(second.summary)).toMatch(/complete: every item was evaluated/);
    });

    it("retry-after in seconds is honoured (the wait is the server's, not the backoff's)", async () => {
      await start({
        respond: (req, ctx) =>
          ctx.attempt === 0 ? { status: 503, headers: { 'retry-after': '1' } } : `ok ${req.messages[0]!.content}`,
      });
      const usageLog = join(dir, 'usage.jsonl');
      const llm = make({ backoffBaseMs: 1, backoffMaxMs: 60_000, usageLog });
      const { summary } = await llm.runJobs({
        name: 'ra',
        items: ['only'],
        id: (x) => x,
        run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }])).text,
      });
      await llm.close();
      expect(summary).toMatchObject({ done: 1, retries: 1 });
      const retry = (await readLines(usageLog)).find((l) => l.event === 'retry');
      // 1 s from the header, plus a jitter of at most 50 ms (the backoff alone would have waited 1 ms)
      expect(retry).toMatchObject({ status: 503, delayMs: expect.any(Number) });
      expect(retry.delayMs).toBeGreaterThanOrEqual(1000);
      expect(retry.delayMs).toBeLessThanOrEqual(1050);
    });

    it('a filesystem error (cache or journal path under a file) stops the run with an error naming the path', async () => {
      await start();
      const file = join(dir, 'a-file');
      await writeFile(file, 'x');
      const cacheError = await echoJobs(make({ cacheDir: join(file, 'cache') })).catch((e: unknown) => e);
      expect(cacheError).toMatchObject({ name: 'FileSystemError', code: 'fs_error', errno: 'ENOTDIR' });
      expect((cacheError as Error).message).toMatch(
        new RegExp(`^cannot write to the LLM cache at ${file}/cache/v2.*\\(ENOTDIR\\)$`),
      );
      const journalError = await echoJobs(make(), { journal: join(file, 'journal.jsonl') }).catch((e: unknown) => e);
      expect(journalError).toMatchObject({ code: 'fs_error', path: join(file, 'journal.jsonl') });
    });

    it('interrupt(): the run resolves as stopped, finished items kept, summary written', async () => {
      await start({ latencyMs: 20 });
      const summaryFile = join(dir, 's.json');
      const llm = make({ itemConcurrency: 2, summaryFile });
      let n = 0;
      const run = llm.runJobs({
        name: 'slow',
        items,
        id: (x) => x,
        run: async (x, { model }) => {
          if (++n === 5) llm.interrupt('SIGINT');
          return (await model.chat([{ role: 'user', content: x }])).text;
        },
      });
      const { summary, notRun } = await run;
      expect(summary.stopped).toBe('aborted');
      expect(summary.done + summary.failed + summary.notRun).toBe(40);
      expect(summary.failed).toBe(0);
      expect(notRun.length).toBe(summary.notRun);
      expect(summary.notRun).toBeGreaterThan(30);
      expect(JSON.parse(await readFile(summaryFile, 'utf8'))).toMatchObject({ stopped: 'aborted', done: summary.done });
    });
  });

  describe('Ctrl-C', () => {
    it('catchInterrupts: the first SIGINT stops the run cleanly (summary stopped: aborted); handlers are removed after', async () => {
      await start({ latencyMs: 10 });
      const llm = make({ itemConcurrency: 2 });
      const messages: string[] = [];
      const before = process.listenerCount('SIGINT');
      const release = catchInterrupts(llm, { log: (t) => messages.push(t) });
      expect(process.listenerCount('SIGINT')).toBe(before + 1);
      let n = 0;
      const { summary } = await llm.runJobs({
        name: 'ctrl-c',
        items,
        id: (x) => x,
        run: async (x, { model }) => {
          if (++n === 3) process.emit('SIGINT', 'SIGINT');
          return (await model.chat([{ role: 'user', content: x }])).text;
        },
      });
      release();
      expect(process.listenerCount('SIGINT')).toBe(before);
      expect(messages).toEqual([expect.stringMatching(/^SIGINT: stopping; .*press Ctrl-C again to quit at once/)]);
      expect(summary).toMatchObject({ stopped: 'aborted', failed: 0 });
      expect(summary.done + summary.notRun).toBe(40);
      expect(formatSummary(llm.summaries())).toMatch(
        /stopped: ctrl-c was interrupted; finished items are kept\n(.|\n)*INCOMPLETE/,
      );
    });
  });

  describe('repeats and namespace in the cache key', () => {
    it('repeat 0 and no namespace keep the key of earlier versions; others differ', () => {
      const req = buildRequest([{ role: 'user', content: 'x' }], { temperature: 1 }, { model: 'm' });
      const legacy = sha256(canonicalJson(req));
      expect(requestKey(req)).toBe(legacy);
      expect(requestKey(req, { repeat: 0 })).toBe(legacy);
      expect(requestKey(req, { repeat: 1 })).not.toBe(legacy);
      expect(requestKey(req, { namespace: 'dap' })).not.toBe(legacy);
      expect(requestKey(req, { namespace: 'dap', repeat: 1 })).not.toBe(requestKey(req, { repeat: 1 }));
      expect(jobKey('d1', 0)).toBe('d1');
      expect(jobKey('d1', 2)).toBe('d1#2');
    });

    it('an existing cache answers repeat 0; repeats 1 and 2 are new calls; a rerun makes none', async () => {
      let n = 0;
      await start({ respond: () => `answer ${n++}` });
      const few = items.slice(0, 3);
      const run = (llm: Llm) =>
        llm.runJobs({
          name: 'rep',
          items: few,
          id: (x) => x,
          repeats: 3,
          run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }], { temperature: 1 })).text,
        });
      // a cache written by a single run (no repeats)
      await make().runJobs({
        name: 'rep',
        items: few,
        id: (x) => x,
        run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }], { temperature: 1 })).text,
      });
      expect(server!.chatRequests()).toHaveLength(3);
      const { results, summary } = await run(make());
      expect(summary).toMatchObject({ items: 9, repeats: 3, done: 9, cacheHits: 3, calls: 6 });
      expect(results.map((r) => `${r.id}#${r.repeat}`)).toEqual(few.flatMap((x) => [0, 1, 2].map((r) => `${x}#${r}`)));
      // repeat 0 is the answer of the single run; the repeats have answers of their own
      const values = results.map((r) => (r.ok ? r.value : null));
      expect(values.slice(0, 3)).toEqual(['answer 0', 'answer 3', 'answer 4']);
      expect(new Set(values).size).toBe(9);
      const again = await run(make());
      expect(again.summary).toMatchObject({ calls: 0, cacheHits: 9 });
      expect(again.results).toEqual(results);
    });

    it('two namespaces with coinciding prompts do not overwrite each other', async () => {
      let n = 0;
      await start({ respond: () => `answer ${n++}` });
      const ask = (ns: string | undefined) =>
        make({ namespace: ns }).model.chat([{ role: 'user', content: 'same prompt' }]);
      const a = await ask('original');
      const b = await ask('dap');
      expect(a.text).toBe('answer 0');
      expect(b.text).toBe('answer 1');
      expect((await ask('original')).text).toBe('answer 0');
      expect((await ask('dap')).text).toBe('answer 1');
      expect(server!.chatRequests()).toHaveLength(2);
    });
  });

  describe('the journal is checked', () => {
    it('an edited but valid line is dropped and its item redone; intact lines are trusted', async () => {
      await start();
      const journal = join(dir, 'j.jsonl');
      const few = items.slice(0, 4);
      const run = () =>
        make().runJobs({
          name: 'j',
          items: few,
          id: (x) => x,
          journal,
          run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }])).text,
        });
      await run();
      const lines = (await readFile(journal, 'utf8')).trim().split('\n');
      const edited = JSON.parse(lines[1]!);
      edited.value = 'a better-looking answer';
      lines[1] = JSON.stringify(edited);
      await writeFile(journal, `${lines.join('\n')}\n`);
      const { summary, results } = await run();
      expect(summary).toMatchObject({ skipped: 3, done: 4, journalDropped: 1, cacheHits: 1, calls: 0 });
      expect(results[1]).toEqual({ id: 'item-1', ok: true, value: 'echo: item-1' });
      expect(logs.join('\n')).toMatch(/1 line\(s\) failed their checksum and were dropped/);
    });
  });

  describe('dry run: a range, each end explained', () => {
    it('max tokens 16,384 is the upper bound, not the estimate; a package call-count model scales the calls', async () => {
      await start();
      // gpt-4o-mini: $0.15 input, $0.60 output per 1M tokens. Item prompts "item-N" count P tokens (local tokenizer).
      const llm = make({ model: 'gpt-4o-mini', maxTokens: 16384, dryRun: { requestsFile: join(dir, 'plan.jsonl') } });
      const few = items.slice(10, 20); // 10 items, "item-10".."item-19": the same token count each
      const { summary } = await llm.runJobs({
        name: 'judge',
        items: few,
        id: (x) => x,
        dryRunCalls: () => ({ realistic: 3, upper: 5 }),
        run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }])).text,
      });
      const p = await countPromptTokens(
        buildRequest([{ role: 'user', content: 'item-10' }], undefined, { model: 'gpt-4o-mini' }),
      );
      const d = summary.dryRun!;
      expect(d.calls).toBe(10);
      // realistic: 10 items x 3 calls = 30 calls of P prompt + 256 completion tokens (nothing observed yet)
      expect(d.estimate.realistic).toMatchObject({ calls: 30, promptTokens: 30 * p, completionTokens: 30 * 256 });
      expect(d.estimate.realistic.cost).toBeCloseTo((30 * (p * 0.15 + 256 * 0.6)) / 1e6, 12);
      expect(d.estimate.realistic.explanation).toMatch(
        /call-count model.*256 completion tokens per call \(none observed yet/,
      );
      // upper: 10 x 5 = 50 calls of P prompt + 16,384 completion tokens
      expect(d.estimate.upper).toMatchObject({ calls: 50, promptTokens: 50 * p, completionTokens: 50 * 16384 });
      expect(d.estimate.upper.cost).toBeCloseTo((50 * (p * 0.15 + 16384 * 0.6)) / 1e6, 12);
      expect(d.estimate.upper.explanation).toMatch(
        /the most the package's call-count model allows; every call using its request's max tokens/,
      );
      expect(logs.join('\n')).toMatch(/realistic: 30 calls.*\n {2}upper bound: 50 calls/);
      expect(server!.chatRequests()).toHaveLength(0);
    });

    it('the realistic estimate uses the completion tokens the cache holds for the same method', async () => {
      await start({ respond: () => ({ content: 'ok', usage: { promptTokens: 5, completionTokens: 40 } }) });
      // one run per user (different names), one method: the statistics are shared
      const run = (llm: Llm, user: string, names: string[]) =>
        llm.runJobs({
          name: `judge ${user}`,
          method: 'judge',
          items: names,
          id: (x) => x,
          run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }])).text,
        });
      await run(make(), 'u1', items.slice(0, 4)); // 4 answers of 40 completion tokens cached under method "judge"
      const { summary } = await run(make({ dryRun: { requestsFile: join(dir, 'p.jsonl') } }), 'u2', items.slice(4, 8));
      expect(summary.dryRun!.estimate.realistic).toMatchObject({ calls: 4, completionTokens: 4 * 40 });
      expect(summary.dryRun!.estimate.upper).toMatchObject({ calls: 4, completionTokens: 4 * 4096 });
    });
  });

  describe('batch mode with repeats and a namespace', () => {
    it('answers map back to their repeat and namespace keys', async () => {
      let n = 0;
      await start({ respond: () => `answer ${n++}` });
      const run = (llm: Llm) =>
        llm.runJobs({
          name: 'b',
          items: ['p', 'q'],
          id: (x) => x,
          repeats: 2,
          run: async (x, { model }) => (await model.chat([{ role: 'user', content: x }])).text,
        });
      const { summary, results } = await run(make({ namespace: 'ns', batch: { pollIntervalMs: 2 } }));
      expect(summary).toMatchObject({ done: 4, calls: 0, batchCalls: 4, batch: { answered: 4, failed: 0 } });
      expect(new Set(results.map((r) => r.ok && r.value)).size).toBe(4);
      // the same run live: every answer from the cache
      const again = await run(make({ namespace: 'ns' }));
      expect(again.summary).toMatchObject({ calls: 0, cacheHits: 4 });
      expect(again.results).toEqual(results);
    });
  });

  describe('budget reserves the expected cost', () => {
    it('a budget of half a run spends close to half before it stops (no max tokens: the observed mean is reserved)', async () => {
      // Every answer has 200 completion tokens; prompt tokens are reported as the local tokenizer counts them.
      await start({
        latencyMs: 5,
        respond: async (req) => ({
          content: 'ok',
          usage: {
            promptTokens: await countPromptTokens(buildRequest(req.messages, undefined, { model: req.model })),
            completionTokens: 200,
          },
        }),
      });
      // Prompts "item-0" ... "item-39" count the same number of tokens P each, so every call costs (P + 200) / 1e6
      // USD at $1 / $1 per 1M tokens; the budget is 20 such calls, half of the 40-item run.
      const perCall =
        ((await countPromptTokens(
          buildRequest([{ role: 'user', content: 'item-10' }], undefined, { model: 'test-model' }),
        )) +
          200) /
        1e6;
      const budget = 20 * perCall;
      const llm = make({ maxCost: budget, concurrency: 8, prices: { 'test-model': { input: 1, output: 1 } } });
      const { summary } = await echoJobs(llm);
      expect(summary.stoppedByBudget).toBe(true);
      expect(summary.cost).toBeLessThanOrEqual(budget + 1e-12);
      // Calls that do not fit next to those in flight wait for them instead of stopping the run, so it goes on
      // until the next call cannot fit: 20 calls (19 allowing for floating-point rounding of 20 x perCall).
      expect(summary.done).toBeGreaterThanOrEqual(19);
      expect(summary.done).toBeLessThanOrEqual(20);
      expect(summary.done + summary.notRun).toBe(40);
    });

    it('with max tokens set, the reservation is the max tokens (not 16,384 per item whatever the request)', async () => {
      await start({ respond: () => ({ content: 'ok', usage: { promptTokens: 10, completionTokens: 10 } }) });
      // Local count of "item-N" prompts: P tokens; reservation (P + 50) / 1e6; actual cost 20 / 1e6 per call.
      const llm = make({
        maxCost: 0.001,
        maxTokens: 50,
        concurrency: 4,
        prices: { 'test-model': { input: 1, output: 1 } },
      });
      const { summary } = await echoJobs(llm);
      // 40 calls x $0.00002 = $0.0008 <= $0.001: the whole run fits although 40 x reservation might not
      expect(summary).toMatchObject({ done: 40, stoppedByBudget: false });
      expect(summary.cost).toBeCloseTo((40 * 20) / 1e6, 12);
    });
  });
});
