import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ROOT } from './cli';
import { compileCacheDir, compileCacheTag, writesRunRecord } from '../src/compile-cache';

// Each case runs a fresh node process (CommonJS, as the installed `dialeval` is) that enables the cache and requires
// a few small modules, then prints what they returned and the cache's hits and misses.
const work = mkdtempSync(join(tmpdir(), 'dialeval-compile-cache-'));
const home = join(work, 'home');
const modules = join(work, 'modules');
const runner = join(work, 'runner.cjs');
writeFileSync(
  runner,
  `const { enableCompileCache } = require(${JSON.stringify(join(CLI_ROOT, 'src', 'compile-cache.ts'))});\n` +
    `const stats = enableCompileCache('test', process.env);\n` +
    `const out = require(${JSON.stringify(join(modules, 'a.cjs'))});\n` +
    `process.stdout.write(JSON.stringify({ out, stats: stats ? { hits: stats.hits, misses: stats.misses } : null }));\n`,
);

function run(env: Record<string, string> = {}): { out: unknown; stats: { hits: number; misses: number } | null } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', runner], {
    cwd: CLI_ROOT,
    env: { ...process.env, DIALEVAL_HOME: home, DIALEVAL_COMPILE_CACHE: '', ...env },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const entries = () => {
  try {
    return readdirSync(compileCacheDir('test', { DIALEVAL_HOME: home }))
      .filter((f) => f.endsWith('.v8'))
      .sort();
  } catch {
    return [];
  }
};

describe('compile cache (the CommonJS CLI)', () => {
  it('keeps the compiled code of the modules that ran, uses it next time, and never the code of a changed file', () => {
    mkdirSync(modules, { recursive: true });
    // a.cjs requires b.cjs through require, require.resolve, __dirname and `this`; lazy.cjs uses import() (left to node)
    writeFileSync(
      join(modules, 'a.cjs'),
      `const b = require('./b.cjs');\n` +
        `const path = require('node:path');\n` +
        `module.exports = { b: b.value, resolved: path.basename(require.resolve('./b.cjs')), dir: path.basename(__dirname), self: this === module.exports, lazy: typeof require('./lazy.cjs').load };\n`,
    );
    writeFileSync(join(modules, 'b.cjs'), `exports.value = 'first';\n`);
    writeFileSync(join(modules, 'lazy.cjs'), `exports.load = () => import('./b.cjs');\n`);
    const expected = { b: 'first', resolved: 'b.cjs', dir: 'modules', self: true, lazy: 'function' };

    const first = run();
    expect(first.out).toEqual(expected);
    expect(first.stats).toEqual({ hits: 0, misses: 2 }); // a and b; lazy.cjs is compiled by node itself
    expect(entries()).toHaveLength(2);

    const second = run();
    expect(second.out).toEqual(expected);
    expect(second.stats).toEqual({ hits: 2, misses: 0 });

    // a changed file (other size) is compiled anew, from its new source
    writeFileSync(join(modules, 'b.cjs'), `exports.value = 'second, changed';\n`);
    const third = run();
    expect(third.out).toEqual({ ...expected, b: 'second, changed' });
    expect(third.stats).toEqual({ hits: 1, misses: 1 });
    expect(entries()).toHaveLength(3);

    // off: nothing cached, nothing written
    const off = run({ DIALEVAL_COMPILE_CACHE: '0', DIALEVAL_HOME: join(work, 'other-home') });
    expect(off.out).toEqual({ ...expected, b: 'second, changed' });
    expect(off.stats).toBeNull();
    expect(() => readdirSync(join(work, 'other-home'))).toThrow();
  });

  it('a cache directory that cannot be written costs nothing but the cache', () => {
    const blocked = join(work, 'blocked');
    writeFileSync(blocked, 'a file where the cache directory would go');
    const r = run({ DIALEVAL_HOME: blocked });
    expect(r.out).toMatchObject({ b: 'second, changed', resolved: 'b.cjs' });
    expect(r.stats).toEqual({ hits: 0, misses: 2 });
  });
});

describe('writesRunRecord: processes that write a run record keep cache entries of their own', () => {
  it('--run DIR / --run=DIR, $DIALEVAL_RUNS, and the commands whose output directory is always a run', () => {
    expect(writesRunRecord(['cgt', 'preds/', '--run', 'runs/a'], {})).toBe(true);
    expect(writesRunRecord(['multiwoz', 'p.json', '--run=runs/a'], {})).toBe(true);
    expect(writesRunRecord(['multiwoz', 'p.json'], { DIALEVAL_RUNS: '/tmp/runs' })).toBe(true);
    expect(writesRunRecord(['scorekeeping', 'play', '--player', 'perfect'], {})).toBe(true);
    expect(writesRunRecord(['llm-judge', 'run', '--method', 'direct'], {})).toBe(true);
    expect(writesRunRecord(['multiwoz', 'p.json', '--runs', '3'], { DIALEVAL_RUNS: '' })).toBe(false);
    expect(writesRunRecord(['scorekeeping', 'score', 'results/'], {})).toBe(false);
    expect(writesRunRecord(['llm-judge', 'report', '--outputs', 'direct=x.json'], {})).toBe(false);
  });
});

describe('compileCacheTag: entries per command, subcommand and run record', () => {
  it('names the command and the subcommand of commands that have them; paths and unknown words do not make tags', () => {
    expect(compileCacheTag(['cgt', 'predictions', '--format', 'json'], 'default', {})).toBe('default-cgt');
    expect(compileCacheTag(['cgt', 'predictions', '--run', 'runs/a'], 'default', {})).toBe('default-cgt-run');
    expect(compileCacheTag(['multiwoz', 'ubar.json'], 'multiwoz-short', {})).toBe('multiwoz-short-multiwoz');
    expect(compileCacheTag(['multiwoz', 'compare', 'a', 'b'], 'multiwoz', {})).toBe('multiwoz-multiwoz-compare');
    expect(compileCacheTag(['llm-judge', 'run', '--method', 'direct'], 'default', {})).toBe(
      'default-llm-judge-run-run',
    );
    expect(compileCacheTag(['llm-judge', 'report', '--outputs', 'direct=x.json'], 'default', {})).toBe(
      'default-llm-judge-report',
    );
    expect(
      compileCacheTag(['llm-judge', 'report', '--outputs', 'direct=x.json'], 'default', { DIALEVAL_RUNS: '/r' }),
    ).toBe('default-llm-judge-report-run');
    expect(compileCacheTag(['scorekeeping', 'SCORE'], 'default', {})).toBe('default-scorekeeping');
    expect(compileCacheTag(['cgtt', 'x'], 'default', {})).toBe('default-other');
    expect(compileCacheTag([], 'default', {})).toBe('default-other');
  });
});
