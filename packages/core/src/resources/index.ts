import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ChecksumError, EvalError, ResourceMissingError } from '../errors';
import { builtinResourceSets } from './sets/index';
import type { ResourceFile, ResourceSet } from './types';

export type { ResourceFile, ResourceSet } from './types';

/** Environment variables (defaults to `process.env`). */
export type Environment = Record<string, string | undefined>;

const registry = new Map<string, ResourceSet>(builtinResourceSets.map((s) => [s.name, s]));

/** Default download base: raw files of GitHub repositories at a commit. Override with `DIALEVAL_MIRROR`. */
export const DEFAULT_RESOURCE_MIRROR = 'https://raw.githubusercontent.com';

const MANIFEST = '.dialeval-resource.json';

/** Adds (or replaces) a resource set in this process's registry. */
export function registerResourceSet(set: ResourceSet): void {
  registry.set(set.name, set);
}

export function listResourceSets(): ResourceSet[] {
  return [...registry.values()];
}

export function getResourceSet(name: string): ResourceSet {
  const set = registry.get(name);
  if (!set) {
    throw new EvalError(
      'unknown_resource',
      `unknown resource set "${name}" (known: ${[...registry.keys()].join(', ')})`,
    );
  }
  return set;
}

/**
 * The toolkit's home directory: `$DIALEVAL_HOME`, else the user's cache directory
 * (`$XDG_CACHE_HOME/dialeval`, `~/Library/Caches/dialeval`, `%LOCALAPPDATA%\dialeval\Cache`, `~/.cache/dialeval`).
 */
export function dialevalHome(env: Environment = process.env): string {
  if (env.DIALEVAL_HOME) return resolve(env.DIALEVAL_HOME);
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'dialeval');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'dialeval');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'dialeval', 'Cache');
  return join(homedir(), '.cache', 'dialeval');
}

/** Where a fetched set lives: `<home>/resources/<name>`. */
export function resourceCachePath(name: string, options: { home?: string; env?: Environment } = {}): string {
  return join(options.home ?? dialevalHome(options.env), 'resources', name);
}

export interface ResolveResourceOptions {
  /** Explicit directory (a CLI flag or API option): wins over everything else. */
  dir?: string;
  env?: Environment;
  home?: string;
  /** Files (relative paths) that must exist in the directory; defaults to none for explicit/env dirs. */
  required?: string[];
  /** The CLI flag that sets `dir`, named in the error message (e.g. `--data`). */
  flag?: string;
}

/**
 * Resolves the directory of a resource set, the same way in every package:
 * explicit option, then the set's environment variable, then the fetched cache.
 * Throws {@link ResourceMissingError} saying exactly how to get it when absent.
 */
export async function resolveResourceDir(name: string, options: ResolveResourceOptions = {}): Promise<string> {
  const set = registry.get(name);
  const env = options.env ?? process.env;
  const howTo = () =>
    `run \`dialeval resources fetch ${name}\`${options.flag ? `, or pass ${options.flag} DIR` : ''}${set ? `, or set ${set.envVar}` : ''}`;
  const check = async (dir: string, origin: string): Promise<string> => {
    const abs = resolve(dir);
    const st = await stat(abs).catch(() => undefined);
    if (!st?.isDirectory())
      throw new ResourceMissingError(name, `${origin} ${abs} is not a directory (resource set "${name}"); ${howTo()}`);
    const missing = (options.required ?? []).filter((f) => !existsSync(join(abs, f)));
    if (missing.length > 0) {
      throw new ResourceMissingError(
        name,
        `${origin} ${abs} lacks ${missing.join(', ')} (resource set "${name}"); ${howTo()}`,
      );
    }
    return abs;
  };
  if (options.dir) return check(options.dir, 'directory');
  if (set && env[set.envVar]) return check(env[set.envVar]!, `${set.envVar}=`);
  const cached = resourceCachePath(name, { home: options.home, env });
  if (existsSync(join(cached, MANIFEST))) return check(cached, 'resource cache');
  throw new ResourceMissingError(name, `resource set "${name}" is not installed; ${howTo()}`);
}

export interface FetchResourceOptions {
  home?: string;
  env?: Environment;
  /** Base URL replacing `https://raw.githubusercontent.com` (`DIALEVAL_MIRROR`). */
  mirror?: string;
  /** Re-download even when installed. */
  force?: boolean;
  /** Called after each file is verified. */
  onFile?: (file: ResourceFile, index: number, total: number) => void;
  /** Post-install step run on the verified files before the directory is put in place. */
  prepare?: (dir: string) => Promise<void>;
  /** Per-request timeout in milliseconds (default 60 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface FetchResourceResult {
  name: string;
  dir: string;
  files: number;
  /** False when the set was already installed and `force` was not given. */
  downloaded: boolean;
}

/** sha256 (hex) of bytes. */
export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function resourceFileUrl(set: ResourceSet, file: ResourceFile, mirror = DEFAULT_RESOURCE_MIRROR): string {
  const base = mirror.replace(/\/+$/, '');
  const src = (file.source ?? file.path).split('/').map(encodeURIComponent).join('/');
  return `${base}/${file.repo ?? set.repo}/${file.commit ?? set.commit}/${src}`;
}

/** Git blob id of `data` (sha1 of `"blob <size>\0" + data`, as `git hash-object` computes it). */
export function gitBlobSha1(data: Uint8Array): string {
  return createHash('sha1').update(`blob ${data.byteLength}\0`).update(data).digest('hex');
}

/** Throws when a file of the set has no checksum to verify it against (nothing is downloaded then). */
function assertPinned(set: ResourceSet): void {
  const unpinned = set.files.filter((f) => !f.sha256 && !f.gitBlobSha1).map((f) => f.path);
  if (unpinned.length > 0) {
    throw new ChecksumError(
      `resource set "${set.name}" cannot be fetched: no pinned checksum for ${unpinned.join(', ')} (refusing to install unverified files)`,
    );
  }
  const orphan = set.files.filter((f) => (f.repo === undefined) !== (f.commit === undefined)).map((f) => f.path);
  if (orphan.length > 0)
    throw new EvalError(
      'invalid_resource',
      `resource set "${set.name}": ${orphan.join(', ')} must give both repo and commit`,
    );
}

async function download(url: string, timeoutMs: number, fetchImpl: typeof fetch): Promise<Uint8Array> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const res = await fetchImpl(url, { signal: AbortSignal.timeout(timeoutMs) });
      if (res.status === 404) throw new EvalError('download_failed', `${url}: HTTP 404`);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return new Uint8Array(await res.arrayBuffer());
    } catch (error) {
      lastError = error;
      if (EvalError.isInstance(error)) throw error;
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    }
  }
  throw new EvalError('download_failed', `${url}: ${(lastError as Error)?.message ?? String(lastError)}`, {
    cause: lastError,
  });
}

/**
 * Downloads a resource set into the cache, verifies every sha256, runs its `prepare` step and installs it
 * atomically: a failure leaves any previous installation untouched and nothing half-written.
 */
export async function fetchResourceSet(name: string, options: FetchResourceOptions = {}): Promise<FetchResourceResult> {
  const set = getResourceSet(name);
  const env = options.env ?? process.env;
  const finalDir = resourceCachePath(name, { home: options.home, env });
  if (!options.force && existsSync(join(finalDir, MANIFEST))) {
    return { name, dir: finalDir, files: set.files.length, downloaded: false };
  }
  assertPinned(set);
  const mirror = options.mirror ?? env.DIALEVAL_MIRROR ?? DEFAULT_RESOURCE_MIRROR;
  const fetchImpl = options.fetch ?? fetch;
  const parent = dirname(finalDir);
  await mkdir(parent, { recursive: true });
  const tmpDir = join(parent, `.${name}.${process.pid}.${Date.now()}.partial`);
  await rm(tmpDir, { recursive: true, force: true });
  await mkdir(tmpDir, { recursive: true });
  try {
    let i = 0;
    const verified = new Map<string, string>();
    for (const file of set.files) {
      const url = resourceFileUrl(set, file, mirror);
      const bytes = await download(url, options.timeoutMs ?? 60_000, fetchImpl);
      const digest = sha256Hex(bytes);
      if (file.sha256 ? digest !== file.sha256 : gitBlobSha1(bytes) !== file.gitBlobSha1) {
        const [kind, expected, got] = file.sha256
          ? ['sha256', file.sha256, digest]
          : ['git blob sha1', file.gitBlobSha1, gitBlobSha1(bytes)];
        throw new ChecksumError(
          `checksum mismatch for ${file.path} of resource set "${name}" (from ${url}): expected ${kind} ${expected}, got ${got}`,
        );
      }
      verified.set(file.path, digest);
      const target = join(tmpDir, file.path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes);
      options.onFile?.(file, i++, set.files.length);
    }
    if (options.prepare) await options.prepare(tmpDir);
    const manifest = {
      name: set.name,
      repo: set.repo,
      commit: set.commit,
      license: set.license,
      fetchedAt: new Date().toISOString(),
      files: set.files.map((f) => ({ path: f.path, sha256: verified.get(f.path) ?? f.sha256 })),
    };
    await writeFile(join(tmpDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    const old = `${finalDir}.old-${process.pid}-${Date.now()}`;
    if (existsSync(finalDir)) await rename(finalDir, old);
    await rename(tmpDir, finalDir);
    await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(tmpDir, { recursive: true, force: true });
    throw error;
  }
  return { name, dir: finalDir, files: set.files.length, downloaded: true };
}

/** Whether a set is installed in the cache, and where. */
export async function resourceStatus(
  name: string,
  options: { home?: string; env?: Environment } = {},
): Promise<{ installed: boolean; dir: string; fetchedAt?: string }> {
  const dir = resourceCachePath(name, options);
  try {
    const manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as { fetchedAt?: string };
    return { installed: true, dir, fetchedAt: manifest.fetchedAt };
  } catch {
    return { installed: false, dir };
  }
}
