import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChecksumError } from '../errors';
import { fetchResourceSet, gitBlobSha1, registerResourceSet, resourceFileUrl, sha256Hex } from './index';
import type { ResourceSet } from './types';

// Files served by a loopback stand-in for raw.githubusercontent.com, under two different repositories/commits.
const A = Buffer.from('first file, from the set repository\n');
const B = Buffer.from('second file, from another repository\n');
const COMMIT_A = 'a'.repeat(40);
const COMMIT_B = 'b'.repeat(40);
let server: Server;
let mirror = '';
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? '';
    requests.push(url);
    if (url === `/owner/set-repo/${COMMIT_A}/a.txt`) return void res.writeHead(200).end(A);
    if (url === `/other/repo/${COMMIT_B}/dir/b.txt`) return void res.writeHead(200).end(B);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  mirror = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function set(name: string, b: Partial<ResourceSet['files'][number]>): ResourceSet {
  return {
    name,
    description: 'test set',
    repo: 'owner/set-repo',
    commit: COMMIT_A,
    license: 'test',
    envVar: `DIALEVAL_${name.toUpperCase().replace(/-/g, '_')}_DIR`,
    usedBy: [],
    files: [
      { path: 'a.txt', sha256: sha256Hex(A) },
      { path: 'b.txt', source: 'dir/b.txt', repo: 'other/repo', commit: COMMIT_B, ...b },
    ],
  };
}

describe('resource files pinned per repository and by git blob id', () => {
  it('gitBlobSha1 is git hash-object (hand-checked: sha1 of "blob <n>\\0" + bytes; "" -> e69de29...)', () => {
    expect(gitBlobSha1(new Uint8Array())).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    expect(gitBlobSha1(B)).toBe(
      createHash('sha1')
        .update(Buffer.concat([Buffer.from(`blob ${B.length}\0`), B]))
        .digest('hex'),
    );
  });

  it('a file may come from another repository and commit', () => {
    const s = set('pins-url', { sha256: sha256Hex(B) });
    expect(resourceFileUrl(s, s.files[1]!, 'https://x.test')).toBe(`https://x.test/other/repo/${COMMIT_B}/dir/b.txt`);
    expect(resourceFileUrl(s, s.files[0]!, 'https://x.test')).toBe(`https://x.test/owner/set-repo/${COMMIT_A}/a.txt`);
  });

  it('verifies a file pinned only by its git blob id and records its sha256 in the manifest', async () => {
    const s = set('pins-blob', { gitBlobSha1: gitBlobSha1(B) });
    registerResourceSet(s);
    const home = mkdtempSync(join(tmpdir(), 'dialeval-pins-'));
    const r = await fetchResourceSet(s.name, { home, env: {}, mirror });
    expect(readFileSync(join(r.dir, 'b.txt'))).toEqual(B);
    const manifest = JSON.parse(readFileSync(join(r.dir, '.dialeval-resource.json'), 'utf8')) as {
      files: Array<{ path: string; sha256: string }>;
    };
    expect(manifest.files).toEqual([
      { path: 'a.txt', sha256: sha256Hex(A) },
      { path: 'b.txt', sha256: sha256Hex(B) },
    ]);
  });

  it('rejects bytes that do not match the git blob id, installing nothing', async () => {
    const s = set('pins-badblob', { gitBlobSha1: gitBlobSha1(A) });
    registerResourceSet(s);
    const home = mkdtempSync(join(tmpdir(), 'dialeval-pins-'));
    await expect(fetchResourceSet(s.name, { home, env: {}, mirror })).rejects.toThrow(
      /checksum mismatch for b\.txt .*expected git blob sha1/,
    );
    expect(existsSync(join(home, 'resources', s.name))).toBe(false);
  });

  it('refuses a set with an unpinned file before downloading anything', async () => {
    const s = set('pins-none', {});
    registerResourceSet(s);
    const before = requests.length;
    const home = mkdtempSync(join(tmpdir(), 'dialeval-pins-'));
    const error = await fetchResourceSet(s.name, { home, env: {}, mirror }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChecksumError);
    expect((error as Error).message).toMatch(/no pinned checksum for b\.txt/);
    expect(requests.length).toBe(before);
  });
});
