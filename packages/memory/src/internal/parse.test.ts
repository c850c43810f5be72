import { describe, expect, it } from 'vitest';
import { accuracyFields, extractJudgeJson, integrityFields, questionFields, updateFields } from './parse';

describe('extractJudgeJson (first fenced json block, spec §5.2)', () => {
  it('takes the FIRST block', () => {
    const text = 'x ```json\n{"score": "1"}\n``` y ```json\n{"score": "2"}\n```';
    expect(extractJudgeJson(text)).toEqual({ score: '1' });
  });
  it('the object is non-greedy and must be followed by the closing fence', () => {
    // the first "}" followed by optional whitespace and ``` ends the object
    const text = '```json\n{"reasoning": "a {b}", "score": 2}\n```';
    expect(extractJudgeJson(text)).toEqual({ reasoning: 'a {b}', score: 2 });
  });
  it('no block, a non-json fence or invalid JSON throws (retried by the caller)', () => {
    expect(() => extractJudgeJson('{"score": 2}')).toThrow(/No JSON block/);
    expect(() => extractJudgeJson('```\n{"score": 2}\n```')).toThrow(/No JSON block/);
    expect(() => extractJudgeJson('```json\n{score: 2}\n```')).toThrow(/invalid JSON/);
    expect(() => extractJudgeJson(null)).toThrow(/No JSON block/);
  });
});

describe('mapping judge JSON to record fields (spec §5.3)', () => {
  it('integrity: int() of score, failure → null', () => {
    expect(integrityFields({ score: '2' })).toEqual({ memory_integrity_score: 2 });
    expect(integrityFields({ score: '2|1|0' })).toEqual({ memory_integrity_score: null });
    expect(integrityFields({})).toEqual({ memory_integrity_score: null });
    expect(integrityFields(undefined)).toEqual({ memory_integrity_score: null });
  });
  it('accuracy: flag kept raw, default "false"; any failure → null, "false"', () => {
    expect(accuracyFields({ accuracy_score: '1', is_included_in_golden_memories: true })).toEqual({
      memory_accuracy_score: 1,
      is_included_in_golden_memories: true,
    });
    expect(accuracyFields({ accuracy_score: 2 })).toEqual({
      memory_accuracy_score: 2,
      is_included_in_golden_memories: 'false',
    });
    expect(accuracyFields({ accuracy_score: '2.0', is_included_in_golden_memories: 'true' })).toEqual({
      memory_accuracy_score: null,
      is_included_in_golden_memories: 'false',
    });
    expect(accuracyFields({ accuracy_score: 2, is_included_in_golden_memories: null })).toEqual({
      memory_accuracy_score: 2,
      is_included_in_golden_memories: null,
    });
  });
  it('update and QA: the raw label, failure → null', () => {
    expect(updateFields({ evaluation_result: 'Correct | Omission' })).toEqual({
      memory_update_type: 'Correct | Omission',
    });
    expect(updateFields(undefined)).toEqual({ memory_update_type: null });
    expect(questionFields({ evaluation_result: 'Omission' })).toEqual({ result_type: 'Omission' });
    expect(questionFields({})).toEqual({ result_type: null });
  });
});
