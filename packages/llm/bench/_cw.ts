import { mkdirSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { writeFile, rename } from 'node:fs/promises';
for (let k = 0; k < 2; k++) {
  for (const mode of ['sync', 'async']) {
    rmSync('/tmp/llmw/cw', { recursive: true, force: true });
    for (let s = 0; s < 256; s++) mkdirSync(`/tmp/llmw/cw/${s.toString(16).padStart(2, '0')}`, { recursive: true });
    const t0 = performance.now(); const c0 = process.cpuUsage();
    const one = async (i: number) => {
      const f = `/tmp/llmw/cw/${(i % 256).toString(16).padStart(2, '0')}/${i}.json`;
      if (mode === 'sync') { writeFileSync(f + '.tmp', 'x'.repeat(600)); renameSync(f + '.tmp', f); }
      else { await writeFile(f + '.tmp', 'x'.repeat(600)); await rename(f + '.tmp', f); }
    };
    let next = 0;
    await Promise.all(Array.from({ length: 50 }, async () => { while (next < 2000) await one(next++); }));
    const cpu = process.cpuUsage(c0);
    console.log(mode, (performance.now() - t0).toFixed(0), 'ms wall', ((cpu.user + cpu.system) / 2000 / 1000).toFixed(3), 'ms cpu');
  }
}
