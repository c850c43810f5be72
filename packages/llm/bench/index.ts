// Benchmarks of @eval/llm (run by `pnpm bench`; printed as ratios, not asserted in tests).
// A fully cached re-run of 10,000 calls (fresh journal, every answer from the disk cache) must take under 2 s.
// (The throughput targets at a fixed concurrency of 200 and 50 against a loopback server are retired (issue 23): a
// real run's time is set by the provider's quota; scripts/bench-llm-quota.mjs measures whole commands against the
// bound of a rate-limited server and reports the client's CPU per call.)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLlm } from '../src/index';
import { startTestServer } from '../src/testing/index';

const KEY_ENV = 'DIALEVAL_BENCH_KEY';
process.env[KEY_ENV] = 'bench-dummy-key';

async function cachedRerun(): Promise<boolean> {
  const calls = 10_000;
  const server = await startTestServer({ latencyMs: 0 });
  const dir = await mkdtemp(join(tmpdir(), 'llm-bench-'));
  try {
    const items = Array.from({ length: calls }, (_, i) => i);
    const run = async (i: number, { model }: { model: import('@eval/core').ChatModel }) =>
      (
        await model.chat([
          { role: 'system', content: 'You are a judge.' },
          { role: 'user', content: `Rate dialogue ${i} from 1 to 5.` },
        ])
      ).text;
    const first = createLlm({
      model: 'bench-model',
      baseURL: server.baseURL,
      apiKeyEnv: KEY_ENV,
      concurrency: 64,
      cacheDir: join(dir, 'cache'),
      progress: false,
    });
    await first.runJobs({ name: 'fill', items, id: String, run });
    await first.close();
    const requestsBefore = server.requests.length;
    const second = createLlm({
      model: 'bench-model',
      baseURL: server.baseURL,
      apiKeyEnv: KEY_ENV,
      concurrency: 64,
      cacheDir: join(dir, 'cache'),
      progress: false,
    });
    const t0 = performance.now();
    const { summary } = await second.runJobs({
      name: 'cached',
      items,
      id: String,
      run,
      journal: join(dir, 'rerun.jsonl'),
    });
    const ms = performance.now() - t0;
    await second.close();
    const ok =
      summary.cacheHits === calls && summary.calls === 0 && server.requests.length === requestsBefore && ms < 2000;
    console.log(
      `llm cached re-run: ${calls} calls from cache (journal on) in ${ms.toFixed(0)} ms (target < 2000 ms) ${ok ? 'OK' : 'FAIL'}`,
    );
    return ok;
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (!(await cachedRerun())) process.exitCode = 1;
