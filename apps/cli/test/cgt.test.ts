import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PyDict, type PyValue, parsePythonJson, pythonJsonDumps } from '@eval/core/python';
import { describe, expect, it } from 'vitest';
import { SHARED, hasReferenceData, itWithReferenceData, probeResolved, runCli } from './cli';

const CGT = join(SHARED, 'cgt');
const HAS_CGT = hasReferenceData('cgt');
const itCgt = itWithReferenceData('cgt');
const PREDICTIONS = join(CGT, 'predictions');
const SETTINGS = ['dp-gpt4o', 'text-gpt3.5', 'vision-4o-mini', 'text-mm-gpt3.5', 'dp-gpt3.5'];
const expectedText = HAS_CGT ? readFileSync(join(CGT, 'expected.json'), 'utf8') : '{}';
// Parsed keeping Python's int/float distinction (`0` vs `0.0`) and key order.
const expected = (parsePythonJson(expectedText) as PyDict).get('settings') as PyDict;

const get = (v: PyValue | undefined, key: string) => (v as PyDict).get(key);
/** Canonical text of a value: Python repr of every float (round-trip exact), ints bare. Equal text = equal bits. */
const canon = (v: PyValue | undefined) => pythonJsonDumps(v ?? null);

/** Gold dicts with their items sorted: replayed gold comes in color order, recorded gold in arbitrary (set) order. */
const sortedGold = (v: PyValue | undefined) =>
  canon((v as PyDict[]).map((d) => new Map([...d].sort(([a], [b]) => (a < b ? -1 : 1)))));

/**
 * Every field of expected.json for one setting equals the CLI's JSON output, int/float distinction included
 * (`goldOrder: false`: the items of each gold dict may come in another order).
 */
function expectSettingMatches(out: PyDict, name: string, goldOrder = true): void {
  const want = expected.get(name) as PyDict;
  const got = get(get(out, 'settings'), name) as PyDict;
  expect(got, `setting ${name} missing`).toBeDefined();
  const wantGroups = want.get('groups') as PyDict;
  expect([...(got.get('groups') as PyDict).keys()]).toEqual([...wantGroups.keys()]);
  for (const [gid, wg] of wantGroups) {
    for (const [key, value] of wg as PyDict) {
      const ours = get(get(got.get('groups'), gid), key);
      if (key === 'gold' && !goldOrder) expect(sortedGold(ours), `${name} group ${gid} gold`).toBe(sortedGold(value));
      else expect(canon(ours), `${name} group ${gid} ${key}`).toBe(canon(value));
    }
  }
  for (const [key, value] of want) {
    if (key !== 'groups') expect(canon(got.get(key)), `${name} ${key}`).toBe(canon(value));
  }
}

const turn = (text: unknown) => ({
  input: { role: 'user', content: 'q' },
  output: { text, model: 'm', role: 'assistant' },
});
function settingDir(groups: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dialeval-cgt-'));
  const setting = join(dir, 'my-model');
  mkdirSync(setting);
  for (const [g, text] of Object.entries(groups))
    writeFileSync(join(setting, `mmdp_gpt_output_gpt-3.5-0125_segmented_group_${g}.json`), text);
  return setting;
}
const row = (gold: unknown, ...answers: unknown[]) => ({ gold, gpt_chat: answers.map(turn) });

describe('dialeval cgt --format json equals expected.json', () => {
  itCgt.concurrent.each(SETTINGS)(
    'on the settings folder %s: every per-row value, mean, final, macro and printed line',
    async (name) => {
      const r = await runCli(['cgt', join(PREDICTIONS, name), '--format', 'json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const out = parsePythonJson(r.stdout) as PyDict;
      expect([...(out.get('settings') as PyDict).keys()]).toEqual([name]);
      expectSettingMatches(out, name);
      // the whole output is the reference layout: byte for byte expected.json restricted to this setting
      const want = new Map<string, PyValue>([
        ['reference', (parsePythonJson(expectedText) as PyDict).get('reference')!],
        ['settings', new Map([[name, expected.get(name)!]])],
      ]);
      expect(r.stdout).toBe(`${pythonJsonDumps(want, { indent: 1 })}\n`);
    },
  );

  itCgt.concurrent(
    'on the folder of all settings, with the gold replayed from the CGA CSVs (bare --gold: $DIALEVAL_CGT_DIR)',
    async () => {
      const r = await runCli(['cgt', PREDICTIONS, '--format', 'json', '--details', '--gold'], {
        env: { DIALEVAL_CGT_DIR: CGT },
      });
      expect(r.code, r.stderr).toBe(0);
      const out = parsePythonJson(r.stdout) as PyDict;
      expect(canon(get(out, 'options'))).toContain(`"cga_dir": ${JSON.stringify(join(CGT, 'cga_originals'))}`);
      for (const name of SETTINGS) expectSettingMatches(out, name, false);
      // --details adds the bootstrap interval around each macro score
      const ci = get(get(get(get(out, 'settings'), 'dp-gpt4o'), 'bootstrap'), 'macro_mean_f1') as PyDict;
      expect(ci.get('estimate')).toBe((expected.get('dp-gpt4o') as PyDict).get('macro_mean_f1'));
      expect(ci.get('lower') as number).toBeLessThan(ci.get('upper') as number);
    },
  );
});

describe('dialeval cgt output formats', () => {
  itCgt.concurrent(
    '--format reference prints the reference script output; its last lines are the printed summary',
    async () => {
      const r = await runCli(['cgt', join(PREDICTIONS, 'dp-gpt4o'), '--format', 'reference']);
      expect(r.code).toBe(0);
      const want = expected.get('dp-gpt4o') as PyDict;
      const lines = r.stdout.trimEnd().split('\n');
      // spec section 4: the fourth line is repr(sum(group_mean_dsc) / 10), 0.503672627787518 for dp-gpt4o
      expect(lines.slice(-4)).toEqual([
        want.get('printed_dsc_line'),
        want.get('printed_f1_line'),
        want.get('printed_dsc_latex'),
        '0.503672627787518',
      ]);
      expect(lines[0]).toBe("{'red': '10'}");
    },
  );

  itCgt.concurrent(
    '--format table shows per-group and macro results; --format csv has full-precision values',
    async () => {
      const [table, csv] = await Promise.all([
        runCli(['cgt', join(PREDICTIONS, 'text-gpt3.5')]),
        runCli(['cgt', join(PREDICTIONS, 'text-gpt3.5'), '--format', 'csv', '--mode', 'lenient']),
      ]);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/setting text-gpt3\.5: 10 groups, 45 rows; gold: embedded; DSC strict/);
      expect(table.stdout).toMatch(/macro F1 {2}0\.4734 {2}\[95% CI /);
      expect(table.stdout).toContain((expected.get('text-gpt3.5') as PyDict).get('printed_f1_line'));
      expect(csv.code).toBe(0);
      const [header, ...rows] = csv.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split(','));
      expect(rows.length).toBe(11);
      const col = (name: string) => header!.indexOf(name);
      const groups = (expected.get('text-gpt3.5') as PyDict).get('groups') as PyDict;
      for (const cells of rows.slice(0, 10)) {
        const g = groups.get(cells[1]!) as PyDict;
        expect(cells[col('mean_f1')]).toBe(canon(g.get('mean_f1')));
        expect(cells[col('mean_dsc')]).toBe(canon(g.get('mean_dsc_lenient')));
        expect(cells[col('final_dsc_strict')]).toBe(canon(g.get('final_dsc_strict')));
      }
      expect(rows[10]![1]).toBe('macro');
      expect(Number(rows[10]![col('mean_f1')])).toBe((expected.get('text-gpt3.5') as PyDict).get('macro_mean_f1'));
    },
  );

  itCgt.concurrent('--out writes the file atomically and prints nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dialeval-cgt-out-'));
    const file = join(dir, 'nested', 'result.json');
    const written = await runCli(['cgt', join(PREDICTIONS, 'vision-4o-mini'), '--format', 'json', '--out', file]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toBe('');
    expectSettingMatches(parsePythonJson(readFileSync(file, 'utf8')) as PyDict, 'vision-4o-mini');
    expect(readdirSync(join(dir, 'nested'))).toEqual(['result.json']);
  });
});

describe('dialeval cgt bad input: exit 2, message naming file, record and field', () => {
  it.concurrent('an answer that is not a JSON object; --invalid-prediction empty scores it as {} and counts it', async () => {
    const dir = settingDir({ '1': JSON.stringify({ '12.5': row(['red=10'], 'The red block weighs 10.') }) });
    const file = join(dir, 'mmdp_gpt_output_gpt-3.5-0125_segmented_group_1.json');
    const bad = await runCli(['cgt', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain(`${file}, record "12.5", field gpt_chat[0].output.text: the answer is not JSON`);
    const ok = await runCli(['cgt', dir, '--invalid-prediction', 'empty', '--format', 'json', '--details']);
    expect(ok.code, ok.stderr).toBe(0);
    const s = JSON.parse(ok.stdout).settings['my-model'];
    expect(s.invalid_predictions).toBe(1);
    expect(s.groups['1'].invalid_predictions).toBe(1);
    // gold {red: 10}, prediction {} → PRF1 (0, 0, 0), DSC 0.0
    expect(s.groups['1'].prf1_rows).toEqual([{ row: 0, p: 0, r: 0, f1: 0 }]);
  });

  it.concurrent('a malformed record names the field', async () => {
    const dir = settingDir({ '1': JSON.stringify({ '3.0': { gold: 'red=10', gpt_chat: [turn('{}')] } }) });
    const r = await runCli(['cgt', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/segmented_group_1\.json, record "3\.0", field gold: /);
  });

  it.concurrent('an empty group is an error (the reference crashes); --empty-group skip leaves it out', async () => {
    const dir = settingDir({ '1': JSON.stringify({ '3.0': row(['red=10'], '{"red": 10}') }), '2': '{}' });
    const bad = await runCli(['cgt', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/segmented_group_2\.json: no PRF1 row is scored/);
    const ok = await runCli(['cgt', dir, '--empty-group', 'skip', '--format', 'json', '--details']);
    expect(ok.code, ok.stderr).toBe(0);
    const s = JSON.parse(ok.stdout).settings['my-model'];
    expect(s.skipped_groups).toEqual(['2']);
    expect(s.group_mean_f1).toEqual([1, null]);
    expect(s.macro_mean_f1).toBe(1);
  });

  it.concurrent('missing folders, missing CGA files and bad flags', async () => {
    const dir = settingDir({ '1': JSON.stringify({ '3.0': row(['red=10'], '{"red": 10}') }) });
    const [missing, noCsv, badMode] = await Promise.all([
      runCli(['cgt', join(dir, 'nope')]),
      runCli(['cgt', dir, '--gold', dir]),
      runCli(['cgt', dir, '--mode', 'loose']),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope: directory not found/);
    expect(noCsv.code).toBe(2);
    expect(noCsv.stderr).toMatch(/Group_01_CGA\.csv: file not found/);
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toMatch(/--mode/);
  });
});

function resolvedEvalPackages(args: string[]): string[] {
  const r = probeResolved(args);
  expect(r.status, r.stderr).toBe(0);
  return r.packages;
}

describe('laziness', () => {
  itCgt('`dialeval --help` and `dialeval cgt --help` do not import @eval/cgt; running the subcommand does', () => {
    expect(resolvedEvalPackages(['--help'])).not.toContain('@eval/cgt');
    expect(resolvedEvalPackages(['cgt', '--help'])).not.toContain('@eval/cgt');
    expect(resolvedEvalPackages(['cgt', join(PREDICTIONS, 'dp-gpt4o'), '--format', 'csv'])).toContain('@eval/cgt');
  });
});

describe('dialeval demo (cgt)', () => {
  it('runs the built-in CGT example and prints P/R/F1 and DSC', async () => {
    const r = await runCli(['demo', '--only', 'cgt', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout).cgt;
    // Hand derivation for the 4 demo rows (apps/cli/src/demo/cgt.ts):
    // PRF1: rows 0-2 have only correct colors → 1.0; row 3: TP 3 (red, blue, green), FP 1 (purple 40), yellow ignored
    //   → p = 3/4, r = 1, f1 = 2·0.75/1.75. Mean P = (3 + 0.75)/4.
    expect(d.prf1.final).toEqual({ p: 0.75, r: 1, f1: (2 * 0.75 * 1) / 1.75, int: false });
    expect(d.prf1.mean.p).toBe(0.9375);
    // DSC strict: |G∩P|/|G|/|P| = 1/1/1, 3/3/4, 3/6/4, 3/10/6 → 1, 6/7, 0.6, 0.375
    expect(d.dsc.strict.rows).toEqual([1, 6 / 7, 0.6, 0.375]);
    // lenient drops true-but-ungrounded green (row 1) and yellow (row 3): 3/3/3, 3/6/3, 3/10/4 → 1, 2/3, 6/14
    expect(d.dsc.lenient.rows).toEqual([1, 1, 6 / 9, 6 / 14]);
    const text = await runCli(['demo', '--only', 'cgt']);
    expect(text.stdout).toMatch(/mean P\/R\/F1 +0\.9375 \/ 1\.0000 \/ 0\.9643/);
    expect(text.stdout).toMatch(/DSC strict +mean 0\.7080/);
  });
});
