import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { refusedBaseURL, startTestServer, type TestServer } from './index';

describe('startTestServer (driven with the real openai SDK)', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const client = (s: TestServer, o: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) =>
    new OpenAI({ apiKey: 'sk-server-test', baseURL: s.baseURL, maxRetries: 0, ...o });

  it('listens on 127.0.0.1 and echoes by default, with usage and a request log', async () => {
    server = await startTestServer();
    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const r = await client(server).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi there' }],
    });
    expect(r.choices[0]!.message.content).toBe('echo: hi there');
    expect(r.choices[0]!.finish_reason).toBe('stop');
    // defaultUsage: 3 + (3 + ceil(8 / 4)) = 8 prompt tokens; "echo: hi there" = 14 chars -> 4 completion tokens
    expect(r.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 4, total_tokens: 12 });
    expect(server.requests).toEqual([
      {
        method: 'POST',
        path: '/v1/chat/completions',
        body: { model: 'm', messages: [{ role: 'user', content: 'hi there' }] },
        time: expect.any(Number),
        status: 200,
        delayMs: 0,
      },
    ]);
  });

  it('chooses replies by rules (string, RegExp, function; limited uses), then respond', async () => {
    server = await startTestServer({
      rules: [
        { match: 'once', times: 1, reply: 'first time' },
        {
          match: /^len\b/,
          reply: {
            content: 'cut',
            finishReason: 'length',
            usage: { promptTokens: 1, completionTokens: 2, cachedTokens: 1 },
          },
        },
        { match: (req) => req.model === 'special', reply: (req) => `special ${req.messages.length}` },
      ],
      respond: (_req, ctx) => `fallback #${ctx.index} attempt ${ctx.attempt}`,
    });
    const c = client(server);
    const ask = async (content: string, model = 'm') =>
      (await c.chat.completions.create({ model, messages: [{ role: 'user', content }] })).choices[0]!;
    expect((await ask('once')).message.content).toBe('first time');
    expect((await ask('once')).message.content).toBe('fallback #1 attempt 1');
    const len = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'len x' }] });
    expect(len.choices[0]!.finish_reason).toBe('length');
    expect(len.usage).toMatchObject({
      prompt_tokens: 1,
      completion_tokens: 2,
      prompt_tokens_details: { cached_tokens: 1 },
    });
    expect((await ask('x', 'special')).message.content).toBe('special 1');
  });

  it('injects 429 with retry-after, 500, invalid bodies, and a 401 without the configured key', async () => {
    server = await startTestServer({
      apiKey: 'sk-right',
      rules: [
        { match: 'limit', reply: { status: 429, headers: { 'retry-after': '7' } } },
        { match: 'boom', reply: { status: 500, error: 'kaput' } },
        { match: 'garbage', reply: { raw: '{"choices": [' } },
      ],
    });
    const c = client(server, { apiKey: 'sk-right' });
    const err = (content: string) =>
      c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content }] }).catch((e) => e);
    const limited = await err('limit');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await err('boom')).status).toBe(500);
    expect((await err('boom')).message).toMatch(/kaput/);
    expect(await err('garbage')).toBeInstanceOf(Error);
    const wrong = await client(server, { apiKey: 'sk-wrong' })
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e);
    expect(wrong.status).toBe(401);
  });

  it('applies fixed and random latency, and hangs until the client times out', async () => {
    server = await startTestServer({
      latencyMs: [40, 60],
      rules: [
        { match: 'hang', reply: { hang: true } },
        { match: 'fast', reply: { content: 'quick', delayMs: 0 } },
      ],
    });
    const c = client(server);
    let t = Date.now();
    await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'slow' }] });
    expect(Date.now() - t).toBeGreaterThanOrEqual(38);
    await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'fast' }] });
    // The server's own record of the latency it applied (a wall-clock upper bound would be flaky on a busy machine).
    expect(server.requests.map((r) => r.delayMs)).toEqual([expect.any(Number), 0]);
    expect(server.requests[0]!.delayMs).toBeGreaterThanOrEqual(40);
    expect(server.requests[0]!.delayMs).toBeLessThanOrEqual(60);
    t = Date.now();
    const e = await c.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hang' }] }, { timeout: 150 })
      .catch((x) => x);
    expect(e.constructor.name).toBe('APIConnectionTimeoutError');
    expect(Date.now() - t).toBeGreaterThanOrEqual(145);
  });

  it('implements files and batches: upload, create, poll, list, download output and errors', async () => {
    server = await startTestServer({
      batch: { completeAfterPolls: 2 },
      rules: [{ match: 'bad', reply: { status: 500 } }],
    });
    const c = client(server);
    const lines = ['good', 'bad'].map((w, i) =>
      JSON.stringify({
        custom_id: `r${i}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'm', messages: [{ role: 'user', content: w }] },
      }),
    );
    const file = await c.files.create({
      file: await toFile(Buffer.from(lines.join('\n')), 'in.jsonl'),
      purpose: 'batch',
    });
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'in.jsonl' });
    const batch = await c.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { tag: 't' },
    });
    expect(batch.status).toBe('validating');
    expect((await c.batches.retrieve(batch.id)).status).toBe('in_progress');
    const done = await c.batches.retrieve(batch.id);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 1, failed: 1 } });
    const listed = [];
    for await (const b of c.batches.list()) listed.push(b.id);
    expect(listed).toEqual([batch.id]);
    const out = (await (await c.files.content(done.output_file_id!)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out).toEqual([
      {
        id: expect.any(String),
        custom_id: 'r0',
        response: {
          status_code: 200,
          request_id: expect.any(String),
          body: expect.objectContaining({ object: 'chat.completion' }),
        },
        error: null,
      },
    ]);
    expect(out[0].response.body.choices[0].message.content).toBe('echo: good');
    const errs = (await (await c.files.content(done.error_file_id!)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(errs).toEqual([
      expect.objectContaining({ custom_id: 'r1', response: expect.objectContaining({ status_code: 500 }) }),
    ]);
    expect(server.requests.map((r) => `${r.method} ${r.path.replace(/\d+/g, 'N')}`)).toEqual([
      'POST /vN/files',
      'POST /vN/batches',
      'GET /vN/batches/batch-N',
      'GET /vN/batches/batch-N',
      'GET /vN/batches',
      'GET /vN/files/file-N/content',
      'GET /vN/files/file-N/content',
    ]);
  });

  it('injects 401 / 403 / 404 on every route (failAll, setFailAll)', async () => {
    server = await startTestServer({ failAll: { status: 401, error: 'Incorrect API key provided' } });
    const c = client(server);
    await expect(
      c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 401 });
    await expect(
      c.files.create({ file: await toFile(Buffer.from('{}'), 'in.jsonl'), purpose: 'batch' }),
    ).rejects.toMatchObject({ status: 401 });
    await expect(c.batches.retrieve('batch-1')).rejects.toMatchObject({ status: 401 });
    server.setFailAll({ status: 403 });
    await expect(c.batches.list()).rejects.toMatchObject({ status: 403 });
    server.setFailAll({ status: 404, error: 'The model `m` does not exist' });
    await expect(
      c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/does not exist/) });
    server.setFailAll(undefined);
    expect(
      (await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).choices[0]!.message
        .content,
    ).toBe('echo: x');
  });

  it('truncates a body in transit (truncate) and gives a refused port (refusedBaseURL)', async () => {
    server = await startTestServer({ rules: [{ match: 'cut', reply: { truncate: 20 } }] });
    await expect(
      client(server).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'cut' }] }),
    ).rejects.toThrow();
    expect(server.requests[0]!.status).toBe(200);
    const url = await refusedBaseURL();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await expect(
      new OpenAI({ apiKey: 'k', baseURL: url, maxRetries: 0 }).chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({
      cause: { cause: { code: 'ECONNREFUSED' } },
    });
  });

  it('fails chosen batch lines (failLine) and leaves batches outstanding until completeBatches()', async () => {
    server = await startTestServer({
      batch: {
        completeAfterPolls: Number.POSITIVE_INFINITY,
        failLine: (_req, { customId }) => (customId === 'r1' ? 503 : false),
      },
    });
    const c = client(server);
    const lines = ['a', 'b', 'c'].map((w, i) =>
      JSON.stringify({
        custom_id: `r${i}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'm', messages: [{ role: 'user', content: w }] },
      }),
    );
    const file = await c.files.create({
      file: await toFile(Buffer.from(lines.join('\n')), 'in.jsonl'),
      purpose: 'batch',
    });
    const batch = await c.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    for (let i = 0; i < 5; i++) expect((await c.batches.retrieve(batch.id)).status).toBe('in_progress');
    server.completeBatches();
    const done = await c.batches.retrieve(batch.id);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 2, failed: 1 } });
    const errs = (await (await c.files.content(done.error_file_id!)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(errs).toEqual([
      expect.objectContaining({ custom_id: 'r1', response: expect.objectContaining({ status_code: 503 }) }),
    ]);
    expect(server.batches().map((b) => b.id)).toEqual([batch.id]);
  });
});
