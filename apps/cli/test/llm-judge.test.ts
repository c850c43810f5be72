import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateOutputFiles, readOutputEntries, serializeTurnRecords, type TurnRecord } from '@eval/llm-judge';
import { startTestServer, type TestServer } from '@eval/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED, hasReferenceData, itWithReferenceData, runCli } from './cli';

const LJ = join(SHARED, 'llm-judge');
const HAS_LLM_JUDGE = hasReferenceData('llm-judge');
const itLlmJudge = itWithReferenceData('llm-judge');
const SLICE = join(LJ, 'slice');
const TEMPLATES = join(LJ, 'templates');
const KEY_ENV = 'DIALEVAL_LLM_JUDGE_TEST_KEY';
const expected = (name: string) => JSON.parse(readFileSync(join(SLICE, name), 'utf8'));

let dir: string;
let server: TestServer;
let recordsFile: string;
const answers = new Map<string, string>();

/** The slice's records in the reference layout (dialogues by first appearance in the completeness file). */
async function sliceRecords(): Promise<TurnRecord[]> {
  const entries = await readOutputEntries(join(SLICE, 'ours_comp_outputs.json'));
  const by = new Map<string, TurnRecord[]>();
  for (const e of entries) by.set(e.record.dialogueId, [...(by.get(e.record.dialogueId) ?? []), e.record]);
  return [...by.values()].flatMap((l) => l.sort((a, b) => a.turnIndex - b.turnIndex));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dialeval-llm-judge-cli-'));
  recordsFile = join(dir, 'slice_records.json');
  if (HAS_LLM_JUDGE) {
    writeFileSync(recordsFile, serializeTurnRecords(await sliceRecords()));
    for (const f of ['ours_acc_outputs.json', 'ours_comp_outputs.json', 'direct_outputs.json', 'cot_outputs.json']) {
      for (const e of await readOutputEntries(join(SLICE, f))) if (e.prompt) answers.set(e.prompt, e.output);
    }
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

const env = () => ({ [KEY_ENV]: 'dummy', CI: '1', DIALEVAL_HOME: join(dir, 'home') });

describe('dialeval llm-judge report', () => {
  itLlmJudge(
    're-aggregates the recorded slice (directory layout) into the expected metrics of all three methods',
    async () => {
      const r = await runCli(['llm-judge', 'report', SLICE, '--format', 'json'], { env: env() });
      // the slice's predictions use a name outside the 30-slot schema: a counted warning, judged wrong by the rules
      expect(r.stderr).toMatch(/ours: predicted slot names outside the schema \(judged wrong\): restaurant-type/);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      const byMethod = Object.fromEntries(out.methods.map((m: { method: string }) => [m.method, m]));
      const ours = expected('expected_ours.json').metrics_percent;
      expect(byMethod.ours.metrics).toMatchObject({
        turns: 42,
        tsaGpt: ours.TSA_gpt,
        tsaRuleMwz21: ours.TSA_rule_mwz21,
        tsaRuleMwz24: ours.TSA_rule_mwz24,
        coherenceMwz21: ours.coherence_mwz21,
        coherenceMwz24: ours.coherence_mwz24,
        gptJga: ours['GPT_JGA_repo(already-before-turn)'],
        ruleJgaMwz21: ours.JGA_rule_mwz21_fixed,
        ruleJgaMwz24: ours.JGA_rule_mwz24_fixed,
      });
      for (const m of ['direct', 'cot']) {
        const e = expected(`expected_${m}.json`).metrics_percent;
        expect(byMethod[m].metrics).toMatchObject({
          tsaGpt: e.TSA_gpt,
          tsaRuleMwz21: e.TSA_rule_mwz21_single_step_calc,
          tsaRuleMwz24: e.TSA_rule_mwz24_single_step_calc,
          coherenceMwz21: e.coherence_mwz21,
          coherenceMwz24: e.coherence_mwz24,
          gptJga: e['GPT_JGA_repo(already-before-turn)'],
        });
        expect(byMethod[m].incoherent.mwz24).toEqual(expected(`expected_${m}.json`).incoherent_with_mwz24_flags);
      }
    },
  );

  itLlmJudge('--rule-jga reference gives the printed (+1) rule JGA; the table shows two decimals', async () => {
    const r = await runCli(
      [
        'llm-judge',
        'report',
        '--outputs',
        `ours=${join(SLICE, 'ours_acc_outputs.json')},${join(SLICE, 'ours_comp_outputs.json')}`,
        '--rule-jga',
        'reference',
      ],
      {
        env: env(),
      },
    );
    expect(r.code).toBe(0);
    const ours = expected('expected_ours.json').metrics_percent;
    const row = r.stdout.split('\n').find((l) => l.startsWith('ours'))!;
    expect(row).toContain(ours.TSA_gpt.toFixed(2));
    expect(row).toContain(ours.JGA_rule_mwz21_repo_buggy_plus1.toFixed(2));
    expect(row).toContain(ours.JGA_rule_mwz24_repo_buggy_plus1.toFixed(2));
  });

  itLlmJudge('rule-only metrics of a prediction file (spec 6.2, DA-P row)', async () => {
    const r = await runCli(
      [
        'llm-judge',
        'report',
        '--records',
        join(LJ, 'predictions', 'da-p_sampled.json.gz'),
        '--format',
        'json',
        '--rule-jga',
        'reference',
      ],
      { env: env() },
    );
    expect(r.code).toBe(0);
    const { rules } = JSON.parse(r.stdout);
    expect(rules.tsa['two-step']).toEqual({ mwz21: 75.0, mwz24: 80.32786885245902 });
    expect(rules.tsa['single-step']).toEqual({ mwz21: 73.77049180327869, mwz24: 78.96174863387978 });
    expect(rules.ruleJga).toEqual({ mwz21: 38.52459016393443, mwz24: 47.540983606557376 });
  });

  itLlmJudge(
    'human check: the paper formula, kappa and confusion per judge (hand-made annotations of the slice)',
    async () => {
      // Annotate Ours's 6 disagreements with RULE-M24: humans side with the judge on all of them.
      // accuracy(Ours) = (42 - 6 + 6) / 42 * 100 = 100; accuracy(RULE-M24) = (42 - 6 + 0) / 42 * 100.
      const ours = await evaluateOutputFiles('ours', [
        join(SLICE, 'ours_acc_outputs.json'),
        join(SLICE, 'ours_comp_outputs.json'),
      ]);
      const human: Record<string, number> = {};
      for (const t of ours.turns) if (t.judge !== t.ruleMwz24) human[t.flag] = t.judge;
      expect(Object.keys(human).length).toBe(6);
      const file = join(dir, 'human.json');
      writeFileSync(file, JSON.stringify(human));
      const r = await runCli(['llm-judge', 'report', SLICE, '--human', file, '--format', 'json'], { env: env() });
      expect(r.code).toBe(0);
      const rows = Object.fromEntries(JSON.parse(r.stdout).humanCheck.rows.map((x: { name: string }) => [x.name, x]));
      expect(rows.ours.accuracy).toBe(100);
      expect(rows['RULE-M24'].accuracy).toBe(((42 - 6) / 42) * 100);
      expect(rows.ours.confusion.judgeRightHumanWrong + rows.ours.confusion.judgeWrongHumanRight).toBe(0);
    },
  );

  it('bad input: an empty directory, a broken output file', async () => {
    let r = await runCli(['llm-judge', 'report', dir], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no judge outputs found/);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, JSON.stringify([[{ flag: 'X.json-0' }, 'out', 'prompt']]));
    r = await runCli(['llm-judge', 'report', '--outputs', `direct=${broken}`], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/broken\.json, record 0, field history: expected a list of utterances, got nothing/);
  });
});

describe('dialeval llm-judge import + run', () => {
  itLlmJudge(
    'import checks every prompt and fills the cache; run --cache replay then re-aggregates with no LLM call',
    async () => {
      const cache = join(dir, 'cache-import');
      const files = [join(SLICE, 'ours_acc_outputs.json'), join(SLICE, 'ours_comp_outputs.json')];
      const imp = await runCli(
        ['llm-judge', 'import', ...files, '--templates', TEMPLATES, '--cache-dir', cache, '--format', 'json'],
        { env: env() },
      );
      expect(imp.code).toBe(0);
      const report = JSON.parse(imp.stdout);
      expect(report.files.map((f: { role: string }) => f.role)).toEqual(['ours-accuracy', 'ours-completeness']);
      expect(report.files[1].written).toBe(42);
      const before = server.chatRequests().length;
      const out = join(dir, 'replay');
      const run = await runCli(
        [
          'llm-judge',
          'run',
          '--method',
          'ours',
          '--records',
          recordsFile,
          '--templates',
          TEMPLATES,
          '--model',
          'gpt-4-1106-preview',
          '--cache',
          'replay',
          '--cache-dir',
          cache,
          '--out',
          out,
          '--format',
          'json',
        ],
        { env: env() },
      );
      expect(run.stderr).not.toMatch(/error|\b[1-9]\d* (failed|skipped)/);
      expect(run.stderr).toMatch(/complete: every item was evaluated/);
      expect(run.code).toBe(0);
      expect(server.chatRequests().length).toBe(before);
      const res = JSON.parse(run.stdout);
      const e = expected('expected_ours.json').metrics_percent;
      expect(res.metrics.tsaGpt).toBe(e.TSA_gpt);
      expect(res.metrics.gptJga).toBe(e['GPT_JGA_repo(already-before-turn)']);
      expect(res.llm.calls).toBe(0);
      // the run's own output files are recorded outputs again: report reads them
      expect(
        existsSync(join(out, 'ours_acc_outputs.json')) &&
          existsSync(join(out, 'ours_comp_outputs.json')) &&
          existsSync(join(out, 'ours_result.json')),
      ).toBe(true);
      const again = JSON.parse((await runCli(['llm-judge', 'report', out, '--format', 'json'], { env: env() })).stdout);
      expect(again.methods[0].metrics.coherenceMwz24).toBe(e.coherence_mwz24);
    },
  );

  itLlmJudge(
    'import --namespace: two recorded runs with the same prompts live in one cache; each replays to its own figures',
    async () => {
      const cache = join(dir, 'cache-ns');
      const a = join(SLICE, 'direct_outputs.json');
      // run B: the same prompts, the answers of the first 10 turns rotated among themselves (a different judge run)
      const entries = JSON.parse(readFileSync(a, 'utf8')) as unknown[][];
      const b = join(dir, 'direct_outputs_b.json');
      writeFileSync(b, JSON.stringify(entries.map((e, i) => (i < 10 ? [e[0], entries[(i + 1) % 10]![1], e[2]] : e))));
      const imp = (file: string, ns?: string) =>
        runCli(
          [
            'llm-judge',
            'import',
            file,
            '--templates',
            TEMPLATES,
            '--role',
            'direct',
            '--cache-dir',
            cache,
            '--format',
            'json',
            ...(ns ? ['--namespace', ns] : []),
          ],
          { env: env() },
        );
      // without a namespace B overwrites A's entries (what --namespace is for)
      const plainA = JSON.parse((await imp(a)).stdout).files[0];
      const plainB = JSON.parse((await imp(b)).stdout).files[0];
      expect(plainA.written).toBe(42);
      expect(plainB.replaced).toBeGreaterThan(0);
      const nsA = JSON.parse((await imp(a, 'run-a')).stdout).files[0];
      const nsB = JSON.parse((await imp(b, 'run-b')).stdout).files[0];
      expect(nsA).toMatchObject({ written: 42, replaced: 0 });
      expect(nsB).toMatchObject({ written: 42, replaced: 0 });
      const replay = async (ns: string) => {
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
            '--model',
            'gpt-4-1106-preview',
            '--cache',
            'replay',
            '--cache-dir',
            cache,
            '--namespace',
            ns,
            '--out',
            join(dir, `ns-${ns}`),
            '--format',
            'json',
          ],
          { env: env() },
        );
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout).metrics;
      };
      const reportOf = async (file: string) =>
        JSON.parse(
          (await runCli(['llm-judge', 'report', '--outputs', `direct=${file}`, '--format', 'json'], { env: env() }))
            .stdout,
        ).methods[0].metrics;
      expect(await replay('run-a')).toEqual(await reportOf(a));
      expect(await replay('run-b')).toEqual(await reportOf(b));
      expect((await reportOf(a)).tsaGpt).toBe(expected('expected_direct.json').metrics_percent.TSA_gpt);
      expect(await reportOf(b)).not.toEqual(await reportOf(a));
    },
  );

  itLlmJudge('import refuses outputs whose prompts the templates do not reproduce (exit 2)', async () => {
    const r = await runCli(
      [
        'llm-judge',
        'import',
        join(SLICE, 'direct_outputs.json'),
        '--templates',
        TEMPLATES,
        '--role',
        'cot',
        '--cache-dir',
        join(dir, 'c2'),
      ],
      { env: env() },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /direct_outputs\.json, record 0: 42 recorded prompt\(s\) differ from the cot template rendering/,
    );
    expect(existsSync(join(dir, 'c2'))).toBe(false);
  });

  itLlmJudge(
    'run --method direct against the scripted endpoint, then --dry-run prints calls and the estimated cost',
    async () => {
      const out = join(dir, 'live');
      const base = [
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
      ];
      const r = await runCli([...base, '--model', 'test-model', '--cache-dir', join(dir, 'cache-live'), '--out', out], {
        env: env(),
      });
      expect(r.stderr).not.toMatch(/error|\b[1-9]\d* (failed|skipped)/);
      expect(r.stderr).toMatch(/complete: every item was evaluated/);
      expect(r.code).toBe(0);
      const e = expected('expected_direct.json').metrics_percent;
      expect(r.stdout).toMatch(new RegExp(`^direct\\s+42\\s+0\\s+${e.TSA_gpt.toFixed(2)}`, 'm'));
      const dry = await runCli(
        [...base, '--model', 'gpt-4o', '--cache-dir', join(dir, 'cache-dry'), '--out', join(dir, 'dry'), '--dry-run'],
        { env: env() },
      );
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(/42 call\(s\) to send, 0 answered from the cache/);
      expect(dry.stdout).toMatch(/estimated cost: \$\d+\.\d{4}/);
      expect(existsSync(join(dir, 'dry'))).toBe(false);
    },
  );

  itLlmJudge(
    'a failed call is never a score: exit 1 naming dialogue and turn, nothing at the final paths; the rerun makes exactly that call',
    async () => {
      let failNow = true;
      const failing = await startTestServer({
        respond: (req) => {
          const prompt = req.messages[req.messages.length - 1]!.content;
          if (failNow && prompt.includes('"User": i want to leave after 17:15'))
            return { status: 500, error: 'scripted failure' };
          return answers.get(prompt) ?? { status: 400, error: 'unknown prompt' };
        },
      });
      try {
        const out = join(dir, 'fail');
        const args = [
          'llm-judge',
          'run',
          '--method',
          'cot',
          '--records',
          recordsFile,
          '--templates',
          TEMPLATES,
          '--base-url',
          failing.baseURL,
          '--api-key-env',
          KEY_ENV,
          '--model',
          'm',
          '--max-attempts',
          '2',
          '--cache-dir',
          join(dir, 'cache-fail'),
          '--out',
          out,
          '--format',
          'json',
        ];
        const r = await runCli(args, { env: env() });
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/error: dialogue SNG0073\.json turn 1 \(single-step call\): HTTP 500/);
        expect(r.stderr).toMatch(/1 call\(s\) failed after every retry/);
        expect(r.stderr).toMatch(/run the same command again/);
        expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
        expect(existsSync(join(out, 'cot_outputs.json'))).toBe(false);
        expect(existsSync(join(out, 'cot_result.json'))).toBe(false);
        // report refuses the journal-only directory (no outputs), and an output file with the failed call's empty output
        failNow = false;
        const before = failing.chatRequests().length;
        const again = await runCli(args, { env: env() });
        expect(again.code).toBe(0);
        // 41 answers from the journal, the one failed call made again (it is neither cached nor journaled as done)
        expect(failing.chatRequests().length - before).toBe(1);
        const res = JSON.parse(again.stdout);
        const e = expected('expected_cot.json').metrics_percent;
        expect(res.metrics.turns).toBe(42);
        expect(res.metrics.tsaGpt).toBe(e.TSA_gpt);
      } finally {
        await failing.close();
      }
    },
  );

  itLlmJudge(
    'report refuses outputs with a failed call (empty output) or missing turns unless --allow-partial',
    async () => {
      const entries = JSON.parse(readFileSync(join(SLICE, 'cot_outputs.json'), 'utf8')) as unknown[][];
      const failed = entries.map((e, i) => (i === 3 ? [e[0], '', e[2]] : e));
      const failedFile = join(dir, 'cot_failed_outputs.json');
      writeFileSync(failedFile, JSON.stringify(failed));
      let r = await runCli(['llm-judge', 'report', '--outputs', `cot=${failedFile}`], { env: env() });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /refusing to report incomplete judge outputs: cot \(.*cot_failed_outputs\.json\): 1 turn\(s\) whose LLM call failed/,
      );
      expect(r.stdout).toBe('');
      r = await runCli(['llm-judge', 'report', '--outputs', `cot=${failedFile}`, '--allow-partial'], { env: env() });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^PARTIAL: /);
      // a run stopped part-way: the entries of the first dialogue only; with --records the missing turns are counted
      const dialogueOf = (e: unknown[]) => (e[0] as { flag: string }).flag.replace(/-\d+$/, '');
      const kept = entries.filter((e) => dialogueOf(e) === dialogueOf(entries[0]!));
      const cutFile = join(dir, 'cot_cut_outputs.json');
      writeFileSync(cutFile, JSON.stringify(kept));
      r = await runCli(['llm-judge', 'report', '--outputs', `cot=${cutFile}`, '--records', recordsFile], {
        env: env(),
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${42 - kept.length} of the 42 turns of --records are not judged`);
    },
  );

  itLlmJudge(
    "--repeats 3: repeat 0 reuses a single run's cache entries, the others are new calls; mean ± std and self-agreement",
    async () => {
      const out = join(dir, 'repeats');
      const base = [
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
        join(dir, 'cache-repeats'),
      ];
      const single = await runCli([...base, '--out', join(out, 'single')], { env: env() });
      expect(single.code, single.stderr).toBe(0);
      const before = server.chatRequests().length;
      const summaryFile = join(out, 'llm-summary.json');
      const r = await runCli(
        [...base, '--out', out, '--repeats', '3', '--format', 'json', '--llm-summary', summaryFile],
        { env: env() },
      );
      expect(r.code, r.stderr).toBe(0);
      // 42 turns x 3 repeats: repeat 0 hits the single run's cache entries (same key), repeats 1 and 2 are new calls
      expect(server.chatRequests().length - before).toBe(2 * 42);
      const llmSummary = JSON.parse(readFileSync(summaryFile, 'utf8'));
      expect(llmSummary).toMatchObject({ items: 126, done: 126, failed: 0, cacheHits: 42, calls: 84, repeats: 3 });
      const res = JSON.parse(r.stdout);
      const e = expected('expected_direct.json').metrics_percent;
      // the scripted judge answers a prompt the same way every time: every repeat gives the slice's figures, std 0
      expect(res.repeats.n).toBe(3);
      expect(res.repeats.figures.tsaGpt).toEqual({
        values: [e.TSA_gpt, e.TSA_gpt, e.TSA_gpt],
        mean: e.TSA_gpt,
        std: 0,
      });
      // every judged turn judged alike in all three repeats: agreement 1, Fleiss' kappa 1 (both labels occur)
      expect(res.repeats.selfAgreement).toEqual({ items: res.metrics.turns, agreement: 1, fleissKappa: 1 });
      expect(existsSync(join(out, 'direct_outputs.json'))).toBe(true);
      expect(existsSync(join(out, 'direct_outputs.repeat2.json'))).toBe(true);
      expect(r.stderr).toMatch(/direct \(42 x 3 repeats\)|126 item\(s\)/);
    },
  );

  itLlmJudge('bad input: records out of order, missing templates', async () => {
    const bad = join(dir, 'bad_records.json');
    const recs = JSON.parse(readFileSync(recordsFile, 'utf8'));
    writeFileSync(bad, JSON.stringify([recs[1], recs[0], ...recs.slice(2)]));
    let r = await runCli(
      [
        'llm-judge',
        'run',
        '--method',
        'ours',
        '--records',
        bad,
        '--templates',
        TEMPLATES,
        '--model',
        'm',
        '--out',
        join(dir, 'x'),
      ],
      { env: env() },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /bad_records\.json, record 0, field flag: turns out of order in dialogue PMUL4648\.json: expected turn 0, got 1/,
    );
    r = await runCli(
      ['llm-judge', 'run', '--method', 'ours', '--records', recordsFile, '--model', 'm', '--out', join(dir, 'x')],
      { env: { ...env(), DIALEVAL_LLM_DST_EVAL_DIR: '' } },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dialeval resources fetch llm-dst-eval/);
  });
});

describe('dialeval llm-judge convert', () => {
  itLlmJudge('converts raw predictions with the turn structure of the sampled records', async () => {
    const out = join(dir, 'converted.json');
    const r = await runCli(
      [
        'llm-judge',
        'convert',
        '--raw-predictions',
        join(LJ, 'predictions', 'raw_result-seed-10-ratio-1-original.json.gz'),
        '--dialogues',
        join(LJ, 'predictions', 'original_sampled.json.gz'),
        '--out',
        out,
      ],
      { env: env() },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/732 turn record\(s\) of 100 dialogue\(s\)/);
    expect(r.stderr).toMatch(/prediction flag\(s\) name dialogues not in the dialogue source/);
    const same = await runCli(
      ['llm-judge', 'report', '--records', out, '--format', 'json', '--rule-jga', 'reference'],
      { env: env() },
    );
    expect(JSON.parse(same.stdout).rules.ruleJga).toEqual({ mwz21: 33.33333333333333, mwz24: 35.10928961748634 });
  });
});

describe('dialeval llm-judge convert --states (the @eval/multiwoz input format, text from the multiwoz resource)', () => {
  itWithReferenceData('multiwoz/derived')(
    'builds records of the predicted dialogues from the MultiWOZ 2.1 test set',
    async () => {
      const states = join(dir, 'states.json');
      // two turns of SNG0073 predicted as mwzeval states (camel-cased slot names as trackers write them)
      writeFileSync(
        states,
        JSON.stringify({
          sng0073: [
            {
              response: '',
              state: { taxi: { destination: 'pizza hut fen ditton', departure: 'saint johns college' } },
            },
            {
              response: '',
              state: {
                taxi: { destination: 'pizza hut fen ditton', departure: 'saint johns college', leaveAt: '17:15' },
              },
            },
          ],
        }),
      );
      const out = join(dir, 'from_states.json');
      const r = await runCli(
        ['llm-judge', 'convert', '--states', states, '--data', join(SHARED, 'multiwoz', 'derived'), '--out', out],
        { env: env() },
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const recs = JSON.parse(readFileSync(out, 'utf8'));
      expect(recs.map((x: { flag: string }) => x.flag)).toEqual(['SNG0073.json-0', 'SNG0073.json-1']);
      expect(recs[1].predict_turn_label).toEqual({ 'taxi-leaveat': '17:15' });
      expect(recs[1].user).toBe('I want to leave after 17:15 .');
      expect(recs[1].history).toEqual(['', "I would like a taxi from Saint John 's college to Pizza Hut Fen Ditton ."]);
    },
  );
});

describe('dialeval demo --only llm-judge', () => {
  it('runs the rule judgements and the stand-in judge on the made-up dialogues', async () => {
    const r = await runCli(['demo', '--only', 'llm-judge', '--format', 'json'], { env: env() });
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout)['llm-judge'];
    // hand-derived in src/demo/llm-judge.ts: judge right on 3 of 5 turns, exact match on 2 of 5, agreeing on 4 of 5
    expect(d.ours.tsaGpt).toBe(60);
    expect(d.rules.tsa['two-step'].mwz21).toBe(40);
    expect(d.ours.coherenceMwz21).toBe(80);
  });
});
