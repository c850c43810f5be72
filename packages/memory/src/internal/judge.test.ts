import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLlm, type Llm } from '@eval/llm';
import { startTestServer, type TestServer } from '@eval/llm/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { aggregateEvalResults } from '../metrics';
import { recordsFromJson } from './files';
import { callJudge, judgeRunArtifact } from './judge';
import { fixtureRecords, parseJudgePrompt, recordedAnswers } from './test/replay-judge';
import { HAS_MEMORY, SAMPLE_ARTIFACT, describeMemory } from './test/shared';

const KEY_ENV = 'MEMORY_JUDGE_TEST_KEY';
const { records: recorded, expected } = HAS_MEMORY ? fixtureRecords() : { records: undefined!, expected: undefined! };
const answer = HAS_MEMORY ? recordedAnswers(recorded) : () => undefined;

let dir: string;
let server: TestServer;
/** Keys (judge + content) to answer without any JSON block, on every attempt. */
const broken = new Set<string>();
/** Keys answered with an unusable block once, then correctly. */
const flaky = new Set<string>();
const seen = new Map<string, number>();

beforeAll(async () => {
  server = await startTestServer({
    respond: (req) => {
      const prompt = req.messages[req.messages.length - 1]!.content;
      const p = parseJudgePrompt(prompt);
      const key = p ? `${p.judge}\0${p.key}` : '';
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      if (broken.has(key)) return 'I cannot decide. {"score": 2}';
      if (flaky.has(key) && n === 1) return '```json\n{"score": 2,}\n```';
      const a = answer(prompt);
      if (a === undefined) return { status: 400, error: `unexpected prompt: ${prompt.slice(0, 80)}` };
      return a;
    },
  });
});
afterAll(async () => {
  await server?.close();
});

const llms: Llm[] = [];
function llm(extra: Record<string, unknown> = {}): Llm {
  const l = createLlm({
    model: 'test-model',
    baseURL: server.baseURL,
    apiKeyEnv: KEY_ENV,
    env: { [KEY_ENV]: 'dummy-key' },
    cacheDir: join(dir, 'cache'),
    progress: false,
    backoffBaseMs: 1,
    maxAttempts: 2,
    ...extra,
  });
  llms.push(l);
  return l;
}

function fresh() {
  dir = mkdtempSync(join(tmpdir(), 'memory-judge-'));
  broken.clear();
  flaky.clear();
  seen.clear();
}
afterEach(async () => {
  for (const l of llms.splice(0)) await l.close();
  rmSync(dir, { recursive: true, force: true });
});

const stripValid = (r: Record<string, unknown>) => {
  const { is_valid: _drop, ...rest } = r;
  return rest;
};

describeMemory(
  'judgeRunArtifact over the shared sample artifact (scripted server replaying the recorded GPT-4o judgements)',
  () => {
    it('completes, reproduces the fixture overall_score exactly and writes HaluMem-shaped files', async () => {
      fresh();
      const before = server.chatRequests().length;
      const out = join(dir, 'exia_eval_stat_result.json');
      const r = await judgeRunArtifact({ artifact: SAMPLE_ARTIFACT, llm: llm(), out });
      expect(r.complete).toBe(true);
      // 163 + 191 + 24 + 32 judgements, one call each, no system message, reference parameters
      const calls = server.chatRequests().slice(before);
      expect(calls).toHaveLength(410);
      expect(calls.every((c) => c.body.messages.length === 1 && c.body.messages[0].role === 'user')).toBe(true);
      expect(
        calls.every((c) => c.body.temperature === 0 && c.body.max_tokens === 16384 && c.body.seed === undefined),
      ).toBe(true);
      const { time_consuming, ...overall } = r.overall!;
      expect(overall).toStrictEqual(expected);
      expect(JSON.stringify(overall)).toBe(JSON.stringify(expected));
      // spec: derived time_consuming of the sample artifact
      expect(time_consuming).toStrictEqual({
        add_dialogue_duration_time: 6.567127,
        search_memory_duration_time: 0.23362766666666662,
        total_duration_time: 6.800754666666667,
      });
      // every record equals the recorded one (same fields, same order), plus is_valid
      for (const key of [
        'memory_integrity_records',
        'memory_accuracy_records',
        'memory_update_records',
        'question_answering_records',
      ] as const) {
        const mine = r.records![key].map((x) => JSON.stringify(stripValid(x as Record<string, unknown>))).sort();
        const theirs = recorded[key].map((x) => JSON.stringify(x)).sort();
        expect(mine, key).toEqual(theirs);
        expect(r.records![key].every((x) => (x as { is_valid?: boolean }).is_valid === true)).toBe(true);
      }
      // the stat result file: HaluMem's shape, re-aggregates to the same numbers
      const written = JSON.parse(readFileSync(out, 'utf8'));
      expect(Object.keys(written)).toEqual([
        'overall_score',
        'memory_integrity_records',
        'memory_accuracy_records',
        'memory_update_records',
        'question_answering_records',
      ]);
      expect(readFileSync(out, 'utf8')).toContain('"importance": 0.75,');
      const again = aggregateEvalResults(recordsFromJson(written, out));
      expect(again).toStrictEqual(overall);
      // per-user cache (tmp2/<uuid>.json)
      expect(readdirSync(r.workDir).filter((f) => f.endsWith('.json'))).toEqual([
        '2f1f897e-d67f-dbc5-6a7b-b7634a9e294f.json',
      ]);

      // a second run finds the user cached: no call at all
      const n = server.chatRequests().length;
      const r2 = await judgeRunArtifact({ artifact: SAMPLE_ARTIFACT, llm: llm(), out });
      expect(r2.users[0]!.status).toBe('cached');
      expect(server.chatRequests().length).toBe(n);
      expect(r2.overall).toStrictEqual(r.overall);
    });

    it('injected judge failures show up in the (all)/(valid) split as the reference records them', async () => {
      fresh();
      const integrityHits = recorded.memory_integrity_records.filter(
        (x) => x.memory_source !== 'interference' && x.memory_integrity_score === 2,
      );
      const included = recorded.memory_accuracy_records.filter(
        (x) => x.is_included_in_golden_memories === 'true' && x.memory_accuracy_score === 2,
      );
      const failedIntegrity = integrityHits.slice(0, 2).map((x) => `integrity\0${x.memory_content}`);
      const failedAccuracy = `accuracy\0${included[0]!.memory_content}`;
      const correctUpdate = recorded.memory_update_records.find((x) => x.memory_update_type === 'Correct')!;
      const questions = recorded.question_answering_records.map((x) => (x as { question: string }).question);
      const correctQa = recorded.question_answering_records.find(
        (x) =>
          x.result_type === 'Correct' &&
          questions.filter((q) => q === (x as { question: string }).question).length === 1,
      )!;
      for (const k of [...failedIntegrity, failedAccuracy, `update\0${correctUpdate.memory_content}`]) broken.add(k);
      broken.add(`question\0${(correctQa as { question: string }).question}`);
      // one answer is unusable once, then fine: the retry (new seed) recovers it
      const flakyKey = `integrity\0${integrityHits[5]!.memory_content}`;
      flaky.add(flakyKey);

      const r = await judgeRunArtifact({ artifact: SAMPLE_ARTIFACT, llm: llm(), out: join(dir, 'stat.json') });
      expect(r.complete).toBe(true);
      // each broken judgement was tried 3 times (RETRY_TIMES), then recorded with the failure value
      for (const k of broken) expect(seen.get(k), k).toBe(3);
      expect(seen.get(flakyKey)).toBe(2);
      expect(r.failedJudgements).toBe(5);
      const o = r.overall!;
      // Hand derivation from the fixture: 102 of 147 non-interference points scored 2 (recall 0.6938775510204082 = 102/147);
      // two of those now fail → hits 100, all = 147, valid = 145.
      expect(o.memory_integrity['recall(all)']).toBe(100 / 147);
      expect(o.memory_integrity['recall(valid)']).toBe(100 / 145);
      expect(o.memory_integrity.memory_valid_num).toBe(145);
      // weighted: wsum was 0.7755102040816326 · 110.25 = 85.5; minus 2 · 0.75 → 84; valid importance 110.25 − 1.5
      expect(o.memory_integrity['weighted_recall(all)']).toBe(84 / 110.25);
      expect(o.memory_integrity['weighted_recall(valid)']).toBe(84 / 108.75);
      // accuracy: the failed record is stored with null / "false", so it leaves the target set (148 → 147 targets),
      // stays in the weighted-accuracy (all) denominator (191) and leaves the valid one (190).
      const acc = o.memory_accuracy;
      expect(acc.target_memory_num).toBe(147);
      expect(acc.memory_num).toBe(191);
      expect(acc.memory_valid_num).toBe(190);
      // target sum was 0.9391891891891891 · 148 = 139; minus 1.0
      expect(acc['target_accuracy(all)']).toBe(138 / 147);
      // weighted sum was 0.7617801047120419 · 191 = 145.5; minus 1.0
      expect(acc['weighted_accuracy(all)']).toBe(144.5 / 191);
      expect(acc['weighted_accuracy(valid)']).toBe(144.5 / 190);
      // update: 21 of 24 Correct before; one fails → 20/24 (all), 20/23 (valid)
      expect(o.memory_update['correct_update_memory_ratio(all)']).toBe(20 / 24);
      expect(o.memory_update['correct_update_memory_ratio(valid)']).toBe(20 / 23);
      // QA: 19 of 32 Correct before (0.59375); one fails → 18/32, 18/31
      expect(o.question_answering['correct_qa_ratio(all)']).toBe(18 / 32);
      expect(o.question_answering['correct_qa_ratio(valid)']).toBe(18 / 31);
      const failedAcc = r.records!.memory_accuracy_records.find((x) => x.memory_accuracy_score === null)!;
      expect(failedAcc.is_included_in_golden_memories).toBe('false');
      expect(failedAcc.is_valid).toBe(false);
      const failedUpdate = r.records!.memory_update_records.filter((x) => x.memory_update_type === null);
      expect(failedUpdate).toHaveLength(1);
    });

    it('resumes an interrupted user from its journal without repeating finished judgements', async () => {
      fresh();
      const controller = new AbortController();
      const before = server.chatRequests().length;
      const first = llm({ concurrency: 2, itemConcurrency: 2 });
      let finished = 0;
      const out = join(dir, 'stat.json');
      const stop = setInterval(() => {
        if (server.chatRequests().length - before >= 60) controller.abort();
      }, 1);
      const r1 = await judgeRunArtifact({
        artifact: SAMPLE_ARTIFACT,
        llm: first,
        out,
        signal: controller.signal,
      }).finally(() => clearInterval(stop));
      expect(r1.complete).toBe(false);
      expect(r1.users[0]!.status).toBe('incomplete');
      expect(existsSync(out)).toBe(false);
      const journal = readFileSync(join(r1.workDir, '2f1f897e-d67f-dbc5-6a7b-b7634a9e294f.journal.jsonl'), 'utf8')
        .trim()
        .split('\n');
      finished = journal.length;
      expect(finished).toBeGreaterThan(0);
      expect(finished).toBeLessThan(410);

      const mid = server.chatRequests().length;
      // cache off: every judgement not in the journal must be asked again, none of the journaled ones
      const r2 = await judgeRunArtifact({ artifact: SAMPLE_ARTIFACT, llm: llm({ cache: 'off' }), out });
      expect(r2.complete).toBe(true);
      expect(server.chatRequests().length - mid).toBe(410 - finished);
      const { time_consuming: _t, ...overall } = r2.overall!;
      expect(overall).toStrictEqual(expected);
    });

    it('dry run: records the 410 requests, writes no result', async () => {
      fresh();
      const before = server.chatRequests().length;
      const requestsFile = join(dir, 'requests.jsonl');
      const logs: string[] = [];
      const r = await judgeRunArtifact({
        artifact: SAMPLE_ARTIFACT,
        llm: llm({ dryRun: { requestsFile }, log: (l: string) => logs.push(l) }),
        out: join(dir, 'stat.json'),
      });
      expect(r.complete).toBe(false);
      expect(server.chatRequests().length).toBe(before);
      expect(readFileSync(requestsFile, 'utf8').trim().split('\n')).toHaveLength(410);
      expect(existsSync(join(dir, 'stat.json'))).toBe(false);
      expect(existsSync(r.workDir)).toBe(false);
      expect(logs.join('\n')).toMatch(/410 calls/);
    });

    it('--batch: the judgements go through the Batch API, then complete from the cache', async () => {
      fresh();
      const before = server.requests.length;
      const r = await judgeRunArtifact({
        artifact: SAMPLE_ARTIFACT,
        llm: llm({ batch: { pollIntervalMs: 1 }, log: () => {} }),
        out: join(dir, 'stat.json'),
      });
      expect(r.complete).toBe(true);
      const { time_consuming: _t, ...overall } = r.overall!;
      expect(overall).toStrictEqual(expected);
      const paths = server.requests.slice(before).map((q) => q.path);
      expect(paths.filter((p) => p.endsWith('/chat/completions'))).toHaveLength(0);
      expect(paths.some((p) => p.endsWith('/batches'))).toBe(true);
      expect(r.summaries[0]!.batch?.answered).toBe(410);
    });

    it('refuses a work directory judged with other settings', async () => {
      fresh();
      const out = join(dir, 'stat.json');
      // maxUsers 0 judges nobody (then finds no records to pool) but records the settings of the work directory
      await expect(judgeRunArtifact({ artifact: SAMPLE_ARTIFACT, llm: llm(), out, maxUsers: 0 })).rejects.toThrow(
        /no \*\.json record files/,
      );
      await expect(
        judgeRunArtifact({ artifact: SAMPLE_ARTIFACT, llm: llm(), out, routing: 'corrected' }),
      ).rejects.toThrow(/other settings/);
      await expect(judgeRunArtifact({ artifact: SAMPLE_ARTIFACT, llm: llm(), out, maxUsers: 0 })).rejects.toThrow(
        /no \*\.json record files/,
      );
    });
  },
);

describeMemory('errors that say nothing about the item', () => {
  it('a rejected key stops the run instead of storing failures for every record', async () => {
    fresh();
    const rejecting = await startTestServer({ apiKey: 'the-right-key' });
    try {
      const l = createLlm({
        model: 'm',
        baseURL: rejecting.baseURL,
        apiKeyEnv: KEY_ENV,
        env: { [KEY_ENV]: 'wrong' },
        cacheDir: join(dir, 'c'),
        progress: false,
      });
      llms.push(l);
      await expect(
        judgeRunArtifact({ artifact: SAMPLE_ARTIFACT, llm: l, out: join(dir, 'stat.json') }),
      ).rejects.toThrow(/401/);
      // nothing cached for the user: a later run with the right key judges everything
      expect(readdirSync(join(dir, 'stat.tmp2')).filter((f) => f.endsWith('.json'))).toEqual([]);
      expect(rejecting.chatRequests().length).toBeLessThan(100);
    } finally {
      await rejecting.close();
    }
  });

  it('a replay-cache miss stops the run', async () => {
    fresh();
    await expect(
      judgeRunArtifact({ artifact: SAMPLE_ARTIFACT, llm: llm({ cache: 'replay' }), out: join(dir, 'stat.json') }),
    ).rejects.toThrow(/cache miss/);
  });
});

describe('callJudge', () => {
  it('int() failures are not retried: the JSON is returned as is', async () => {
    fresh();
    const l = llm();
    const before = server.chatRequests().length;
    const prompt = `You are a strict **"Memory Integrity" evaluator**.\nno match here`;
    // the server answers 400 for unknown prompts: an API error is thrown (recorded as a failure by runJobs)
    await expect(callJudge(l.model, prompt)).rejects.toThrow();
    expect(server.chatRequests().length - before).toBe(1);
  });
});
