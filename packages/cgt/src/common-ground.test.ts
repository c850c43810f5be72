import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acceptTimes,
  cgaFileName,
  fbankWeights,
  loadCgaHistory,
  parsePythonFloat,
  replayCga,
  timeKey,
} from './common-ground';
import { describeWithReferenceData } from '../../../test-support/reference-data';
import { CGA_NEW, CGA_ORIGINALS } from './test/shared';

const HEADER = 'Begin Time - ss.msec,End Time - ss.msec,Common Ground';
const csv = (...rows: string[]) => [HEADER, ...rows].join('\n');
const fbankAt = (text: string, t: number) => replayCga(text).get(t)!.fbank;

// Every expectation here is derived by hand from the rules of spec section 6; the comments give the derivation.
describe('CommonGround replay (spec section 6)', () => {
  it('ACCEPT(c = w) puts c=w in the FBank; a STATEMENT only adds evidence', () => {
    const h = replayCga(csv('1,2,S0: STATEMENT(red = 10)', '2,3,ACCEPT(S0)'));
    expect([...h.keys()]).toEqual([0, 2, 3]);
    expect(h.get(0)).toMatchObject({ cgType: null, fbank: [], ebank: [] });
    // statement: ef[red] = {10} → EBank red=10, QBank red=20..50
    expect(h.get(2)).toMatchObject({ cgType: 'STATEMENT', fbank: [], ebank: ['red=10'] });
    expect(h.get(2)!.qbank.filter((q) => q.startsWith('red'))).toEqual(['red=20', 'red=30', 'red=40', 'red=50']);
    // accept: poss[red] = {10}
    expect(h.get(3)).toMatchObject({ cgType: 'ACCEPT', fbank: ['red=10'] });
  });

  it('swap rule: accepting "red = blue" while red is known makes blue share red\'s sets (group 1, 98.088)', () => {
    const text = csv(
      '1,2,S0: STATEMENT(red = 10)',
      '2,3,ACCEPT(S0)',
      '4,5,S1: STATEMENT(red = blue)',
      '5,6,ACCEPT(S1)',
    );
    // |poss[red]| = 1 < |poss[blue]| = 5 → block = blue, rhs = [red]; ACCEPT '=' with one block aliases blue to red
    expect(fbankAt(text, 5)).toEqual(['red=10']);
    expect(fbankAt(text, 6)).toEqual(['red=10', 'blue=10']);
    expect(fbankWeights(replayCga(text).get(6)!)).toEqual(
      new Map([
        ['red', '10'],
        ['blue', '10'],
      ]),
    );
  });

  it('aliasing: after ACCEPT(red = blue), removing a weight from red removes it from blue too', () => {
    const text = csv(
      '1,2,S0: STATEMENT(red = 10)',
      '2,3,ACCEPT(S0)',
      '4,5,S1: STATEMENT(red = blue)',
      '5,6,ACCEPT(S1)',
      '7,8,S2: STATEMENT(red != 10)',
      '8,9,ACCEPT(S2)',
    );
    // ACCEPT(red != 10) discards 10 from poss[red], which is the same set as poss[blue]: both become empty
    const s = replayCga(text).get(9)!;
    expect(s.fbank).toEqual([]);
    expect(s.possible.red).toEqual([]);
    expect(s.possible.blue).toEqual([]);
  });

  it('swap rule does not mirror the relation: "red < blue" with red known is applied as blue < red', () => {
    const text = csv(
      '1,2,S0: STATEMENT(red = 10)',
      '2,3,ACCEPT(S0)',
      '4,5,S1: STATEMENT(red < blue)',
      '5,6,ACCEPT(S1)',
    );
    // block = blue, rhs = [red]: keep {x ∈ poss[blue] : x < max({10})} = {} → every weight of blue is removed
    const s = replayCga(text).get(6)!;
    expect(s.possible.blue).toEqual([]);
    expect(s.fbank).toEqual(['red=10']);
  });

  it('ACCEPT(c = a + b) re-adds a weight removed earlier and makes it evidence when it is the only sum', () => {
    const text = csv(
      '1,2,S0: STATEMENT(red = 10 and blue = 10)',
      '2,3,ACCEPT(S0)',
      '3,4,S1: STATEMENT(purple != 20)',
      '4,5,ACCEPT(S1)',
      '5,6,S2: STATEMENT(purple = red + blue)',
      '6,7,ACCEPT(S2)',
    );
    // after S1: poss[purple] = {10, 30, 40, 50}; sums(poss, [red, blue]) = {20}: remove W − {20}, then add 20 back
    expect(replayCga(text).get(5)!.possible.purple).toEqual([10, 30, 40, 50]);
    const s = replayCga(text).get(7)!;
    expect(s.possible.purple).toEqual([20]);
    expect(s.evidenceFor.purple).toEqual([20]);
    expect(s.fbank).toEqual(['red=10', 'blue=10', 'purple=20']);
  });

  it('weights are read with the first match of 10|20|30|40|50: "100" is 10, "41" is no weight; non-leading colors are ignored', () => {
    const text = csv(
      '1,2,S0: STATEMENT(yellow = 100)',
      '2,3,ACCEPT(S0)',
      '3,4,S1: STATEMENT(green=41)',
      '4,5,ACCEPT(S1)',
      '5,6,S2: STATEMENT(40 < purple < 50)',
      '6,7,ACCEPT(S2)',
    );
    const s = replayCga(text).get(7)!;
    expect(s.fbank).toEqual(['yellow=10']);
    expect(s.possible.green).toEqual([10, 20, 30, 40, 50]);
    expect(s.possible.purple).toEqual([10, 20, 30, 40, 50]);
  });

  it('the statement content is that of the last (...) group on the line', () => {
    const text = csv('1,2,S7: STATEMENT(S209: STATEMENT(red = 10 and blue = 10 and green = 20))', '2,3,ACCEPT(S7)');
    expect(fbankAt(text, 3)).toEqual(['red=10', 'blue=10', 'green=20']);
  });

  it('a later row with the same end time replaces the snapshot but keeps the key position; rows are not sorted', () => {
    const text = csv('1,5,S0: STATEMENT(red = 10)', '1,3,S1: STATEMENT(blue = 10)', '4,5,ACCEPT(S0)');
    const h = replayCga(text);
    expect([...h.keys()]).toEqual([0, 5, 3]);
    expect(h.get(5)).toMatchObject({ cgType: 'ACCEPT', fbank: ['red=10'] });
    expect(acceptTimes(h)).toEqual([5]);
  });

  it('quoted fields, blank lines and other moves (OBSERVATION, QUESTION, DOUBT) leave the state alone', () => {
    const text = csv(
      '"1","2","O1: OBSERVATION: on(RedBlock, LeftScale) and red = 10"',
      '',
      '3,4,Q1: QUESTION(red = 10?)',
      '5,6,DOUBT(S0)',
    );
    expect([...replayCga(text).keys()]).toEqual([0]);
  });

  it('bad annotations are input errors naming the file, the line and the field', () => {
    expect(() => replayCga(csv('1,2,ACCEPT(S9)'), { file: 'G.csv' })).toThrow(
      /G\.csv, record 2, field \["Common Ground"\]: ACCEPT\(S9\) refers to a statement/,
    );
    // poss[red] = {} after "red < 10"; then "blue < red" needs max() of an empty set of sums (Python raises ValueError)
    const empty = csv('1,2,S0: STATEMENT(red < 10)', '2,3,ACCEPT(S0)', '3,4,S1: STATEMENT(blue < red)');
    expect(() => replayCga(empty, { file: 'G.csv' })).toThrow(/G\.csv, record 4, .*max\(\) of an empty set/);
    expect(() => replayCga(csv('1,x,S0: STATEMENT(red = 10)'), { file: 'G.csv' })).toThrow(
      /record 2, field \["End Time - ss\.msec"\]: not a finite number/,
    );
    expect(() => replayCga('a,b\n1,2', { file: 'G.csv' })).toThrow(/missing column "End Time - ss\.msec"/);
  });

  it('parsePythonFloat / timeKey follow Python float() and repr()', () => {
    expect(parsePythonFloat(' 132 ')).toBe(132);
    expect(parsePythonFloat('1_000.5')).toBe(1000.5);
    expect(parsePythonFloat('')).toBeUndefined();
    expect(parsePythonFloat('nan')).toBeUndefined();
    expect(timeKey(132)).toBe('132.0');
    expect(timeKey(98.088)).toBe('98.088');
  });
});

describeWithReferenceData('cgt/cga_originals', 'cgt/cga_new')('the shared CGA files', () => {
  it('cga_new (auto-accept): the statement at 27.72 of group 1 is accepted at once; in the originals it is not', async () => {
    const original = await loadCgaHistory(join(CGA_ORIGINALS, cgaFileName(1)));
    const auto = await loadCgaHistory(join(CGA_NEW, cgaFileName(1)));
    // originals: "24.42,27.72,S0: STATEMENT(red = 10)" only; cga_new adds "24.42,27.72,ACCEPT(S0)"
    expect(original.get(27.72)).toMatchObject({ cgType: 'STATEMENT', fbank: [] });
    expect(auto.get(27.72)).toMatchObject({ cgType: 'ACCEPT', fbank: ['red=10'] });
  });

  it('every group of both variants replays; every ACCEPT time of the originals is an ACCEPT time of cga_new', async () => {
    for (let g = 1; g <= 10; g++) {
      const original = acceptTimes(await loadCgaHistory(join(CGA_ORIGINALS, cgaFileName(g))));
      const auto = new Set(acceptTimes(await loadCgaHistory(join(CGA_NEW, cgaFileName(g)))));
      expect(original.length).toBeGreaterThan(0);
      for (const t of original) expect(auto.has(t), `group ${g} ${t}`).toBe(true);
      expect(auto.size).toBeGreaterThan(original.length);
    }
  });

  it('group 1 has 7 accept times, 29.47 among them (spec 6.3)', async () => {
    const times = acceptTimes(await loadCgaHistory(join(CGA_ORIGINALS, cgaFileName(1))));
    expect(times.length).toBe(7);
    expect(times).toContain(29.47);
  });
});
