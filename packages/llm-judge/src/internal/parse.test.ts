import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeWithReferenceData, hasReferenceData, referencePath } from '../../../../test-support/reference-data';
import { extractJsonFromString, parseAccuracyOutput, parseCompletenessOutput, parseSingleStepOutput } from './parse';
import { toPlain } from './python';

const PARSE_CASES = 'llm-judge/parse_cases.json';
const CASES = (
  hasReferenceData(PARSE_CASES) ? JSON.parse(readFileSync(referencePath(PARSE_CASES), 'utf8')) : []
) as Array<{
  stage: string;
  flag: string;
  predict_turn_label: Record<string, string>;
  raw: string;
  parsed_via: string;
  parsed: unknown;
  incorrect_kept?: string[];
}>;

describeWithReferenceData(PARSE_CASES)('parse_cases.json: every parse path of the reference', () => {
  it('covers the four paths', () => {
    expect(new Set(CASES.map((c) => c.parsed_via))).toEqual(
      new Set([
        'fenced_json_block',
        'python_literal_eval',
        'fenced_json_block_of_lowercased_text',
        'python_eval_lowercased',
      ]),
    );
  });

  for (const c of CASES) {
    it(`${c.flag} (${c.stage.split(' ')[0]}, ${c.parsed_via})`, () => {
      const label = new Map(Object.entries(c.predict_turn_label));
      if (c.stage.startsWith('accuracy')) {
        const r = parseAccuracyOutput(c.raw, label);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.via).toBe(c.parsed_via);
        expect(toPlain(r.value)).toEqual(c.parsed);
        expect([...r.incorrect].sort()).toEqual([...c.incorrect_kept!].sort());
      } else if (c.stage.startsWith('completeness')) {
        const r = parseCompletenessOutput(c.raw);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.via).toBe(c.parsed_via);
        expect(toPlain(r.value)).toEqual(c.parsed);
      } else {
        const r = parseSingleStepOutput(c.raw);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.via).toBe(c.parsed_via);
        expect(toPlain(r.value)).toEqual(c.parsed);
      }
    });
  }
});

describe('parse failures are classified as the reference behaves', () => {
  const label = new Map([['hotel-area', 'east']]);

  it('extract takes the LAST fenced block; no fence or bad JSON gives nothing', () => {
    expect(toPlain(extractJsonFromString('```json\n{"a": 1}\n``` then ```json {"a": 2} ```').value!)).toEqual({ a: 2 });
    expect(extractJsonFromString('{"a": 1}').value).toBeUndefined();
    expect(extractJsonFromString('```json {"a": 1,} ```').value).toBeUndefined();
  });

  it('accuracy: eval first (bare JSON with true/false is not Python: falls back to the fence); no usable output crashes', () => {
    expect(parseAccuracyOutput('{"incorrect_domain_slot": {"hotel-area": "east"}}', label)).toMatchObject({
      ok: true,
      via: 'python_literal_eval',
      incorrect: ['hotel-area'],
    });
    expect(
      parseAccuracyOutput(
        'x\n```json\n{"ok": true, "incorrect_domain_slot": {"hotel-area": 1, "hotel-name": 2}}\n```',
        label,
      ),
    ).toMatchObject({
      ok: true,
      via: 'fenced_json_block',
      incorrect: ['hotel-area'],
    });
    expect(parseAccuracyOutput('{"ok": true, "incorrect_domain_slot": {}}', label)).toMatchObject({
      ok: false,
      outcome: 'crash',
    });
    expect(parseAccuracyOutput('{"explanation": ""}', label)).toMatchObject({ ok: false, outcome: 'crash' });
    expect(parseAccuracyOutput('{"incorrect_domain_slot": ["hotel-area"]}', label)).toMatchObject({
      ok: false,
      outcome: 'crash',
    });
    // case-sensitive, values ignored
    expect(parseAccuracyOutput("{'incorrect_domain_slot': {'Hotel-Area': 'x'}}", label)).toMatchObject({
      ok: true,
      incorrect: [],
    });
  });

  it('completeness: lower-cased; no fence skips the turn, a missing key crashes', () => {
    const ok = parseCompletenessOutput('```json\n{"missed_domain_slot": {"Hotel-Area": "East"}}\n```');
    expect(ok.ok && ok.missed).toEqual([['hotel-area', 'east']]);
    expect(parseCompletenessOutput('{"missed_domain_slot": {}}')).toMatchObject({ ok: false, outcome: 'skip' });
    expect(parseCompletenessOutput('```json\n{"missed": {}}\n```')).toMatchObject({ ok: false, outcome: 'crash' });
    expect(parseCompletenessOutput('```json\n{"missed_domain_slot": ["a"]}\n```')).toMatchObject({
      ok: false,
      outcome: 'crash',
    });
  });

  it('single-step: without a fence, eval of the lower-cased text (lower-case true/none are NameErrors: crash); bad fenced JSON skips', () => {
    expect(parseSingleStepOutput("{'incorrect_domain_slot': ['hotel-area'], 'missed_domain_slot': {}}")).toMatchObject({
      ok: true,
      via: 'python_eval_lowercased',
      incorrect: ['hotel-area'],
    });
    expect(parseSingleStepOutput('{"ok": True, "incorrect_domain_slot": {}, "missed_domain_slot": {}}')).toMatchObject({
      ok: false,
      outcome: 'crash',
    });
    expect(parseSingleStepOutput('```json\n{"incorrect_domain_slot": {},}\n```')).toMatchObject({
      ok: false,
      outcome: 'skip',
    });
    expect(parseSingleStepOutput('```json\n{"incorrect_domain_slot": {}}\n```')).toMatchObject({
      ok: false,
      outcome: 'crash',
    });
  });
});
