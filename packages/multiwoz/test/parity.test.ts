/**
 * Parity with mwzeval on the project's reference outputs (../shared/multiwoz/expected, computed by the unmodified
 * Python evaluator) and per-dialogue fixtures, plus the published/verified figures of the spec's § 12 table.
 */
import { expect, it } from 'vitest';
import type { MultiwozReport } from '../src/index';
import {
  EXPECTED_SYSTEMS,
  PER_DIALOG_SYSTEMS,
  describeMultiwoz,
  diffResults,
  fullReport,
  shared,
  sharedEvaluator,
  subset21Predictions,
} from './helpers';

function mwzeval(r: MultiwozReport) {
  return { bleu: r.bleu, success: r.success, richness: r.richness, dst: r.dst };
}

describeMultiwoz('expected/v2022: full test set, v2022 evaluator (8 systems)', () => {
  for (const name of EXPECTED_SYSTEMS) {
    it(name, () => {
      const expected = shared<Record<string, unknown>>(`expected/v2022/${name}.json`);
      // Files without states: Success needs the gold states, not available for the full set (success: null).
      const r = fullReport('2022', name, expected.success === null ? { success: false } : {});
      expect(diffResults(mwzeval(r), expected)).toEqual([]);
    });
  }
});

describeMultiwoz('expected/v2023: full test set, v2023 evaluator', () => {
  for (const name of ['augpt', 'ubar']) {
    it(name, () => {
      expect(diffResults(mwzeval(fullReport('2023', name)), shared(`expected/v2023/${name}.json`))).toEqual([]);
    });
  }
});

describeMultiwoz('expected/subset21: BLEU, Success (gold states where the file has none), richness, DST', () => {
  for (const name of EXPECTED_SYSTEMS) {
    it(name, () => {
      const expected = shared<Record<string, unknown>>(`expected/subset21/${name}.json`);
      const r = sharedEvaluator('2022', true, { dst: expected.dst !== null }).evaluate(subset21Predictions(name));
      expect(diffResults(mwzeval(r), expected)).toEqual([]);
      expect(r.details.stateSource).toBe(name === 'hdsa' || name === 'lava' ? 'gold' : 'predicted');
    });
  }

  it('DST after Success on a file without states scores gold against gold, as the reference (spec § 1 quirk)', () => {
    const r = sharedEvaluator('2022', true, { dst: true }).evaluate(subset21Predictions('hdsa'));
    expect(r.details.dstSource).toBe('gold_copied_by_success');
    // 142 turns: 142 / (142 + 1e-10) * 100, the spec's 99.99999999992959
    expect(r.dst!.joint_accuracy).toBe(99.99999999992959);
    expect(r.dst!.joint_accuracy).toBe((142 / (142 + 1e-10)) * 100);
    expect(r.details.warnings.some((w) => w.includes('gold with gold'))).toBe(true);
    // the documented fix
    expect(() =>
      sharedEvaluator('2022', true, { dst: true, strictDst: true }).evaluate(subset21Predictions('hdsa')),
    ).toThrow(/DST needs predicted states/);
  });

  it("DST without Success on a file without states gives the reference's integer zeros", () => {
    const r = sharedEvaluator('2022', true, { dst: true, success: false }).evaluate(subset21Predictions('lava'));
    expect(r.dst).toEqual({ joint_accuracy: 0, slot_f1: 0, slot_precision: 0, slot_recall: 0 });
    expect(r.details.dstSource).toBe('missing');
  });
});

interface PerDialogFixture {
  active_domains_source: string;
  dialogs: Record<
    string,
    { active_domains: string[][]; match: Record<string, boolean>; success: Record<string, boolean> }
  >;
}

describeMultiwoz('fixtures/per_dialog: per-dialogue match, success and active domains', () => {
  for (const version of ['2022', '2023'] as const) {
    for (const name of PER_DIALOG_SYSTEMS) {
      it(`v${version} ${name}`, () => {
        const fixture = shared<PerDialogFixture>(`fixtures/per_dialog/v${version}/${name}.json.gz`);
        const r = fullReport(version, name);
        expect(r.details.domainSource).toBe(fixture.active_domains_source);
        const got = Object.fromEntries(
          r.details.perDialogue.map((d) => [
            d.id,
            { active_domains: d.activeDomains, match: d.match, success: d.successByDomain },
          ]),
        );
        expect(Object.keys(got).sort()).toEqual(Object.keys(fixture.dialogs).sort());
        const mismatches = Object.keys(fixture.dialogs).filter(
          (id) => JSON.stringify(sortKeys(got[id])) !== JSON.stringify(sortKeys(fixture.dialogs[id])),
        );
        expect(mismatches).toEqual([]);
        // the dialogue-level flags used by the bootstrap agree with the reference's totals
        for (const d of r.details.perDialogue) {
          expect(d.inform).toBe(fixture.dialogs[d.id]!.match.total);
          expect(d.success).toBe(fixture.dialogs[d.id]!.success.total === true);
        }
      });
    }
  }
});

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

// spec § 12: "Inform ours", "Success ours", avg len (2 decimals), CBE (2 decimals), #uni, #tri of 13 systems
// (unmodified v2022 evaluator, reconstructed goals), and the v2023 figures quoted there.
const SPEC_TABLE: Array<[string, number, number, string, string, number, number]> = [
  ['augpt', 76.6, 60.5, '12.90', '2.15', 608, 5843],
  ['bort', 85.5, 77.4, '14.91', '1.88', 294, 2492],
  ['damd', 57.9, 47.6, '14.27', '1.65', 212, 1755],
  ['dots', 80.5, 70.5, '14.66', '2.10', 411, 5162],
  ['galaxy-e2e', 85.4, 75.7, '13.39', '1.75', 295, 2275],
  ['labes', 68.5, 58.1, '14.20', '1.83', 374, 3228],
  ['mars', 88.9, 78.0, '13.93', '1.65', 288, 2264],
  ['mintl', 73.7, 65.4, '14.78', '1.81', 297, 2525],
  ['pptod', 83.1, 72.7, '12.73', '1.88', 301, 2538],
  ['rstod', 83.5, 75.0, '13.65', '1.84', 376, 3162],
  ['soloist', 81.7, 67.1, '18.45', '2.41', 615, 7923],
  ['ubar', 83.4, 70.3, '13.54', '2.10', 478, 5238],
  ['uniconv', 66.7, 58.7, '14.17', '1.79', 337, 2932],
];

describeMultiwoz('spec § 12 table (v2022, 13 end-to-end systems)', () => {
  for (const [name, inform, success, avgLen, cbe, uni, tri] of SPEC_TABLE) {
    it(name, () => {
      const r = fullReport('2022', name);
      expect([r.success!.inform.total, r.success!.success.total]).toEqual([inform, success]);
      expect(r.richness!.avg_lengths.toFixed(2)).toBe(avgLen);
      expect(r.richness!.cond_entropy.toFixed(2)).toBe(cbe);
      expect([r.richness!.num_unigrams, r.richness!.num_trigrams]).toEqual([uni, tri]);
    });
  }

  it('v2023 figures quoted in § 12 (augpt, ubar, galaxy-e2e, mars, bort; damd and dots unchanged)', () => {
    const v23: Array<[string, number, number]> = [
      ['augpt', 76.2, 60.5],
      ['ubar', 82.4, 69.6],
      ['galaxy-e2e', 84.5, 74.9],
      ['mars', 88.8, 77.9],
      ['bort', 84.7, 76.7],
      ['damd', 57.9, 47.6],
      ['dots', 80.5, 70.5],
    ];
    for (const [name, inform, success] of v23) {
      const r = fullReport('2023', name);
      expect([name, r.success!.inform.total, r.success!.success.total]).toEqual([name, inform, success]);
    }
  });

  it('footnote 3: soloist after add_slot_domains gives the published 82.3 / 72.4', () => {
    const r = fullReport('2022', 'soloist', { addSlotDomains: true });
    expect(r.details.domainSource).toBe('slot_names');
    expect([r.success!.inform.total, r.success!.success.total]).toEqual([82.3, 72.4]);
  });

  it('footnote 1: dots without its own active_domains (estimated from states) gives the published 80.4 / 68.7', () => {
    const r = fullReport('2022', 'dots', {}, (p) =>
      Object.fromEntries(
        Object.entries(p).map(([id, turns]) => [
          id,
          turns.map((t) => ({ ...(t as object), active_domains: undefined })),
        ]),
      ),
    );
    expect(r.details.domainSource).toBe('estimated_from_state');
    expect([r.success!.inform.total, r.success!.success.total]).toEqual([80.4, 68.7]);
  });
});
