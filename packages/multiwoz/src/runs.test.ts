/**
 * The run record of MultiWOZ: recompute(items) gives the evaluator's headline figures bit for bit, on every expected
 * output of ../shared/multiwoz (and within the parity tests' 1e-12 of the Python figures), and on any subset of
 * dialogues the same figures as evaluating that subset.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, readRun, seededRandom, startRun } from '@eval/core';
import { runItemSchema } from '@eval/core/schemas';
import { describe, expect, it } from 'vitest';
import {
  EXPECTED_SYSTEMS,
  PER_DIALOG_SYSTEMS,
  closeTo,
  describeMultiwoz,
  fullReport,
  itMultiwoz,
  shared,
  sharedData,
  sharedEvaluator,
  subset21Predictions,
} from '../test/helpers';
import { type MultiwozReport, MultiwozEvaluator } from './metrics/evaluator';
import {
  multiwozRunItems,
  multiwozRunMetrics,
  multiwozVariant,
  prepareMultiwoz,
  recomputeMultiwoz,
  runBenchmark,
} from './runs';

interface Expected {
  bleu: Record<string, number> | null;
  success: { inform: Record<string, number>; success: Record<string, number> } | null;
  dst: { joint_accuracy: number; slot_f1: number; slot_precision: number; slot_recall: number } | null;
}

/** The native figures under the run's metric names (mwzeval's per-domain rates as `Inform (<domain>)`, ...). */
function native(r: MultiwozReport | Expected): Record<string, number> {
  const out: Record<string, number> = {};
  if (r.success) {
    out.Inform = r.success.inform.total!;
    out.Success = r.success.success.total!;
    for (const domain of Object.keys(r.success.inform).filter((d) => d !== 'total')) {
      out[`Inform (${domain})`] = r.success.inform[domain]!;
      out[`Success (${domain})`] = r.success.success[domain]!;
    }
  }
  if (r.bleu) out.BLEU = r.bleu.mwz22!;
  if (r.dst) {
    out.JGA = r.dst.joint_accuracy;
    out['Slot F1'] = r.dst.slot_f1;
    out['Slot Precision'] = r.dst.slot_precision;
    out['Slot Recall'] = r.dst.slot_recall;
  }
  return out;
}

function checkRecompute(report: MultiwozReport, expected: Expected): void {
  const items = multiwozRunItems(report);
  for (const item of items) expect(runItemSchema.parse(JSON.parse(JSON.stringify(item)))).toEqual(item);
  const recomputed = runBenchmark.recompute(JSON.parse(JSON.stringify(items)));
  const mine = native(report);
  expect(Object.keys(recomputed).sort()).toEqual(Object.keys(mine).sort());
  // bit for bit the evaluator's own figures
  for (const [k, v] of Object.entries(mine)) expect(recomputed[k], k).toBe(v);
  // and the Python reference output: integers and 1-decimal rates exactly, floats within the parity tests' 1e-12
  for (const [k, v] of Object.entries(native(expected)))
    expect(closeTo(recomputed[k]!, v), `${k}: ${recomputed[k]} vs ${v}`).toBe(true);
  for (const k of Object.keys(mine).filter((k) => k.startsWith('Inform') || k.startsWith('Success')))
    expect(recomputed[k], k).toBe(native(expected)[k]);
  // run.json metrics from the native result agree with the recomputation
  const metrics = multiwozRunMetrics(report);
  for (const [k, v] of Object.entries(recomputed)) {
    expect(metrics[k]!.value, k).toBe(v);
    // a per-domain figure counts the dialogues with the domain (checked in the per-domain test below)
    if (!metrics[k]!.part) expect(metrics[k]!.n).toBe(items.length);
  }
}

describeMultiwoz('recompute(items) = the native headline figures, every expected output', () => {
  for (const name of EXPECTED_SYSTEMS) {
    it(`v2022 full test set: ${name}`, () => {
      const expected = shared<Expected>(`expected/v2022/${name}.json`);
      checkRecompute(fullReport('2022', name, expected.success === null ? { success: false } : {}), expected);
    });
    it(`subset21 (BLEU, Success, DST): ${name}`, () => {
      const expected = shared<Expected>(`expected/subset21/${name}.json`);
      const r = sharedEvaluator('2022', true, { dst: expected.dst !== null }).evaluate(subset21Predictions(name));
      expect(r.bleu).not.toBeNull();
      checkRecompute(r, expected);
    });
  }
  for (const name of ['augpt', 'ubar']) {
    it(`v2023 full test set: ${name}`, () => {
      checkRecompute(fullReport('2023', name), shared<Expected>(`expected/v2023/${name}.json`));
    });
  }
});

describeMultiwoz(
  'per-domain Inform and Success in run.json: the figures mwzeval prints, over the dialogues with the domain',
  () => {
    it('augpt (v2022): every domain as in expected/v2022/augpt.json, n from the goals, recompute equal', () => {
      const expected = shared<Expected>('expected/v2022/augpt.json');
      const report = fullReport('2022', 'augpt');
      const metrics = multiwozRunMetrics(report);
      const recomputed = recomputeMultiwoz(multiwozRunItems(report));
      // the denominators: dialogues of the predictions file whose (reconstructed) goal has the domain
      const goals = shared<Record<string, Record<string, unknown>>>('derived/goals_test_reconstructed.json');
      const ids = report.details.perDialogue.map((d) => d.id);
      const domains = Object.keys(expected.success!.inform).filter((d) => d !== 'total');
      expect(domains.length).toBeGreaterThan(3);
      for (const domain of domains) {
        for (const of of ['Inform', 'Success'] as const) {
          const name = `${of} (${domain})`;
          const value = expected.success![of === 'Inform' ? 'inform' : 'success'][domain]!;
          expect(metrics[name], name).toMatchObject({
            value,
            unit: '%',
            digits: 1,
            part: { of, by: 'domain', value: domain },
          });
          expect(metrics[name]!.n, name).toBe(ids.filter((id) => domain in goals[id]!).length);
          expect(recomputed[name], name).toBe(value);
        }
      }
      // the figure the report must show (issue 26): attraction Success 60.1 of 396 dialogues
      expect([metrics['Success (attraction)']!.value, metrics['Success (attraction)']!.n]).toEqual([60.1, 396]);
    });
  },
);

describe('items', () => {
  itMultiwoz.each(
    PER_DIALOG_SYSTEMS.flatMap((name) => (['2022', '2023'] as const).map((version) => [version, name] as const)),
  )('inform/success per dialogue equal the reference per-dialogue fixture (v%s): %s', (version, name) => {
    const fixture = shared<{
      dialogs: Record<string, { match: Record<string, boolean>; success: Record<string, boolean> }>;
    }>(`fixtures/per_dialog/v${version}/${name}.json.gz`);
    const items = multiwozRunItems(fullReport(version, name));
    expect(items.map((i) => i.id).sort()).toEqual(Object.keys(fixture.dialogs).sort());
    for (const item of items) {
      const f = fixture.dialogs[item.id]!;
      expect(item.values.inform).toBe(f.match.total);
      // the reference counts a dialogue whose Inform failed as unsuccessful (its success dict is empty)
      expect(item.values.success).toBe(f.success.total === true);
      const domains = item.detail!.domains as Record<
        string,
        { inform: boolean; success: boolean | null; reason?: string; requested: unknown }
      >;
      for (const [d, m] of Object.entries(f.match)) if (d !== 'total') expect(domains[d]!.inform).toBe(m);
      for (const [d, s] of Object.entries(f.success)) if (d !== 'total') expect(domains[d]!.success).toBe(s);
    }
  });

  itMultiwoz('failure reasons: one of the three, on exactly the failed domains', () => {
    const items = multiwozRunItems(fullReport('2022', 'ubar'));
    const seen = new Set<string>();
    for (const item of items) {
      const domains = item.detail!.domains as Record<
        string,
        { inform: boolean; success: boolean | null; reason?: string; requested: unknown }
      >;
      const reasons = new Set<string>();
      for (const o of Object.values(domains)) {
        const failed = !o.inform || o.success === false;
        expect(o.reason !== undefined, item.id).toBe(failed);
        if (o.reason) reasons.add(o.reason);
        if (!o.inform) expect(['no entity offered', 'wrong entity']).toContain(o.reason);
        else if (o.success === false) expect(o.reason).toBe('missing requested slot');
      }
      expect(new Set(item.detail!.reasons as string[])).toEqual(reasons);
      expect(item.values.success === true).toBe((item.detail!.reasons as string[]).length === 0);
      for (const r of reasons) seen.add(r);
      // the goal is the domains with their requested slots (not repeated in the item); the venues and slots offered,
      // provided and missing are the failed domains' detail, with the evaluator's explanation
      expect(item.detail!.goal).toBeUndefined();
      for (const o of Object.values(domains)) {
        expect(Array.isArray(o.requested)).toBe(true);
        expect(Object.keys(o)).toEqual(
          o.reason === undefined
            ? ['inform', 'success', 'requested']
            : ['inform', 'success', 'reason', 'explanation', 'offered', 'requested', 'provided', 'missing'],
        );
      }
    }
    expect([...seen].sort()).toEqual(['missing requested slot', 'no entity offered', 'wrong entity']);
  });

  itMultiwoz('any subset of dialogues recomputes to the evaluation of that subset (BLEU, Inform, Success, DST)', () => {
    const ev = sharedEvaluator('2022', true, { dst: true });
    const preds = subset21Predictions('ubar');
    const items = multiwozRunItems(ev.evaluate(preds));
    for (const pick of [[0, 1, 2], [3, 5, 8, 13, 20], [20], [...Array(21).keys()].filter((k) => k % 2 === 1)]) {
      const ids = pick.map((k) => items[k]!.id);
      const part = ev.evaluate(Object.fromEntries(ids.map((id) => [id, preds[id]!])));
      expect(recomputeMultiwoz(pick.map((k) => items[k]!))).toEqual(native(part));
    }
  });

  itMultiwoz("detail.turns: each turn's response and state as the predictions file gives them, in order", () => {
    // a small file: four dialogues of augpt (their states not normalised: the slot "arrive by" is "arrive" after
    // normalisation), one of them stripped of its states, another with a response that normalisation changes
    const preds = subset21Predictions('augpt') as Record<string, Array<Record<string, unknown>>>;
    const ids = [...Object.keys(preds).slice(0, 3), 'sng0433']; // sng0433's states have "arrive by"
    const small = Object.fromEntries(ids.map((id) => [id, preds[id]!.map((t) => ({ ...t }))]));
    for (const t of small[ids[1]!]!) delete t.state;
    small[ids[2]!]![0]!.response = 'Sure ! The [value_name] is a GREAT place .';
    const file = join(mkdtempSync(join(tmpdir(), 'mwz-turns-')), 'small.json');
    writeFileSync(file, JSON.stringify(small));
    const input = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Array<Record<string, unknown>>>;
    const items = multiwozRunItems(
      sharedEvaluator('2022', true, { dst: true }).evaluate(JSON.parse(readFileSync(file, 'utf8')), { file }),
    );
    expect(items.map((i) => i.id)).toEqual(ids);
    for (const item of items) {
      const turns = item.detail!.turns as Array<Record<string, unknown>>;
      const given = input[item.id]!;
      expect(turns.length).toBe(given.length);
      turns.forEach((turn, t) => {
        expect(turn.response).toBe(given[t]!.response);
        // state exactly when the prediction carries one, and then the file's (nothing else of the turn)
        expect(Object.keys(turn)).toEqual('state' in given[t]! ? ['response', 'state'] : ['response']);
        if ('state' in given[t]!) expect(turn.state).toEqual(given[t]!.state);
      });
    }
    const turnsOf = (k: number) =>
      items[k]!.detail!.turns as Array<{ response: string; state?: Record<string, unknown> }>;
    expect(turnsOf(1).every((t) => t.state === undefined)).toBe(true);
    expect(turnsOf(2)[0]!.response).toBe('Sure ! The [value_name] is a GREAT place .');
    expect(Object.keys(turnsOf(3)[0]!.state!.train as object)).toContain('arrive by');
    // still valid run items (the detail round-trips through JSON)
    for (const item of items) expect(runItemSchema.parse(JSON.parse(JSON.stringify(item)))).toEqual(item);
  });

  itMultiwoz('items with an error count into no metric', () => {
    const items = multiwozRunItems(sharedEvaluator('2022', true, { dst: true }).evaluate(subset21Predictions('augpt')));
    const flagged = items.map((item, k) => (k < 4 ? { ...item, error: 'no prediction' } : item));
    expect(recomputeMultiwoz(flagged)).toEqual(recomputeMultiwoz(items.slice(4)));
  });

  itMultiwoz('DST on predictions without states (mwzeval returns zeros): no DST values, no DST metrics', () => {
    const r = new MultiwozEvaluator(sharedData('2022', true), { dst: true, richness: true }).evaluate(
      subset21Predictions('hdsa'),
    );
    expect(r.details.dstSource).toBe('missing');
    const items = multiwozRunItems(r);
    expect(items.every((i) => Object.keys(i.values).length === 0)).toBe(true);
    expect(recomputeMultiwoz(items)).toEqual({});
    expect(Object.keys(multiwozRunMetrics(r)).filter((k) => !k.startsWith('richness.'))).toEqual([]);
  });

  it('variant names the mwzeval version and the slot-domain option', () => {
    expect(multiwozVariant()).toBe('mwzeval-2022');
    expect(multiwozVariant({ normalization: '2023', addSlotDomains: true })).toBe('mwzeval-2023+slot-domains');
    expect(runBenchmark.binary).toEqual({ Inform: 'inform', Success: 'success' });
  });
});

describeMultiwoz('prepare (the resampling fast path)', () => {
  it('equals recompute on the resampled items, for multisets of positions in any order', () => {
    const items = multiwozRunItems(sharedEvaluator('2022', true, { dst: true }).evaluate(subset21Predictions('mintl')));
    const at = prepareMultiwoz(items);
    const rand = seededRandom(7);
    for (let r = 0; r < 50; r++) {
      const idx = Uint32Array.from({ length: 1 + Math.floor(rand() * 30) }, () => Math.floor(rand() * items.length));
      expect(at(idx)).toEqual(recomputeMultiwoz(Array.from(idx, (i) => items[i]!)));
    }
  });
});

/** Writes a run of a report the way the CLI does (items + the native metrics) and reads it back. */
async function writeRun(report: MultiwozReport, system: string) {
  const dir = join(mkdtempSync(join(tmpdir(), 'mwz-run-')), system);
  const run = await startRun(dir, { benchmark: 'multiwoz', variant: multiwozVariant(), system });
  await run.finish({ items: multiwozRunItems(report), metrics: multiwozRunMetrics(report) });
  return readRun(dir);
}

/**
 * Exact two-sided McNemar p, written independently of core's: binomial coefficients from Pascal's triangle (BigInt),
 * p = min(1, 2 * sum_{i <= min(b, c)} C(n, i) / 2^n).
 */
function mcnemarByPascal(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let row: bigint[] = [1n];
  for (let k = 1; k <= n; k++) row = [1n, ...row.slice(1).map((x, i) => x + row[i]!), 1n];
  const tail = row.slice(0, Math.min(b, c) + 1).reduce((s, x) => s + x, 0n);
  return Math.min(1, (2 * Number(tail)) / 2 ** n);
}

describeMultiwoz('compareRuns on two MultiWOZ systems', () => {
  it('full test set (augpt vs ubar, v2022): Inform/Success deltas, McNemar p and flipped dialogues from the native per-dialogue results', async () => {
    const ra = fullReport('2022', 'augpt');
    const rb = fullReport('2022', 'ubar');
    const runs = [await writeRun(ra, 'augpt'), await writeRun(rb, 'ubar')];
    const result = compareRuns(runs, runBenchmark, { resamples: 200, seed: 3 });
    const pair = result.pairs[0]!;
    expect(pair.paired).toBe(1000);
    expect(pair.unpaired.count).toBe(0);
    const byIdB = new Map(rb.details.perDialogue.map((d) => [d.id, d]));
    for (const [metric, key] of [
      ['Inform', 'inform'],
      ['Success', 'success'],
    ] as const) {
      const m = pair.metrics.find((x) => x.name === metric)!;
      // delta from the native totals (both systems evaluated on the same 1000 dialogues)
      expect(m.a).toBe(ra.success![key === 'inform' ? 'inform' : 'success'].total);
      expect(m.b).toBe(rb.success![key === 'inform' ? 'inform' : 'success'].total);
      expect(m.delta).toBe(m.b! - m.a!);
      // flipped dialogues and McNemar from the native per-dialogue flags
      const oneToZero = ra.details.perDialogue
        .filter((d) => d[key] === true && byIdB.get(d.id)![key] === false)
        .map((d) => d.id);
      const zeroToOne = ra.details.perDialogue
        .filter((d) => d[key] === false && byIdB.get(d.id)![key] === true)
        .map((d) => d.id);
      expect(oneToZero.length + zeroToOne.length).toBeGreaterThan(0);
      expect(m.flipped!.oneToZero.slice().sort()).toEqual(oneToZero.sort());
      expect(m.flipped!.zeroToOne.slice().sort()).toEqual(zeroToOne.sort());
      expect(m.mcnemar!.outcome).toBe(key);
      expect(closeTo(m.mcnemar!.p, mcnemarByPascal(oneToZero.length, zeroToOne.length))).toBe(true);
      expect(m.ci![0]).toBeLessThanOrEqual(m.ci![1]);
    }
    // richness is corpus-level: recorded in run.json, not recomputed, so not compared (per-domain figures are parts)
    const parts = multiwozRunMetrics(ra);
    const headline = pair.metrics.filter((m) => !parts[m.name]!.part);
    expect(headline.map((m) => m.name).sort()).toEqual(['Inform', 'Success']);
  });

  it('subset21 (ubar vs mintl): BLEU, JGA and slot figures compared on the recomputed figures', async () => {
    const ev = sharedEvaluator('2022', true, { dst: true });
    const ra = ev.evaluate(subset21Predictions('ubar'));
    const rb = ev.evaluate(subset21Predictions('mintl'));
    const result = compareRuns([await writeRun(ra, 'ubar'), await writeRun(rb, 'mintl')], runBenchmark, {
      resamples: 200,
    });
    const metrics = new Map(result.pairs[0]!.metrics.map((m) => [m.name, m]));
    const parts = multiwozRunMetrics(ra);
    expect([...metrics.keys()].filter((name) => !parts[name]!.part).sort()).toEqual([
      'BLEU',
      'Inform',
      'JGA',
      'Slot F1',
      'Slot Precision',
      'Slot Recall',
      'Success',
    ]);
    expect(metrics.get('BLEU')!.delta).toBe(rb.bleu!.mwz22! - ra.bleu!.mwz22!);
    expect(metrics.get('JGA')!.delta).toBe(rb.dst!.joint_accuracy - ra.dst!.joint_accuracy);
    expect(metrics.get('Slot F1')!.delta).toBe(rb.dst!.slot_f1 - ra.dst!.slot_f1);
    expect(metrics.get('BLEU')!.mcnemar).toBeNull();
  });
});

describeMultiwoz('README "Runs" example', () => {
  it('records two checkpoints from code and compares them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mwz-readme-'));
    const evaluator = new MultiwozEvaluator(sharedData('2022', true), { bleu: true, success: true });
    const files = ['ubar', 'mintl'].map((name) => {
      const file = join(root, `${name}.json`);
      writeFileSync(file, JSON.stringify(subset21Predictions(name)));
      return file;
    });
    async function recordCheckpoint(step: number, predictionsFile: string): Promise<string> {
      const report = evaluator.evaluate(JSON.parse(readFileSync(predictionsFile, 'utf8')), { file: predictionsFile });
      const dir = join(root, `runs/step-${step}`);
      const run = await startRun(dir, {
        benchmark: 'multiwoz',
        variant: multiwozVariant(evaluator.options),
        system: `step-${step}`,
        options: { bleu: true, success: true },
      });
      await run.addInput('predictions', predictionsFile);
      await run.finish({ items: multiwozRunItems(report), metrics: multiwozRunMetrics(report) });
      return dir;
    }
    const a = await recordCheckpoint(1000, files[0]!);
    const b = await recordCheckpoint(2000, files[1]!);
    const comparison = compareRuns([await readRun(a), await readRun(b)], runBenchmark, { resamples: 100, seed: 0 });
    const [ra, rb] = files.map((f) => evaluator.evaluate(JSON.parse(readFileSync(f, 'utf8'))));
    // the headline figures (the per-domain figures are parts of Inform and Success)
    const parts = multiwozRunMetrics(ra!);
    const headline = comparison.pairs[0]!.metrics.filter((m) => !parts[m.name]!.part);
    expect(headline.map((m) => m.name)).toEqual(['Inform', 'Success', 'BLEU']);
    expect(headline[2]!.delta).toBe(rb!.bleu!.mwz22! - ra!.bleu!.mwz22!);
  });
});
