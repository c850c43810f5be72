import OpenAI from 'openai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createLlm } from '../src/index';
import { leanFetch } from '../src/http-fetch';
process.env.K = 'k';
const child = spawn(process.execPath, ['--conditions=@eval/source', '--import', 'tsx', join(import.meta.dirname, 'server-process.ts'), JSON.stringify({ latencyMs: 50 })], { stdio: ['ignore', 'pipe', 'inherit'] });
const baseURL = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(String(d).trim())));
const N = 2000, C = 50;
let round = 0;
async function measure(label: string, fn: () => Promise<unknown>) {
  const t0 = performance.now(); const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  console.log(label.padEnd(12), (performance.now() - t0).toFixed(0).padStart(6), 'ms', ((c.user + c.system) / N / 1000).toFixed(3), 'ms cpu/call');
}
const client = new OpenAI({ apiKey: 'x', baseURL, maxRetries: 0, fetch: leanFetch });
const sdk = async () => { let next = 0; const r = round++; await Promise.all(Array.from({ length: C }, async () => { while (next < N) { const i = next++; await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `sdk ${r} ${i}` }] }, { timeout: 60000, maxRetries: 0 }); } })); };
const rt = (cache: 'use' | 'off') => async () => { const r = round++; const llm = createLlm({ model: 'm', baseURL, apiKeyEnv: 'K', concurrency: C, cacheDir: '/tmp/llmw/ab', cache, progress: false }); await llm.runJobs({ name: 'x', items: [...Array(N).keys()], id: String, run: async (i, { model }) => (await model.chat([{ role: 'user', content: `rt ${r} ${i}` }])).text }); await llm.close(); };
for (let k = 0; k < 2; k++) { await measure('sdk', sdk); await measure('rt off', rt('off')); await measure('rt use', rt('use')); }
child.kill();
