import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// `@eval/core` is imported by every command, most of which never read or write a run: the run record's zod schemas
// are the `@eval/core/schemas` entry, loaded when a run is written or read. A resolve hook refuses `zod` in a child
// process; importing `@eval/core/schemas` afterwards is the control that the hook works.
describe('@eval/core main entry', () => {
  it('loads without zod; @eval/core/schemas loads it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-entry-'));
    try {
      const hooks = join(dir, 'hooks.mjs');
      writeFileSync(
        hooks,
        `export async function resolve(specifier, context, next) {\n  if (specifier === 'zod' || specifier.startsWith('zod/')) throw new Error('zod was loaded');\n  return next(specifier, context);\n}\n`,
      );
      const register = join(dir, 'register.mjs');
      writeFileSync(
        register,
        `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
      );
      const script = [
        "const core = await import('@eval/core');",
        "let schemas = 'loaded';",
        "try { await import('@eval/core/schemas'); } catch (e) { schemas = String(e.message); }",
        'console.log(JSON.stringify({ readRun: typeof core.readRun, version: core.RUN_SCHEMA_VERSION, schemas }));',
      ].join('\n');
      const r = spawnSync(
        process.execPath,
        [
          '--conditions=@eval/source',
          '--import',
          'tsx',
          '--import',
          pathToFileURL(register).href,
          '--input-type=module',
          '-e',
          script,
        ],
        {
          cwd: join(import.meta.dirname, '..'),
          encoding: 'utf8',
        },
      );
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({
        readRun: 'function',
        version: 1,
        schemas: expect.stringContaining('zod was loaded'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
