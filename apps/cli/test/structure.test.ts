import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ROOT } from './cli';

// CONTRIBUTING.md (CLI): a command module declares options and lazily imports its action; actions never import
// command modules (their flag types live in src/flags/).
describe('module structure', () => {
  it('no action imports a command module', () => {
    const dir = join(CLI_ROOT, 'src', 'actions');
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /from ['"]\.\.\/commands(\/|['"])/.test(readFileSync(join(dir, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
