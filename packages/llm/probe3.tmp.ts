import { createLlm } from './src/index';
import { defaultUsage, startTestServer } from './src/testing/index';
process.env.K = 'x';
const prompt = (i: number) => `${'Memory points and a dialogue. '.repeat(50 + ((i * 37) % 400))}${i}`;
let total = 0;
const N = 200;
for (let i = 0; i < N; i++) total += defaultUsage([{ role: 'user', content: prompt(i) }], '').promptTokens + 16384;
const tpm = Math.ceil((total / 4) * 60);
const server = await startTestServer({
  rateLimit: { rpm: 1e9, tpm, burst: { tokens: Math.ceil((2 * total) / N) } },
  latencyMs: [2, 10],
});
const llm = createLlm({
  model: 'm',
  baseURL: server.baseURL,
  apiKeyEnv: 'K',
  cache: 'off',
  progress: false,
  maxTokens: 16384,
});
const t0 = Date.now();
const { summary } = await llm.runJobs({
  name: 'x',
  items: Array.from({ length: N }, (_, i) => i),
  id: String,
  run: async (i, { model }) => (await model.chat([{ role: 'user', content: prompt(i) }])).text,
});
console.log(Date.now() - t0, server.rateLimitStats(), summary.pacing);
console.log(
  server
    .chatRequests()
    .map((r) => `${r.time - t0}:${r.status}`)
    .join(' '),
);
await llm.close();
await server.close();
