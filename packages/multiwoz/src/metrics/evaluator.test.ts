import { mkdtempSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, ResourceMissingError } from '@eval/core';
import { expect, it } from 'vitest';
import {
  HAS_MULTIWOZ,
  SHARED,
  closeTo,
  describeMultiwoz,
  shared,
  sharedData,
  subset21Predictions,
} from '../../test/helpers';
import { MultiwozEvaluator, evaluateMultiwozFile, mwzevalResults } from './evaluator';
import { parsePredictions } from '../internal/input';

const data = HAS_MULTIWOZ ? sharedData('2022', true) : undefined!;
const ev = HAS_MULTIWOZ
  ? new MultiwozEvaluator(data, { bleu: true, success: true, richness: true, dst: true })
  : undefined!;

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('no error thrown');
}

describeMultiwoz('bad input: errors name the dialogue id, the turn index and the field', () => {
  it('non-string response', () => {
    const e = errorOf(() => parsePredictions({ sng0433: [{ response: 'ok' }, { response: 42 }] }, 'preds.json'));
    expect(e.message).toMatch(/preds\.json/);
    expect(e.message).toMatch(/dialogue "sng0433", turn 1, field response: .*string/);
    expect(e.record).toBe('sng0433');
    expect(e.field).toEqual([1, 'response']);
  });

  it('malformed state: non-string value, non-object domain', () => {
    expect(
      errorOf(() => parsePredictions({ sng0433: [{ response: 'a', state: { hotel: { stars: 4 } } }] })).message,
    ).toMatch(/dialogue "sng0433", turn 0, field state\.hotel\.stars: .*string/);
    expect(
      errorOf(() => parsePredictions({ sng0433: [{ response: 'a', state: { hotel: 'north' } }] })).message,
    ).toMatch(/turn 0, field state\.hotel/);
    expect(errorOf(() => parsePredictions({ sng0433: [{ response: 'a', active_domains: 'hotel' }] })).message).toMatch(
      /field active_domains/,
    );
  });

  it('missing turns: a dialogue that is not a list, an empty dialogue, a null turn, an empty file', () => {
    expect(errorOf(() => parsePredictions({ sng0433: { response: 'a' } })).message).toMatch(
      /dialogue "sng0433": .*array/,
    );
    expect(errorOf(() => parsePredictions({ sng0433: [] })).message).toMatch(/dialogue "sng0433" has no turns/);
    expect(errorOf(() => parsePredictions({ sng0433: [null] })).message).toMatch(/dialogue "sng0433", turn 0/);
    expect(errorOf(() => parsePredictions({})).message).toMatch(/no dialogue/);
    expect(errorOf(() => parsePredictions([])).message).toMatch(/invalid predictions/);
  });

  it('unknown dialogue id', () => {
    const e = errorOf(() => ev.evaluate({ xyz0001: [{ response: 'hello', state: {} }] }, { file: 'p.json' }));
    expect(e.message).toMatch(/unknown dialogue id "xyz0001"/);
    expect(e.record).toBe('xyz0001');
  });

  it('more turns than the reference data', () => {
    const preds = subset21Predictions('augpt');
    const turns = preds.sng0433!;
    const e = errorOf(() => ev.evaluate({ sng0433: [...turns, turns[0]] }));
    expect(e.message).toMatch(
      new RegExp(`dialogue "sng0433" has ${turns.length + 1} turns but .* has ${turns.length}`),
    );
  });

  it('a time value on which the reference crashes (int() ValueError) names dialogue, turn and slot', () => {
    const e = errorOf(() => ev.evaluate({ sng0433: [{ response: 'a', state: { train: { leaveAt: 'ab:30pm' } } }] }));
    expect(e.message).toMatch(/dialogue "sng0433", turn 0, field state\.train\.leaveAt: cannot parse time "ab:30pm"/);
  });

  it('a "__proto__" dialogue is dropped (zod drops the key), not merged into the prototype', () => {
    const value = JSON.parse('{"sng0073": [{"response": "a"}], "__proto__": [{"response": 1}]}') as unknown;
    expect(Object.keys(parsePredictions(value))).toEqual(['sng0073']);
  });
});

describeMultiwoz('evaluation behaviour', () => {
  it("does not mutate the caller's predictions (the reference normalises in place)", () => {
    const preds = JSON.parse(JSON.stringify(subset21Predictions('augpt'))) as Record<string, unknown>;
    const copy = JSON.stringify(preds);
    const a = mwzevalResults(ev.evaluate(preds));
    expect(JSON.stringify(preds)).toBe(copy);
    expect(mwzevalResults(ev.evaluate(preds))).toEqual(a);
  });

  it('fewer turns than the reference: only the turns given are scored, with a warning', () => {
    const preds = subset21Predictions('augpt') as Record<string, unknown[]>;
    const short = { ...preds, sng0433: preds.sng0433!.slice(0, 2) };
    const r = ev.evaluate(short);
    expect(r.details.shortDialogues).toEqual(['sng0433']);
    expect(r.details.warnings.join('\n')).toMatch(/fewer turns than the reference data/);
    expect(r.details.turns).toBe(142 - (preds.sng0433!.length - 2));
  });

  it('unknown placeholders are removed and reported once', () => {
    const warnings: string[] = [];
    const e2 = new MultiwozEvaluator(data, { richness: true, onWarning: (w) => warnings.push(w) });
    const r = e2.evaluate({ sng0433: [{ response: 'the [foo_bar] is [foo_bar] and [hotel]' }] });
    expect(r.details.unknownSlots).toEqual(['foo_bar', 'hotel']);
    expect(warnings.filter((w) => w.startsWith('Unknown slot name'))).toHaveLength(2);
  });

  it('a metric without its data is a ResourceMissingError naming the fetch command', () => {
    const noRefs = sharedData('2022', false);
    expect(() => new MultiwozEvaluator(noRefs, { bleu: true })).toThrow(ResourceMissingError);
    expect(() => new MultiwozEvaluator(noRefs, { dst: true })).toThrow(/dialeval resources fetch multiwoz/);
  });

  it("evaluateMultiwozFile reads mwzeval's data/ layout from a directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mwz-data-'));
    mkdirSync(join(dir, 'database'));
    mkdirSync(join(dir, 'references'));
    for (const d of ['attraction', 'hotel', 'restaurant', 'train'])
      symlinkSync(join(SHARED, 'data', 'database', `${d}_db.json`), join(dir, 'database', `${d}_db.json`));
    symlinkSync(
      join(SHARED, 'data', 'database', 'restaurant_db.v2022.json'),
      join(dir, 'database', 'restaurant_db.v2022.json'),
    );
    symlinkSync(join(SHARED, 'data', 'booked_domains.json'), join(dir, 'booked_domains.json'));
    symlinkSync(join(SHARED, 'derived', 'goals_test_reconstructed.json'), join(dir, 'goals.json'));
    symlinkSync(join(SHARED, 'derived', 'subset21', 'mwz22_refs.json'), join(dir, 'references', 'mwz22.json'));
    symlinkSync(join(SHARED, 'derived', 'subset21', 'gold_states.json'), join(dir, 'gold_states.json'));
    const file = join(dir, 'preds.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, JSON.stringify(subset21Predictions('ubar')));
    const read: Array<[string, string]> = [];
    const onRead = (path: string, bytes: Uint8Array) => read.push([path, Buffer.from(bytes).toString('utf8')]);
    const r = await evaluateMultiwozFile(file, { dir, bleu: true, success: true, richness: true, dst: true, onRead });
    expect(mwzevalResults(r)).toEqual(mwzevalResults(ev.evaluate(subset21Predictions('ubar'))));
    // onRead saw every file read, the predictions first, each with its bytes
    const data = ['restaurant_db.v2022', 'attraction_db', 'hotel_db', 'train_db'].map((d) => `database/${d}.json`);
    expect(read.map(([path]) => path)).toEqual([
      file,
      ...[...data, 'goals.json', 'booked_domains.json', 'references/mwz22.json', 'gold_states.json'].map((f) =>
        join(dir, f),
      ),
    ]);
    for (const [path, text] of read) expect(text).toBe(readFileSync(path, 'utf8'));
    // floats within 1e-12 relative of the Python figure (V8's Math.log/exp may differ from glibc in the last bit)
    expect(closeTo(r.bleu!.mwz22, shared<{ bleu: { mwz22: number } }>('expected/subset21/ubar.json').bleu.mwz22)).toBe(
      true,
    );
    await expect(evaluateMultiwozFile(file, { dir: join(dir, 'nope'), bleu: true })).rejects.toThrow(
      /dialeval resources fetch multiwoz/,
    );
  });
});
