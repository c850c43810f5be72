import { describe, expect, it } from 'vitest';
import { normalizeKey, parseGoldList, parsePrediction } from './normalize';

describe('normalizeKey: re.split(r"_|\\s|block", k)[0].lower() (spec section 3.1)', () => {
  it.each([
    ['Yellow Block', 'yellow'],
    ['red_block', 'red'],
    ['redblock', 'red'],
    ['RedBlock', 'redblock'],
    ['dark blue', 'dark'],
    ['dark blue small', 'dark'],
    ['block red', ''],
    ['purple and blue combined', 'purple'],
    ['Green 1', 'green'],
    ['big\u00a0blue', 'big'], // Python's \s includes NO-BREAK SPACE
    ['x\u3000y', 'x'],
    ['a\ufeffb', 'a\ufeffb'], // ...but not U+FEFF, which JS's \s would split on
    ['a\x1cb', 'a'], // ...and the information separators, which JS's \s would not
  ])('%j → %j', (key, want) => {
    expect(normalizeKey(key)).toBe(want);
  });
});

describe('parsePrediction', () => {
  it('normalises the dp-gpt4o group 1 last-row answer as in spec section 3.1 (5)', () => {
    const text =
      '{"red":10,"blue":10,"green":20,"purple":30,"dark blue":30,"dark blue small":10,"yellow":10,"purple and green combined":50,"purple and blue combined":40}';
    const r = parsePrediction(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect([...r.weights]).toEqual([
      ['red', '10'],
      ['blue', '10'],
      ['green', '20'],
      ['purple', '40'],
      ['dark', '10'],
      ['yellow', '10'],
    ]);
  });

  it('renders values with Python str()', () => {
    const r = parsePrediction(
      '{"red": 10.0, "blue": "Not determined", "green": true, "purple": null, "yellow": [10, 20]}',
    );
    expect(r.ok && [...r.weights.values()]).toEqual(['10.0', 'Not determined', 'True', 'None', '[10, 20]']);
  });

  it('reports answers that are not JSON objects (the reference crashes on them)', () => {
    expect(parsePrediction('The red block weighs 10.')).toMatchObject({ ok: false, reason: 'not_json' });
    expect(parsePrediction('[{"red": 10}]')).toMatchObject({ ok: false, reason: 'not_object' });
    expect(parsePrediction('"{}"')).toMatchObject({ ok: false, reason: 'not_object' });
    expect(parsePrediction(null)).toMatchObject({ ok: false, reason: 'not_text' });
    expect(parsePrediction('{}')).toEqual({ ok: true, weights: new Map() });
  });
});

describe('parseGoldList: {s.split("=")[0]: s.split("=")[1]}', () => {
  it('splits on "=" and keeps element 1', () => {
    expect(parseGoldList(['blue=10', 'red=10'])).toEqual({
      ok: true,
      weights: new Map([
        ['blue', '10'],
        ['red', '10'],
      ]),
    });
    expect(parseGoldList(['a=b=c'])).toEqual({ ok: true, weights: new Map([['a', 'b']]) });
    expect(parseGoldList([])).toEqual({ ok: true, weights: new Map() });
  });

  it('names the item without "="', () => {
    expect(parseGoldList(['red=10', 'blue'])).toEqual({ ok: false, index: 1 });
  });
});
