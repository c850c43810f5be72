import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ROOT } from './cli';

function resolvedEvalPackages(args: string[]): string[] {
  const log = join(mkdtempSync(join(tmpdir(), 'dialeval-lazy-')), 'resolved.log');
  writeFileSync(log, '');
  const r = spawnSync(
    process.execPath,
    ['--conditions=@eval/source', '--import', 'tsx', '--import', join(CLI_ROOT, 'test', 'fixtures-resolve-log.mjs'), join(CLI_ROOT, 'src', 'bin.ts'), ...args],
    { cwd: CLI_ROOT, env: { ...process.env, DIALEVAL_RESOLVE_LOG: log }, encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  return [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].sort();
}

describe('subcommands load their package lazily', () => {
  it('`dialeval --help` imports no metric package (only @eval/core)', () => {
    expect(resolvedEvalPackages(['--help'])).toEqual(['@eval/core']);
  });

  it('`dialeval resources list` imports no metric package', () => {
    expect(resolvedEvalPackages(['resources', 'list', '--format', 'json'])).toEqual(['@eval/core']);
  });
});
