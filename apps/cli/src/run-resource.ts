import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { getResourceSet, resourceFileListSha256, type RunResource, sha256Hex } from '@eval/core';

async function walk(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) await walk(path, out);
    else if (e.isFile()) out.push(path);
  }
  return out;
}

/**
 * The run record's entry of a resource set read from `dir`: the sha256 of its file list (the set's declared files,
 * else every file below `dir`), and the set's pinned commit when every declared file matches its pinned sha256.
 * Without `dir`, the package's built-in default texts were used. `fromFlag`: the directory came from a CLI flag (else
 * from the set's environment variable when set, else from the cache).
 */
export async function describeResource(name: string, dir: string | undefined, fromFlag: boolean): Promise<RunResource> {
  if (dir === undefined) return { name, commit: 'default texts', source: 'default texts' };
  let set: ReturnType<typeof getResourceSet> | undefined;
  try {
    set = getResourceSet(name);
  } catch {
    set = undefined;
  }
  const source: RunResource['source'] = fromFlag ? 'option' : set && process.env[set.envVar] ? 'env' : 'cache';
  const paths = set
    ? set.files.map((f) => f.path)
    : (await walk(dir)).map((f) => relative(dir, f).split(sep).join('/'));
  const files: Array<{ path: string; sha256: string }> = [];
  for (const path of paths) {
    const bytes = await readFile(join(dir, path)).catch(() => undefined);
    if (bytes) files.push({ path, sha256: sha256Hex(bytes) });
  }
  const pinned =
    set !== undefined &&
    files.length === set.files.length &&
    set.files.every((f, i) => f.sha256 !== undefined && f.sha256 === files[i]!.sha256);
  return { name, ...(pinned ? { commit: set!.commit } : {}), sha256: resourceFileListSha256(files), source };
}
