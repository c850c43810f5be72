import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { cgaFileName, loadCgaHistory } from './common-ground';
import { type CgtSetting, checkGold, withReplayedGold } from './data';
import { type SettingResult, evaluateSetting } from './evaluate';
import { formatReport } from './report';
import { CGT, HAS_CGT, SETTINGS, describeCgt, expected, expectedText, loadSettings } from './test/shared';

const exp = HAS_CGT ? expected() : undefined!;
const settings = new Map<string, CgtSetting>();
const results = new Map<string, SettingResult>();

beforeAll(async () => {
  if (HAS_CGT) await loadSettings(settings, results);
});

const plain = (m: Map<string, string>) => Object.fromEntries(m);

describeCgt.each(SETTINGS)('parity with expected.json: %s', (name) => {
  const want = exp.settings[name]!;

  it.each(Object.keys(want.groups))('group %s: rows, per-row values, means and finals (bit for bit)', (gid) => {
    const w = want.groups[gid]!;
    const r = results.get(name)!;
    const g = r.groups.find((x) => x.id === gid)!;
    expect(g.nRows).toBe(w.n_rows);
    expect(g.gold.map(plain)).toEqual(w.gold);
    expect(g.pred.map(plain)).toEqual(w.pred_normalized);
    // key order of the normalised predictions as the reference's dicts
    expect(g.pred.map((p) => [...p.keys()])).toEqual(w.pred_normalized.map((p) => Object.keys(p)));
    expect(g.prf1.rows.length).toBe(w.prf1_rows.length);
    g.prf1.rows.forEach((row, i) => {
      const e = w.prf1_rows[i]!;
      expect(row.row).toBe(e.row);
      expect(row.p).toBe(e.p);
      expect(row.r).toBe(e.r);
      expect(row.f1).toBe(e.f1);
    });
    expect(g.dsc.strict.rows.map((x) => x.dsc)).toEqual(w.dsc_strict_rows);
    expect(g.dsc.lenient.rows.map((x) => x.dsc)).toEqual(w.dsc_lenient_rows);
    w.dsc_strict_rows.forEach((v, i) => expect(g.dsc.strict.rows[i]!.dsc).toBe(v));
    w.dsc_lenient_rows.forEach((v, i) => expect(g.dsc.lenient.rows[i]!.dsc).toBe(v));
    expect(g.prf1.mean!.p).toBe(w.mean_p);
    expect(g.prf1.mean!.r).toBe(w.mean_r);
    expect(g.prf1.mean!.f1).toBe(w.mean_f1);
    expect([g.prf1.final!.p, g.prf1.final!.r, g.prf1.final!.f1]).toEqual(w.final_prf1);
    expect(g.dsc.strict.mean).toBe(w.mean_dsc_strict);
    expect(g.dsc.lenient.mean).toBe(w.mean_dsc_lenient);
    expect(g.dsc.strict.final).toBe(w.final_dsc_strict);
    expect(g.dsc.lenient.final).toBe(w.final_dsc_lenient);
  });

  it('group means, macro means and the printed lines', () => {
    const r = results.get(name)!;
    expect(r.groupMeanDsc).toEqual(want.group_mean_dsc_strict);
    expect(r.groupMeanF1.map((x) => x!.value)).toEqual(want.group_mean_f1);
    expect(r.macro.dsc).toBe(want.macro_mean_dsc_strict);
    expect(r.macro.f1).toBe(want.macro_mean_f1);
    expect(r.printed.dsc).toBe(want.printed_dsc_line);
    expect(r.printed.f1).toBe(want.printed_f1_line);
    expect(r.printed.dscLatex).toBe(want.printed_dsc_latex);
    expect(r.invalidPredictions).toBe(0);
    expect(r.skippedGroups).toEqual([]);
  });

  it('the same values when the gold is replayed from cga_originals', async () => {
    const replayed = evaluateSetting({
      ...settings.get(name)!,
      groups: await withReplayedGold(settings.get(name)!.groups, join(CGT, 'cga_originals')),
    });
    const r = results.get(name)!;
    expect(replayed.groupMeanDsc).toEqual(r.groupMeanDsc);
    expect(replayed.groupMeanF1).toEqual(r.groupMeanF1);
    replayed.groups.forEach((g, i) => {
      expect(g.prf1.rows).toEqual(r.groups[i]!.prf1.rows);
      expect(g.dsc).toEqual(r.groups[i]!.dsc);
    });
  });
});

describeCgt('expected.json as a whole', () => {
  it('formatReport (no extras) reproduces expected.json byte for byte, including every int/float distinction', () => {
    const text = formatReport(
      SETTINGS.map((s) => results.get(s)!),
      { extras: false },
    );
    expect(text).toBe(expectedText());
  });

  it('the bare int tokens of the printed F1 lines (spec section 4)', () => {
    // text-gpt3.5 groups 4 and 7, vision-4o-mini groups 3 and 7: every row is the int triple (0, 0, 0)
    expect(results.get('text-gpt3.5')!.printed.f1.split('\t')).toEqual(
      exp.settings['text-gpt3.5']!.printed_f1_line.split('\t'),
    );
    expect(results.get('text-gpt3.5')!.groupMeanF1.map((x) => x!.int)).toEqual([
      false,
      false,
      false,
      true,
      false,
      false,
      true,
      false,
      false,
      false,
    ]);
    expect(results.get('vision-4o-mini')!.groupMeanF1.map((x) => x!.int)).toEqual([
      false,
      false,
      true,
      false,
      false,
      false,
      true,
      false,
      false,
      false,
    ]);
  });

  it('the macro DSC line (spec section 4, dp-gpt4o)', () => {
    expect(results.get('dp-gpt4o')!.printed.macroDsc).toBe('0.503672627787518');
  });

  it('exact means matter: a naive mean differs by 1 ulp in 42 of the 250 group means (spec section 0)', async () => {
    let differ = 0;
    let total = 0;
    for (const name of SETTINGS) {
      const naive = evaluateSetting(settings.get(name)!, { mean: 'naive', bootstrap: false });
      const exact = results.get(name)!;
      naive.groups.forEach((g, i) => {
        const e = exact.groups[i]!;
        const pairs: Array<[number, number]> = [
          [g.prf1.mean!.p, e.prf1.mean!.p],
          [g.prf1.mean!.r, e.prf1.mean!.r],
          [g.prf1.mean!.f1, e.prf1.mean!.f1],
          [g.dsc.strict.mean!, e.dsc.strict.mean!],
          [g.dsc.lenient.mean!, e.dsc.lenient.mean!],
        ];
        for (const [a, b] of pairs) {
          total++;
          if (a !== b) {
            differ++;
            expect(Math.abs(a - b)).toBeLessThanOrEqual(Number.EPSILON * Math.max(Math.abs(a), Math.abs(b)));
          }
        }
      });
    }
    expect(total).toBe(250);
    expect(differ).toBe(42);
    const g1 = evaluateSetting(settings.get('dp-gpt4o')!, { mean: 'naive', bootstrap: false }).groups[0]!;
    expect(g1.prf1.mean!.f1).toBe(0.8465608465608466);
    expect(results.get('dp-gpt4o')!.groups[0]!.prf1.mean!.f1).toBe(0.8465608465608465);
  });
});

describeCgt('gold replay of the CGA annotations (spec section 6)', () => {
  it('at every row key the replayed snapshot is an ACCEPT whose FBank equals the recorded gold (225 row checks)', async () => {
    let checked = 0;
    const failures: unknown[] = [];
    for (const name of SETTINGS) {
      for (const group of settings.get(name)!.groups) {
        const history = await loadCgaHistory(join(CGT, 'cga_originals', cgaFileName(group.id)));
        for (const c of checkGold(group, history)) {
          checked++;
          if (!c.ok) failures.push({ name, group: group.id, ...c });
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBe(225);
  });

  it('row counts per group are 6, 5, 4, 2, 5, 3, 4, 6, 4, 6 (spec section 2.2)', () => {
    for (const name of SETTINGS)
      expect(settings.get(name)!.groups.map((g) => g.rows.length)).toEqual([6, 5, 4, 2, 5, 3, 4, 6, 4, 6]);
  });
});
