import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRun } from '@eval/core';
import { runBenchmark } from '@eval/memory';
import { startTestServer, type TestServer } from '@eval/llm/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithReferenceData, referencePath, runCli } from './cli';
import { fence, judgeKind, scriptedVerdict } from './memory-script';

const MEMORY = referencePath('memory');
const ARTIFACT = join(MEMORY, 'sample_run_artifact_martin_mark_sessions0-11.jsonl');
const KEY_ENV = 'DIALEVAL_MEMORY_RUN_TEST_KEY';
const KEY = 'sk-memory-run-record-secret-0123456789';

let dir: string;
let server: TestServer;
/** Fixed verdicts, and one QA judgement with a label outside HaluMem's vocabulary (a failed judgement). */
function respond(prompt: string): string {
  if (judgeKind(prompt) === 'qa' && prompt.includes("What is Martin Mark's middle name?"))
    return fence({ reasoning: 'scripted', evaluation_result: 'Unsure' });
  return scriptedVerdict(prompt);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dialeval-memory-run-'));
  server = await startTestServer({ respond: (req) => respond(req.messages[req.messages.length - 1]!.content) });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const metricValues = (m: Record<string, { value: number | null }>) =>
  Object.fromEntries(Object.entries(m).map(([k, x]) => [k, x.value]));

describeWithReferenceData('memory')('memory runs', () => {
  for (const name of ['aggregate_fixture_sessions0-11.json', 'aggregate_fixture_with_invalid.json']) {
    it(`aggregate --run on ${name}: recompute = run.json = HaluMem's overall_score; native output unchanged`, async () => {
      const f = JSON.parse(readFileSync(join(MEMORY, name), 'utf8'));
      const file = join(dir, `records_${name}`);
      writeFileSync(file, JSON.stringify(f.records));
      const plain = await runCli([
        'memory',
        'aggregate',
        file,
        '--format',
        'json',
        '--write-stat',
        join(dir, `plain_${name}`),
      ]);
      const runDir = join(dir, `run_${name}`);
      const withRun = await runCli([
        'memory',
        'aggregate',
        file,
        '--format',
        'json',
        '--write-stat',
        join(dir, `stat_${name}`),
        '--run',
        runDir,
      ]);
      expect(withRun.code, withRun.stderr).toBe(0);
      expect(withRun.stdout).toBe(plain.stdout);
      expect(readFileSync(join(dir, `stat_${name}`), 'utf8')).toBe(readFileSync(join(dir, `plain_${name}`), 'utf8'));
      const run = await readRun(runDir);
      expect(run.manifest).toMatchObject({
        benchmark: 'memory',
        variant: 'halumem',
        system: `records_${name.replace(/\.json$/, '')}`,
      });
      expect(run.manifest.inputs).toEqual([expect.objectContaining({ role: 'judged-records', path: file })]);
      expect(run.manifest.options).toEqual({
        acceptBooleanIncluded: false,
        typeAccuracyExcludesInterference: false,
        onEmpty: 'error',
      });
      const values = metricValues(run.manifest.metrics);
      expect(runBenchmark.recompute(run.items, run.manifest.variant)).toStrictEqual(values);
      const o = f.expected_overall_score;
      expect(values['memory_accuracy.weighted_accuracy(all)']).toBe(o.memory_accuracy['weighted_accuracy(all)']);
      expect(values['memory_accuracy.weighted_accuracy(valid)']).toBe(o.memory_accuracy['weighted_accuracy(valid)']);
      expect(values.memory_extraction_f1).toBe(o.memory_extraction_f1);
      // a judgement HaluMem counts as failed is evaluated (judged: false), not a failed item: the run is complete
      expect(run.manifest.counts.failed).toBe(0);
      expect(run.items.filter((i) => i.values.judged === false)).toHaveLength(name.includes('invalid') ? 1 : 0);
      expect(run.manifest.status).toBe('complete');
    });
  }

  it('dialeval compare of the two aggregate runs: the failed judgement does not pair; the rest is equal', async () => {
    const a = join(dir, 'run_aggregate_fixture_sessions0-11.json');
    const b = join(dir, 'run_aggregate_fixture_with_invalid.json');
    const r = await runCli(['compare', a, b, '--format', 'json', '--resamples', '100']);
    expect(r.code === 0 || r.code === 1, r.stderr).toBe(true);
    const pair = JSON.parse(r.stdout).pairs[0];
    // 163 + 191 + 24 + 32 items pair; B's one extra (failed) accuracy judgement, from session 43, is unpaired
    expect(pair.paired).toBe(163 + 191 + 24 + 32);
    expect([...pair.unpaired.onlyB, ...pair.unpaired.failedB]).toEqual([
      'extracted:2f1f897e-d67f-dbc5-6a7b-b7634a9e294f/43/1',
    ]);
    const qa = pair.metrics.find((m: { name: string }) => m.name === 'question_answering.correct_qa_ratio(valid)');
    expect(qa.delta).toBe(0);
    expect(qa.mcnemar).toMatchObject({ outcome: 'correct', b: 0, c: 0, p: 1 });
  });

  it('judge --run: items and metrics of the judged records, a failed judgement as judged: false, the llm block', async () => {
    const flags = [
      '--base-url',
      server.baseURL,
      '--api-key-env',
      KEY_ENV,
      '--cache-dir',
      join(dir, 'cache'),
      '--model',
      'test-model',
    ];
    const env = { [KEY_ENV]: KEY, CI: '1' };
    const runDir = join(dir, 'judge-run');
    const out = join(dir, 'judged', 'exia_eval_stat_result.json');
    const r = await runCli(['memory', 'judge', ARTIFACT, '--out', out, '--format', 'json', '--run', runDir, ...flags], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    // the same command without a run (answers from the cache) writes the same stat file, byte for byte
    const out2 = join(dir, 'judged2', 'exia_eval_stat_result.json');
    const plain = await runCli(['memory', 'judge', ARTIFACT, '--out', out2, '--format', 'json', ...flags], { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(out2, 'utf8'));
    expect(plain.stdout).toBe(r.stdout);

    const run = await readRun(runDir);
    const m = run.manifest;
    // the judge's unusable answers are judged as HaluMem judges them (a judge failure, not a failed call): complete
    expect(m).toMatchObject({ benchmark: 'memory', variant: 'halumem', status: 'complete' });
    expect(m.options).toMatchObject({ routing: 'reference', model: 'test-model', temperature: 0, attempts: 3 });
    expect(m.inputs[0]).toMatchObject({ role: 'run-artifact', path: ARTIFACT });
    expect(m.artifacts).toEqual([{ path: out, format: 'halumem-eval-stat-result' }]);
    expect(m.llm).toMatchObject({ endpointHost: new URL(server.baseURL).host, model: 'test-model', batch: false });
    expect(m.llm!.calls.made).toBe(410);
    expect(readFileSync(join(runDir, 'run.json'), 'utf8')).not.toContain(KEY);
    expect(run.items.filter((i) => i.error)).toEqual([]);
    const failed = run.items.filter((i) => i.values.judged === false);
    // the sample asks that question in sessions 0, 2 and 7 (first question of each)
    expect(failed.map((i) => i.id)).toEqual(
      [0, 2, 7].map((s) => `question:2f1f897e-d67f-dbc5-6a7b-b7634a9e294f/${s}/1`),
    );
    expect(failed[0]!.detail).toMatchObject({
      kind: 'question',
      question: "What is Martin Mark's middle name?",
      verdict: 'Unsure',
    });
    // 32 questions, 29 validly judged Correct: (all) 29/32, (valid) 29/29 (HaluMem's split), from items as from run.json
    expect(m.metrics['question_answering.correct_qa_ratio(all)']!.value).toBe(29 / 32);
    expect(m.metrics['question_answering.correct_qa_ratio(valid)']!.value).toBe(1);
    const stdout = JSON.parse(r.stdout);
    expect(stdout.question_answering['correct_qa_ratio(all)']).toBe(29 / 32);
    expect(runBenchmark.recompute(run.items, m.variant)).toStrictEqual(metricValues(m.metrics));
  });
});
