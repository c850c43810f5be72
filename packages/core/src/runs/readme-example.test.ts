import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

const README = join(__dirname, '..', '..', 'README.md');

/** The ```ts block of the README's "Write your own benchmark's runs" section, importing this source tree. */
function example(): string {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf("## Write your own benchmark's runs"));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('README: no ```ts block in "Write your own benchmark\'s runs"');
  return code.replace("from '@eval/core'", `from ${JSON.stringify(join(__dirname, '..', 'index.ts'))}`);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("packages/core/README.md: Write your own benchmark's runs", () => {
  it('runs as written and prints what its comment says', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'eval-readme-')), 'example.ts');
    writeFileSync(file, example());
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { runBenchmark: { benchmark: string } };
    expect(mod.runBenchmark.benchmark).toBe('my-qa');
    // baseline answers 2 of 4 (0.5), finetuned 3 of 4 (0.75): delta 0.25; one flip (q3, 0 -> 1): b = 0, c = 1,
    // McNemar p = min(1, 2 * P[X <= 0]) with X ~ Binomial(1, 1/2) = min(1, 2 * 1/2) = 1
    expect(log).toHaveBeenCalledWith(0.5, 0.75, 0.25, 1, ['q3']);
  });
});
