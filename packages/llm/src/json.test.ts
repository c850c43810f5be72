import type { ChatModel, ChatResult } from '@eval/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tempDir } from './fixtures/helpers';
import { chatJson, extractJson, fencedBlocks } from './json';
import { createLlm, type Llm } from './llm';
import { startTestServer, type TestServer } from './testing/index';

describe('extractJson', () => {
  const text = 'First:\n```json\n{"a": 1}\n```\nthen\n```\n{"a": 2}\n```\nand ```python\nx = 1\n```';
  it('takes the last or the first fenced json/untagged block', () => {
    expect(fencedBlocks(text)).toEqual(['{"a": 1}\n', '{"a": 2}\n']);
    expect(extractJson(text, 'last-fenced')).toEqual({ a: 2 });
    expect(extractJson(text, 'first-fenced')).toEqual({ a: 1 });
  });
  it('raw parses the whole (trimmed) text; a function is used as is', () => {
    expect(extractJson('  {"b": [1, 2]}\n', 'raw')).toEqual({ b: [1, 2] });
    expect(extractJson('score: 4', (t) => ({ score: Number(t.split(':')[1]) }))).toEqual({ score: 4 });
  });
  it('fails clearly without a block or with invalid JSON', () => {
    expect(() => extractJson('{"a": 1}', 'last-fenced')).toThrow(/no fenced/);
    expect(() => extractJson('```json\n{"a": \n```', 'last-fenced')).toThrow(/invalid JSON/);
    expect(() => extractJson('{a: 1}', 'raw')).toThrow(/invalid JSON/);
  });
});

describe('chatJson against the test server (real SDK)', () => {
  let server: TestServer;
  let llm: Llm;
  let cleanup: () => Promise<void>;
  const schema = z.object({ verdict: z.enum(['yes', 'no']), score: z.number().int() });

  beforeAll(async () => {
    server = await startTestServer({
      rules: [
        // Re-ask conversation: the correction message is the last user message.
        { match: 'could not be used', reply: '```json\n{"verdict": "yes", "score": 3}\n```' },
        { match: 'valid-first', reply: 'Sure.\n```json\n{"verdict": "no", "score": 1}\n```' },
        { match: 'broken-then-fixed', reply: 'Here: ```json\n{"verdict": "yes", "score": \n```' },
        { match: 'wrong-shape', reply: '```json\n{"verdict": "maybe", "score": 1.5}\n```' },
        {
          match: 'always-bad',
          reply: (req) => ({ content: req.messages.length > 1 ? 'still no json' : 'no json at all' }),
        },
        { match: 'truncated', reply: { content: '```json\n{"verdict": "ye', finishReason: 'length' } },
      ],
    });
    const t = await tempDir();
    cleanup = t.cleanup;
    process.env.EVAL_LLM_JSON_KEY = 'sk-json-test';
    llm = createLlm({
      model: 'test-model',
      baseURL: server.baseURL,
      apiKeyEnv: 'EVAL_LLM_JSON_KEY',
      cacheDir: t.dir,
      progress: false,
    });
  });
  afterAll(async () => {
    await llm.close();
    await server.close();
    await cleanup();
  });

  it('returns the typed value on a valid answer (one call)', async () => {
    const before = server.chatRequests().length;
    const r = await chatJson(llm.model, [{ role: 'user', content: 'valid-first' }], { schema });
    expect(r).toEqual({
      ok: true,
      value: { verdict: 'no', score: 1 },
      raw: 'Sure.\n```json\n{"verdict": "no", "score": 1}\n```',
      attempts: 1,
    });
    expect(server.chatRequests().length - before).toBe(1);
  });

  it('re-asks after invalid JSON, with the bad answer and the error in the conversation', async () => {
    const before = server.chatRequests().length;
    const r = await chatJson(llm.model, [{ role: 'user', content: 'broken-then-fixed' }], { schema, retries: 2 });
    expect(r.ok).toBe(true);
    expect(r.ok && r.value).toEqual({ verdict: 'yes', score: 3 });
    expect(r.attempts).toBe(2);
    const sent = server.chatRequests().slice(before);
    expect(sent).toHaveLength(2);
    const second = sent[1]!.body.messages;
    expect(second[1]).toEqual({ role: 'assistant', content: 'Here: ```json\n{"verdict": "yes", "score": \n```' });
    expect(second[2].content).toMatch(/invalid JSON/);
  });

  it('re-asks when the JSON does not match the schema', async () => {
    const r = await chatJson(llm.model, [{ role: 'user', content: 'wrong-shape' }], { schema, retries: 1 });
    expect(r.ok && r.value).toEqual({ verdict: 'yes', score: 3 });
  });

  it('gives up after N re-asks with a typed failure carrying the raw text', async () => {
    const before = server.chatRequests().length;
    const r = await chatJson(llm.model, [{ role: 'user', content: 'always-bad' }], {
      schema,
      retries: 2,
      reaskMessage: (e) => `always-bad again: ${e}`,
    });
    expect(r).toEqual({ ok: false, error: 'no fenced ```json block in the answer', raw: 'still no json', attempts: 3 });
    expect(server.chatRequests().length - before).toBe(3);
  });

  it('treats finish_reason length as a failed answer', async () => {
    const r = await chatJson(llm.model, [{ role: 'user', content: 'truncated' }], { schema, retries: 0 });
    expect(r).toEqual({
      ok: false,
      error: 'answer truncated (finish_reason: length)',
      raw: '```json\n{"verdict": "ye',
      attempts: 1,
    });
  });

  it('repeat mode re-sends the conversation with a new seed (so the cache does not return the same answer)', async () => {
    let calls = 0;
    const model: ChatModel = {
      id: 'scripted',
      async chat(messages, options): Promise<ChatResult> {
        calls++;
        expect(messages).toHaveLength(1);
        return { text: options?.seed === 8 ? '{"verdict":"no","score":2}' : 'nope', finishReason: 'stop' };
      },
    };
    const r = await chatJson(model, [{ role: 'user', content: 'q' }], {
      schema,
      extract: 'raw',
      reask: 'repeat',
      chat: { seed: 7 },
    });
    expect(r.ok && r.value).toEqual({ verdict: 'no', score: 2 });
    expect(calls).toBe(2);
  });
});
