// Issue 13 through the CLI: configuration errors stop every LLM command early with cause and fix (exit 2, no stack
// trace), failed calls are never scored (exit 1, the item named, retried by the next run), filesystem errors name the
// path (exit 2). Everything against the scripted server on 127.0.0.1.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestReply, type TestServer } from '@eval/llm/testing';
import { readOutputEntries, serializeTurnRecords, type TurnRecord } from '@eval/llm-judge';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MEMORY_DEMO_USER } from '../src/demo/memory';
import { SHARED, describeWithReferenceData, hasReferenceData, runCli } from './cli';
import { scriptedVerdict, writeTinyMemoryArtifact } from './memory-script';

const SLICE = join(SHARED, 'llm-judge', 'slice');
const TEMPLATES = join(SHARED, 'llm-judge', 'templates');
const ARTIFACT = join(SHARED, 'memory', 'sample_run_artifact_martin_mark_sessions0-11.jsonl');
const SK = join(SHARED, 'scorekeeping');
/** Every suite here drives the commands on reference data (judge outputs, templates, a memory artifact, game texts). */
const DATA = ['llm-judge/slice', 'llm-judge/templates', 'memory', 'scorekeeping'];
const describeData = describeWithReferenceData(...DATA);
const KEY_ENV = 'DIALEVAL_FAULTS_TEST_KEY';

let dir: string;
let records: string;
let dataset: string;
/** What the server answers to every chat request (set per test). */
let reply: (prompt: string) => TestReply = () => 'ok';
let server: TestServer;
/** A base URL where nothing listens (a server started and closed again). */
let refusedURL: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dialeval-faults-'));
  if (!hasReferenceData(...DATA)) return;
  const entries = await readOutputEntries(join(SLICE, 'direct_outputs.json'));
  const by = new Map<string, TurnRecord[]>();
  for (const e of entries) by.set(e.record.dialogueId, [...(by.get(e.record.dialogueId) ?? []), e.record]);
  records = join(dir, 'records.json');
  writeFileSync(
    records,
    serializeTurnRecords([...by.values()].flatMap((l) => l.sort((a, b) => a.turnIndex - b.turnIndex))),
  );
  dataset = join(dir, 'tiny.jsonl');
  writeFileSync(dataset, `${JSON.stringify(MEMORY_DEMO_USER)}\n`);
  server = await startTestServer({ respond: (req) => reply(req.messages[req.messages.length - 1]!.content) });
  const closed = await startTestServer({});
  refusedURL = closed.baseURL;
  await closed.close();
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({
  [KEY_ENV]: 'dummy',
  CI: '1',
  OPENAI_BASE_URL: '',
  DIALEVAL_HOME: join(dir, 'home'),
  ...extra,
});
let n = 0;
const fresh = () => join(dir, `case-${++n}`);

/** The four LLM commands, each on a small input, writing below `out`. */
function commands(out: string): Record<string, string[]> {
  return {
    'llm-judge run': [
      'llm-judge',
      'run',
      '--method',
      'direct',
      '--records',
      records,
      '--templates',
      TEMPLATES,
      '--out',
      join(out, 'lj'),
    ],
    'memory judge': ['memory', 'judge', ARTIFACT, '--out', join(out, 'mem', 'stat.json')],
    'memory run': ['memory', 'run', '--system', 'full-context', '--data', dataset, '--out', join(out, 'run.jsonl')],
    'scorekeeping play': [
      'scorekeeping',
      'play',
      '--resources',
      SK,
      '--experiments',
      'travel-booking',
      '--episodes',
      '0-3',
      '--out',
      join(out, 'sk'),
    ],
  };
}

const llm = (baseURL: string, out: string, extra: string[] = []) => [
  '--base-url',
  baseURL,
  '--api-key-env',
  KEY_ENV,
  '--model',
  'test-model',
  '--cache-dir',
  join(out, 'cache'),
  '--concurrency',
  '2',
  '--max-attempts',
  '1',
  ...extra,
];

describeData('configuration errors stop every LLM command early: exit 2, cause and fix, no stack trace', () => {
  const cases: Array<{ name: string; cause: RegExp; fix: RegExp; status?: number }> = [
    {
      name: '401 everywhere',
      status: 401,
      cause: /configuration error \(unauthorized\): .*HTTP 401/,
      fix: /fix: .*--api-key-env/i,
    },
    {
      name: '403 everywhere',
      status: 403,
      cause: /configuration error \(forbidden\): .*HTTP 403/,
      fix: /fix: .*--model/i,
    },
    {
      name: '404 everywhere (unknown model)',
      status: 404,
      cause: /configuration error \(model-not-found\): .*HTTP 404/,
      fix: /fix: .*--model.*\/v1/i,
    },
  ];
  for (const c of cases) {
    for (const command of Object.keys(commands(''))) {
      it(`${c.name}: ${command}`, async () => {
        reply = () => ({ status: c.status, error: `scripted ${c.status}` });
        const out = fresh();
        const before = server.chatRequests().length;
        const r = await runCli([...commands(out)[command]!, ...llm(server.baseURL, out)], { env: env() });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(c.cause);
        expect(r.stderr).toMatch(c.fix);
        expect(r.stderr).not.toMatch(/\n\s+at /);
        // stopped after the first few failures (2 in flight at most), not after one per item
        expect(server.chatRequests().length - before).toBeLessThanOrEqual(4);
        // nothing at a final path
        expect(existsSync(join(out, 'lj', 'direct_outputs.json'))).toBe(false);
        expect(existsSync(join(out, 'mem', 'stat.json'))).toBe(false);
        expect(existsSync(join(out, 'run.jsonl'))).toBe(false);
      });
    }
  }

  for (const command of Object.keys(commands(''))) {
    it(`refused connection: ${command}`, async () => {
      const out = fresh();
      const r = await runCli([...commands(out)[command]!, ...llm(refusedURL, out)], { env: env() });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/configuration error \(connection-refused\)/);
      expect(r.stderr).toMatch(/fix: .*--base-url/i);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });

    it(`no API key for OpenAI: ${command}`, async () => {
      const out = fresh();
      const args = [
        ...commands(out)[command]!,
        '--api-key-env',
        'DIALEVAL_FAULTS_NO_SUCH_KEY',
        '--model',
        'gpt-4o-mini',
        '--cache-dir',
        join(out, 'cache'),
      ];
      const r = await runCli(args, { env: env() });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/configuration error \(missing-key\): .*DIALEVAL_FAULTS_NO_SUCH_KEY/);
      expect(r.stderr).toMatch(/fix: /i);
      expect(r.stderr).not.toMatch(/\n\s+at |ENOENT|scandir/);
    });

    it(`replay-mode cache miss: ${command}`, async () => {
      const out = fresh();
      const before = server.chatRequests().length;
      const r = await runCli([...commands(out)[command]!, ...llm(server.baseURL, out, ['--cache', 'replay'])], {
        env: env(),
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/configuration error \(replay-miss\)/);
      expect(r.stderr).toMatch(/fix: .*--cache use/i);
      expect(server.chatRequests().length).toBe(before);
    });
  }
});

describeData('filesystem errors name the path, exit 2', () => {
  it('--out that is a file, an unwritable --out directory', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    let r = await runCli(
      [
        'scorekeeping',
        'play',
        '--player',
        'perfect',
        '--resources',
        SK,
        '--experiments',
        'travel-booking',
        '--episodes',
        '0',
        '--out',
        join(file, 'sub'),
      ],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/a-file.*: a part of the path is a file, not a directory \(ENOTDIR\)|a-file.*\(EEXIST\)/);
    expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked');
      rmSync(locked, { recursive: true, force: true });
      mkdirSync(locked);
      chmodSync(locked, 0o500);
      try {
        r = await runCli(['scorekeeping', 'instances', '--resources', SK, '--out', join(locked, 'instances.json')], {
          env: env(),
        });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(/locked.*permission denied \(EACCES\)/);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      } finally {
        chmodSync(locked, 0o700);
      }
    }
  });
});

describeData('failed calls are never scored; the rerun retries exactly them', () => {
  it('memory judge under 500s: exit 1 naming user, session and item; no stat result; the work dir is marked incomplete; the rerun asks exactly the failed ones', async () => {
    const out = fresh();
    const verdict = scriptedVerdict;
    // every 7th distinct prompt fails with a 500 on its only attempt
    const failing = new Set<string>();
    let i = 0;
    reply = (prompt) => {
      if (!failing.has(prompt) && i++ % 7 === 3) failing.add(prompt);
      return failing.has(prompt) ? { status: 500, error: 'scripted outage' } : verdict(prompt);
    };
    const stat = join(out, 'stat.json');
    const args = ['memory', 'judge', ARTIFACT, '--out', stat, ...llm(server.baseURL, out)];
    const r = await runCli(args, { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error: user Martin Mark \([0-9a-f-]+\) session \d+ (question|memory point|extracted memory) \d+ \(\w+ judge\): HTTP 500/,
    );
    expect(r.stderr).toMatch(
      /judgement call\(s\) failed after every retry \(not scored\).*run the same command again/s,
    );
    expect(existsSync(stat)).toBe(false);
    const workDir = join(out, 'stat.tmp2');
    expect(readdirSync(workDir).filter((f) => f.endsWith('.json'))).toEqual([]);
    expect(readFileSync(join(workDir, '.memory-judge-incomplete'), 'utf8')).toMatch(
      /user Martin Mark .*: \d+ failed call\(s\)/,
    );
    // the outage is over: only the failed judgements are asked again
    const failed = failing.size;
    reply = verdict;
    const before = server.chatRequests().length;
    const again = await runCli([...args, '--format', 'json'], { env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect(server.chatRequests().length - before).toBe(failed);
    const o = JSON.parse(again.stdout);
    // every judge says 2 / Correct: recall 147/147 as in memory.test.ts's hand derivation
    expect(o.memory_integrity['recall(all)']).toBe(1);
    expect(o.question_answering['correct_qa_ratio(all)']).toBe(1);
    expect(existsSync(join(workDir, '.memory-judge-incomplete'))).toBe(false);
  });

  it('memory aggregate refuses a work directory marked incomplete unless --allow-partial', async () => {
    const work = fresh();
    mkdirSync(work);
    writeFileSync(join(work, 'u1.json'), readFileSync(join(SHARED, 'memory', 'aggregate_fixture_sessions0-11.json')));
    writeFileSync(join(work, '.memory-judge-incomplete'), 'judge run incomplete\nuser X (u2): 3 failed call(s)\n');
    const r = await runCli(['memory', 'aggregate', work], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refusing to aggregate an incomplete judge run.*user X \(u2\): 3 failed call\(s\)/);
    const p = await runCli(['memory', 'aggregate', work, '--allow-partial'], { env: env() });
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/^PARTIAL: /);
    expect(p.stderr).toMatch(/^PARTIAL: /);
    const board = await runCli(['memory', 'leaderboard', work], { env: env() });
    expect(board.code).toBe(1);
    expect(board.stderr).toMatch(/refusing to compare an incomplete judge run/);
    expect((await runCli(['memory', 'leaderboard', work, '--allow-partial'], { env: env() })).code).toBe(0);
  });

  it('memory run: a call failing for good names user, session and question, and says how to resume', async () => {
    const out = fresh();
    reply = (prompt) =>
      prompt.includes('"memories"') ? '```json\n{"memories": []}\n```' : { status: 500, error: 'boom' };
    const r = await runCli(
      [
        'memory',
        'run',
        '--system',
        'full-context',
        '--data',
        dataset,
        '--out',
        join(out, 'run.jsonl'),
        ...llm(server.baseURL, out),
      ],
      { env: env() },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/user Lena Ortiz \([^)]+\), session \d+, question \d+ ".*" \(answer\): HTTP 500/);
    expect(r.stderr).toMatch(/run the same command again to resume/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(out, 'run.jsonl'))).toBe(false);
  });

  it('llm-judge run under mixed faults (429 with retry-after, 500s, truncated bodies, a hang, persistent 500s): every turn accounted for', async () => {
    const answers = new Map<string, string>();
    for (const e of await readOutputEntries(join(SLICE, 'direct_outputs.json')))
      if (e.prompt) answers.set(e.prompt, e.output);
    const prompts = [...answers.keys()];
    const persistent = new Set(prompts.slice(0, 3));
    let outage = true;
    const mixed = await startTestServer({
      respond: (req, ctx) => {
        const prompt = req.messages[req.messages.length - 1]!.content;
        const k = prompts.indexOf(prompt);
        if (outage && persistent.has(prompt)) return { status: 500, error: 'persistent outage' };
        if (ctx.attempt === 0 && k % 5 === 1)
          return { status: 429, error: 'slow down', headers: { 'retry-after': '0' } };
        if (ctx.attempt === 0 && k % 5 === 2) return { status: 503, error: 'overloaded' };
        if (ctx.attempt === 0 && k % 5 === 3) return { raw: '{"id": "x", "choices": [{"mess' };
        if (ctx.attempt === 0 && k === 9) return { hang: true };
        return answers.get(prompt) ?? { status: 400, error: 'unknown prompt' };
      },
    });
    try {
      const out = fresh();
      const summary = join(out, 'summary.json');
      const args = [
        'llm-judge',
        'run',
        '--method',
        'direct',
        '--records',
        records,
        '--templates',
        TEMPLATES,
        '--out',
        join(out, 'lj'),
        '--base-url',
        mixed.baseURL,
        '--api-key-env',
        KEY_ENV,
        '--model',
        'test-model',
        '--cache-dir',
        join(out, 'cache'),
        '--max-attempts',
        '3',
        '--timeout',
        '300',
        '--summary',
        summary,
      ];
      const r = await runCli(args, { env: env() });
      expect(r.code).toBe(1);
      const s1 = JSON.parse(readFileSync(summary, 'utf8'));
      // every one of the 42 calls is accounted for: answered, or failed with its reason
      expect(s1.llm.done + s1.llm.failed).toBe(42);
      expect(s1.failedCalls).toHaveLength(3);
      for (const f of s1.failedCalls) expect(f.error).toMatch(/HTTP 500: .*persistent outage \(after 3 attempts\)/);
      expect(r.stderr.match(/error: dialogue \S+ turn \d+ \(single-step call\): HTTP 500/g)).toHaveLength(3);
      expect(existsSync(join(out, 'lj', 'direct_outputs.json'))).toBe(false);
      // the outage is over: exactly the 3 failed calls are made again, the result is the recorded slice's
      outage = false;
      const before = mixed.chatRequests().length;
      const again = await runCli([...args, '--format', 'json'], { env: env() });
      expect(again.code, again.stderr).toBe(0);
      expect(mixed.chatRequests().length - before).toBe(3);
      const e = JSON.parse(
        readFileSync(join(SHARED, 'llm-judge', 'slice', 'expected_direct.json'), 'utf8'),
      ).metrics_percent;
      expect(JSON.parse(again.stdout).metrics.tsaGpt).toBe(e.TSA_gpt);
    } finally {
      await mixed.close();
    }
  });

  /** A scripted endpoint with 429s (retry-after 0), truncated bodies, 502s and, while `outage.on`, persistent 500s. */
  async function mixedServer(): Promise<{ server: TestServer; outage: { on: boolean } }> {
    const verdict = scriptedVerdict;
    const { loadResourceDir, perfectAnswer } = await import('@eval/scorekeeping');
    const canonical = await loadResourceDir(SK);
    const outage = { on: true };
    const seen = new Map<string, number>();
    const server = await startTestServer({
      respond: (req, ctx) => {
        const prompt = req.messages[req.messages.length - 1]!.content;
        const body = JSON.stringify(req.messages);
        if (!seen.has(body)) seen.set(body, seen.size);
        const k = seen.get(body)!;
        if (outage.on && k % 11 === 5) return { status: 500, error: 'persistent outage' };
        if (ctx.attempt === 0 && k % 4 === 1)
          return { status: 429, error: 'slow down', headers: { 'retry-after': '0' } };
        // (backoff before these retries is real time: kept rare so the test stays short)
        if (ctx.attempt === 0 && k % 40 === 2) return { raw: '{"choices": [{"message": {"content": "tru' };
        if (ctx.attempt === 0 && k % 40 === 3) return { status: 502, error: 'bad gateway' };
        return prompt.startsWith('You are') ||
          prompt.startsWith('Your task') ||
          prompt.includes('* **Memory System Response:**')
          ? verdict(prompt)
          : perfectAnswer(req.messages, canonical);
      },
    });
    return { server, outage };
  }
  const mixedFlags = (server: TestServer, out: string) => [
    '--base-url',
    server.baseURL,
    '--api-key-env',
    KEY_ENV,
    '--model',
    'test-model',
    '--cache-dir',
    join(out, 'cache'),
    '--max-attempts',
    '2',
  ];

  it('memory judge under mixed faults: every judgement scored, or failed with its reason and asked again next run', async () => {
    const { server: mixed, outage } = await mixedServer();
    try {
      const out = fresh();
      const mj = [
        'memory',
        'judge',
        ARTIFACT,
        '--out',
        join(out, 'mem', 'stat.json'),
        '--llm-summary',
        join(out, 'mj.json'),
        ...mixedFlags(mixed, out),
      ];
      const m1 = await runCli(mj, { env: env() });
      expect(m1.code).toBe(1);
      const s1 = JSON.parse(readFileSync(join(out, 'mj.json'), 'utf8'));
      expect(s1.items).toBe(410);
      expect(s1.done + s1.failed).toBe(410);
      expect(s1.failed).toBeGreaterThan(0);
      expect(s1.failures).toHaveLength(s1.failed);
      for (const f of s1.failures) expect(f.error).toMatch(/HTTP 500: .*persistent outage \(after 2 attempts\)/);
      expect(existsSync(join(out, 'mem', 'stat.json'))).toBe(false);
      // the outage is over: the rerun asks exactly the failed judgements and finishes
      outage.on = false;
      const m2 = await runCli(mj, { env: env() });
      expect(m2.code, m2.stderr).toBe(0);
      const s2 = JSON.parse(readFileSync(join(out, 'mj.json'), 'utf8'));
      expect(s2).toMatchObject({ items: 410, failed: 0, skipped: 410 - s1.failed, calls: s1.failed });
    } finally {
      await mixed.close();
    }
  });

  it('scorekeeping play under mixed faults: every episode played, or errored with its reason and played again next run', async () => {
    const { server: mixed, outage } = await mixedServer();
    try {
      const out = fresh();
      const sk = [
        'scorekeeping',
        'play',
        '--resources',
        SK,
        '--experiments',
        'travel-booking',
        '--episodes',
        '0-3',
        '--out',
        join(out, 'sk'),
        '--llm-summary',
        join(out, 'sk.json'),
        ...mixedFlags(mixed, out),
      ];
      const k1 = await runCli(sk, { env: env() });
      const ks1 = JSON.parse(readFileSync(join(out, 'sk.json'), 'utf8'));
      expect(ks1.done + ks1.failed).toBe(4);
      expect(ks1.failed).toBeGreaterThan(0);
      expect(k1.code).toBe(1);
      for (const f of ks1.failures)
        expect(f.error).toMatch(/experiment travel-booking episode \d+: player failure: HTTP 500/);
      outage.on = false;
      const k2 = await runCli(sk, { env: env() });
      expect(k2.code, k2.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(out, 'sk.json'), 'utf8'))).toMatchObject({
        items: ks1.failed,
        done: ks1.failed,
        failed: 0,
      });
    } finally {
      await mixed.close();
    }
  });

  it('memory judge --max-cost spends close to the budget (not one max_tokens reservation per call in flight), then resumes', async () => {
    reply = scriptedVerdict;
    const out = fresh();
    mkdirSync(out);
    const prices = join(out, 'prices.json');
    // $1 per 1M tokens both ways: a judgement costs about its prompt (~2,500 tokens, $0.0025); the whole run ~$1
    writeFileSync(prices, JSON.stringify({ 'test-model': { input: 1, output: 1 } }));
    const summary = join(out, 'summary.json');
    const args = [
      'memory',
      'judge',
      ARTIFACT,
      '--out',
      join(out, 'stat.json'),
      '--prices',
      prices,
      '--llm-summary',
      summary,
      ...llm(server.baseURL, out, ['--concurrency', '16']),
    ];
    const r = await runCli([...args, '--max-cost', '0.5'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stopped by --max-cost/);
    const s1 = JSON.parse(readFileSync(summary, 'utf8'));
    // each call reserves its prompt plus max_tokens 16,384 ($0.019): it stops within one reservation of the budget
    expect(s1.cost).toBeLessThanOrEqual(0.5);
    expect(s1.cost).toBeGreaterThan(0.5 - 0.02);
    expect(existsSync(join(out, 'stat.json'))).toBe(false);
    const again = await runCli(args, { env: env() });
    expect(again.code, again.stderr).toBe(0);
    const s2 = JSON.parse(readFileSync(summary, 'utf8'));
    // the rerun takes the judged calls from the journal and makes only the rest
    expect(s2).toMatchObject({ items: 410, done: 410, failed: 0, skipped: s1.done, calls: 410 - s1.done });
  });

  it('llm-judge run stopped by the budget leaves nothing at the final paths; report refuses the directory', async () => {
    reply = (prompt) => `\`\`\`json\n{"judgement": "yes", "prompt_chars": ${prompt.length}}\n\`\`\``;
    const out = fresh();
    const prices = join(dir, 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'test-model': { input: 1000, output: 1000 } }));
    const r = await runCli(
      [...commands(out)['llm-judge run']!, ...llm(server.baseURL, out, ['--prices', prices, '--max-cost', '0.5'])],
      { env: env() },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/call\(s\) not made \(budget reached\).*no outputs or result written/s);
    expect(existsSync(join(out, 'lj', 'direct_outputs.json'))).toBe(false);
    expect(existsSync(join(out, 'lj', 'direct_result.json'))).toBe(false);
    const report = await runCli(['llm-judge', 'report', join(out, 'lj')], { env: env() });
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/no judge outputs found/);
  });
});

describeData('memory judge --repeats', () => {
  it("repeat 0 reuses a single run's cache; per-repeat stat results; mean ± std and self-agreement", async () => {
    reply = scriptedVerdict;
    const out = fresh();
    mkdirSync(out);
    const artifact = writeTinyMemoryArtifact(join(out, 'tiny_eval_results.jsonl'));
    const base = ['memory', 'judge', artifact, '--on-empty', 'null', ...llm(server.baseURL, out)];
    const single = await runCli([...base, '--out', join(out, 'single', 'stat.json')], { env: env() });
    expect(single.code, single.stderr).toBe(0);
    const before = server.chatRequests().length;
    const summary = join(out, 'summary.json');
    const stat = join(out, 'x2', 'stat.json');
    const r = await runCli([...base, '--out', stat, '--repeats', '2', '--summary', summary, '--format', 'json'], {
      env: env(),
    });
    expect(r.code, r.stderr).toBe(0);
    // 12 judgements x 2 repeats: repeat 0 answered from the single run's cache entries, repeat 1 asked anew
    expect(server.chatRequests().length - before).toBe(12);
    expect(existsSync(stat) && existsSync(join(out, 'x2', 'stat.repeat1.json'))).toBe(true);
    const s = JSON.parse(readFileSync(summary, 'utf8'));
    // the scripted judges answer alike every time: every figure has std 0, every judgement agrees with itself
    expect(s.repeats.n).toBe(2);
    const R = JSON.parse(r.stdout).memory_integrity['recall(all)'];
    expect(s.repeats.figures.R).toEqual({ values: [R, R], mean: R, std: 0 });
    expect(
      JSON.parse(readFileSync(join(out, 'x2', 'stat.repeat1.json'), 'utf8')).overall_score.memory_integrity[
        'recall(all)'
      ],
    ).toBe(R);
    expect(s.repeats.selfAgreement.items).toBe(12);
    expect(s.repeats.selfAgreement.agreement).toBe(1);
    expect(r.stderr).toMatch(/judge self-agreement: 100\.00% of 12 judgement\(s\)/);
  });
});

describeData('invalid UTF-8 in an input', () => {
  it('is an input error naming the file and byte offset (exit 2); --allow-invalid-utf8 replaces, counts and runs', async () => {
    const text = readFileSync(ARTIFACT);
    // one invalid byte (0xff) inside the first question's text
    const at = text.indexOf(Buffer.from('"question": "')) + '"question": "'.length;
    const broken = Buffer.concat([text.subarray(0, at), Buffer.from([0xff]), text.subarray(at)]);
    const out = fresh();
    mkdirSync(out);
    const artifact = join(out, 'broken_eval_results.jsonl');
    writeFileSync(artifact, broken);
    const before = server.chatRequests().length;
    const r = await runCli(['memory', 'judge', artifact, ...llm(server.baseURL, out)], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${artifact}: invalid UTF-8 at byte offset ${at}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(server.chatRequests().length).toBe(before);
    const lj = join(out, 'records.json');
    const recordsText = readFileSync(records);
    const at2 = recordsText.indexOf(Buffer.from('"user": "')) + '"user": "'.length;
    writeFileSync(lj, Buffer.concat([recordsText.subarray(0, at2), Buffer.from([0xc3]), recordsText.subarray(at2)]));
    const r2 = await runCli(
      [
        'llm-judge',
        'run',
        '--method',
        'direct',
        '--records',
        lj,
        '--templates',
        TEMPLATES,
        '--out',
        join(out, 'lj'),
        ...llm(server.baseURL, out),
      ],
      { env: env() },
    );
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain(`${lj}: invalid UTF-8 at byte offset ${at2}`);
    // allowed: replaced with U+FFFD, counted on stderr, and the run goes on
    reply = scriptedVerdict;
    const ok = await runCli(
      ['memory', 'judge', artifact, '--allow-invalid-utf8', '--format', 'json', ...llm(server.baseURL, out)],
      { env: env() },
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain(
      `warning: ${artifact}: 1 invalid UTF-8 sequence(s) replaced with U+FFFD (the first at byte ${at})`,
    );
    expect(
      server
        .chatRequests()
        .slice(before)
        .some((q) => JSON.stringify(q.body).includes('\\ufffd') || JSON.stringify(q.body).includes('\ufffd')),
    ).toBe(true);
  });
});

describeData('Ctrl-C', () => {
  it('stops the run, prints the summary, writes --llm-summary and exits 1 (spawned binary)', {
    timeout: 60_000,
  }, async () => {
    const { spawn } = await import('node:child_process');
    const { CLI_ROOT } = await import('./cli');
    let calls = 0;
    const hanging = await startTestServer({
      respond: () => {
        calls++;
        return { hang: true };
      },
    });
    try {
      const out = fresh();
      const summaryFile = join(out, 'llm-summary.json');
      const child = spawn(
        process.execPath,
        [
          '--conditions=@eval/source',
          '--import',
          'tsx',
          join(CLI_ROOT, 'src', 'bin.ts'),
          ...commands(out)['llm-judge run']!,
          ...llm(hanging.baseURL, out, ['--llm-summary', summaryFile]),
        ],
        { cwd: CLI_ROOT, env: { ...process.env, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
      child.stdout.resume();
      // wait until the first calls hang at the endpoint, then press Ctrl-C once
      for (let i = 0; i < 600 && calls === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(calls).toBeGreaterThan(0);
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, stderr).toBe(1);
      expect(stderr).toMatch(/SIGINT: stopping/);
      expect(stderr).toMatch(/LLM run summary/);
      expect(stderr).toMatch(/INCOMPLETE: run the same command again/);
      expect(stderr).not.toMatch(/\n\s+at /);
      const summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
      expect(summary.stopped).toBe('aborted');
      expect(summary.done).toBe(0);
      expect(existsSync(join(out, 'lj', 'direct_outputs.json'))).toBe(false);
    } finally {
      await hanging.close();
    }
  });
});
