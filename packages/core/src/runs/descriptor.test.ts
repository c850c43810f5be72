import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EvalError } from '../errors';
import { loadRunBenchmark, runBenchmarkPackage } from './descriptor';

const work = mkdtempSync(join(tmpdir(), 'eval-descriptor-'));
const tool = (packages: Record<string, string> = {}) => ({ packages, node: 'v20', platform: 'linux-x64' });

/** A third-party benchmark package installed in a project's node_modules (an ES module exporting `runBenchmark`). */
function installPackage(project: string, name: string, body: string): void {
  const dir = join(project, 'node_modules', ...name.split('/'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', type: 'module', main: 'index.js' }),
  );
  writeFileSync(join(dir, 'index.js'), body);
}

const DISTINCT = `export const runBenchmark = {
  benchmark: 'distinct',
  package: 'distinct-bench',
  recompute(items) { return { 'Distinct-1': items.length === 0 ? null : 0.5 }; },
};\n`;

describe('runBenchmarkPackage', () => {
  it('benchmarkPackage first, else @eval/<benchmark> when the run lists it, else none', () => {
    expect(runBenchmarkPackage({ benchmark: 'x', benchmarkPackage: 'x-bench', tool: tool() })).toBe('x-bench');
    expect(runBenchmarkPackage({ benchmark: 'cgt', tool: tool({ '@eval/cgt': '0.1.0' }) })).toBe('@eval/cgt');
    expect(runBenchmarkPackage({ benchmark: 'cgt', tool: tool({ '@eval/core': '0.1.0' }) })).toBeUndefined();
  });
});

describe('loadRunBenchmark', () => {
  it('imports the package the run names from the current directory (a third-party package)', async () => {
    const project = join(work, 'project');
    installPackage(project, 'distinct-bench', DISTINCT);
    const found = await loadRunBenchmark(
      { benchmark: 'distinct', benchmarkPackage: 'distinct-bench', tool: tool() },
      { cwd: project },
    );
    expect([found.source, found.fallback, found.benchmark.benchmark]).toEqual(['distinct-bench', false, 'distinct']);
    expect(found.benchmark.recompute([{ id: 'a', values: {} }])).toEqual({ 'Distinct-1': 0.5 });
  });

  it('then from the program’s own dependencies', async () => {
    const own = join(work, 'own');
    installPackage(own, 'distinct-bench', DISTINCT);
    const imported: string[] = [];
    const found = await loadRunBenchmark(
      { benchmark: 'distinct', benchmarkPackage: 'distinct-bench', tool: tool() },
      {
        cwd: join(work, 'empty'),
        own: {
          resolve: (name) => join(own, 'node_modules', name, 'index.js'),
          import: async (name) => {
            imported.push(name);
            return import(join(own, 'node_modules', name, 'index.js'));
          },
        },
      },
    );
    expect([found.source, imported]).toEqual(['distinct-bench', ['distinct-bench']]);
  });

  it('refuses a run whose descriptor cannot be found (input error), or falls back to item means when told', async () => {
    const manifest = { benchmark: 'my-qa', tool: tool() };
    const refused = await loadRunBenchmark(manifest, { cwd: work }).catch((e: unknown) => e);
    expect(EvalError.isInstance(refused) && [refused.code, refused.category]).toEqual(['input_no_descriptor', 'input']);
    expect((refused as Error).message).toMatch(/benchmark "my-qa".*--fallback-item-means/);
    const missing = await loadRunBenchmark(
      { benchmark: 'x', benchmarkPackage: 'not-installed-bench', tool: tool() },
      { cwd: work },
    ).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/not-installed-bench is not installed/);
    const found = await loadRunBenchmark(manifest, { cwd: work, fallbackToItemMeans: true });
    expect([found.source, found.fallback]).toEqual(['mean of item values', true]);
    expect(found.benchmark.recompute([{ id: 'a', values: { correct: true } }])).toEqual({ correct: 1 });
  });

  it('a package without a runBenchmark export is refused', async () => {
    const project = join(work, 'bare');
    installPackage(project, 'bare-bench', 'export const other = 1;\n');
    const refused = await loadRunBenchmark(
      { benchmark: 'bare', benchmarkPackage: 'bare-bench', tool: tool() },
      { cwd: project },
    ).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/bare-bench exports no runBenchmark/);
  });
});
