import { fetchResourceSet, getResourceSet, listResourceSets, resolveResourceDir, resourceStatus } from '@eval/core';
import { preparers } from '../preparers';
import { emit } from '../util';
import { formatTable } from '../format';

export async function resourcesList(opts: { format: 'table' | 'json' }): Promise<void> {
  const format = opts.format;
  const rows = await Promise.all(
    listResourceSets().map(async (set) => {
      const status = await resourceStatus(set.name);
      return {
        name: set.name,
        description: set.description,
        source: `${set.repo}@${set.commit.slice(0, 7)}`,
        license: set.license,
        files: set.files.length,
        envVar: set.envVar,
        usedBy: set.usedBy,
        installed: status.installed,
        dir: status.dir,
      };
    }),
  );
  if (format === 'json') return emit(JSON.stringify(rows, null, 2));
  await emit(
    formatTable(
      ['name', 'installed', 'files', 'source', 'used by', 'description'],
      rows.map((r) => [r.name, r.installed ? 'yes' : 'no', r.files, r.source, r.usedBy.join(' '), r.description]),
    ),
  );
}

export async function resourcesFetch(name: string, opts: { force?: boolean; mirror?: string }): Promise<void> {
  const set = getResourceSet(name);
  const prepare = set.prepare ? await preparers[set.prepare]?.() : undefined;
  const tty = process.stderr.isTTY && !process.env.CI;
  const result = await fetchResourceSet(name, {
    force: opts.force,
    mirror: opts.mirror,
    prepare,
    onFile: (file, i, total) => {
      if (tty) process.stderr.write(`\r\x1b[K${name}: ${i + 1}/${total} ${file.path}`);
    },
  });
  if (tty) process.stderr.write('\r\x1b[K');
  await emit(
    result.downloaded
      ? `fetched ${name}: ${result.files} files verified, installed in ${result.dir}`
      : `${name} is already installed in ${result.dir} (use --force to fetch again)`,
  );
}

export async function resourcesPath(name: string): Promise<void> {
  getResourceSet(name);
  await emit(await resolveResourceDir(name));
}
