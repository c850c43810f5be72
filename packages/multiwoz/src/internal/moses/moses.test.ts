import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  describeWithReferenceData,
  itWithReferenceData,
  referencePath,
} from '../../../../../test-support/reference-data';
import { normalizeResponse } from '../normalize';
import { mosesDetokenize, mosesTokenize } from './moses';
import {
  IsAlnum,
  IsAlpha,
  IsLower,
  IsN,
  IsSc,
  IsSo,
  NONBREAKING_PREFIXES_EN,
  type CodePointRanges,
} from './perluniprops.generated';

const generated = { IsAlnum, IsAlpha, IsLower, IsN, IsSc, IsSo, NONBREAKING_PREFIXES_EN };

const SACREMOSES = referencePath('multiwoz/data/sacremoses');
const SHARED = referencePath('multiwoz');
const itMultiwoz = itWithReferenceData('multiwoz');

function expand(ranges: CodePointRanges): Set<number> {
  const out = new Set<number>();
  for (const r of ranges) {
    if (typeof r === 'number') out.add(r);
    else for (let c = r[0]; c <= r[1]; c++) out.add(c);
  }
  return out;
}

// sacremoses/indic.py VIRAMAS + NUKTAS (added to IsAlnum and IsAlpha)
const INDIC = [
  0x094d, 0x09cd, 0x0a4d, 0x0acd, 0x0b4d, 0x0bcd, 0x0c4d, 0x0ccd, 0x0d3b, 0x0d3c, 0x0d4d, 0x0eba, 0x1039, 0x1714,
  0x1bab, 0xa8c4, 0xa8f3, 0xa8f4, 0xa953, 0xaaf6, 0x10a3f, 0x11046, 0x110b9, 0x11133, 0x111c0, 0x11235, 0x112ea,
  0x1134d, 0x11442, 0x114c2, 0x115bf, 0x1163f, 0x116b6, 0x11839, 0x119e0, 0x11a34, 0x11c3f, 0x11d45, 0x11d97, 0x0dca,
  0x093c, 0x09bc, 0x0a3c, 0x0abc, 0x0afd, 0x0afe, 0x0aff, 0x0b3c, 0x0cbc, 0x1c37, 0x110ba, 0x11173, 0x111ca, 0x11236,
  0x112e9, 0x1133c, 0x11446, 0x114c3, 0x115c0, 0x116b7, 0x1183a, 0x11d42, 0x1e94a,
];

describeWithReferenceData('multiwoz/data/sacremoses')(
  'perluniprops classes (generated) = the sacremoses data files',
  () => {
    for (const name of ['IsAlnum', 'IsAlpha', 'IsLower', 'IsN', 'IsSc', 'IsSo'] as const) {
      it(name, () => {
        const text = readFileSync(join(SACREMOSES, 'perluniprops', `${name}.txt`), 'utf8');
        const expected = new Set(Array.from(text, (c) => c.codePointAt(0)!));
        if (name === 'IsAlnum' || name === 'IsAlpha') for (const c of INDIC) expected.add(c);
        expect([...expand(generated[name])].sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
      });
    }

    it('the trailing newline is a member of IsN, IsSc and IsSo (spec § 4.1.1)', () => {
      expect(expand(generated.IsN).has(10)).toBe(true);
      expect(expand(generated.IsSc).has(10)).toBe(true);
      expect(expand(generated.IsSo).has(10)).toBe(true);
      expect(expand(generated.IsAlnum).has(10)).toBe(false);
    });

    it('non-breaking prefixes = the file lines (stripped, no comments/blank lines): 105 entries', () => {
      const lines = readFileSync(join(SACREMOSES, 'nonbreaking_prefixes', 'nonbreaking_prefix.en'), 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#'));
      expect(generated.NONBREAKING_PREFIXES_EN).toEqual(lines);
      expect(lines).toHaveLength(105);
    });
  },
);

describe('Moses tokenize/detokenize', () => {
  it('tokenizes as sacremoses (hand-derived from the rules of spec § 4.1.1)', () => {
    // ":" is padded, "'" splits "it's" -> "it &apos;s", final "." split, "&" escaped, "3,000" kept, "a,b" split
    expect(mosesTokenize("it's 3,000 a,b & c: done.")).toEqual([
      'it',
      '&apos;s',
      '3,000',
      'a',
      ',',
      'b',
      '&amp;',
      'c',
      ':',
      'done',
      '.',
    ]);
    // multidots kept together; "mr." is kept (followed by a lower-case word); "no." is split: the prefix list is
    // case-sensitive ("No" is a numeric-only prefix, "no" is not) and "5" is not lower-case
    expect(mosesTokenize('wait... mr. smith no. 5')).toEqual(['wait', '...', 'mr.', 'smith', 'no', '.', '5']);
    expect(mosesTokenize('No. 5 and i.e. this')).toEqual(['No.', '5', 'and', 'i.e.', 'this']);
    // control characters removed, whitespace collapsed
    expect(mosesTokenize('  a\x01b \t c ')).toEqual(['ab', 'c']);
    expect(mosesTokenize('')).toEqual([]);
  });

  it("detokenizes: punctuation attaches left, contractions attach, quotes alternate, possessive s'", () => {
    expect(mosesDetokenize(['hello', ',', 'world', '!'])).toBe('hello, world!');
    expect(mosesDetokenize(['it', '&apos;s', 'fine'])).toBe("it's fine");
    expect(mosesDetokenize(['&quot;', 'great', '&quot;', 'place'])).toBe('"great" place');
    expect(mosesDetokenize(['the', 'jones', "'", 'house'])).toBe("the jones' house");
    expect(mosesDetokenize(['$', '5', 'or', '(', 'so', ')'])).toBe('$5 or (so)');
  });

  it('normalizeResponse reproduces the worked examples of spec § 4.1', () => {
    const table: Array<[string, string]> = [
      [
        '[value_count] trains leave after [value_time]. would you like to book?',
        'COUNT trains leave after TIME. would you like to book?',
      ],
      [
        'I have [restaurant_name]s in the [value_area]. Their phone is [restaurant_phone].',
        'i have NAME in the AREA. their phone is PHONE.',
      ],
      [
        "The [hotel_name] is a [value_stars] star hotel , it's [value_pricerange] .",
        "the NAME is a COUNT star hotel, it's PRICE.",
      ],
      [
        'sure, the train leaves at 10:00 and arrives by 12:30... anything else?',
        'sure, the train leaves at 10: 00 and arrives by 12: 30... anything else?',
      ],
      [
        'booked! ref # is [train_reference] (for [value_count] people) - enjoy!',
        'booked! ref # is REFERENCE (for COUNT people) - enjoy!',
      ],
      [
        "it's \"great\" & cheap | you can't miss [attraction_name]'s entrance-fee [foo_bar].",
        "it's \"great\" & cheap | you can't miss NAME's entrance-fee.",
      ],
      [
        "Mr. smith said: St. John's college is on the [value_area]-side of town.",
        "mr. smith said: st. john's college is on the AREAide of town.",
      ],
      ['ok :) see you at [taxi_leaveat]!!', 'ok:) see you at TIME!!'],
      ['  multiple   spaces\tand tab  ', 'multiple spaces and tab'],
      ['', ''],
      // quirks listed in the spec
      ['[value_price]-ly priced', 'PRICE priced'],
      ['i have [hotel_type]-s', 'i have TYPE'],
      ['[name]-es and [name]es', 'NAME and NAME'],
      ['[Arrive By] or [price range]', 'TIME or PRICE'],
    ];
    const unknown: string[] = [];
    for (const [raw, expected] of table)
      expect(normalizeResponse(raw, { onUnknownSlot: (n) => unknown.push(n) }), raw).toBe(expected);
    expect(unknown).toEqual(['foo_bar']);
  });

  itMultiwoz('the Unicode-class path (non-ASCII text) tokenizes like the ASCII fast path on the same text', () => {
    // A leading non-ASCII word forces the Unicode regexes; it cannot interact with text that starts with a letter/digit.
    const texts = new Set<string>();
    for (const name of ['augpt', 'damd']) {
      const predictions = JSON.parse(readFileSync(join(SHARED, 'predictions', `${name}.json`), 'utf8')) as Record<
        string,
        Array<{ response: string }>
      >;
      for (const turns of Object.values(predictions))
        for (const t of turns) if (/^[a-z0-9]/i.test(t.response)) texts.add(t.response.toLowerCase());
    }
    expect(texts.size).toBeGreaterThan(3000);
    const bad = [...texts].filter(
      (t) =>
        JSON.stringify(mosesTokenize(`\u00e9t\u00e9 ${t}`)) !== JSON.stringify(['\u00e9t\u00e9', ...mosesTokenize(t)]),
    );
    expect(bad.slice(0, 3)).toEqual([]);
  });

  itMultiwoz('normalizes all responses of the 8 reference systems exactly as mwzeval (fixtures/normalized)', () => {
    const names = ['augpt', 'damd', 'galaxy-e2e', 'hdsa', 'labes', 'lava', 'mintl', 'ubar'];
    let total = 0;
    const mismatches: string[] = [];
    for (const name of names) {
      const predictions = JSON.parse(readFileSync(join(SHARED, 'predictions', `${name}.json`), 'utf8')) as Record<
        string,
        Array<{ response: string }>
      >;
      const expected = JSON.parse(
        gunzipSync(readFileSync(join(SHARED, 'fixtures', 'normalized', `${name}.responses.json.gz`))).toString('utf8'),
      ) as Record<string, string[]>;
      expect(Object.keys(expected).sort()).toEqual(Object.keys(predictions).sort());
      const cache = new Map<string, string>();
      for (const [id, turns] of Object.entries(predictions)) {
        turns.forEach((t, i) => {
          total++;
          let got = cache.get(t.response);
          if (got === undefined) {
            got = normalizeResponse(t.response);
            cache.set(t.response, got);
          }
          if (got !== expected[id]![i])
            mismatches.push(`${name} ${id}[${i}]: ${JSON.stringify(got)} != ${JSON.stringify(expected[id]![i])}`);
        });
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(total).toBe(58325);
  });
});
