#!/usr/bin/env node
// Package checks (run by `pnpm check` and CI): every publishable package is packed with `pnpm pack`, installed with npm
// into an empty temporary directory outside the workspace, and there `import`, `require` and type resolution
// (TypeScript, node16 resolution, ESM and CJS) must work, for the main entry and every subpath export (`@eval/core/python`). `@eval/cgt`, `@eval/multiwoz` and `@eval/scorekeeping` must
// not have `openai` in their installed tree. publint and arethetypeswrong (offline, on the packed tarball) must pass.
// The CLI tarball is installed with its dependencies and `dialeval --help` / `dialeval demo` must run. Finally the
// "from a checkout" install commands of README.md run as documented (pack, install the tarballs, import / --help).
// Requires a prior `pnpm build`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const NO_OPENAI = new Set(['@eval/core', '@eval/cgt', '@eval/multiwoz', '@eval/scorekeeping', '@eval/report']);
const only = process.argv.slice(2);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    ...opts,
    env: { ...process.env, npm_config_update_notifier: 'false', ...opts.env },
  });
  if (r.status !== 0) {
    const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim();
    throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}) in ${opts.cwd ?? process.cwd()}\n${out}`);
  }
  return r.stdout;
}

const dirs = [
  ...readdirSync(join(root, 'packages')).map((d) => join(root, 'packages', d)),
  join(root, 'apps', 'cli'),
].filter((d) => existsSync(join(d, 'package.json')));
const pkgs = dirs
  .map((dir) => ({ dir, json: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter((p) => !p.json.private)
  .filter((p) => only.length === 0 || only.includes(p.json.name));
const _byName = new Map(pkgs.map((p) => [p.json.name, p]));
const allByName = new Map(
  dirs.map((dir) => {
    const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return [json.name, { dir, json }];
  }),
);

const work = mkdtempSync(join(tmpdir(), 'dialeval-pkgcheck-'));
const tarDir = join(work, 'tarballs');
mkdirSync(tarDir);
const failures = [];
let passed = 0;

function check(name, what, fn) {
  try {
    fn();
    passed++;
    process.stdout.write(`  ok   ${name}: ${what}\n`);
  } catch (error) {
    failures.push(`${name}: ${what}: ${error.message}`);
    process.stdout.write(
      `  FAIL ${name}: ${what}\n${String(error.message)
        .split('\n')
        .slice(0, 30)
        .map((l) => `       ${l}`)
        .join('\n')}\n`,
    );
  }
}

// 1. pack workspace packages on demand (local dependencies install from their tarballs too)
const tarballs = new Map();
function tarball(name) {
  if (tarballs.has(name)) return tarballs.get(name);
  const p = allByName.get(name);
  if (!existsSync(join(p.dir, 'dist'))) throw new Error(`${name} is not built: run \`pnpm build\` first`);
  const out = run('pnpm', ['pack', '--pack-destination', tarDir], { cwd: p.dir });
  const file = out
    .trim()
    .split('\n')
    .filter((l) => l.endsWith('.tgz'))
    .pop();
  const path = resolve(p.dir, file.trim());
  tarballs.set(name, path);
  return path;
}

function localDeps(name, seen = new Set()) {
  const p = allByName.get(name);
  for (const field of ['dependencies', 'peerDependencies']) {
    for (const dep of Object.keys(p.json[field] ?? {})) {
      if (allByName.has(dep) && !seen.has(dep)) {
        seen.add(dep);
        localDeps(dep, seen);
      }
    }
  }
  return seen;
}

for (const { dir, json } of pkgs) {
  const name = json.name;
  process.stdout.write(`${name}\n`);
  check(name, 'publint', () => run(bin('publint'), ['run', '--strict', dir], { cwd: dir }));
  check(name, 'arethetypeswrong', () =>
    run(
      bin('attw'),
      [tarball(name), '--profile', 'node16', '--format', 'table-flipped', ...(json.bin ? ['--entrypoints', '.'] : [])],
      {
        cwd: dir,
      },
    ),
  );

  const app = join(work, `install-${name.replace(/[@/]/g, '_')}`);
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'pkgcheck', version: '1.0.0', private: true }, null, 2),
  );
  const toInstall = [...localDeps(name)].map((d) => tarball(d));
  toInstall.push(tarball(name));
  let installed = false;
  check(name, 'npm install of the packed tarball', () => {
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...toInstall, '@types/node@20'], {
      cwd: app,
    });
    installed = true;
  });
  if (!installed) continue;

  const hasMain = Boolean(json.exports?.['.']);
  if (hasMain) {
    writeFileSync(
      join(app, 'esm.mjs'),
      `import * as m from '${name}';\nif (Object.keys(m).length === 0) throw new Error('no exports');\nconsole.log(Object.keys(m).length);\n`,
    );
    writeFileSync(
      join(app, 'cjs.cjs'),
      `const m = require('${name}');\nif (Object.keys(m).length === 0) throw new Error('no exports');\nconsole.log(Object.keys(m).length);\n`,
    );
    check(name, 'import works', () => run(process.execPath, ['esm.mjs'], { cwd: app }));
    check(name, 'require works', () => run(process.execPath, ['cjs.cjs'], { cwd: app }));
    const subpaths = Object.keys(json.exports).filter((k) => k !== '.' && k !== './package.json');
    const typeFiles = ['types.mts', 'types.cts'];
    for (const [i, sub] of subpaths.entries()) {
      const spec = `${name}/${sub.slice(2)}`;
      writeFileSync(
        join(app, 'sub.mjs'),
        `import * as m from '${spec}';\nif (Object.keys(m).length === 0) throw new Error('no exports');\n`,
      );
      check(name, `import ${spec} works`, () => run(process.execPath, ['sub.mjs'], { cwd: app }));
      writeFileSync(
        join(app, 'sub.cjs'),
        `const m = require('${spec}');\nif (Object.keys(m).length === 0) throw new Error('no exports');\n`,
      );
      check(name, `require ${spec} works`, () => run(process.execPath, ['sub.cjs'], { cwd: app }));
      writeFileSync(
        join(app, `types-sub${i}.mts`),
        `import * as m from '${spec}';\nexport const keys: Array<keyof typeof m> = [];\n`,
      );
      writeFileSync(
        join(app, `types-sub${i}.cts`),
        `import m = require('${spec}');\nexport const keys: Array<keyof typeof m> = [];\n`,
      );
      typeFiles.push(`types-sub${i}.mts`, `types-sub${i}.cts`);
    }
    writeFileSync(
      join(app, 'types.mts'),
      `import * as m from '${name}';\nexport const keys: Array<keyof typeof m> = [];\n`,
    );
    writeFileSync(
      join(app, 'types.cts'),
      `import m = require('${name}');\nexport const keys: Array<keyof typeof m> = [];\n`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'node16',
          moduleResolution: 'node16',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          lib: ['es2022', 'dom'],
        },
        files: typeFiles,
      }),
    );
    check(name, 'types resolve (node16, ESM and CJS)', () => run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: app }));
  }
  if (NO_OPENAI.has(name)) {
    check(name, 'installed tree has no openai', () => {
      if (existsSync(join(app, 'node_modules', 'openai'))) throw new Error('node_modules/openai is present');
      const ls = spawnSync('npm', ['ls', 'openai', '--all', '--parseable'], { cwd: app, encoding: 'utf8' });
      if (ls.stdout.trim() !== '') throw new Error(`npm ls openai: ${ls.stdout}`);
    });
  }
  if (json.bin) {
    const cli = join(app, 'node_modules', '.bin', Object.keys(json.bin)[0]);
    check(name, 'installed binary: --help', () => {
      const out = run(cli, ['--help'], { cwd: app });
      if (!/Usage: dialeval/.test(out)) throw new Error(out);
    });
    check(name, 'installed binary: demo', () => run(cli, ['demo'], { cwd: app, env: { CI: '1' } }));
    check(name, 'installed binary: --help loads no metric package', () => {
      const log = join(app, 'resolved.log');
      writeFileSync(log, '');
      const hook = join(root, 'apps', 'cli', 'test', 'fixtures-resolve-log.mjs');
      run(
        process.execPath,
        ['--import', hook, join(app, 'node_modules', name, json.bin[Object.keys(json.bin)[0]]), '--help'],
        {
          cwd: app,
          env: { DIALEVAL_RESOLVE_LOG: log },
        },
      );
      const loaded = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].filter(
        (s) => s !== '@eval/core',
      );
      if (loaded.length > 0) throw new Error(`--help resolved ${loaded.join(', ')}`);
    });
  }
}

// 2. the "from a checkout" install commands of README.md (Installing), as a reader types them
if (only.length === 0) {
  process.stdout.write('from a checkout (README.md, Installing)\n');
  const T = join(work, 'readme-tarballs');
  const sh = (script, cwd) => run('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: { T } });
  check('README', 'pnpm -r pack --pack-destination "$PWD/tarballs"', () => {
    sh(
      'pnpm -r pack --pack-destination "$T" >/dev/null && ls "$T"/eval-core-*.tgz "$T"/dialeval-*.tgz >/dev/null',
      root,
    );
  });
  const project = join(work, 'readme-project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'readme-project', version: '1.0.0', private: true, type: 'module' }),
  );
  check('README', 'npm i "$T"/eval-core-*.tgz "$T"/eval-cgt-*.tgz zod, then import @eval/cgt', () => {
    sh('npm i --no-audit --no-fund --loglevel=error "$T"/eval-core-*.tgz "$T"/eval-cgt-*.tgz zod', project);
    run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('@eval/cgt'); if (typeof m.evaluateSetting !== 'function') throw new Error('no evaluateSetting');",
      ],
      { cwd: project },
    );
  });
  check('README', 'npm i --prefix DIR "$T"/*.tgz, then dialeval --help', () => {
    const prefix = join(work, 'readme-cli');
    sh(`npm i --no-audit --no-fund --loglevel=error --prefix "${prefix}" "$T"/*.tgz`, work);
    const out = run(join(prefix, 'node_modules', '.bin', 'dialeval'), ['--help'], { cwd: work });
    if (!/Usage: dialeval/.test(out)) throw new Error(out);
  });
}

rmSync(work, { recursive: true, force: true });
process.stdout.write(`\npackage checks: ${passed} passed, ${failures.length} failed\n`);
if (failures.length > 0) {
  process.stdout.write(`${failures.map((f) => `- ${f.split('\n')[0]}`).join('\n')}\n`);
  process.exit(1);
}
