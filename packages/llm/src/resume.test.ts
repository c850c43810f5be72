import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLines, tempDir } from './fixtures/helpers';
import { readJournal } from './journal';
import { startTestServer, type TestServer } from './testing/index';

const CHILD = join(__dirname, 'fixtures', 'resume-child.ts');
const PKG = join(__dirname, '..');
const N = 60;

function startChild(args: string[]) {
  const child = spawn(process.execPath, ['--conditions=@eval/source', '--import', 'tsx', CHILD, ...args], {
    cwd: PKG,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, exited };
}

async function lineCount(file: string): Promise<number> {
  if (!existsSync(file)) return 0;
  return (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim()).length;
}

describe('SIGKILL in the middle of a run, then the same command again', () => {
  let server: TestServer;
  let reference: TestServer;
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    server = await startTestServer({ latencyMs: 50 });
    reference = await startTestServer({ latencyMs: 1 });
  });
  afterAll(async () => {
    await server.close();
    await reference.close();
    await cleanup();
  });

  const argv = process.argv;
  afterAll(() => {
    process.argv = argv;
  });

  it('gives the union of an uninterrupted run and requests no finished item twice', async () => {
    const journal = join(dir, 'run.jsonl');
    const args = [server.baseURL, join(dir, 'cache'), journal];

    // 1. start, wait until some items are finished, kill -9
    const first = startChild([...args, join(dir, 'out1.json'), String(N)]);
    const deadline = Date.now() + 20_000;
    while ((await lineCount(journal)) < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    first.child.kill('SIGKILL');
    const firstExit = await first.exited;
    expect(firstExit.signal).toBe('SIGKILL');
    expect(existsSync(join(dir, 'out1.json'))).toBe(false);
    const finished = [...(await readJournal(journal)).records.values()].filter((r) => r.ok).map((r) => r.id);
    expect(finished.length).toBeGreaterThanOrEqual(10);
    expect(finished.length).toBeLessThan(N);

    // 2. same command again
    const second = startChild([...args, join(dir, 'out2.json'), String(N)]);
    const secondExit = await second.exited;
    expect(secondExit.code, secondExit.stderr).toBe(0);
    const resumed = JSON.parse(await readFile(join(dir, 'out2.json'), 'utf8'));
    expect(resumed.summary.skipped).toBe(finished.length);

    // 3. an uninterrupted run of the same script (own server, cache and journal), in this process
    process.argv = [
      process.argv[0]!,
      CHILD,
      reference.baseURL,
      join(dir, 'cache-ref'),
      join(dir, 'ref.jsonl'),
      join(dir, 'ref.json'),
      String(N),
    ];
    await import('./fixtures/resume-child');
    const uninterrupted = JSON.parse(await readFile(join(dir, 'ref.json'), 'utf8'));

    expect(resumed.results).toEqual(uninterrupted.results);
    expect(resumed.results).toHaveLength(N);
    expect(resumed.summary).toMatchObject({ items: N, done: N, failed: 0 });

    // 4. the server log: no finished item was requested twice; nothing at all more than twice
    const perItem = new Map<string, number>();
    for (const r of server.chatRequests()) {
      const id = r.body.messages[0].content as string;
      perItem.set(id, (perItem.get(id) ?? 0) + 1);
    }
    for (const id of finished) expect(perItem.get(id), id).toBe(1);
    expect(perItem.size).toBe(N);
    for (const [id, n] of perItem) expect(n, id).toBeLessThanOrEqual(2);
    // the journal ends up with one ok line per item
    const lines = await readLines(journal);
    expect(new Set(lines.filter((l) => l.ok).map((l) => l.id)).size).toBe(N);
  });
});
