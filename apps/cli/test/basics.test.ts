import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/main';
import { commands } from '../src/commands/index';
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

  it('declares only the subcommand named first; all of them for help and unknown names', () => {
    const names = (argv?: string[]) => buildProgram(argv).commands.map((c) => c.name());
    const all = Object.keys(commands);
    expect(names()).toEqual(all);
    expect(names(['multiwoz', 'x.json', '--success'])).toEqual(['multiwoz']);
    expect(names(['llm-judge', 'report'])).toEqual(['llm-judge']);
    expect(names(['--help'])).toEqual(all);
    expect(names(['help', 'multiwoz'])).toEqual(all);
    expect(names(['multiwo'])).toEqual(all);
    expect(names(['constructor'])).toEqual(all);
    expect(names([])).toEqual(all);
  });

  it('an unknown command is a usage error that suggests the closest one', async () => {
    const r = await runCli(['multiwo', 'x.json'], { spawn: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'multiwo'/);
    expect(r.stderr).toMatch(/Did you mean multiwoz\?/);
  });

  it('help of one subcommand still works', async () => {
    const r = await runCli(['multiwoz', '--help'], { spawn: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: dialeval multiwoz/);
    expect(r.stdout).toContain('--success');
  });
});
