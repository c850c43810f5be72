#!/usr/bin/env node
// Release rehearsal (CI): what `pnpm release` would publish, without publishing anything.
// On a scratch clone of the committed HEAD (this checkout is never modified): `changeset version` consumes the
// pending changesets, then every public package goes through `pnpm publish --dry-run`, and its packed manifest must
// carry the new version and no `workspace:` ranges. Publishing for real cannot happen: the registry is an unused
// loopback port and the npm config is an empty file (no token). Requires a prior `pnpm build` (dist/ is copied).
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'eval-release-rehearsal-'));
const scratch = join(work, 'repo');
const npmrc = join(work, 'npmrc');
writeFileSync(npmrc, '');
const env = {
  ...process.env,
  NPM_CONFIG_USERCONFIG: npmrc,
  NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
  npm_config_registry: 'http://127.0.0.1:9/',
  // nothing listens there: fail the registry look-ups of the dry run at once instead of retrying for a minute
  NPM_CONFIG_FETCH_RETRIES: '0',
  NPM_TOKEN: '',
  NODE_AUTH_TOKEN: '',
};

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}) in ${cwd}\n${r.stdout}\n${r.stderr}`.trim());
  return `${r.stdout}${r.stderr}`;
}

const packageDirs = (base) =>
  [...readdirSync(join(base, 'packages')).map((d) => join('packages', d)), join('apps', 'cli')].filter((d) =>
    existsSync(join(base, d, 'package.json')),
  );

let failed = false;
try {
  run('git', ['clone', '--quiet', '--no-local', root, scratch], work);
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
  const before = new Map();
  for (const d of packageDirs(scratch)) {
    if (!existsSync(join(root, d, 'dist'))) throw new Error(`${d} is not built: run \`pnpm build\` first`);
    cpSync(join(root, d, 'dist'), join(scratch, d, 'dist'), { recursive: true });
    if (existsSync(join(root, d, 'node_modules')))
      symlinkSync(join(root, d, 'node_modules'), join(scratch, d, 'node_modules'));
    const json = JSON.parse(readFileSync(join(scratch, d, 'package.json'), 'utf8'));
    before.set(d, json.version);
  }
  const pending = readdirSync(join(scratch, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
  console.log(`changeset version (${pending.length} pending changesets)`);
  run(process.execPath, [join(root, 'node_modules', '@changesets', 'cli', 'bin.js'), 'version'], scratch);
  for (const d of packageDirs(scratch)) {
    const json = JSON.parse(readFileSync(join(scratch, d, 'package.json'), 'utf8'));
    if (json.private) continue;
    try {
      const out = run(
        'pnpm',
        ['publish', '--dry-run', '--no-git-checks', '--json', '--registry', 'http://127.0.0.1:9/'],
        join(scratch, d),
      );
      const packed = run('pnpm', ['pack', '--json', '--pack-destination', work], join(scratch, d));
      const file = JSON.parse(packed.slice(packed.indexOf('{'))).filename;
      const manifest = JSON.parse(run('tar', ['-xzOf', file, 'package/package.json'], work));
      const ranges = Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies }).filter(([, v]) =>
        String(v).startsWith('workspace:'),
      );
      if (ranges.length > 0)
        throw new Error(`packed manifest keeps workspace ranges: ${ranges.map(([k, v]) => `${k}@${v}`).join(', ')}`);
      if (!/"name"/.test(out)) throw new Error(`unexpected dry-run output: ${out.slice(0, 400)}`);
      console.log(
        `  ok   ${json.name} ${before.get(d)} -> ${manifest.version} (publish --dry-run, ${manifest.files?.length ?? 0} file patterns)`,
      );
    } catch (error) {
      failed = true;
      console.log(`  FAIL ${json.name}: ${String(error.message).split('\n').slice(0, 12).join('\n       ')}`);
    }
  }
} catch (error) {
  failed = true;
  console.error(`release rehearsal FAILED: ${error.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed) process.exit(1);
console.log('release rehearsal: every package would publish (nothing was published)');
