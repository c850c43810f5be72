import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRun } from '@eval/core';
import { readOutputEntries, serializeTurnRecords, type TurnRecord } from '@eval/llm-judge';
import { startTestServer, type TestServer } from '@eval/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithReferenceData, hasReferenceData, referencePath, runCli } from './cli';
import { fence, judgeKind, scriptedVerdict, writeTinyMemoryArtifact } from './memory-script';

const SLICE = referencePath('llm-judge/slice');
const TEMPLATES = referencePath('llm-judge/templates');
const HAS_LLM_JUDGE = hasReferenceData('llm-judge/slice', 'llm-judge/templates');
const KEY_ENV = 'DIALEVAL_JUDGE_PANEL_TEST_KEY';
const KEY = 'sk-judge-panel-secret-0123456789abcdef';

// llm-judge: judge `judge-a` answers every turn as the recorded direct run did (29 of 42 turns judged right, from
// expected_direct.json); judge `judge-b` answers the same, except that it finds nothing wrong in the turns judge-a
// judged wrong for reported slots that are the last of their dialogue (a turn's verdict depends on the dialogue's
// state so far: a flip there changes no other turn): MUL2162.json-7 and PMUL1266.json-4, a 0 -> 1 flip each.
// Hand count (n = 42): A has 29 true / 13 false, B 31 true / 11 false; they agree on 40.
//   p_o = 40/42, p_e = (29*31 + 13*11) / 42^2 = 1042/1764, kappa = (p_o - p_e) / (1 - p_e) = 638/722 = 319/361.
const CLEAN = fence({ explanation: 'scripted: nothing wrong', incorrect_domain_slot: {}, missed_domain_slot: {} });

let dir: string;
let server: TestServer;
let recordsFile: string;
const answers = new Map<string, string>();
const judgedRight = new Map<string, boolean>();
let flipped: string[] = [];
const flippedPrompts = new Set<string>();

/** The memory judges: judge-b calls the answer to the blood-type question a hallucination. */
function memoryVerdict(model: string, prompt: string): string {
  if (model === 'judge-b' && judgeKind(prompt) === 'qa' && prompt.includes("What is Lena Ortiz's blood type?"))
    return fence({ reasoning: 'scripted', evaluation_result: 'Hallucination' });
  return scriptedVerdict(prompt);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dialeval-judge-panel-'));
  recordsFile = join(dir, 'slice_records.json');
  if (HAS_LLM_JUDGE) {
    const entries = await readOutputEntries(join(SLICE, 'direct_outputs.json'));
    const by = new Map<string, TurnRecord[]>();
    for (const e of entries) by.set(e.record.dialogueId, [...(by.get(e.record.dialogueId) ?? []), e.record]);
    writeFileSync(
      recordsFile,
      serializeTurnRecords([...by.values()].flatMap((l) => l.sort((a, b) => a.turnIndex - b.turnIndex))),
    );
    for (const e of entries) if (e.prompt) answers.set(e.prompt, e.output);
    const expected = JSON.parse(readFileSync(join(SLICE, 'expected_direct.json'), 'utf8'));
    for (const t of expected.per_turn as Array<{ flag: string; gpt_turn_judge: number }>)
      judgedRight.set(t.flag, t.gpt_turn_judge === 1);
    const last = new Map<string, string>();
    for (const t of expected.per_turn as Array<{ flag: string }>)
      last.set(t.flag.slice(0, t.flag.lastIndexOf('-')), t.flag);
    flipped = (
      expected.per_turn as Array<{
        flag: string;
        gpt_turn_judge: number;
        incorrect_after_filter: string[];
        missed_after_filter: string[];
      }>
    )
      .filter((t) => t.gpt_turn_judge === 0 && t.incorrect_after_filter.length + t.missed_after_filter.length > 0)
      .filter((t) => last.get(t.flag.slice(0, t.flag.lastIndexOf('-'))) === t.flag)
      .map((t) => t.flag);
    for (const e of entries) if (flipped.includes(e.record.flag) && e.prompt) flippedPrompts.add(e.prompt);
  }
  server = await startTestServer({
    respond: (req) => {
      const prompt = req.messages[req.messages.length - 1]!.content;
      if (!answers.has(prompt)) return memoryVerdict(req.model, prompt);
      return req.model === 'judge-b' && flippedPrompts.has(prompt) ? CLEAN : answers.get(prompt)!;
    },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ [KEY_ENV]: KEY, CI: '1', DIALEVAL_HOME: join(dir, 'home') });
const calls = () => server.chatRequests().length;

describeWithReferenceData('llm-judge/slice', 'llm-judge/templates')('llm-judge run with a judge panel', () => {
  const common = () => [
    ...['llm-judge', 'run', '--method', 'direct', '--records', recordsFile, '--templates', TEMPLATES],
    ...['--base-url', server.baseURL, '--api-key-env', KEY_ENV, '--cache-dir', join(dir, 'lj-cache')],
  ];

  it('two judges: one run each in <out>/<label>, the agreement as counted by hand; single runs and a second panel come from the cache', async () => {
    const before = calls();
    const out = join(dir, 'lj-panel');
    const r = await runCli(
      [...common(), '--judge', 'judge-a', '--judge', 'judge-b', '--out', out, '--format', 'json'],
      {
        env: env(),
      },
    );
    expect(r.code, r.stderr).toBe(0);
    // 42 turns per judge, each asked once
    expect(calls() - before).toBe(84);
    const j = JSON.parse(r.stdout);
    expect(j.judges.map((x: { label: string }) => x.label)).toEqual(['judge-a', 'judge-b']);
    expect(r.stdout).not.toContain(KEY);
    const a = j.agreement;
    expect(a.value).toBe('judge');
    expect(a.judges.map((x: { name: string }) => x.name)).toEqual(['judge-a', 'judge-b']);
    expect(a.items).toBe(42);
    expect([a.unit, a.clusters]).toEqual([
      'dialogue',
      new Set([...judgedRight.keys()].map((f) => f.split('-')[0])).size,
    ]);
    const ones = [...judgedRight.values()].filter(Boolean).length;
    expect(ones).toBe(29);
    const n = 42;
    const [aTrue, bTrue] = [ones, ones + flipped.length];
    const po = (n - flipped.length) / n;
    const pe = (aTrue * bTrue + (n - aTrue) * (n - bTrue)) / n ** 2;
    expect(a.pairs[0].kappa).toBeCloseTo((po - pe) / (1 - pe), 12);
    expect(flipped).toEqual(['MUL2162.json-7', 'PMUL1266.json-4']);
    expect(a.pairs[0].kappa).toBeCloseTo(319 / 361, 12);
    expect(a.pairs[0].flips).toEqual(flipped.map((id) => ({ id, a: false, b: true })));
    expect(a.pairs[0].baseRates).toEqual([
      [
        { label: false, count: 13, share: 13 / 42 },
        { label: true, count: 29, share: 29 / 42 },
      ],
      [
        { label: false, count: 11, share: 11 / 42 },
        { label: true, count: 31, share: 31 / 42 },
      ],
    ]);
    expect(a.flipMatrix).toEqual([
      [0, 2],
      [2, 0],
    ]);
    // TSA under each judge: 29/42 and 31/42 of the turns, in percent points
    const tsa = a.metrics.find((m: { name: string }) => m.name === 'TSA');
    expect(tsa.values).toEqual([expect.closeTo((100 * 29) / 42, 10), expect.closeTo((100 * 31) / 42, 10)]);

    // each judge's directory is a run of that judge, its label in the options
    for (const label of ['judge-a', 'judge-b']) {
      const run = await readRun(join(out, label));
      expect(run.manifest.llm?.model).toBe(label);
      expect(run.manifest.options.judge).toBe(label);
    }

    // the same judges alone: the same outputs, items and metrics, every answer from the panel's cache
    const single = calls();
    for (const label of ['judge-a', 'judge-b']) {
      const alone = join(dir, `lj-${label}`);
      const s = await runCli([...common(), '--model', label, '--out', alone], { env: env() });
      expect(s.code, s.stderr).toBe(0);
      for (const f of ['direct_outputs.json', 'items.jsonl'])
        expect(readFileSync(join(out, label, f), 'utf8')).toBe(readFileSync(join(alone, f), 'utf8'));
      // the result file: the same but for where the outputs went and how the calls were answered
      const result = (d: string) => {
        const { outputs, llm, ...rest } = JSON.parse(readFileSync(join(d, 'direct_result.json'), 'utf8'));
        return { ...rest, outputs: outputs.length, calls: llm.calls + llm.cacheHits };
      };
      expect(result(join(out, label))).toEqual(result(alone));
      expect((await readRun(join(out, label))).manifest.metrics).toEqual((await readRun(alone)).manifest.metrics);
    }
    expect(calls()).toBe(single);

    // a second panel into a new directory: the table, every answer from the cache (0 new calls)
    const again = await runCli([...common(), '--judge', 'judge-a', '--judge', 'judge-b', '--out', join(dir, 'lj-2')], {
      env: env(),
    });
    expect(again.code, again.stderr).toBe(0);
    expect(calls()).toBe(single);
    expect(again.stdout).toMatch(/^judge judge-a:\n/);
    expect(again.stdout).toContain('\njudge judge-b:\n');
    expect(again.stdout).toContain('agreement of 2 judges: llm-judge, verdict "judge" (nominal), 42 items in');
    expect(again.stdout).toMatch(/A = judge-a \(.*\): 42 judged; false 31\.0% \/ true 69\.0%/);
    const row = again.stdout.split('\n').find((l) => l.startsWith('A - B'))!;
    expect(row.split(/\s{2,}/).slice(0, 4)).toEqual(['A - B', '42', '95.2%', (319 / 361).toFixed(3)]);
  });

  it('one judge and --human (a map flag -> 0|1, as manual_eval.json): people as the second judge, the run in --out', async () => {
    // judge-a (expected_direct.json): MUL2162.json-7 0, PMUL1266.json-4 0, PMUL4648.json-0 1, PMUL4648.json-1 1;
    // the people: 0, 0, 1, 0. They agree on 3 of 4; A's true share 2/4, the people's 1/4:
    //   p_e = 2/4 * 1/4 + 2/4 * 3/4 = 1/2, kappa = (3/4 - 1/2) / (1/2) = 1/2; one flip, PMUL4648.json-1 (true > false).
    const human = join(dir, 'manual_eval.json');
    const labels = { 'MUL2162.json-7': 0, 'PMUL1266.json-4': 0, 'PMUL4648.json-0': 1, 'PMUL4648.json-1': 0 };
    writeFileSync(human, JSON.stringify(labels));
    expect(Object.keys(labels).map((f) => judgedRight.get(f))).toEqual([false, false, true, true]);
    const out = join(dir, 'lj-human');
    const r = await runCli([...common(), '--model', 'judge-a', '--human', human, '--out', out, '--format', 'json'], {
      env: env(),
    });
    expect(r.code, r.stderr).toBe(0);
    const a = JSON.parse(r.stdout).agreement;
    expect(a.judges.map((j: { name: string; judged: number }) => [j.name, j.judged])).toEqual([
      ['judge-a', 42],
      ['human', 4],
    ]);
    expect(a.pairs[0].compared).toBe(4);
    expect(a.pairs[0].kappa).toBe(0.5);
    expect(a.pairs[0].flips).toEqual([{ id: 'PMUL4648.json-1', a: true, b: false }]);
    expect(a.pairs[0].baseRates[1]).toEqual([
      { label: false, count: 3, share: 0.75 },
      { label: true, count: 1, share: 0.25 },
    ]);
    expect((await readRun(out)).manifest.llm?.model).toBe('judge-a');
  });

  it('--dry-run with two judges: the plan of each judge under its label, no call, no agreement', async () => {
    const before = calls();
    const r = await runCli(
      [...common(), '--judge', 'judge-a', '--judge', 'judge-b', '--out', join(dir, 'lj-dry'), '--dry-run'],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(calls()).toBe(before);
    expect(r.stdout.match(/^judge judge-[ab]:$/gm)).toEqual(['judge judge-a:', 'judge judge-b:']);
    expect(r.stdout).not.toContain('agreement of');
  });

  it('--max-cost is one budget for the panel: the second judge gets what the first left', async () => {
    // $1 per million tokens either way: one judge's 42 calls cost about $0.05 (the server's token counts), so a
    // $0.07 budget pays for one judge, not two. judge-b alone within it finishes.
    const prices = join(dir, 'prices.json');
    const price = { input: 1, output: 1 };
    writeFileSync(prices, JSON.stringify({ 'judge-a': price, 'judge-b': price }));
    const budget = ['--prices', prices, '--max-cost', '0.07', '--cache', 'off'];
    const r = await runCli(
      [...common(), '--judge', 'judge-a', '--judge', 'judge-b', '--out', join(dir, 'lj-budget'), ...budget],
      {
        env: env(),
      },
    );
    expect(r.code).toBe(1);
    const spentA = (await readRun(join(dir, 'lj-budget', 'judge-a'))).manifest.llm!.costUsd;
    expect(spentA).toBeGreaterThan(0.035);
    expect(spentA).toBeLessThan(0.07);
    // judge-b's budget is what judge-a left, and it stops there
    expect(r.stderr).toContain(`stopped by the budget (--max-cost $${(0.07 - spentA).toFixed(4)})`);
    expect(r.stderr).toMatch(/error: llm-judge run incomplete: \d+ call\(s\) not made \(budget reached\)/);
    const alone = await runCli([...common(), '--model', 'judge-b', '--out', join(dir, 'lj-budget-b'), ...budget], {
      env: env(),
    });
    expect(alone.code, alone.stderr).toBe(0);
  });

  it('--templates twice with one model: two judges labelled by the templates directory', async () => {
    const r = await runCli(
      [...common(), '--templates', TEMPLATES, '--model', 'judge-a', '--out', join(dir, 'lj-tpl'), '--format', 'json'],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.judges.map((x: { label: string }) => x.label)).toEqual(['judge-a+templates', 'judge-a+templates-2']);
    // the same model and templates twice: full agreement, kappa 1
    expect(j.agreement.pairs[0].kappa).toBe(1);
    expect(j.agreement.pairs[0].flips).toEqual([]);
  });
});

describe('memory judge with a judge panel and human labels', () => {
  // The tiny artifact: the demo user, 4 questions (ids question:<uuid>/<session>/<n>), each answered "Porto".
  // judge-a: every answer Correct; judge-b: the blood-type question (session 1, third) a hallucination; the people:
  // session 1's first and third answers wrong. The verdict `correct` on the 4 questions, in 1 user:
  //   A: T T T T   B: T T T F   H: T F T F
  //   A-B: p_o 3/4, p_e 1 * 3/4 = 3/4 -> kappa 0 (75% agreement, yet A always says true: the base rates show it)
  //   A-H: p_o 2/4, p_e 1/2 -> kappa 0;   B-H: p_o 3/4, p_e 3/4*1/2 + 1/4*1/2 = 1/2 -> kappa 1/2
  //   alpha (nominal): o_TT 7, o_FF 1, o_TF = o_FT 2 (n 12; n_T 9, n_F 3); D_o 4/12, D_e 2*9*3/(12*11) = 9/22
  //   -> alpha = 1 - (1/3)/(9/22) = 5/27.
  const user = 'demo-0000-lena-ortiz';
  const q = (s: number, n: number) => `question:${user}/${s}/${n}`;

  it('two judges and --human: per-judge stat files and runs, the agreement as counted by hand, the cache reused', async () => {
    const artifact = writeTinyMemoryArtifact(join(dir, 'tiny_eval_results.jsonl'));
    const human = join(dir, 'human.json');
    writeFileSync(human, JSON.stringify({ [q(0, 1)]: true, [q(1, 1)]: false, [q(1, 2)]: true, [q(1, 3)]: false }));
    const flags = [
      ...['--base-url', server.baseURL, '--api-key-env', KEY_ENV, '--cache-dir', join(dir, 'mem-cache')],
      ...['--on-empty', 'null', '--judge', 'judge-a', '--judge', 'judge-b', '--human', human],
    ];
    const before = calls();
    const out = join(dir, 'mem-panel');
    const r = await runCli(['memory', 'judge', artifact, '--out', out, '--format', 'json', ...flags], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    // the tiny artifact asks 12 judgements (memory-script.ts), of each judge
    expect(calls() - before).toBe(24);
    const a = JSON.parse(r.stdout).agreement;
    expect(a.value).toBe('correct');
    expect(a.judges.map((x: { name: string }) => x.name)).toEqual(['judge-a', 'judge-b', 'human']);
    expect(a.items).toBe(4);
    expect(a.pairs.map((p: { kappa: number }) => p.kappa)).toEqual([0, 0, 0.5]);
    expect(a.alpha.value).toBeCloseTo(5 / 27, 12);
    expect(a.pairs.map((p: { flips: unknown[] }) => p.flips)).toEqual([
      [{ id: q(1, 3), a: true, b: false }],
      [
        { id: q(1, 1), a: true, b: false },
        { id: q(1, 3), a: true, b: false },
      ],
      [{ id: q(1, 1), a: true, b: false }],
    ]);
    expect(a.pairs[0].baseRates).toEqual([
      [{ label: true, count: 4, share: 1 }],
      [
        { label: false, count: 1, share: 0.25 },
        { label: true, count: 3, share: 0.75 },
      ],
    ]);

    // each judge's stat file equals a single judge's, whose answers all come from the panel's cache
    const single = calls();
    for (const label of ['judge-a', 'judge-b']) {
      const alone = join(dir, `mem-${label}`, 'tiny_eval_stat_result.json');
      const s = await runCli(['memory', 'judge', artifact, '--out', alone, '--model', label, ...flags.slice(0, 8)], {
        env: env(),
      });
      expect(s.code, s.stderr).toBe(0);
      expect(readFileSync(join(out, label, 'tiny_eval_stat_result.json'), 'utf8')).toBe(readFileSync(alone, 'utf8'));
      const run = await readRun(join(out, label));
      expect(run.manifest.llm?.model).toBe(label);
    }
    expect(calls()).toBe(single);

    // a second panel into a new directory: every answer from the cache; the table with base rates beside kappa
    const again = await runCli(['memory', 'judge', artifact, '--out', join(dir, 'mem-panel-2'), ...flags], {
      env: env(),
    });
    expect(again.code, again.stderr).toBe(0);
    expect(calls()).toBe(single);
    expect(again.stdout).toContain('agreement of 3 judges: memory, verdict "correct" (nominal), 4 items in 1 users');
    expect(again.stdout).toContain(`C = human (${human}): 4 judged; false 50.0% / true 50.0%`);
    const row = again.stdout.split('\n').find((l) => l.startsWith('A - B'))!;
    expect(row.split(/\s{2,}/).slice(0, 6)).toEqual([
      'A - B',
      '4',
      '75.0%',
      '0',
      'true 100.0%',
      'false 25.0% / true 75.0%',
    ]);
  });

  it('one judge and --human: the run beside the stat file, people as the second judge', async () => {
    const artifact = join(dir, 'tiny_eval_results.jsonl');
    const human = join(dir, 'human.json');
    const out = join(dir, 'mem-one', 'tiny_eval_stat_result.json');
    const r = await runCli(
      [
        ...['memory', 'judge', artifact, '--out', out, '--format', 'json', '--model', 'judge-b', '--human', human],
        ...['--base-url', server.baseURL, '--api-key-env', KEY_ENV, '--cache-dir', join(dir, 'mem-cache')],
        ...['--on-empty', 'null'],
      ],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    const a = JSON.parse(r.stdout).agreement;
    expect(a.judges.map((x: { name: string }) => x.name)).toEqual(['judge-b', 'human']);
    expect(a.pairs[0].kappa).toBe(0.5);
    expect((await readRun(join(dir, 'mem-one', 'tiny_eval_stat_result.run'))).manifest.llm?.model).toBe('judge-b');
  });
});
