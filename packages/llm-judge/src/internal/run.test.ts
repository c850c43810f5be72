import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLlm } from '@eval/llm';
import { startTestServer, type TestServer } from '@eval/llm/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import { evaluateOutputFiles, evaluationToJson } from './evaluate';
import { importRecordedOutputs } from './import';
import { readOutputEntries, serializeOutputEntries, type OutputEntry } from './recorded';
import { parseJsonPy } from './json';
import { recordFromPy, type TurnRecord } from './records';
import { runJudge } from './run';
import { loadTemplates } from './templates';

const SLICE = referencePath('llm-judge/slice');
const TEMPLATES = referencePath('llm-judge/templates');
const ACC = join(SLICE, 'ours_acc_outputs.json');
const COMP = join(SLICE, 'ours_comp_outputs.json');

/** The slice's records in the reference layout: dialogues by first appearance in the completeness file, turns ascending. */
function recordsOf(entries: readonly OutputEntry[]): TurnRecord[] {
  const byDialogue = new Map<string, TurnRecord[]>();
  for (const e of entries) {
    const list = byDialogue.get(e.record.dialogueId) ?? [];
    list.push(e.record);
    byDialogue.set(e.record.dialogueId, list);
  }
  return [...byDialogue.values()].flatMap((l) => l.sort((a, b) => a.turnIndex - b.turnIndex));
}

const json = (e: Parameters<typeof evaluationToJson>[0]) => {
  const j = evaluationToJson(e);
  delete (j.summary as Record<string, unknown>).parsedVia;
  return j;
};

describeWithReferenceData('llm-judge/slice', 'llm-judge/templates')(
  'runJudge through @eval/llm against the scripted server',
  () => {
    let server: TestServer;
    let dir: string;
    let accEntries: OutputEntry[];
    let compEntries: OutputEntry[];
    const env = { LLM_JUDGE_TEST_KEY: 'sk-test-not-real' };

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'llm-judge-run-'));
      accEntries = await readOutputEntries(ACC);
      compEntries = await readOutputEntries(COMP);
      const answers = new Map<string, string>();
      for (const e of [...accEntries, ...compEntries]) if (e.prompt) answers.set(e.prompt, e.output);
      server = await startTestServer({
        respond: (req) => {
          const prompt = req.messages[req.messages.length - 1]!.content;
          const answer = answers.get(prompt);
          return answer === undefined ? { status: 400, error: 'unknown prompt' } : answer;
        },
      });
    });
    afterAll(async () => {
      await server?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('a full run of Ours on the slice, served the recorded outputs, equals the import (re-aggregation) path', async () => {
      const templates = await loadTemplates(['ours-accuracy', 'ours-completeness'], { dir: TEMPLATES });
      const llm = createLlm({
        model: 'gpt-4-1106-preview',
        baseURL: server.baseURL,
        apiKeyEnv: 'LLM_JUDGE_TEST_KEY',
        env,
        cacheDir: join(dir, 'cache-live'),
        progress: false,
      });
      const records = recordsOf(compEntries);
      const run = await runJudge({ method: 'ours', records, templates, llm });
      await llm.close();
      // 42 completeness calls + one accuracy call per turn with a non-empty predicted turn label
      const accCalls = records.filter((r) => r.predictTurnLabel.size > 0).length;
      expect(server.chatRequests().length).toBe(42 + accCalls);
      for (const r of server.chatRequests()) {
        expect(r.body.temperature).toBe(0);
        expect(r.body.messages[0]).toEqual({ role: 'system', content: 'You are a helpful assistant' });
      }
      expect(run.failedCalls).toEqual([]);
      const imported = await evaluateOutputFiles('ours', [ACC, COMP]);
      expect(json(run.evaluation!)).toEqual(json(imported));

      // the skipped accuracy calls are placeholders, as in the recorded file
      if (!('accuracy' in run.outputs)) throw new Error('two-step outputs expected');
      expect(run.outputs.accuracy.filter((e) => e.prompt === '').length).toBe(42 - accCalls);
      // the native outputs written by a run read back as recorded outputs
      const back = (parseJsonPy(serializeOutputEntries(run.outputs.completeness)) as unknown as unknown[][]).map((x) =>
        recordFromPy(x[0] as never),
      );
      expect(back.map((r) => r.flag)).toEqual(records.map((r) => r.flag));
    });

    it('importing the recorded outputs into the cache makes a replay run need no LLM call', async () => {
      const cacheDir = join(dir, 'cache-import');
      const templates = await loadTemplates(
        ['ours-accuracy', 'ours-completeness', 'twodim-cot-accuracy', 'twodim-cot-completeness', 'direct', 'cot'],
        { dir: TEMPLATES },
      );
      const report = await importRecordedOutputs({ files: [ACC, COMP], templates, cacheDir });
      expect(report.files.map((f) => f.role)).toEqual(['ours-accuracy', 'ours-completeness']);
      expect(report.files[1]!.verified).toBe(42);
      expect(report.files[0]!.verified + report.files[0]!.placeholders).toBe(42);
      const before = server.chatRequests().length;
      const llm = createLlm({ model: 'gpt-4-1106-preview', cache: 'replay', cacheDir, env: {}, progress: false });
      const run = await runJudge({ method: 'ours', records: recordsOf(compEntries), templates, llm });
      await llm.close();
      expect(server.chatRequests().length).toBe(before);
      expect(run.llm.cacheHits).toBe(report.files[0]!.verified + 42);
      expect(run.llm.calls).toBe(0);
      expect(json(run.evaluation!)).toEqual(json(await evaluateOutputFiles('ours', [ACC, COMP])));
      // a second import finds everything in place
      const again = await importRecordedOutputs({ files: [ACC, COMP], templates, cacheDir });
      expect(again.files.every((f) => f.written === 0 && f.replaced === 0)).toBe(true);
    });

    it('import refuses recorded prompts that the templates do not reproduce, and writes nothing', async () => {
      const templates = await loadTemplates(['ours-completeness'], { dir: TEMPLATES });
      const tampered = join(dir, 'tampered.json');
      const entries = compEntries.map((e, i) =>
        i === 3 ? { ...e, prompt: e.prompt.replace('# Current Turn', '# Current  Turn') } : e,
      );
      await (await import('node:fs/promises')).writeFile(tampered, serializeOutputEntries(entries));
      await expect(
        importRecordedOutputs({
          files: [tampered],
          templates,
          cacheDir: join(dir, 'cache-none'),
          role: 'ours-completeness',
        }),
      ).rejects.toThrow(/tampered\.json, record 3: 1 recorded prompt\(s\) differ/);
      const { existsSync } = await import('node:fs');
      expect(existsSync(join(dir, 'cache-none'))).toBe(false);
    });

    it('a failed call on one turn is recorded and reported; the run goes on', async () => {
      const failing = await startTestServer({
        respond: (req) => {
          const prompt = req.messages[req.messages.length - 1]!.content;
          if (prompt.includes('"User": i want to leave after 17:15'))
            return { status: 400, error: 'bad request (scripted)' };
          const e = [...accEntries, ...compEntries].find((x) => x.prompt === prompt);
          return e ? e.output : { status: 400, error: 'unknown prompt' };
        },
      });
      try {
        const templates = await loadTemplates(['ours-accuracy', 'ours-completeness'], { dir: TEMPLATES });
        const llm = createLlm({
          model: 'm',
          baseURL: failing.baseURL,
          apiKeyEnv: 'LLM_JUDGE_TEST_KEY',
          env,
          cacheDir: join(dir, 'cache-fail'),
          maxAttempts: 1,
          progress: false,
        });
        const run = await runJudge({
          method: 'ours',
          records: recordsOf(compEntries),
          templates,
          llm,
          journal: join(dir, 'journal.jsonl'),
        });
        await llm.close();
        expect(run.failedCalls.map((f) => `${f.stage}:${f.flag}`).sort()).toEqual([
          'accuracy:SNG0073.json-1',
          'completeness:SNG0073.json-1',
        ]);
        const e = run.evaluation!;
        expect(e.summary.llmFailures).toBe(2);
        expect(e.summary.skippedTurns).toBe(1);
        expect(e.turns.length).toBe(41);
        expect(e.turns.some((t) => t.flag === 'SNG0073.json-1')).toBe(false);
      } finally {
        await failing.close();
      }
    });

    it('--batch: the calls go through the Batch API, then the run completes from the cache', async () => {
      const templates = await loadTemplates(['cot'], { dir: TEMPLATES });
      const cot = await readOutputEntries(join(SLICE, 'cot_outputs.json'));
      const byPrompt = new Map(cot.map((e) => [e.prompt, e.output]));
      const batchServer = await startTestServer({
        respond: (req) =>
          byPrompt.get(req.messages[req.messages.length - 1]!.content) ?? { status: 400, error: 'unknown' },
      });
      try {
        const llm = createLlm({
          model: 'm',
          baseURL: batchServer.baseURL,
          apiKeyEnv: 'LLM_JUDGE_TEST_KEY',
          env,
          cacheDir: join(dir, 'cache-batch'),
          batch: { pollIntervalMs: 10 },
          progress: false,
          log: () => {},
        });
        const records = recordsOf(cot.map((e) => e));
        const run = await runJudge({ method: 'cot', records, templates, llm });
        await llm.close();
        expect(run.llm.batch?.answered).toBe(42);
        expect(batchServer.chatRequests().length).toBe(0);
        expect(json(run.evaluation!)).toEqual(
          json(await evaluateOutputFiles('cot', [join(SLICE, 'cot_outputs.json')])),
        );
      } finally {
        await batchServer.close();
      }
    });

    it('Two-dimensional CoT uses its own accuracy and completeness templates through the two-step rules', async () => {
      const templates = await loadTemplates(['twodim-cot-accuracy', 'twodim-cot-completeness'], { dir: TEMPLATES });
      const records = recordsOf(compEntries).filter((r) => r.dialogueId === 'SNG0073.json');
      const seen: string[] = [];
      // a scripted judge: accuracy prompts flag every predicted slot, completeness prompts report nothing missed
      const judgeServer = await startTestServer({
        respond: (req) => {
          const prompt = req.messages[req.messages.length - 1]!.content;
          seen.push(prompt);
          if (prompt.includes('"incorrect_domain_slot"')) {
            const label = /"State of this turn": (\{.*\})\n/.exec(prompt)![1]!;
            const keys = [...label.matchAll(/'([^']+)': /g)].map((m) => m[1]!);
            return (
              '```json\n' +
              JSON.stringify({
                step_by_step_thinking: '',
                incorrect_domain_slot: Object.fromEntries(keys.map((k) => [k, 'x'])),
              }) +
              '\n```'
            );
          }
          return '```json\n{"step_by_step_thinking": "", "missed_domain_slot": {}}\n```';
        },
      });
      try {
        const llm = createLlm({
          model: 'm',
          baseURL: judgeServer.baseURL,
          apiKeyEnv: 'LLM_JUDGE_TEST_KEY',
          env,
          cacheDir: join(dir, 'cache-twodim'),
          progress: false,
        });
        const run = await runJudge({ method: 'twodim-cot', records, templates, llm });
        await llm.close();
        const withLabel = records.filter((r) => r.predictTurnLabel.size > 0);
        expect(seen.length).toBe(records.length + withLabel.length);
        expect(seen.filter((p) => p.includes('"missed_domain_slot"')).length).toBe(records.length);
        // every turn with a predicted label is judged wrong, the others right (nothing missed)
        expect(run.evaluation!.turns.map((t) => t.judge)).toEqual(
          records.map((r) => (r.predictTurnLabel.size > 0 ? 0 : 1)),
        );
      } finally {
        await judgeServer.close();
      }
    });

    it('a dry run sends nothing and reports the planned calls', async () => {
      const templates = await loadTemplates(['direct'], { dir: TEMPLATES });
      const before = server.chatRequests().length;
      const lines: string[] = [];
      const llm = createLlm({
        model: 'gpt-4o-mini',
        baseURL: server.baseURL,
        env: {},
        cacheDir: join(dir, 'cache-dry'),
        dryRun: true,
        progress: false,
        log: (l) => lines.push(l),
      });
      const run = await runJudge({ method: 'direct', records: recordsOf(compEntries), templates, llm });
      await llm.close();
      expect(server.chatRequests().length).toBe(before);
      expect(run.evaluation).toBeUndefined();
      expect(run.notRun).toBe(42);
      expect(run.llm.dryRun?.calls).toBe(42);
      expect(run.llm.dryRun?.estimate.realistic.calls).toBe(42);
      expect(lines.join('\n')).toMatch(/42 calls to send/);
    });
  },
);
