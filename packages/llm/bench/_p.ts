import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createLlm } from '../src/index';
process.env.K='k';
const child = spawn(process.execPath, ['--conditions=@eval/source', '--import', 'tsx', join(import.meta.dirname, 'server-process.ts'), JSON.stringify({ latencyMs: 50 })], { stdio: ['ignore', 'pipe', 'inherit'] });
const baseURL = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(String(d).trim())));
const llm = createLlm({ model: 'bench-model', baseURL, apiKeyEnv: 'K', concurrency: 50, cacheDir: '/tmp/llmw/pc' + Date.now(), progress: false, cache: (process.env.CM as any) ?? 'use' });
const items = Array.from({ length: 2000 }, (_, i) => i);
for (let k = 0; k < 2; k++) {
const t0 = performance.now(); const c0 = process.cpuUsage();
await llm.runJobs({ name: 't', items: items.map(i => i + k * 10000), id: String, run: async (i, { model }) => (await model.chat([{ role: 'user', content: `item ${i}` }])).text });
const c = process.cpuUsage(c0);
console.log((performance.now() - t0).toFixed(0), ((c.user + c.system) / 2000 / 1000).toFixed(3));
}
child.kill();
