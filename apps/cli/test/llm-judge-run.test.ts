import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, readRun } from '@eval/core';
import {
  evaluateOutputs,
  llmJudgeRunItems,
  readOutputEntries,
  readOutputFiles,
  runBenchmark,
  serializeTurnRecords,
  type TurnRecord,
} from '@eval/llm-judge';
import { startTestServer, type TestServer } from '@eval/llm/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithReferenceData, hasReferenceData, referencePath, runCli } from './cli';

const SLICE = referencePath('llm-judge/slice');
const TEMPLATES = referencePath('llm-judge/templates');
const HAS_LLM_JUDGE = hasReferenceData('llm-judge/slice', 'llm-judge/templates');
const KEY_ENV = 'DIALEVAL_LLM_JUDGE_RUN_TEST_KEY';
const KEY = 'sk-test-run-record-secret-0123456789';
const expected = (name: string) => JSON.parse(readFileSync(join(SLICE, name), 'utf8'));

let dir: string;
let server: TestServer;
let recordsFile: string;
const answers = new Map<string, string>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dialeval-llm-judge-run-'));
  recordsFile = join(dir, 'slice_records.json');
  if (HAS_LLM_JUDGE) {
    const entries = await readOutputEntries(join(SLICE, 'ours_comp_outputs.json'));
    const by = new Map<string, TurnRecord[]>();
    for (const e of entries) by.set(e.record.dialogueId, [...(by.get(e.record.dialogueId) ?? []), e.record]);
    writeFileSync(
      recordsFile,
      serializeTurnRecords([...by.values()].flatMap((l) => l.sort((a, b) => a.turnIndex - b.turnIndex))),
    );
    for (const f of ['direct_outputs.json', 'cot_outputs.json', 'ours_acc_outputs.json', 'ours_comp_outputs.json'])
      for (const e of await readOutputEntries(join(SLICE, f))) if (e.prompt) answers.set(e.prompt, e.output);
  }
  server = await startTestServer({
    respond: (req) =>
      answers.get(req.messages[req.messages.length - 1]!.content) ?? { status: 400, error: 'unknown prompt' },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ [KEY_ENV]: KEY, CI: '1', DIALEVAL_HOME: join(dir, 'home') });

/** Exact McNemar p: min(1, 2 P[X <= min(b, c)]), X ~ Binomial(b + c, 1/2) (spec runs.md section 4), in plain arithmetic. */
function mcnemar(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let tail = 0;
  let coef = 1; // C(n, 0)
  for (let k = 0; k <= Math.min(b, c); k++) {
    tail += coef / 2 ** n;
    coef = (coef * (n - k)) / (k + 1);
  }
  return Math.min(1, 2 * tail);
}

describeWithReferenceData('llm-judge/slice', 'llm-judge/templates')('llm-judge runs', () => {
  it('run --out DIR makes DIR a run: items, metrics = recompute, the llm block without the key', async () => {
    const out = join(dir, 'direct-run');
    const r = await runCli(
      [
        'llm-judge',
        'run',
        '--method',
        'direct',
        '--records',
        recordsFile,
        '--templates',
        TEMPLATES,
        '--base-url',
        server.baseURL,
        '--api-key-env',
        KEY_ENV,
        '--model',
        'test-model',
        '--cache-dir',
        join(dir, 'cache'),
        '--out',
        out,
        '--system',
        'trade',
      ],
      { env: env() },
    );
    expect(r.stderr).toMatch(/complete: every item was evaluated/);
    expect(r.stderr).not.toMatch(/[1-9]\d* failed/);
    expect(r.code).toBe(0);
    const run = await readRun(out);
    const m = run.manifest;
    expect(m.benchmark).toBe('llm-judge');
    expect(m.variant).toBe('direct');
    expect(m.system).toBe('trade');
    expect(m.status).toBe('complete');
    expect(run.items).toHaveLength(42);
    expect(m.inputs.map((i) => i.role)).toEqual(['records']);
    expect(m.resources[0]).toMatchObject({ name: 'llm-dst-eval', source: 'option' });
    expect(m.artifacts.map((a) => a.path)).toEqual(['direct_outputs.json', 'direct_result.json']);
    expect(m.options).toMatchObject({
      method: 'direct',
      model: 'test-model',
      temperature: 0,
      gptJga: 'before-turn',
      ruleJga: 'fixed',
    });
    // recomputed from items.jsonl = run.json's metrics = the reference's figures (expected_direct.json)
    const recomputed = runBenchmark.recompute(run.items, m.variant);
    expect(Object.fromEntries(Object.entries(m.metrics).map(([k, x]) => [k, x.value]))).toStrictEqual(recomputed);
    const e = expected('expected_direct.json').metrics_percent;
    expect(m.metrics.TSA!.value).toBe(e.TSA_gpt);
    // every turn in its dialogue's cluster (the descriptor names the unit)
    expect(runBenchmark).toMatchObject({ package: '@eval/llm-judge', cluster: { unit: 'dialogue' } });
    for (const item of run.items) expect(item.cluster).toBe(item.id.slice(0, item.id.lastIndexOf('-')));
    expect(m.metrics.JGA!.value).toBe(e['GPT_JGA_repo(already-before-turn)']);
    // the llm block: host and port only, 42 calls answered, never the key
    const host = new URL(server.baseURL).host;
    expect(m.llm).toMatchObject({
      endpointHost: host,
      model: 'test-model',
      calls: { made: 42, cached: 0, failed: 0, retried: 0 },
      batch: false,
    });
    const text = readFileSync(join(out, 'run.json'), 'utf8') + readFileSync(join(out, 'items.jsonl'), 'utf8');
    expect(text).not.toContain(KEY);
    // the native output is the reference's: re-reading it gives the recorded outputs back
    const native = await readOutputEntries(join(out, 'direct_outputs.json'));
    const recorded = await readOutputEntries(join(SLICE, 'direct_outputs.json'));
    expect(new Map(native.map((x) => [x.record.flag, x.output]))).toEqual(
      new Map(recorded.map((x) => [x.record.flag, x.output])),
    );
    // the items keep each turn's place in the native output (inside the run: relative), not its context or the judge's output
    for (const item of run.items) {
      expect(item.detail).not.toHaveProperty('context');
      expect(item.detail).not.toHaveProperty('explanation');
      const [source] = item.detail!.source as Array<{ file: string; index: number }>;
      expect(source!.file).toBe('direct_outputs.json');
      expect(native[source!.index]!.record.flag).toBe(item.id);
    }
    // ... which runBenchmark.itemDetails reads back: the detail embedding gives
    const filled = await runBenchmark.itemDetails!(run.items, out);
    const embedded = llmJudgeRunItems(evaluateOutputs('direct', { outputs: native }), { outputs: { outputs: native } });
    expect(JSON.parse(JSON.stringify(filled))).toStrictEqual(JSON.parse(JSON.stringify(embedded)));
  });

  it('run --method ours (two-step): each item keeps its entries in the accuracy and the completeness file, read back as embedded', async () => {
    const out = join(dir, 'ours-run');
    const r = await runCli(
      [
        'llm-judge',
        'run',
        '--method',
        'ours',
        '--records',
        recordsFile,
        '--templates',
        TEMPLATES,
        '--base-url',
        server.baseURL,
        '--api-key-env',
        KEY_ENV,
        '--model',
        'test-model',
        '--cache-dir',
        join(dir, 'cache'),
        '--out',
        out,
      ],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    const run = await readRun(out);
    const files = ['ours_acc_outputs.json', 'ours_comp_outputs.json'];
    const native = await readOutputFiles(
      'ours',
      files.map((f) => join(out, f)),
    );
    expect('accuracy' in native).toBe(true);
    const lists = 'accuracy' in native ? [native.accuracy, native.completeness] : [];
    for (const item of run.items) {
      const source = item.detail!.source as Array<{ file: string; index: number }>;
      expect(source.map((s) => s.file)).toEqual(files);
      source.forEach((s, i) => expect(lists[i]![s.index]!.record.flag).toBe(item.id));
    }
    // the skipped accuracy calls come first in the accuracy file: the two places differ
    expect(
      run.items.some(
        (i) =>
          (i.detail!.source as Array<{ index: number }>)[0]!.index !==
          (i.detail!.source as Array<{ index: number }>)[1]!.index,
      ),
    ).toBe(true);
    const embedded = llmJudgeRunItems(evaluateOutputs('ours', native), { outputs: native });
    expect(JSON.parse(JSON.stringify(await runBenchmark.itemDetails!(run.items, out)))).toStrictEqual(
      JSON.parse(JSON.stringify(embedded)),
    );
  });

  it('report --run writes one run per method; compareRuns(direct, cot): McNemar, deltas and flipped turns', async () => {
    const runs = join(dir, 'report-runs');
    const r = await runCli(
      [
        'llm-judge',
        'report',
        '--outputs',
        `direct=${join(SLICE, 'direct_outputs.json')}`,
        '--outputs',
        `cot=${join(SLICE, 'cot_outputs.json')}`,
        '--run',
        runs,
        '--format',
        'json',
      ],
      {
        env: env(),
      },
    );
    expect(r.code).toBe(0);
    const direct = await readRun(join(runs, 'direct'));
    const cot = await readRun(join(runs, 'cot'));
    for (const run of [direct, cot]) {
      expect(Object.fromEntries(Object.entries(run.manifest.metrics).map(([k, x]) => [k, x.value]))).toStrictEqual(
        runBenchmark.recompute(run.items, run.manifest.variant),
      );
    }
    // two methods are two variants: compared on purpose with force
    const cmp = compareRuns([direct, cot], runBenchmark, { force: true, resamples: 200, seed: 1 });
    const pair = cmp.pairs[0]!;
    expect(pair.paired).toBe(42);
    // independent computation from the reference's per-turn judgements
    const jd = new Map<string, number>(
      expected('expected_direct.json').per_turn.map((t: { flag: string; gpt_turn_judge: number }) => [
        t.flag,
        t.gpt_turn_judge,
      ]),
    );
    const jc = new Map<string, number>(
      expected('expected_cot.json').per_turn.map((t: { flag: string; gpt_turn_judge: number }) => [
        t.flag,
        t.gpt_turn_judge,
      ]),
    );
    const oneToZero = [...jd.keys()].filter((f) => jd.get(f) === 1 && jc.get(f) === 0).sort();
    const zeroToOne = [...jd.keys()].filter((f) => jd.get(f) === 0 && jc.get(f) === 1).sort();
    const tsa = pair.metrics.find((x) => x.name === 'TSA')!;
    expect(tsa.mcnemar).toMatchObject({ outcome: 'judge', b: oneToZero.length, c: zeroToOne.length });
    expect(tsa.mcnemar!.p).toBeCloseTo(mcnemar(oneToZero.length, zeroToOne.length), 12);
    expect([...tsa.flipped!.oneToZero].sort()).toEqual(oneToZero);
    expect([...tsa.flipped!.zeroToOne].sort()).toEqual(zeroToOne);
    expect(tsa.a).toBe(expected('expected_direct.json').metrics_percent.TSA_gpt);
    expect(tsa.b).toBe(expected('expected_cot.json').metrics_percent.TSA_gpt);
    expect(tsa.delta).toBe(tsa.b! - tsa.a!);
    // the same comparison through `dialeval compare`
    const cli = await runCli(
      [
        'compare',
        join(runs, 'direct'),
        join(runs, 'cot'),
        '--force',
        '--format',
        'json',
        '--resamples',
        '200',
        '--seed',
        '1',
      ],
      { env: env() },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const viaCli = JSON.parse(cli.stdout);
    expect(viaCli.recomputedBy).toMatch(/llm-judge/);
    const tsaCli = viaCli.pairs[0].metrics.find((x: { name: string }) => x.name === 'TSA');
    expect(tsaCli.mcnemar).toEqual(tsa.mcnemar);
    expect(tsaCli.delta).toBe(tsa.delta);
    expect(tsaCli.ci).toEqual(tsa.ci);
    const jga = pair.metrics.find((x) => x.name === 'JGA')!;
    expect(jga.delta).toBe(
      expected('expected_cot.json').metrics_percent['GPT_JGA_repo(already-before-turn)'] -
        expected('expected_direct.json').metrics_percent['GPT_JGA_repo(already-before-turn)'],
    );
  });

  it("report --run keeps turns by location; dialeval report of that run shows a disagreeing turn with its dialogue context and the judge's explanation", async () => {
    const runDir = join(dir, 'report-run-direct');
    const r = await runCli(
      [
        'llm-judge',
        'report',
        '--outputs',
        `direct=${join(SLICE, 'direct_outputs.json')}`,
        '--run',
        runDir,
        '--format',
        'json',
      ],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    const items = readFileSync(join(runDir, 'items.jsonl'), 'utf8');
    const entries = await readOutputEntries(join(SLICE, 'direct_outputs.json'));
    // a turn where judge and RULE-M21 disagree, from the reference's per-turn judgements
    const perTurn: Array<{ flag: string; gpt_turn_judge: number }> = expected('expected_direct.json').per_turn;
    const rule = new Map((await readRun(runDir)).items.map((i) => [i.id, i.values.ruleM21]));
    const turn = perTurn.find(
      (t) =>
        rule.get(t.flag) !== (t.gpt_turn_judge === 1) &&
        entries.find((x) => x.record.flag === t.flag)!.record.history.length > 0,
    )!;
    const entry = entries.find((x) => x.record.flag === turn.flag)!;
    expect(items).not.toContain(JSON.stringify(entry.output).slice(1, -1));
    const out = join(dir, 'report-direct.html');
    const h = await runCli(['report', runDir, '--out', out], { env: env() });
    expect(h.code, h.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html)![1]!);
    const item = data.runs[0].items.find((i: { id: string }) => i.id === turn.flag);
    expect(item.detail.disagree).toBe(true);
    expect(item.detail.explanation).toBe(entry.output);
    const context = item.detail.context as Array<{ speaker: string; text: string }>;
    expect(context.map((u) => u.text)).toEqual(
      [...entry.record.history, entry.record.system, entry.record.user].filter((t, i) => !(i === 0 && t === '')),
    );
    expect(context.at(-1)).toEqual({ speaker: 'user', text: entry.record.user });
    expect(item.detail).not.toHaveProperty('source');
    // the run itself is unchanged by the report
    expect(readFileSync(join(runDir, 'items.jsonl'), 'utf8')).toBe(items);
  });
});
