import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLlm } from '@eval/llm';
import { startTestServer } from '@eval/llm/testing';
import { afterEach, expect, it } from 'vitest';
import { loadRunScores } from './metrics/aggregate';
import { readInstancesFile } from './instances';
import { chatModelAnswerer, perfectAnswer } from './players';
import { loadResourceDir } from './resources';
import { partitionEpisodes, playAndRecordEpisode, modelPairName, selectEpisodes } from './run';
import { SHARED, describeShared } from './test-support/shared';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describeShared('end to end through @eval/llm and its scripted OpenAI-compatible server', () => {
  it('a full run of all five experiments with the perfect player completes; every episode scores Main Score 100', {
    timeout: 300_000,
  }, async () => {
    const resources = await loadResourceDir(SHARED);
    const instances = await readInstancesFile(join(SHARED, 'in/instances.json'));
    const server = await startTestServer({ respond: (req) => perfectAnswer(req.messages, resources) });
    const out = await mkdtemp(join(tmpdir(), 'sk-llm-'));
    temps.push(out);
    const env = { ...process.env, SK_TEST_KEY: 'sk-test-not-a-real-key' };
    const llm = createLlm({
      model: 'test-model',
      baseURL: server.baseURL,
      apiKeyEnv: 'SK_TEST_KEY',
      cache: 'off',
      concurrency: 32,
      progress: false,
      env,
      temperature: 0,
    });
    try {
      const modelPair = modelPairName('test-model', 0);
      const refs = selectEpisodes(instances);
      expect(refs).toHaveLength(50);
      const { results, summary } = await llm.runJobs({
        name: 'scorekeeping',
        items: refs,
        id: (r) => `${r.experiment}/${r.instance.game_id}`,
        run: (ref, ctx) =>
          playAndRecordEpisode(ref, {
            outDir: out,
            modelPair,
            resources,
            answerer: chatModelAnswerer(ctx.model, { name: 'test-model' }),
            modelName: 'test-model',
            signal: ctx.signal,
          }),
      });
      expect(summary.failed).toBe(0);
      expect(results.every((r) => r.ok)).toBe(true);
      const records = await loadRunScores(out);
      expect(records).toHaveLength(50);
      for (const r of records) expect(r.scores['episode scores']['Main Score'], r.file).toBe(100);
      // 5 × 10 × (5-slot: 35 calls) + 10 × (15-slot: 15 + 15·16 = 255) + 10 × (10-slot: 10 + 10·11 = 120)
      expect(server.chatRequests()).toHaveLength(30 * 35 + 10 * 255 + 10 * 120);
      // the request bodies never carry the API key; the transcript names the model
      expect(
        JSON.stringify(
          server
            .chatRequests()
            .slice(0, 3)
            .map((r) => r.body),
        ),
      ).not.toContain('sk-test-not-a-real-key');
      const again = await partitionEpisodes(refs, out, modelPair);
      expect(again.pending).toHaveLength(0);
    } finally {
      await llm.close();
      await server.close();
    }
  });
});
