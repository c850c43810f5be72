import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runItemSchema } from '@eval/core/schemas';
import { expect, it } from 'vitest';
import { aggregateEvalResults } from './metrics';
import { recordsFromJson } from './internal/files';
import { memoryRunItems, memoryRunMetrics, memoryRunVariant, recompute, runBenchmark } from './runs';
import { SHARED_MEMORY, describeMemory } from './internal/test/shared';

interface Fixture {
  records: unknown;
  expected_overall_score: Record<string, unknown>;
}

const fixture = (name: string) => JSON.parse(readFileSync(join(SHARED_MEMORY, name), 'utf8')) as Fixture;

/** The reference's overall_score as `section.key` -> number (the names the run uses), straight from the fixture. */
function expectedFigures(expected: Record<string, unknown>): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [section, value] of Object.entries(expected)) {
    if (typeof value === 'number' || value === null) out[section] = value;
    else if (section === 'memory_type_accuracy') {
      for (const [type, t] of Object.entries(value as Record<string, Record<string, number>>))
        for (const [k, x] of Object.entries(t)) out[`${section}.${type}.${k}`] = x;
    } else for (const [k, x] of Object.entries(value as Record<string, number>)) out[`${section}.${k}`] = x;
  }
  return out;
}

describeMemory('memory run items: recompute reproduces every HaluMem figure', () => {
  for (const name of ['aggregate_fixture_sessions0-11.json', 'aggregate_fixture_with_invalid.json']) {
    it(`${name}: recompute(items) equals the reference overall_score exactly, (all) and (valid)`, () => {
      const f = fixture(name);
      const records = recordsFromJson(f.records, name);
      const items = memoryRunItems(records);
      for (const item of items) runItemSchema.parse(item);
      expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
      const expected = expectedFigures(f.expected_overall_score);
      const recomputed = runBenchmark.recompute(items, memoryRunVariant());
      expect(recomputed).toStrictEqual(expected);
      // the run's metrics are the native aggregate's figures, named the same way
      const metrics = memoryRunMetrics(aggregateEvalResults(recordsFromJson(f.records, name)));
      expect(Object.fromEntries(Object.entries(metrics).map(([k, m]) => [k, m.value]))).toStrictEqual(expected);
      expect(recompute(items, memoryRunVariant())).toStrictEqual(expected);
    });
  }

  it('every metric declares its unit and digits; the figures per memory type are parts of a breakdown; items cluster by user', () => {
    const f = fixture('aggregate_fixture_sessions0-11.json');
    const records = recordsFromJson(f.records);
    const metrics = memoryRunMetrics(aggregateEvalResults(recordsFromJson(f.records)));
    expect(metrics['memory_integrity.recall(all)']).toMatchObject({ unit: 'ratio', digits: 2 });
    expect(metrics.memory_extraction_f1).toMatchObject({ unit: 'ratio', digits: 2 });
    expect(metrics['question_answering.qa_num']).toMatchObject({ unit: 'count', digits: 0 });
    // importance sums are not counts (the fixture's memory_importance_sum is 110.25)
    expect(metrics['memory_integrity.memory_importance_sum']).toMatchObject({ value: 110.25, digits: 2 });
    for (const m of Object.values(metrics)) expect(m.digits).toBeTypeOf('number');
    expect(metrics['memory_type_accuracy.Event Memory.memory_acc']!.part).toEqual({
      of: 'memory_acc',
      by: 'memory type',
      value: 'Event Memory',
    });
    expect(Object.values(metrics).filter((m) => m.part).length).toBe(3 * 4);
    expect(metrics['memory_integrity.recall(all)']!.part).toBeUndefined();
    const items = memoryRunItems(records);
    for (const item of items) expect(item.cluster).toBe(item.group);
    expect(runBenchmark).toMatchObject({ package: '@eval/memory', cluster: { unit: 'user' } });
  });

  it('a failed judgement (as HaluMem counts it) is judged: false, not a run failure; it stays in the (all) denominators only', () => {
    const f = fixture('aggregate_fixture_with_invalid.json');
    const items = memoryRunItems(recordsFromJson(f.records));
    expect(items.filter((i) => i.error)).toHaveLength(0);
    const failed = items.filter((i) => i.values.judged === false);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.detail?.judgeFailure).toBe('the accuracy judgement failed (no score)');
    expect(failed[0]!.id.startsWith('extracted:')).toBe(true);
    // 192 accuracy records, 191 validly judged (the fixture's memory_num / memory_valid_num)
    const metrics = memoryRunMetrics(aggregateEvalResults(recordsFromJson(f.records)));
    expect(metrics['memory_accuracy.weighted_accuracy(all)']!.n).toBe(192);
    expect(metrics['memory_accuracy.weighted_accuracy(valid)']!.n).toBe(191);
  });

  it('ids carry the kind prefix and detail the fields the report reads', () => {
    const f = fixture('aggregate_fixture_sessions0-11.json');
    const items = memoryRunItems(recordsFromJson(f.records));
    const kinds = new Set(items.map((i) => i.id.split(':')[0]));
    expect([...kinds]).toEqual(['memory', 'extracted', 'update', 'question']);
    const q = items.find((i) => i.id.startsWith('question:'))!;
    expect(q.id).toBe('question:2f1f897e-d67f-dbc5-6a7b-b7634a9e294f/0/1');
    expect(q.detail).toMatchObject({
      kind: 'question',
      question: "What is Martin Mark's middle name?",
      answer: 'Unknown',
      verdict: 'Correct',
      session: '0',
    });
    expect(q.values.correct).toBe(true);
  });

  it('the variant names the options that change numbers; typeAccuracyExcludesInterference is recomputed', () => {
    expect(memoryRunVariant()).toBe('halumem');
    const variant = memoryRunVariant({ routing: 'corrected', typeAccuracyExcludesInterference: true });
    expect(variant).toBe('halumem;routing=corrected;typeAccuracyExcludesInterference');
    const f = fixture('aggregate_fixture_sessions0-11.json');
    const native = aggregateEvalResults(recordsFromJson(f.records), { typeAccuracyExcludesInterference: true });
    const recomputed = runBenchmark.recompute(memoryRunItems(recordsFromJson(f.records)), variant);
    expect(recomputed['memory_type_accuracy.Persona Memory.memory_acc']).toBe(
      native.memory_type_accuracy['Persona Memory'].memory_acc,
    );
    expect(recomputed['memory_type_accuracy.Persona Memory.total_num']).toBe(
      native.memory_type_accuracy['Persona Memory'].total_num,
    );
  });
});

describeMemory('memory runBenchmark.prepare (resampling fast path)', () => {
  it('equals recompute on the gathered items, repetitions included', () => {
    const items = memoryRunItems(recordsFromJson(fixture('aggregate_fixture_with_invalid.json').records));
    const valid = items; // judged: false items included: prepare must keep them in the (all) figures too
    const at = runBenchmark.prepare!(valid, 'halumem');
    const indices = [0, 0, 5, 17, 170, 171, 300, 355, 356, 380, 390, 391, 392, valid.length - 1];
    expect(at(indices)).toStrictEqual(
      runBenchmark.recompute(
        indices.map((i) => valid[i]!),
        'halumem',
      ),
    );
    expect(at(valid.map((_, i) => i))).toStrictEqual(runBenchmark.recompute(valid, 'halumem'));
  });
});
