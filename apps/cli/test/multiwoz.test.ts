import { type MultiwozSubset21, multiwozSubset21 } from '../../../test-support/multiwoz-subset21';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED, hasReferenceData, itWithReferenceData, runCli } from './cli';

const MWZ = join(SHARED, 'multiwoz');
const HAS_MULTIWOZ = hasReferenceData('multiwoz');
const itMultiwoz = itWithReferenceData('multiwoz');
const work = mkdtempSync(join(tmpdir(), 'dialeval-mwz-'));
const data = join(work, 'data');
const emptyHome = join(work, 'home');

let mwz: MultiwozSubset21;

const env = { DIALEVAL_HOME: emptyHome, DIALEVAL_MULTIWOZ_DIR: '' };
let augpt = '';
let hdsa = '';

beforeAll(() => {
  if (!HAS_MULTIWOZ) return;
  mwz = multiwozSubset21(work);
  augpt = mwz.subset('augpt', 'augpt.subset21.json');
  hdsa = mwz.subset('hdsa', 'hdsa.subset21.json');
});

function closeTo(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-12 * Math.abs(b);
}

describe('dialeval multiwoz', () => {
  itMultiwoz(
    "--format json prints exactly mwzeval's output object (subset21 expected output, Python number format)",
    async () => {
      const r = await runCli(
        ['multiwoz', augpt, '--data', data, '--bleu', '--success', '--richness', '--dst', '--format', 'json'],
        { env },
      );
      expect(r.code, r.stderr).toBe(0);
      const got = JSON.parse(r.stdout) as Record<string, Record<string, unknown>>;
      const expected = JSON.parse(readFileSync(join(MWZ, 'expected', 'subset21', 'augpt.json'), 'utf8')) as Record<
        string,
        Record<string, unknown>
      >;
      expect(Object.keys(got)).toEqual(['bleu', 'success', 'richness', 'dst']);
      expect(got.success).toEqual(expected.success);
      for (const section of ['bleu', 'richness', 'dst']) {
        expect(Object.keys(got[section]!).sort()).toEqual(Object.keys(expected[section]!).sort());
        for (const [k, v] of Object.entries(expected[section]!))
          expect(closeTo(got[section]![k] as number, v as number), `${section}.${k}`).toBe(true);
      }
      expect(r.stdout).toMatch(/"attraction": 100\.0/);
      expect(r.stdout).toMatch(/"num_unigrams": 206[,}]/);
    },
  );

  itMultiwoz(
    'table output (default metrics: BLEU, Inform/Success, richness), CIs, per-dialogue JSONL and a summary',
    async () => {
      const perDialogue = join(work, 'per-dialogue.jsonl');
      const summary = join(work, 'summary.json');
      const r = await runCli(
        [
          'multiwoz',
          augpt,
          '--data',
          data,
          '--ci',
          '--samples',
          '200',
          '--per-dialogue',
          perDialogue,
          '--summary',
          summary,
        ],
        { env },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/21 dialogues, 142 turns, mwzeval v2022/);
      expect(r.stdout).toMatch(/BLEU \(mwz22\)\s+14\.93\s+\[95% CI/);
      expect(r.stdout).toMatch(/Inform 81\.0\s+\[95% CI/);
      expect(r.stdout).toMatch(/Success 71\.4/);
      expect(r.stdout).toMatch(/trigrams\s+713/);
      const rows = readFileSync(perDialogue, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; inform: boolean; domains: Record<string, { reason?: string }> });
      expect(rows).toHaveLength(21);
      const failed = rows.filter((x) => !x.inform);
      expect(failed.length).toBe(4);
      for (const f of failed) expect(Object.values(f.domains).some((d) => d.reason)).toBe(true);
      const s = JSON.parse(readFileSync(summary, 'utf8')) as {
        results: { success: { inform: { total: number } } };
        intervals: { inform: { lower: number } };
      };
      expect(s.results.success.inform.total).toBe(81.0);
      expect(s.intervals.inform.lower).toBeLessThanOrEqual(81);
    },
  );

  itMultiwoz('--normalization 2023 and gold states for a file without states (with a warning)', async () => {
    const r = await runCli(
      ['multiwoz', hdsa, '--data', data, '--success', '--format', 'json', '--normalization', '2023'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: Missing state predictions, using ground-truth dialog states/);
    expect(JSON.parse(r.stdout).success.inform.total).toBeTypeOf('number');
  });

  itMultiwoz('bad input: errors name the dialogue id, turn index and field; exit 2', async () => {
    const bad = join(work, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        sng0433: [
          { response: 'hello', state: {} },
          { response: 7, state: {} },
        ],
      }),
    );
    const r = await runCli(['multiwoz', bad, '--data', data], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dialogue "sng0433", turn 1, field response/);
    expect(r.stdout).toBe('');

    const unknown = join(work, 'unknown.json');
    writeFileSync(unknown, JSON.stringify({ nope0001: [{ response: 'hello', state: {} }] }));
    const u = await runCli(['multiwoz', unknown, '--data', data, '--success'], { env });
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/unknown dialogue id "nope0001"/);

    const state = join(work, 'state.json');
    writeFileSync(state, JSON.stringify({ sng0433: [{ response: 'hello', state: { hotel: { stars: 4 } } }] }));
    const st = await runCli(['multiwoz', state, '--data', data, '--richness'], { env });
    expect(st.code).toBe(2);
    expect(st.stderr).toMatch(/dialogue "sng0433", turn 0, field state\.hotel\.stars/);
  });

  itMultiwoz('without data: the error gives the exact fetch command (exit 2)', async () => {
    const r = await runCli(['multiwoz', augpt, '--success'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'run `dialeval resources fetch multiwoz`, or pass --data DIR, or set DIALEVAL_MULTIWOZ_DIR',
    );
  });

  itMultiwoz('compare: paired bootstrap of two files on their common dialogues', async () => {
    const r = await runCli(
      ['multiwoz', 'compare', augpt, hdsa, '--data', data, '--samples', '200', '--format', 'json'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout) as {
      dialogues: number;
      bleu: { mwz22: { comparison: { difference: number; pValue: number } } };
      inform: unknown;
    };
    expect(c.dialogues).toBe(21);
    expect(c.bleu.mwz22.comparison.pValue).toBeGreaterThanOrEqual(0);
    expect(c.inform).toBeDefined();
    const t = await runCli(['multiwoz', 'compare', augpt, hdsa, '--data', data, '--samples', '100'], { env });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/paired bootstrap over 21 common dialogues/);
    expect(t.stdout).toMatch(/Success/);
  });

  itMultiwoz('compare --run: a usage error (a comparison writes no run), nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mwz-compare-run-'));
    try {
      const r = await runCli(['multiwoz', 'compare', augpt, hdsa, '--data', data, '--run', join(dir, 'run')], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--run is not an option of `multiwoz compare`');
      expect(r.stdout).toBe('');
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// A loopback mirror serving every file of the set from ../shared; the MultiWOZ 2.2 files (not available here) are
// served as placeholders, so the fetch must stop at their git blob ids.
let server: Server;
let mirror = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    const m = /^\/Tomiinek\/MultiWOZ_Evaluation\/([0-9a-f]{40})\/mwzeval\/data\/(.+)$/.exec(url);
    if (m) {
      const rel =
        m[2] === 'database/restaurant_db.json' && m[1]!.startsWith('7f19ee0')
          ? 'database/restaurant_db.v2022.json'
          : m[2]!;
      return void res.writeHead(200).end(readFileSync(join(MWZ, 'data', rel)));
    }
    if (url.startsWith('/thu-coai/ConvLab-2/'))
      return void res
        .writeHead(200)
        .end(readFileSync(join(MWZ, 'derived', 'sources', 'convlab2_multiwoz21_test.json.zip')));
    if (url.startsWith('/budzianowski/multiwoz/')) return void res.writeHead(200).end('[]');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  mirror = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('dialeval resources fetch multiwoz', () => {
  itMultiwoz('verifies every file; unverifiable bytes fail loudly (exit 1) and nothing is installed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'dialeval-home-'));
    const r = await runCli(['resources', 'fetch', 'multiwoz', '--mirror', mirror], { env: { DIALEVAL_HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /checksum mismatch for sources\/MultiWOZ_2\.2\/dialog_acts\.json .*expected git blob sha1 8975b7888b7279387876ac8bce37825f5782ce40/,
    );
    expect(existsSync(join(home, 'resources', 'multiwoz'))).toBe(false);
  });

  it('is listed with its description', async () => {
    const r = await runCli(['resources', 'list', '--format', 'json'], { env: { DIALEVAL_HOME: emptyHome } });
    const sets = JSON.parse(r.stdout) as Array<{ name: string; usedBy: string[]; installed: boolean }>;
    expect(sets.find((s) => s.name === 'multiwoz')).toMatchObject({ usedBy: ['@eval/multiwoz'], installed: false });
  });
});
