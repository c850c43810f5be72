import { describe, expect, it } from 'vitest';
import { probeResolved } from './cli';

function resolvedEvalPackages(args: string[]): string[] {
  const r = probeResolved(args);
  expect(r.status, r.stderr).toBe(0);
  return r.packages;
}

describe('subcommands load their package lazily', () => {
  it('`dialeval --help` imports no metric package (only @eval/core)', () => {
    expect(resolvedEvalPackages(['--help'])).toEqual(['@eval/core']);
  });

  it('`dialeval resources list` imports no metric package', () => {
    expect(resolvedEvalPackages(['resources', 'list', '--format', 'json'])).toEqual(['@eval/core']);
  });
});
