import { describe, expect, it } from 'vitest';
import { runCli } from './cli';

// Numeric flags are parsed by commander (src/parsers.ts) before any action runs: a bad value is a usage error.
describe('numeric flags', () => {
  it.each([
    [
      ['compare', 'a', 'b', '--seed', 'x'],
      "option '--seed <n>' argument 'x' is invalid. --seed expects a non-negative integer, got \"x\"",
    ],
    [['cgt', 'dir', '--bootstrap', '1.5'], '--bootstrap expects a non-negative integer, got "1.5"'],
    [['scorekeeping', 'instances', '--per-experiment', '0'], '--per-experiment expects a positive integer, got "0"'],
    [['multiwoz', 'compare', 'a', 'b', '--samples', 'many'], '--samples expects a positive integer, got "many"'],
    [['multiwoz', 'p.json', '--confidence', '1'], '--confidence expects a number between 0 and 1, got "1"'],
  ])('%j exits 2 naming the flag', async (args, message) => {
    const r = await runCli(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });
});
