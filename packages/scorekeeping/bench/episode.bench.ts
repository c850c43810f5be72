/**
 * Benchmark: wall time of one 5-slot episode against the scripted OpenAI-compatible server at a fixed latency,
 * probes of a round sent concurrently vs one after another (as the reference does). Target: at most 0.4x
 * (11 sequential round trips instead of 35). Run: `pnpm bench` (or `npm run bench` in this package).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { referencePath } from '../../../test-support/reference-data';
import {
  chatModelAnswerer,
  defaultResources,
  generateInstances,
  loadResourceDir,
  perfectAnswer,
  playEpisode,
  scoreEpisode,
  type GameResources,
} from '../src/index';

const LATENCY_MS = Number(process.env.SK_BENCH_LATENCY_MS ?? 100);
const REPEATS = Number(process.env.SK_BENCH_REPEATS ?? 3);
const TARGET = 0.4;

async function main(): Promise<number> {
  let llmModule: typeof import('@eval/llm');
  let testing: typeof import('@eval/llm/testing');
  try {
    llmModule = await import('@eval/llm');
    testing = await import('@eval/llm/testing');
  } catch (error) {
    console.log(`scorekeeping bench: skipped (@eval/llm is not available: ${(error as Error).message})`);
    return 0;
  }
  // the canonical texts: ../shared/scorekeeping or a fetched clembench-privateshared set (the same layout)
  const shared = dirname(referencePath('scorekeeping/resources'));
  const resources: GameResources = existsSync(join(shared, 'resources'))
    ? await loadResourceDir(shared)
    : defaultResources();
  const instance = generateInstances(resources, { instancesPerExperiment: 1 }).experiments[0]!.game_instances[0]!;
  const server = await testing.startTestServer({
    respond: (req) => perfectAnswer(req.messages, resources),
    latencyMs: LATENCY_MS,
  });
  const env = { ...process.env, SK_BENCH_KEY: 'bench-key' };
  const llm = llmModule.createLlm({
    model: 'bench-model',
    baseURL: server.baseURL,
    apiKeyEnv: 'SK_BENCH_KEY',
    cache: 'off',
    concurrency: 16,
    progress: false,
    env,
  });
  try {
    const answerer = chatModelAnswerer(llm.model, { name: 'bench-model' });
    const time = async (concurrentProbes: boolean) => {
      const before = server.chatRequests().length;
      const t0 = performance.now();
      const result = await playEpisode(instance, 'travel-booking', resources, answerer, { concurrentProbes });
      const ms = performance.now() - t0;
      return { ms, calls: server.chatRequests().length - before, result };
    };
    await time(true); // warm-up (connections, JIT)
    const seq: number[] = [];
    const con: number[] = [];
    let calls = 0;
    let same = true;
    for (let i = 0; i < REPEATS; i++) {
      const s = await time(false);
      const c = await time(true);
      seq.push(s.ms);
      con.push(c.ms);
      calls = s.calls;
      const strip = (x: typeof s.result) =>
        JSON.stringify(x.interactions.turns.map((t) => t.map((e) => [e.from, e.to, e.action])));
      same &&=
        strip(s.result) === strip(c.result) &&
        JSON.stringify(s.result.interactions.probes) === JSON.stringify(c.result.interactions.probes);
      const main = scoreEpisode(c.result.interactions, { nSlots: 5 }).episodeScores['Main Score'];
      if (main !== 100) throw new Error(`unexpected Main Score ${main}`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(con) / median(seq);
    console.log(
      `scorekeeping episode (5 slots, ${calls} model calls, server latency ${LATENCY_MS} ms, ${resources.isDefault ? 'default' : 'canonical'} texts): ` +
        `sequential ${median(seq).toFixed(0)} ms, concurrent probes ${median(con).toFixed(0)} ms, ratio ${ratio.toFixed(3)}x (target <= ${TARGET}x)` +
        `${same ? ', identical transcripts' : ', TRANSCRIPTS DIFFER'}`,
    );
    return ratio <= TARGET && same ? 0 : 1;
  } finally {
    await llm.close();
    await server.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
