import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OVERALL_SCORE_FLOAT_KEYS, aggregateEvalResults, qaBreakdown, timeConsumingOf } from './metrics';
import { computeTimeConsuming, recordsFromJson } from './internal/files';
import { pythonJsonDumps } from './internal/python';
import type { EvalRecords } from './internal/schema';
import { SAMPLE_ARTIFACT, SHARED_MEMORY, describeMemory, itMemory } from './internal/test/shared';

interface Fixture {
  records: EvalRecords;
  expected_overall_score: Record<string, unknown>;
}

function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(join(SHARED_MEMORY, name), 'utf8')) as Fixture;
}

describeMemory('aggregateEvalResults: parity with the shared fixtures', () => {
  for (const name of ['aggregate_fixture_sessions0-11.json', 'aggregate_fixture_with_invalid.json']) {
    it(`${name}: exact floats and key order of overall_score`, () => {
      const f = fixture(name);
      const overall = aggregateEvalResults(recordsFromJson(f.records, name));
      // toStrictEqual compares values exactly (Object.is on numbers); key order is checked on the serialisation
      expect(overall).toStrictEqual(f.expected_overall_score);
      expect(JSON.stringify(overall)).toBe(JSON.stringify(f.expected_overall_score));
    });
  }

  it('the failed accuracy record shows up in the (all)/(valid) split only', () => {
    const f = fixture('aggregate_fixture_with_invalid.json');
    const records = recordsFromJson(f.records);
    const overall = aggregateEvalResults(records);
    const acc = overall.memory_accuracy;
    expect(acc.memory_num).toBe(192);
    expect(acc.memory_valid_num).toBe(191);
    // Σ 0.5·score over the 191 valid records is the same as in the clean fixture; only the (all) denominator grows
    const clean = aggregateEvalResults(recordsFromJson(fixture('aggregate_fixture_sessions0-11.json').records));
    const sum = clean.memory_accuracy['weighted_accuracy(all)']! * 191;
    expect(acc['weighted_accuracy(all)']).toBe(sum / 192);
    expect(acc['weighted_accuracy(valid)']).toBe(clean.memory_accuracy['weighted_accuracy(valid)']);
    // failed records carry "false": not counted as target memories
    expect(acc.target_memory_num).toBe(clean.memory_accuracy.target_memory_num);
    const failed = records.memory_accuracy_records.filter((r) => r.memory_accuracy_score === null);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.is_valid).toBe(false);
  });

  it('writes overall_score with Python json.dump number formatting', () => {
    const f = fixture('aggregate_fixture_sessions0-11.json');
    const text = pythonJsonDumps(aggregateEvalResults(recordsFromJson(f.records)), {
      floatKeys: OVERALL_SCORE_FLOAT_KEYS,
    });
    expect(text).toContain('"hallucination_update_memory_ratio(all)": 0.0,');
    expect(text).toContain('"memory_importance_sum": 110.25,');
    expect(text).toContain('"memory_num": 147\n');
    expect(text).toContain('"memory_integrity_acc": 0.0,');
    expect(JSON.parse(text)).toStrictEqual(f.expected_overall_score);
  });
});

describe('time_consuming', () => {
  itMemory(
    'reproduces the spec values for the sample artifact (sums 394027.62 ms and 14017.659999999998 ms)',
    async () => {
      const t = await computeTimeConsuming(SAMPLE_ARTIFACT);
      expect(t).toStrictEqual({
        add_dialogue_duration_time: 6.567127,
        search_memory_duration_time: 0.23362766666666662,
        total_duration_time: 6.800754666666667,
      });
    },
  );

  it('divides by 1000 then by 60 and counts generated-QA sessions', () => {
    const t = timeConsumingOf([
      {
        sessions: [
          { add_dialogue_duration_ms: 60000, is_generated_qa_session: true },
          { questions: [{ search_duration_ms: 120000 }, {}] },
        ],
      },
    ]);
    expect(t).toStrictEqual({ add_dialogue_duration_time: 1, search_memory_duration_time: 2, total_duration_time: 3 });
  });
});

// Hand-built records; expected values derived by hand beside each assertion.
function tiny(): EvalRecords {
  const point = (type: string, source: string, score: number | null, importance = 0.75) => ({
    memory_content: 'x',
    memory_type: type,
    memory_source: source,
    is_update: 'False',
    importance,
    memory_integrity_score: score,
  });
  return {
    memory_integrity_records: [
      point('Persona Memory', 'system', 2), // hit, w = 0.75
      point('Persona Memory', 'secondary', 1, 0.5), // w = 0.25
      point('Event Memory', 'system', null), // invalid
      point('Event Memory', 'interference', 0, 1), // resisted
      point('Relationship Memory', 'interference', 2, 1), // not resisted, but counts as correct in type accuracy
    ],
    memory_accuracy_records: [
      { memory_content: 'a', memory_accuracy_score: 2, is_included_in_golden_memories: 'true' },
      { memory_content: 'b', memory_accuracy_score: 1, is_included_in_golden_memories: true },
      { memory_content: 'c', memory_accuracy_score: null, is_included_in_golden_memories: 'false' },
    ],
    memory_update_records: [
      { memory_type: 'Event Memory', importance: 0.75, memory_update_type: 'Correct' },
      { memory_type: 'Relationship Memory', importance: 0.75, memory_update_type: 'correct' },
    ],
    question_answering_records: [
      { question_type: 'Memory Boundary', difficulty: 'easy', result_type: 'Correct' },
      { question_type: 'Memory Boundary', difficulty: 'hard', result_type: 'Other' },
      { question_type: 'Basic Fact Recall', difficulty: 'easy', result_type: 'Hallucination' },
    ],
  } as unknown as EvalRecords;
}

describe('aggregateEvalResults: hand-derived cases', () => {
  it('(all) vs (valid), string flags, labels', () => {
    const o = aggregateEvalResults(tiny());
    // NI = 3 records (importance 0.75 + 0.5 + 0.75 = 2.0), valid 2 (1.25), hits 1, wsum = 0.75 + 0.25 = 1.0
    expect(o.memory_integrity).toStrictEqual({
      'recall(all)': 1 / 3,
      'recall(valid)': 1 / 2,
      'weighted_recall(all)': 1.0 / 2.0,
      'weighted_recall(valid)': 1.0 / 1.25,
      memory_valid_importance_sum: 1.25,
      memory_importance_sum: 2.0,
      memory_valid_num: 2,
      memory_num: 3,
    });
    // IF = 2, resisted 1
    expect(o.memory_accuracy['interference_accuracy(all)']).toBe(0.5);
    // boolean true is NOT included (quirk 1): target = {a}: 1.0 / 1
    expect(o.memory_accuracy.target_memory_num).toBe(1);
    expect(o.memory_accuracy['target_accuracy(all)']).toBe(1);
    // weighted: (1.0 + 0.5) / 3 (all), / 2 (valid)
    expect(o.memory_accuracy['weighted_accuracy(all)']).toBe(1.5 / 3);
    expect(o.memory_accuracy['weighted_accuracy(valid)']).toBe(0.75);
    // F1 = 2PR/(P+R) with P = 1, R = 1/3
    expect(o.memory_extraction_f1).toBe((2 * (1 * (1 / 3))) / (1 + 1 / 3));
    // "correct" (lower case) is invalid
    expect(o.memory_update['correct_update_memory_ratio(all)']).toBe(0.5);
    expect(o.memory_update['correct_update_memory_ratio(valid)']).toBe(1);
    expect(o.memory_update.update_memory_valid_num).toBe(1);
    // "Other" is invalid for QA
    expect(o.question_answering.qa_valid_num).toBe(2);
    expect(o.question_answering['correct_qa_ratio(all)']).toBe(1 / 3);
    expect(o.question_answering['correct_qa_ratio(valid)']).toBe(1 / 2);
    // type accuracy includes interference: Relationship = 1 integrity hit (interference, score 2) + 1 update (invalid) → 1/2 + 0/2
    expect(o.memory_type_accuracy['Relationship Memory']).toStrictEqual({
      memory_integrity_acc: 0.5,
      memory_update_acc: 0,
      total_num: 2,
      memory_acc: 0.5,
    });
    // Event: integrity null (0) + interference score 0 (0) + update Correct (1): 0/3 + 1/3
    expect(o.memory_type_accuracy['Event Memory']).toStrictEqual({
      memory_integrity_acc: 0,
      memory_update_acc: 1 / 3,
      total_num: 3,
      memory_acc: 1 / 3,
    });
  });

  it('options: acceptBooleanIncluded, typeAccuracyExcludesInterference', () => {
    const o = aggregateEvalResults(tiny(), { acceptBooleanIncluded: true, typeAccuracyExcludesInterference: true });
    // targets a (2) and b (1): (1.0 + 0.5) / 2
    expect(o.memory_accuracy['target_accuracy(all)']).toBe(0.75);
    // Relationship without the interference point: only the invalid update record → 0/1
    expect(o.memory_type_accuracy['Relationship Memory'].total_num).toBe(1);
    expect(o.memory_type_accuracy['Relationship Memory'].memory_integrity_acc).toBe(0);
  });

  it('an empty category throws like the reference, or gives null with onEmptyCategory "null"', () => {
    const r = tiny();
    r.memory_update_records = [];
    expect(() => aggregateEvalResults(r)).toThrow(/ZeroDivisionError.*correct_update_memory_ratio\(all\)/);
    const o = aggregateEvalResults(r, { onEmptyCategory: 'null' });
    expect(o.memory_update['correct_update_memory_ratio(all)']).toBeNull();
    expect(o.memory_update.update_memory_num).toBe(0);
  });

  it('an unknown memory type is an error naming the record', () => {
    const r = tiny();
    (r.memory_integrity_records[1] as { memory_type: string }).memory_type = 'Preference Memory';
    expect(() => aggregateEvalResults(r)).toThrow(/memory_integrity_records\[1\].*memory_type.*Preference Memory/);
  });

  it('QA breakdown per question type and difficulty (count Correct / n)', () => {
    const b = qaBreakdown(tiny().question_answering_records, 'question_type');
    expect(Object.keys(b)).toEqual(['Memory Boundary', 'Basic Fact Recall']);
    expect(b['Memory Boundary']).toMatchObject({ n: 2, correct: 1, invalid: 1, correct_ratio: 0.5 });
    expect(qaBreakdown(tiny().question_answering_records, 'difficulty').easy).toMatchObject({
      n: 2,
      correct_ratio: 0.5,
      hallucination_ratio: 0.5,
    });
  });
});

describe('loadEvalRecords', () => {
  itMemory('pools a directory of per-user files (micro-average) and accepts a {records} wrapper', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { loadEvalRecords } = await import('./internal/files');
    const f = fixture('aggregate_fixture_with_invalid.json');
    const dir = mkdtempSync(join(tmpdir(), 'memory-pool-'));
    try {
      // split the records in two "users" by session: pooling them gives the fixture's numbers again
      const part = (keep: (sid: number) => boolean) =>
        Object.fromEntries(
          Object.entries(f.records).map(([k, list]) => [
            k,
            (list as Array<{ ssession_id: number }>).filter((r) => keep(r.ssession_id)),
          ]),
        );
      writeFileSync(join(dir, 'a.json'), JSON.stringify(part((sid) => sid < 6)));
      writeFileSync(join(dir, 'b.json'), JSON.stringify({ records: part((sid) => sid >= 6) }));
      writeFileSync(join(dir, 'notes.txt'), 'ignored');
      const seen: Array<[string, string]> = [];
      const { records, files } = await loadEvalRecords(dir, {
        onRead: (file, bytes) => seen.push([file, Buffer.from(bytes).toString('utf8')]),
      });
      expect(files.map((x) => x.slice(dir.length + 1))).toEqual(['a.json', 'b.json']);
      expect(aggregateEvalResults(records)).toStrictEqual(f.expected_overall_score);
      // onRead saw each record file with its bytes as read (a run record hashes them)
      expect(seen).toEqual(files.map((file) => [file, readFileSync(file, 'utf8')]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
