import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fnv1a, readLines, tempDir } from './fixtures/helpers';
import { chatJson } from './json';
import { createLlm } from './llm';
import { startTestServer, type TestReply, type TestServer } from './testing/index';

// Fault injection: on the first two attempts of every request, a hash of (prompt, attempt) picks one of
//   0-7  -> 429 with retry-after-ms 20      8-13 -> 500      14-16 -> hang past the 400 ms timeout
//   17-19 -> truncated JSON body            20-99 -> a normal answer
// i.e. 20% of those calls fail. Later attempts succeed, except for the "doomed" items, which always get 500.
// JSON items answer invalid JSON to the first question when hash(prompt) % 3 == 0; the re-ask gets valid JSON.
const N = 40;
const DOOMED = new Set(['item-7', 'item-23']);
const injected = { 429: 0, 500: 0, hang: 0, truncated: 0, invalidJson: 0 };

function reply(content: string, isReask: boolean, attempt: number): TestReply {
  const item = /item-\d+/.exec(content)?.[0] ?? '';
  if (DOOMED.has(item)) return { status: 500, error: 'doomed' };
  if (attempt < 2) {
    const h = fnv1a(`${content}#${attempt}`) % 100;
    if (h < 8) return (injected[429]++, { status: 429, headers: { 'retry-after-ms': '20' } });
    if (h < 14) return (injected[500]++, { status: 500 });
    if (h < 17) return (injected.hang++, { hang: true });
    if (h < 20) return (injected.truncated++, { raw: '{"id": "chatcmpl-x", "choices": [{"index": 0, "mess' });
  }
  if (content.startsWith('json')) {
    if (!isReask && fnv1a(item) % 3 === 0) return (injected.invalidJson++, '```json\n{"n": \n```');
    return `\`\`\`json\n{"n": ${Number(item.slice(5))}}\n\`\`\``;
  }
  return `answer to ${item}`;
}

describe('fault tolerance: 429s, 500s, hangs and invalid JSON in 20% of calls', () => {
  let server: TestServer;
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    server = await startTestServer({
      latencyMs: [1, 5],
      respond: (req, ctx) => {
        const last = req.messages.at(-1)!.content;
        const isReask = req.messages.length > 1;
        const first = req.messages[0]!.content;
        return reply(isReask ? first : last, isReask, ctx.attempt);
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await cleanup();
  });

  it('completes; every item is answered or recorded failed with its reason; the counts add up', async () => {
    process.env.EVAL_LLM_FAULT_KEY = 'sk-fault';
    const llm = createLlm({
      model: 'test-model',
      baseURL: server.baseURL,
      apiKeyEnv: 'EVAL_LLM_FAULT_KEY',
      cacheDir: join(dir, 'cache'),
      concurrency: 8,
      // long enough that a slow answer on a loaded machine is not taken for an injected hang
      timeoutMs: 1500,
      maxAttempts: 5,
      backoffBaseMs: 10,
      backoffMaxMs: 100,
      progress: false,
      usageLog: join(dir, 'usage.jsonl'),
    });
    const items = Array.from({ length: N }, (_, i) => (i % 2 === 0 ? `plain item-${i}` : `json item-${i}`));
    const journal = join(dir, 'journal.jsonl');
    const schema = z.object({ n: z.number() });
    const { results, summary } = await llm.runJobs({
      name: 'faults',
      items,
      id: (x) => x.split(' ')[1]!,
      journal,
      run: async (x, { model }) => {
        if (x.startsWith('plain')) return (await model.chat([{ role: 'user', content: x }])).text;
        const r = await chatJson(model, [{ role: 'user', content: x }], { schema, retries: 2 });
        if (!r.ok) throw new Error(r.error);
        return r.value.n;
      },
    });
    await llm.close();

    // every fault kind was really injected
    expect(injected[429]).toBeGreaterThan(0);
    expect(injected[500]).toBeGreaterThan(0);
    expect(injected.hang).toBeGreaterThan(0);
    expect(injected.truncated).toBeGreaterThan(0);
    expect(injected.invalidJson).toBeGreaterThan(0);

    // nothing lost: one result per item, in order
    expect(results.map((r) => r.id)).toEqual(items.map((x) => x.split(' ')[1]));
    for (const [i, r] of results.entries()) {
      if (DOOMED.has(r.id)) {
        expect(r).toEqual({
          id: r.id,
          ok: false,
          error: expect.stringMatching(/^HTTP 500: .*doomed.* \(after 5 attempts\)$/),
          code: 'llm_call_failed',
          status: 500,
        });
      } else {
        expect(r).toEqual({ id: r.id, ok: true, value: i % 2 === 0 ? `answer to item-${i}` : i });
      }
    }
    const ok = results.filter((r) => r.ok).length;
    expect(summary).toMatchObject({
      items: N,
      done: ok,
      failed: DOOMED.size,
      skipped: 0,
      notRun: 0,
      stoppedByBudget: false,
      failedCalls: DOOMED.size,
    });
    expect(summary.done + summary.failed).toBe(N);
    // every request the server saw is a successful call, a retried attempt or the last attempt of a failed call
    expect(server.chatRequests().length).toBe(summary.calls + summary.retries + summary.failedCalls);
    // calls = one per plain item + one per JSON question + one per re-ask
    expect(summary.calls).toBe(N - DOOMED.size + injected.invalidJson);
    // the usage log has a line per call and per retried attempt, with its reason
    const log = await readLines(join(dir, 'usage.jsonl'));
    expect(log.filter((l) => l.event === 'call')).toHaveLength(summary.calls);
    const retries = log.filter((l) => l.event === 'retry');
    expect(retries).toHaveLength(summary.retries);
    expect(new Set(retries.map((r) => (r.status ? `HTTP ${r.status}` : r.reason.split(' ')[0])))).toEqual(
      new Set(['HTTP 429', 'HTTP 500', 'timeout', 'invalid']),
    );
    // the journal holds the same outcome for every item
    const lines = await readLines(journal);
    expect(lines.map((l) => [l.id, l.ok]).sort()).toEqual(results.map((r) => [r.id, r.ok]).sort());
  });
});
