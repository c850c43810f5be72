import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cohenKappa } from '@eval/core';
import { describe, expect, it } from 'vitest';
import { parsePyJson } from '../internal/pyjson';
import { formatScoresJson, scoreEpisode, scoreInteractionsFile } from './scorer';
import { describeShared, recordedEpisodeDirs } from '../test-support/shared';

const episodes = recordedEpisodeDirs();

describeShared('scorer parity: re-scoring every recorded clembench episode reproduces its scores.json', () => {
  it('finds the recorded episodes', () => {
    expect(episodes.length).toBeGreaterThanOrEqual(3);
  });

  it.each(episodes.map((d) => [d.split(/[\\/]/).slice(-3).join('/'), d]))('%s', async (_name, dir) => {
    const instance = parsePyJson(readFileSync(join(dir, 'instance.json'), 'utf8')) as { slots: Record<string, string> };
    const expectedText = readFileSync(join(dir, 'scores.json'), 'utf8');
    const scores = await scoreInteractionsFile(join(dir, 'interactions.json'), {
      nSlots: Object.keys(instance.slots).length,
    });
    const text = formatScoresJson(scores);
    // raw serialisation: same keys, order, int/float form, last bits, bare NaN (newer framework versions put
    // "meta"/"players" first; the scorer's part is everything from "turn scores" on)
    expect(text).toBe(
      expectedText.startsWith('{"turn scores"')
        ? expectedText
        : `{${expectedText.slice(expectedText.indexOf('"turn scores"'))}`,
    );
    // and value by value (NaN where NaN, absent where absent)
    const expected = parsePyJson(expectedText) as {
      'turn scores': Record<string, Record<string, number>>;
      'episode scores': Record<string, number>;
    };
    expect(Object.keys(scores.episodeScores)).toEqual(Object.keys(expected['episode scores']));
    for (const [k, v] of Object.entries(expected['episode scores']))
      expect(Object.is(scores.episodeScores[k], v)).toBe(true);
    expect(Object.keys(scores.turnScores)).toEqual(Object.keys(expected['turn scores']));
    for (const [t, row] of Object.entries(expected['turn scores'])) {
      expect(Object.keys(scores.turnScores[t]!)).toEqual(Object.keys(row));
      for (const [k, v] of Object.entries(row)) expect(Object.is(scores.turnScores[t]![k], v)).toBe(true);
    }
  });

  it('the slot count defaults to the transcript’s (realised_slots) and gives the same result', async () => {
    for (const dir of episodes) {
      const scores = await scoreInteractionsFile(join(dir, 'interactions.json'));
      const expectedText = readFileSync(join(dir, 'scores.json'), 'utf8');
      expect(formatScoresJson(scores)).toBe(`{${expectedText.slice(expectedText.indexOf('"turn scores"'))}`);
    }
  });
});

describe("Cohen's kappa (spec §6.2)", () => {
  // Build gold/pred vectors with the given counts: C01 = gold 0 & pred 1, C10 = gold 1 & pred 0.
  const vectors = (c00: number, c01: number, c10: number, c11: number) => {
    const gold: number[] = [];
    const pred: number[] = [];
    const add = (g: number, p: number, n: number) => {
      for (let i = 0; i < n; i++) {
        gold.push(g);
        pred.push(p);
      }
    };
    add(0, 0, c00);
    add(0, 1, c01);
    add(1, 0, c10);
    add(1, 1, c11);
    return { gold, pred };
  };

  it('C01 = 10, C10 = 0, p0 = 5, g1 = 15 → 0.33333333333333337 (not 2·acc − 1 = 0.33333333333333326)', () => {
    const { gold, pred } = vectors(5, 10, 0, 15);
    expect(cohenKappa(gold, pred)).toBe(0.33333333333333337);
  });

  it('C01 = 0, C10 = 3, p0 = 15, g1 = 18 → 0.8', () => {
    const { gold, pred } = vectors(12, 0, 3, 15);
    expect(cohenKappa(gold, pred)).toBe(0.8);
  });

  it('the binary closed form of the spec agrees bit for bit on many count tables', () => {
    for (let c00 = 0; c00 <= 12; c00++)
      for (let c01 = 0; c01 <= 6; c01++)
        for (let c10 = 0; c10 <= 6; c10++)
          for (const c11 of [1, 5, 9]) {
            const { gold, pred } = vectors(c00, c01, c10, c11);
            const n = gold.length;
            const p0 = c00 + c10;
            const p1 = c01 + c11;
            const g0 = c00 + c01;
            const g1 = c10 + c11;
            const closed = 1 - (c01 + c10) / ((p0 * g1) / n + (p1 * g0) / n);
            expect(Object.is(cohenKappa(gold, pred), closed)).toBe(true);
          }
  });
});

/** A minimal non-aborted transcript with the given probe rounds and filled slots. */
function transcript(rounds: Array<Array<[number, number]>>, filled: boolean[], aborted = false) {
  return {
    probes: rounds.map((r) =>
      r.map(([gt, value]) => ({ target: 'X', question: 'q', gt, answer: 'a', value, tries: 1 })),
    ),
    'Request Count': rounds.map((r, i) => r.length + (i > 0 ? 1 : 0)),
    'Parsed Request Count': rounds.map((r, i) => r.length + (i > 0 ? 1 : 0)),
    'Violated Request Count': rounds.map(() => 0),
    'Filled Slots': filled,
    Aborted: aborted,
    'Played Probe Rounds': rounds.length,
  };
}

describe('episode scores: Python int/float and operation-order semantics (spec §6.1)', () => {
  // Two slots (m = 0): three rounds of two probes each. Gold per round: [0,0], then by request order.
  it('Truncated Kappa is the int 0 when kappa ≤ 0, Main Score the float 0.0 when sf > 0', () => {
    // Every answer "no": gold [0,0,1,0,1,1], pred all 0 → C01 = 0, C10 = 3, e01 = p0·g1/N = 6·3/6 = 3, e10 = p1·g0/N = 0,
    // kappa = 1 − 3/3 = 0 → max(0, 0.0) is the int 0; sf = 1/2.
    const t = transcript(
      [
        [
          [0, 0],
          [0, 0],
        ],
        [
          [1, 0],
          [0, 0],
        ],
        [
          [1, 0],
          [1, 0],
        ],
      ],
      [true, false],
    );
    const s = scoreEpisode(t, { nSlots: 2 });
    expect(s.episodeScores.Kappa).toBe(0);
    expect(s.episodeScores['Truncated Kappa']).toBe(0);
    expect(s.episodeTypes['Truncated Kappa']).toBe('int');
    expect(s.episodeTypes['Main Score']).toBe('float');
    expect(formatScoresJson(s)).toContain(
      '"Kappa": 0.0, "Truncated Kappa": 0, "Slot-Filling-Accuracy": 0.5, "Main Score": 0.0,',
    );
    const none = scoreEpisode({ ...t, 'Filled Slots': [false, false] }, { nSlots: 2 });
    expect(formatScoresJson(none)).toContain('"Truncated Kappa": 0, "Slot-Filling-Accuracy": 0.0, "Main Score": 0,');
  });

  it('Main Score uses 100 * ((2*sf)*tk / (sf + tk)) (last-bit examples of the spec)', () => {
    const main = (sf: number, tk: number) => 100 * ((2 * sf * tk) / (sf + tk));
    expect(main(1.0, 0.6)).toBe(74.99999999999999);
    expect(main(0.8, 0.8)).toBe(80.00000000000001);
    expect(main(1.0, 0.4)).toBe(57.14285714285715);
  });

  it('Middle-Accuracy: NaN when the middle round completed before an abort, absent when it did not', () => {
    const rounds: Array<Array<[number, number]>> = [
      [
        [0, 0],
        [0, 0],
        [0, 0],
      ],
      [
        [1, 1],
        [0, 0],
        [0, 0],
      ],
      [
        [1, 1],
        [1, 1],
        [0, 0],
      ],
    ];
    const base = transcript(rounds, [true, true]);
    // 3 slots → m = int(4 / 2) − 1 = 1
    const later = scoreEpisode(
      {
        ...base,
        Aborted: true,
        'Request Count': [...base['Request Count'], 1],
        'Parsed Request Count': [...base['Parsed Request Count'], 0],
        'Violated Request Count': [0, 0, 0, 1],
      },
      { nSlots: 3 },
    );
    expect(Object.keys(later.episodeScores)[0]).toBe('Middle-Accuracy');
    expect(later.episodeScores['Middle-Accuracy']).toBeNaN();
    expect(later.episodeScores['Request Count']).toBe(3 + 4 + 4 + 1);
    const early = scoreEpisode({ ...transcript(rounds.slice(0, 1), []), Aborted: true }, { nSlots: 3 });
    expect('Middle-Accuracy' in early.episodeScores).toBe(false);
    expect(early.episodeScores.Lose).toBe(0);
    expect(early.episodeScores.Success).toBe(0);
    expect(formatScoresJson(early)).toMatch(
      /^\{"turn scores": \{"0": \{"Request Count": 3, "Parsed Request Count": 3, "Violated Request Count": 0, "Accuracy": 1\.0\}\}, "episode scores": \{"Accuracy": NaN,/,
    );
  });

  it('bad transcripts are errors naming the field', () => {
    const t = transcript([[[0, 0]], [[1, 1]]], [true]);
    expect(() => scoreEpisode({ ...t, Aborted: 'no' }, { file: 'x/interactions.json' })).toThrow(
      /x\/interactions\.json, field Aborted/,
    );
    const missing = structuredClone(t) as { probes: Array<Array<Record<string, unknown>>> };
    delete missing.probes[1]![0]!.value;
    expect(() => scoreEpisode(missing, { file: 'y.json' })).toThrow(
      /y\.json, field probes\[1\]\[0\]\.value: missing in a complete probing round/,
    );
    expect(() => scoreEpisode({ ...t, 'Filled Slots': [] })).toThrow(/Filled Slots/);
  });
});
