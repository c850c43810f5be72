import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChecksumError,
  fetchResourceSet,
  getResourceSet,
  gitBlobSha1,
  registerResourceSet,
  sha256Hex,
} from '@eval/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, SHARED, itMultiwoz, subset21Predictions } from '../../test/helpers';
import { MULTIWOZ_RESOURCE } from './data';
import { evaluateMultiwozFile } from '../metrics/evaluator';
import { prepareMultiwozResource } from './prepare';

const set = getResourceSet(MULTIWOZ_RESOURCE);
const MINI = join(FIXTURES, 'multiwoz22-mini');

/** Where the byte-identical copies of the set's originals are (../shared) or, for MultiWOZ 2.2, our fixture. */
function localCopy(repo: string, commit: string, source: string): string | undefined {
  if (repo === 'Tomiinek/MultiWOZ_Evaluation') {
    const name = source.replace(/^mwzeval\/data\//, '');
    if (name === 'database/restaurant_db.json' && commit.startsWith('7f19ee0'))
      return join(SHARED, 'data', 'database', 'restaurant_db.v2022.json');
    return join(SHARED, 'data', name);
  }
  if (repo === 'thu-coai/ConvLab-2' && source === 'data/multiwoz/test.json.zip')
    return join(SHARED, 'derived', 'sources', 'convlab2_multiwoz21_test.json.zip');
  if (repo === 'budzianowski/multiwoz') return join(MINI, source.replace(/^data\/MultiWOZ_2\.2\//, ''));
  return undefined;
}

// A loopback stand-in for raw.githubusercontent.com: /<owner>/<repo>/<commit>/<path>
let server: Server;
let mirror = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const m = /^\/([^/]+\/[^/]+)\/([0-9a-f]{40})\/(.+)$/.exec(decodeURIComponent(req.url ?? ''));
    const file = m ? localCopy(m[1]!, m[2]!, m[3]!) : undefined;
    if (!file || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200).end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  mirror = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the multiwoz resource set', () => {
  itMultiwoz('pins sha256 values that match the byte-identical copies in ../shared', () => {
    const withSha = set.files.filter((f) => f.sha256);
    expect(withSha.map((f) => f.path)).toEqual([
      'database/attraction_db.json',
      'database/hotel_db.json',
      'database/restaurant_db.json',
      'database/restaurant_db.v2022.json',
      'database/train_db.json',
      'booked_domains.json',
      'sources/convlab2_multiwoz21_test.json.zip',
    ]);
    for (const f of withSha) {
      const local = localCopy(f.repo ?? set.repo, f.commit ?? set.commit, f.source ?? f.path)!;
      expect(sha256Hex(readFileSync(local)), f.path).toBe(f.sha256);
      expect(readFileSync(local).length, f.path).toBe(f.bytes);
    }
  });

  it('the MultiWOZ 2.2 files (no copy available) are pinned by the git blob ids of budzianowski/multiwoz, not by an invented sha256', () => {
    const blobs = set.files.filter((f) => !f.sha256);
    expect(blobs.map((f) => [f.path, f.repo, f.gitBlobSha1])).toEqual([
      ['sources/MultiWOZ_2.2/dialog_acts.json', 'budzianowski/multiwoz', '8975b7888b7279387876ac8bce37825f5782ce40'],
      [
        'sources/MultiWOZ_2.2/test/dialogues_001.json',
        'budzianowski/multiwoz',
        'fd420005cc9dc259892f541b001d9d48608bd38d',
      ],
      [
        'sources/MultiWOZ_2.2/test/dialogues_002.json',
        'budzianowski/multiwoz',
        '8ce97bc17acc3d1105d92d8d936520b8c93892ba',
      ],
    ]);
    expect(set.description).toMatch(/sha256 unknown/);
  });

  itMultiwoz(
    'fetch fails loudly (and installs nothing) when the MultiWOZ 2.2 bytes do not match their blob ids',
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'mwz-home-'));
      const error = await fetchResourceSet(MULTIWOZ_RESOURCE, {
        home,
        env: {},
        mirror,
        prepare: prepareMultiwozResource,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChecksumError);
      expect((error as Error).message).toMatch(
        /checksum mismatch for sources\/MultiWOZ_2\.2\/dialog_acts\.json .*expected git blob sha1 8975b78/,
      );
      expect(existsSync(join(home, 'resources', MULTIWOZ_RESOURCE))).toBe(false);
    },
  );

  itMultiwoz(
    'with the 2.2 files re-pinned to our fixture: fetch from four repositories, prepare, evaluate from the installed layout',
    async () => {
      const name = 'multiwoz-fixture';
      registerResourceSet({
        ...set,
        name,
        envVar: 'DIALEVAL_MULTIWOZ_FIXTURE_DIR',
        files: set.files.map((f) =>
          f.gitBlobSha1
            ? { ...f, gitBlobSha1: gitBlobSha1(readFileSync(localCopy(f.repo!, f.commit!, f.source!)!)) }
            : f,
        ),
      });
      const home = mkdtempSync(join(tmpdir(), 'mwz-home-'));
      const result = await fetchResourceSet(name, { home, env: {}, mirror, prepare: prepareMultiwozResource });
      expect(result.files).toBe(set.files.length);
      for (const rel of [
        'references/mwz22.json',
        'gold_states.json',
        'gold_states.v2023.json',
        'goals.json',
        'database/train_db.json',
      ]) {
        expect(existsSync(join(result.dir, rel)), rel).toBe(true);
      }
      // Success + richness of a real system's subset from the installed directory (goals generated from MultiWOZ 2.1)
      const file = join(home, 'preds.json');
      writeFileSync(file, JSON.stringify(subset21Predictions('ubar')));
      const expected = JSON.parse(readFileSync(join(SHARED, 'expected', 'subset21', 'ubar.json'), 'utf8')) as {
        success: unknown;
      };
      const r = await evaluateMultiwozFile(file, { dir: result.dir, success: true, richness: true });
      expect(r.success).toEqual(expected.success);
    },
  );
});
