import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWithReferenceData, referencePath, runCli } from './cli';

// A loopback stand-in for the raw-file host: `/<owner>/<repo>/<commit>/source-data/<dir>/<file>` -> reference data cgt/<dir>/<file>;
// with `?corrupt` semantics keyed by a header-less path prefix `/corrupt/...` for the corrupted variant.
let server: Server;
let mirror = '';
let corruptMirror = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    let url = decodeURIComponent(req.url ?? '');
    const corrupt = url.startsWith('/corrupt/');
    if (corrupt) url = url.slice('/corrupt'.length);
    const m =
      /^\/brandeis-llc\/mmdp-cgt\/[0-9a-f]{40}\/source-data\/(cga_originals|cga_new)\/(Group_\d\d_CGA\.csv)$/.exec(url);
    if (!m) return void res.writeHead(404).end();
    let body = readFileSync(referencePath(`cgt/${m[1]}/${m[2]}`));
    if (corrupt && m[2] === 'Group_03_CGA.csv') body = Buffer.concat([body, Buffer.from('x')]);
    res.writeHead(200).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  mirror = `http://127.0.0.1:${port}`;
  corruptMirror = `${mirror}/corrupt`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('dialeval resources', () => {
  it('list shows the catalogue as JSON', async () => {
    const home = mkdtempSync(join(tmpdir(), 'dialeval-home-'));
    const r = await runCli(['resources', 'list', '--format', 'json'], { env: { DIALEVAL_HOME: home } });
    expect(r.code).toBe(0);
    const sets = JSON.parse(r.stdout) as Array<{ name: string; installed: boolean }>;
    expect(sets.find((s) => s.name === 'cgt')).toMatchObject({ installed: false });
  });

  it('an unknown --format is a usage error naming the flag and the choices (exit 2, commander .choices())', async () => {
    const r = await runCli(['resources', 'list', '--format', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--format <format>' argument 'xml' is invalid\. Allowed choices are table, json/);
    expect(r.stdout).toBe('');
  });

  it('path of a missing set says how to fetch it (exit 2)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'dialeval-home-'));
    const r = await runCli(['resources', 'path', 'cgt'], { env: { DIALEVAL_HOME: home, DIALEVAL_CGT_DIR: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('dialeval resources fetch cgt');
  });

  itWithReferenceData('cgt/cga_originals', 'cgt/cga_new')(
    'fetch rejects a corrupted file and installs nothing; a good fetch installs and path finds it',
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'dialeval-home-'));
      const env = { DIALEVAL_HOME: home, DIALEVAL_CGT_DIR: '' };
      const bad = await runCli(['resources', 'fetch', 'cgt', '--mirror', corruptMirror], { env });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/checksum mismatch for cga_originals\/Group_03_CGA\.csv/);
      expect(existsSync(join(home, 'resources', 'cgt'))).toBe(false);

      const good = await runCli(['resources', 'fetch', 'cgt'], { env: { ...env, DIALEVAL_MIRROR: mirror } });
      expect(good.code).toBe(0);
      expect(good.stdout).toMatch(/fetched cgt: 20 files verified/);
      const path = await runCli(['resources', 'path', 'cgt'], { env });
      expect(path.code).toBe(0);
      expect(path.stdout.trim()).toBe(join(home, 'resources', 'cgt'));
    },
  );
});
