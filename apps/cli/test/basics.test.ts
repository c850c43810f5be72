import { describe, expect, it } from 'vitest';
import { runCli } from './cli';

describe('dialeval basics', () => {
  it('--help lists the subcommands and exits 0', async () => {
    const r = await runCli(['--help'], { spawn: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('demo');
    expect(r.stdout).toContain('resources');
  });

  it('an unknown option is a usage error (exit 2, message on stderr)', async () => {
    const r = await runCli(['--no-such-flag'], { spawn: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option/);
    expect(r.stdout).toBe('');
  });

  it('resources fetch of an unknown set exits 2', async () => {
    const r = await runCli(['resources', 'fetch', 'no-such-set']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown resource set "no-such-set"/);
  });
});
