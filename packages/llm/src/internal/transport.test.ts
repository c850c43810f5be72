import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/helpers';
import { createLlm, type Llm } from '../llm';
import { startTestServer, type TestServer } from '../testing/index';
import { Pacer } from './pacer';
import { backoffDelay, OpenAITransport, redact, retryAfterMs } from './transport';

const KEY_ENV = 'EVAL_LLM_TRANSPORT_KEY';
const KEY = 'sk-transport-0123456789abcdefghij';

describe('retry helpers', () => {
  it('reads retry-after-ms, retry-after seconds and retry-after HTTP dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '40', 'retry-after': '2' }))).toBe(40);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });

  it('backs off exponentially with jitter in [d/2, d], capped', () => {
    const p = { backoffBaseMs: 100, backoffMaxMs: 1000 };
    expect(backoffDelay(1, p, () => 0)).toBe(50);
    expect(backoffDelay(1, p, () => 1)).toBe(100);
    expect(backoffDelay(3, p, () => 1)).toBe(400);
    expect(backoffDelay(3, p, () => 0)).toBe(200);
    expect(backoffDelay(10, p, () => 1)).toBe(1000);
  });

  it('redacts the key and any 12-character piece of it', () => {
    expect(redact(`bad key ${KEY}!`, KEY)).toBe('bad key [redacted]!');
    expect(redact(`key sk-transport-01234****`, KEY)).not.toContain('sk-transport-0');
    expect(redact('nothing here', KEY)).toBe('nothing here');
  });
});

describe('retries and timeouts against the test server (real SDK)', () => {
  let server: TestServer;
  let dir: string;
  let cleanup: () => Promise<void>;
  let llm: Llm;

  beforeAll(async () => {
    process.env[KEY_ENV] = KEY;
    server = await startTestServer({
      rules: [
        { match: 'rate-limited-ms', times: 1, reply: { status: 429, headers: { 'retry-after-ms': '150' } } },
        { match: 'rate-limited-s', times: 1, reply: { status: 429, headers: { 'retry-after': '1' } } },
        { match: 'flaky-500', times: 2, reply: { status: 500 } },
        { match: 'always-500', reply: { status: 503, error: 'overloaded' } },
        { match: 'bad-request', reply: { status: 400, error: 'unsupported parameter' } },
        { match: 'hangs-once', times: 1, reply: { hang: true } },
        { match: 'truncated-once', times: 1, reply: { raw: '{"id":"chatcmpl-1","object":"chat.compl' } },
        { match: 'garbage-once', times: 1, reply: { raw: '{"unexpected": true}' } },
        { match: 'echo-key', reply: { status: 401, error: `Incorrect API key provided: ${KEY}` } },
      ],
    });
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    llm = createLlm({
      model: 'test-model',
      baseURL: server.baseURL,
      apiKeyEnv: KEY_ENV,
      cacheDir: dir,
      timeoutMs: 500,
      maxAttempts: 3,
      backoffBaseMs: 20,
      progress: false,
    });
  });
  afterEach(async () => {
    await llm.close();
    await cleanup();
  });

  const ask = (content: string) => llm.model.chat([{ role: 'user', content }]);
  const times = (content: string) =>
    server
      .chatRequests()
      .filter((r) => r.body.messages.at(-1).content === content)
      .map((r) => r.time);

  it('honours retry-after-ms on 429', async () => {
    const r = await ask('rate-limited-ms');
    expect(r.text).toBe('echo: rate-limited-ms');
    const t = times('rate-limited-ms');
    expect(t).toHaveLength(2);
    expect(t[1]! - t[0]!).toBeGreaterThanOrEqual(145);
    expect(t[1]! - t[0]!).toBeLessThan(1000);
    expect(llm.usage()).toMatchObject({ calls: 1, retries: 1, failedCalls: 0 });
  });

  it('honours retry-after (seconds) on 429', async () => {
    await ask('rate-limited-s');
    const t = times('rate-limited-s');
    expect(t).toHaveLength(2);
    expect(t[1]! - t[0]!).toBeGreaterThanOrEqual(990);
  });

  it('retries 5xx with backoff and succeeds', async () => {
    const r = await ask('flaky-500');
    expect(r.text).toBe('echo: flaky-500');
    expect(times('flaky-500')).toHaveLength(3);
    expect(llm.usage().retries).toBe(2);
  });

  it('gives up after maxAttempts with the reason', async () => {
    await expect(ask('always-500')).rejects.toThrow(/HTTP 503.*overloaded.*after 3 attempts/);
    expect(times('always-500')).toHaveLength(3);
    expect(llm.usage()).toMatchObject({ calls: 0, failedCalls: 1, retries: 2 });
  });

  it('does not retry a 400', async () => {
    await expect(ask('bad-request')).rejects.toThrow(/HTTP 400.*unsupported parameter.*not retryable/);
    expect(times('bad-request')).toHaveLength(1);
  });

  it('times out a hanging call and retries it', async () => {
    const r = await ask('hangs-once');
    expect(r.text).toBe('echo: hangs-once');
    const t = times('hangs-once');
    expect(t).toHaveLength(2);
    expect(t[1]! - t[0]!).toBeGreaterThanOrEqual(490);
  });

  it('retries a truncated body and a body without choices', async () => {
    expect((await ask('truncated-once')).text).toBe('echo: truncated-once');
    expect(times('truncated-once')).toHaveLength(2);
    expect((await ask('garbage-once')).text).toBe('echo: garbage-once');
    expect(times('garbage-once')).toHaveLength(2);
  });

  it('never puts the key in an error message, even when the endpoint echoes it', async () => {
    const error = await ask('echo-key').catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/HTTP 401/);
    expect((error as Error).message).not.toContain(KEY);
    expect((error as Error).message).toContain('[redacted]');
  });

  it('reports usage per call: prompt, completion and cached tokens', async () => {
    const s2 = await startTestServer({
      respond: () => ({ content: 'ok', usage: { promptTokens: 120, completionTokens: 7, cachedTokens: 100 } }),
    });
    const l2 = createLlm({
      model: 'gpt-4o-mini',
      baseURL: s2.baseURL,
      apiKeyEnv: KEY_ENV,
      cacheDir: dir,
      progress: false,
    });
    const r = await l2.model.chat([{ role: 'user', content: 'usage please' }]);
    expect(r.usage).toEqual({ promptTokens: 120, completionTokens: 7, cachedTokens: 100 });
    // gpt-4o-mini default price: input 0.15, cached input 0.075, output 0.60 USD per 1M tokens:
    // (20 x 0.15 + 100 x 0.075 + 7 x 0.60) / 1e6 = (3 + 7.5 + 4.2) / 1e6 = 14.7e-6
    expect(l2.usage().cost).toBeCloseTo(14.7e-6, 12);
    expect(l2.usage()).toMatchObject({
      calls: 1,
      promptTokens: 120,
      completionTokens: 7,
      cachedTokens: 100,
      totalTokens: 127,
      costKnown: true,
    });
    await l2.close();
    await s2.close();
  });
});

describe('aborting', () => {
  it('aborting the run ends the calls in flight at once; calls leave no listener on the run signal', async () => {
    const server = await startTestServer({ rules: [{ match: 'hang', reply: { hang: true } }] });
    const pacer = new Pacer({ concurrency: 8 });
    const transport = new OpenAITransport({
      apiKey: KEY,
      baseURL: server.baseURL,
      pacer,
      policy: { maxAttempts: 3, timeoutMs: 10_000, backoffBaseMs: 10, backoffMaxMs: 100 },
    });
    const run = new AbortController();
    const body = (content: string) => ({ model: 'test-model', messages: [{ role: 'user', content }] });
    for (let i = 0; i < 20; i++)
      expect((await transport.send(body(`q${i}`), run.signal)).response.text).toBe(`echo: q${i}`);
    expect(getEventListeners(run.signal, 'abort').length).toBeLessThanOrEqual(1);
    const started = Date.now();
    const hanging = [transport.send(body('hang 1'), run.signal), transport.send(body('hang 2'), run.signal)].map((p) =>
      p.catch((e: unknown) => e),
    );
    await new Promise((r) => setTimeout(r, 100));
    run.abort(new Error('run stopped'));
    for (const e of await Promise.all(hanging)) expect(e).toMatchObject({ message: 'run stopped' });
    expect(Date.now() - started).toBeLessThan(2000); // not the 10 s timeout
    expect(server.chatRequests().filter((r) => r.body.messages[0].content.startsWith('hang'))).toHaveLength(2); // not retried
    expect((pacer as unknown as { inFlight: number }).inFlight).toBe(0);
    // a signal that is already aborted sends nothing
    const before = server.requests.length;
    await expect(transport.send(body('q-late'), run.signal)).rejects.toMatchObject({ message: 'run stopped' });
    expect(server.requests.length).toBe(before);
    await server.close();
  });
});

describe('the chat-completion request goes through the SDK', () => {
  it('posts to <baseURL>/chat/completions with the fetch given, and fails with the SDK error classes', async () => {
    const seen: Array<{ url: string; auth: string | null; body: unknown }> = [];
    const replies: Array<() => Response> = [
      () =>
        new Response(JSON.stringify({ choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }] }), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        }),
      () =>
        new Response(JSON.stringify({ error: { message: 'bad request body' } }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        }),
      () => new Response('upstream down', { status: 503 }),
      () =>
        new Response(JSON.stringify({ choices: [{ message: { content: 'again' }, finish_reason: 'length' }] }), {
          status: 200,
          headers: { 'content-type': 'application/json; charset=utf-8' },
        }),
    ];
    const fakeFetch = (async (url: string, init: RequestInit) => {
      seen.push({
        url: String(url),
        auth: new Headers(init.headers as Record<string, string>).get('authorization'),
        body: JSON.parse(init.body as string),
      });
      return replies.shift()!();
    }) as unknown as typeof fetch;
    const transport = new OpenAITransport({
      apiKey: KEY,
      baseURL: 'http://127.0.0.1:9/v1/',
      pacer: new Pacer({ concurrency: 1 }),
      policy: { maxAttempts: 2, timeoutMs: 5000, backoffBaseMs: 1, backoffMaxMs: 2 },
      fetch: fakeFetch,
    });
    const body = { model: 'm', messages: [{ role: 'user', content: 'q' }], max_tokens: 5 };
    expect((await transport.send(body)).response).toEqual({ text: 'hi', finishReason: 'stop' });
    expect(seen[0]).toEqual({ url: 'http://127.0.0.1:9/v1/chat/completions', auth: `Bearer ${KEY}`, body });
    // 400: the SDK's BadRequestError message ("400 <error.message>"), not retried
    await expect(transport.send(body)).rejects.toMatchObject({
      message: 'HTTP 400: 400 bad request body (not retryable)',
      status: 400,
      retryable: false,
    });
    // 503 with a text body: retried, then answered
    const retried = await transport.send(body);
    expect(retried).toMatchObject({ attempts: 2, response: { text: 'again', finishReason: 'length' } });
    expect(seen).toHaveLength(4);
  });
});
