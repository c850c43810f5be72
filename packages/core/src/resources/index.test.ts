import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import { ChecksumError, ResourceMissingError } from '../errors';
import {
  fetchResourceSet,
  getResourceSet,
  registerResourceSet,
  resolveResourceDir,
  resourceStatus,
  sha256Hex,
} from './index';

/** The CGA files of ../shared/cgt (or of a fetched `cgt` set): the mirror's content. */
const cga = (rel: string) => referencePath(`cgt/${rel}`);
const itWithCga = itWithReferenceData('cgt/cga_originals', 'cgt/cga_new');

/**
 * A local stand-in for raw.githubusercontent.com: serves `/<repo>/<commit>/source-data/cga_*` from the reference data,
 * and a corrupted copy of one file under a second commit.
 */
let server: Server;
let mirror = '';
const requests: string[] = [];
const cgt = getResourceSet('cgt');
const CORRUPT_COMMIT = 'c'.repeat(40);

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    requests.push(url);
    const m = /^\/([^/]+\/[^/]+)\/([0-9a-f]{40})\/source-data\/(cga_originals|cga_new)\/(Group_\d\d_CGA\.csv)$/.exec(
      url,
    );
    if (!m || m[1] !== cgt.repo) {
      res.writeHead(404).end('not found');
      return;
    }
    let body = readFileSync(cga(`${m[3]}/${m[4]}`));
    if (m[2] === CORRUPT_COMMIT && m[4] === 'Group_05_CGA.csv') {
      body = Buffer.from(body);
      body[10] = body[10]! ^ 1;
    }
    res.writeHead(200, { 'content-type': 'text/csv' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (typeof addr !== 'object' || !addr) throw new Error('no address');
  mirror = `http://127.0.0.1:${addr.port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'dialeval-home-'));
}

describe('resource sets', () => {
  itWithCga('pins sha256 values that match the byte-identical copies in ../shared', () => {
    for (const f of cgt.files) {
      const local = cga(f.path);
      expect(sha256Hex(readFileSync(local)), f.path).toBe(f.sha256);
    }
  });

  itWithCga('fetches, verifies and installs a set; resolves it from the cache', async () => {
    const home = tempHome();
    const env = {};
    await expect(resolveResourceDir('cgt', { home, env, flag: '--gold' })).rejects.toThrow(
      /not installed; run `dialeval resources fetch cgt`, or pass --gold DIR, or set DIALEVAL_CGT_DIR/,
    );
    const seen: string[] = [];
    const result = await fetchResourceSet('cgt', { home, env, mirror, onFile: (f) => seen.push(f.path) });
    expect(result.downloaded).toBe(true);
    expect(seen).toHaveLength(cgt.files.length);
    const dir = await resolveResourceDir('cgt', { home, env, required: ['cga_originals/Group_01_CGA.csv'] });
    expect(dir).toBe(result.dir);
    for (const f of cgt.files) expect(readFileSync(join(dir, f.path))).toEqual(readFileSync(cga(f.path)));
    expect((await resourceStatus('cgt', { home, env })).installed).toBe(true);
    // A second fetch is a no-op without --force.
    const before = requests.length;
    const again = await fetchResourceSet('cgt', { home, env, mirror });
    expect(again.downloaded).toBe(false);
    expect(requests.length).toBe(before);
  });

  itWithCga('rejects a corrupted download and leaves nothing half-installed', async () => {
    const home = tempHome();
    registerResourceSet({
      ...cgt,
      name: 'cgt-corrupt-test',
      commit: CORRUPT_COMMIT,
      envVar: 'DIALEVAL_CGT_CORRUPT_TEST',
    });
    const error = await fetchResourceSet('cgt-corrupt-test', { home, env: {}, mirror }).catch((e) => e);
    expect(error).toBeInstanceOf(ChecksumError);
    expect(String(error.message)).toMatch(/checksum mismatch for cga_originals\/Group_05_CGA.csv/);
    const resources = join(home, 'resources');
    expect(existsSync(join(resources, 'cgt-corrupt-test'))).toBe(false);
    expect(readdirSync(resources)).toEqual([]);
  });

  itWithCga('a failed re-fetch keeps the previous installation intact', async () => {
    const home = tempHome();
    await fetchResourceSet('cgt', { home, env: {}, mirror });
    registerResourceSet({ ...cgt, commit: CORRUPT_COMMIT });
    try {
      await expect(fetchResourceSet('cgt', { home, env: {}, mirror, force: true })).rejects.toBeInstanceOf(
        ChecksumError,
      );
    } finally {
      registerResourceSet(cgt);
    }
    const dir = await resolveResourceDir('cgt', { home, env: {} });
    expect(readFileSync(join(dir, 'cga_originals/Group_05_CGA.csv'))).toEqual(
      readFileSync(cga('cga_originals/Group_05_CGA.csv')),
    );
  });

  it('resolves explicit option, then environment variable, then cache', async () => {
    const home = tempHome();
    const explicit = join(home, 'explicit');
    const fromEnv = join(home, 'from-env');
    await mkdir(explicit, { recursive: true });
    await mkdir(fromEnv, { recursive: true });
    await writeFile(join(fromEnv, 'x.csv'), 'a\n');
    const env = { DIALEVAL_CGT_DIR: fromEnv };
    expect(await resolveResourceDir('cgt', { dir: explicit, env, home })).toBe(explicit);
    expect(await resolveResourceDir('cgt', { env, home })).toBe(fromEnv);
    await expect(resolveResourceDir('cgt', { env, home, required: ['missing.csv'] })).rejects.toBeInstanceOf(
      ResourceMissingError,
    );
    await expect(resolveResourceDir('cgt', { dir: join(home, 'nope'), env, home })).rejects.toThrow(
      /is not a directory/,
    );
  });

  it('reports an unreachable file clearly', async () => {
    const home = tempHome();
    registerResourceSet({ ...cgt, name: 'cgt-404-test', repo: 'someone/else', envVar: 'X_404' });
    await expect(fetchResourceSet('cgt-404-test', { home, env: {}, mirror })).rejects.toThrow(/HTTP 404/);
  });
});
