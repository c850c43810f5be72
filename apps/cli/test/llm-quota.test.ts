// Issue 23: whole commands with DEFAULT flags against the scripted server's rate-limited mode (token buckets for
// requests and tokens per minute, refilled continuously). Each command must finish with every item answered, within
// 1.1 x the quota bound plus a fixed allowance (process work that is not waiting: start-up, the tokenizer's first
// load, reading inputs), with at most 2% of requests answered 429; with 429s that carry no header at all, still
// with every item answered; and its result files must equal those of an unlimited run. The quotas are derived from
// the unlimited run's own counts, so that each limited run is bound by the quota for a few seconds; the buckets
// hold one second's worth (a burst far smaller than a provider's minute).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { readOutputEntries, serializeTurnRecords, type TurnRecord } from '@eval/llm-judge';
import { startTestServer, type RateLimitOptions, type TestServerOptions } from '@eval/llm/testing';
import { loadResourceDir, perfectAnswer } from '@eval/scorekeeping';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithReferenceData, referencePath, runCli } from './cli';
import { scriptedVerdict } from './memory-script';

const KEY_ENV = 'DIALEVAL_LLM_QUOTA_TEST_KEY';
const KEY = 'sk-quota-test-secret-0123456789';
/** Seconds a limited run is bound by the quota (the quota is set from the unlimited run's counts). */
const BOUND_S = 4;
/** Fixed allowance for what is not waiting for the quota (start-up, tokenizer load, inputs, writing results). */
const ALLOWANCE_MS = 3000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dialeval-llm-quota-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Clock fields, and the LLM run summary's timings and rate-limit figures (how the run went, not its results). */
const CLOCK_FIELDS = new Set([
  'timestamp',
  'call_start',
  'call_end',
  'call_duration',
  'elapsedMs',
  'pacing',
  'retries',
]);

/** A JSON file without its clock fields (clembench's transcripts and request logs stamp every event and call). */
function withoutTimestamps(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text, (k, v) => (CLOCK_FIELDS.has(k) ? undefined : v)));
  } catch {
    return text;
  }
}

/**
 * Every file under `root` (relative path -> content), but the run record's own files and journals, JSON without its
 * clock fields, and `root` itself written as `<out>`: what the command computed, not when or where.
 */
function resultFiles(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (!['run.json', 'items.jsonl'].includes(name) && !name.endsWith('.journal.jsonl'))
        out.set(relative(root, p), withoutTimestamps(readFileSync(p, 'utf8').split(root).join('<out>')));
    }
  };
  walk(root);
  return out;
}

interface Case {
  name: string;
  respond: TestServerOptions['respond'];
  /** The command's arguments, given the endpoint, a cache directory and an output path. */
  args: (baseURL: string, cacheDir: string, out: string) => string[];
}

async function runAgainst(c: Case, rateLimit: RateLimitOptions | undefined, tag: string) {
  const server = await startTestServer({ respond: c.respond, latencyMs: [2, 10], rateLimit });
  const out = join(dir, c.name, tag);
  const started = Date.now();
  const r = await runCli(c.args(server.baseURL, join(dir, c.name, `${tag}-cache`), out), {
    env: { [KEY_ENV]: KEY, CI: '1', DIALEVAL_HOME: join(dir, 'home') },
  });
  const ms = Date.now() - started;
  const stats = server.rateLimitStats();
  const requests = server.chatRequests().length;
  await server.close();
  return { r, ms, stats, requests, out };
}

/** The unlimited run counts requests and tokens: a quota with no limit reached. */
const COUNTING: RateLimitOptions = { rpm: 1e9, tpm: 1e12 };

function quotaCases(c: Case) {
  let reference: Map<string, string>;
  let stdout: string;
  let admitted: number;
  let tokens: number;
  let boundS: number;
  /** Differences of two result sets: the files whose contents differ (the same files are expected). */
  const differing = (a: Map<string, string>, b: Map<string, string>) =>
    [...new Set([...a.keys(), ...b.keys()])]
      .filter((k) => a.get(k) !== b.get(k))
      .map((k) => {
        const x = a.get(k) ?? '';
        const y = b.get(k) ?? '';
        let i = 0;
        while (i < x.length && x[i] === y[i]) i++;
        return `${k}: ${x.slice(Math.max(0, i - 60), i + 60)} vs ${y.slice(Math.max(0, i - 60), i + 60)}`;
      });

  it(`${c.name}: an unlimited run gives the reference results`, async () => {
    const { r, stats, out, ms } = await runAgainst(c, COUNTING, 'unlimited');
    // The quota binds the limited runs for BOUND_S, or longer when the command alone takes that long here.
    boundS = Math.max(BOUND_S, (1.5 * ms) / 1000);
    expect(r.code, r.stderr).toBe(0);
    expect(stats.limited).toBe(0);
    admitted = stats.admitted;
    tokens = stats.admittedTokens;
    expect(admitted).toBeGreaterThan(10);
    reference = resultFiles(out);
    stdout = r.stdout.split(out).join('<out>');
    expect(reference.size).toBeGreaterThan(0);
  });

  const check = async (
    tag: string,
    rateLimit: RateLimitOptions,
    bound: (s: { admitted: number; admittedTokens: number }) => number,
  ) => {
    const { r, ms, stats, requests, out } = await runAgainst(c, rateLimit, tag);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/complete: every item was evaluated/);
    expect(r.stderr).toMatch(/rate limits: /);
    expect(stats.admitted).toBe(admitted);
    const share = stats.limited / requests;
    expect(share, `${stats.limited} of ${requests} requests answered 429`).toBeLessThanOrEqual(0.02);
    expect(ms, `bound ${bound(stats).toFixed(0)} ms`).toBeLessThanOrEqual(1.1 * bound(stats) + ALLOWANCE_MS);
    expect(differing(resultFiles(out), reference)).toEqual([]);
    expect(r.stdout.split(out).join('<out>')).toBe(stdout);
  };

  it(`${c.name}: RPM-bound, default flags: every item, within the bound, <= 2% 429s, the same results`, async () => {
    const rpm = Math.ceil((admitted / boundS) * 60);
    await check('rpm', { rpm, burst: { requests: Math.ceil(rpm / 60) } }, (s) => (s.admitted / rpm) * 60_000);
  });

  it(`${c.name}: TPM-bound, default flags: every item, within the bound, <= 2% 429s, the same results`, async () => {
    const tpm = Math.ceil((tokens / boundS) * 60);
    await check(
      'tpm',
      { rpm: 1e9, tpm, burst: { tokens: Math.ceil(tpm / 60) } },
      (s) => (s.admittedTokens / tpm) * 60_000,
    );
  });

  it(`${c.name}: 429s without any header: every item answered, the same results`, async () => {
    const rpm = Math.ceil((admitted / boundS) * 60);
    const { r, stats, out } = await runAgainst(
      c,
      { rpm, burst: { requests: Math.ceil(rpm / 60) }, headers: 'none' },
      'headerless',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/complete: every item was evaluated/);
    expect(stats.limited).toBeGreaterThan(0);
    expect(stats.admitted).toBe(admitted);
    expect(differing(resultFiles(out), reference)).toEqual([]);
  });

  it(`${c.name}: insufficient_quota stops the command with its cause and fix, exit 2`, async () => {
    const { r, requests } = await runAgainst(c, { insufficientQuota: true }, 'broke');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/configuration error \(insufficient-quota\): the account has no quota left/);
    expect(r.stderr).toMatch(new RegExp(`add credit .*${KEY_ENV}`));
    expect(r.stderr).not.toContain(KEY);
    expect(requests).toBeLessThanOrEqual(3);
  });
}

describeWithReferenceData('llm-judge/slice', 'llm-judge/templates')('llm-judge run --method ours at a quota', () => {
  const SLICE = referencePath('llm-judge/slice');
  const answers = new Map<string, string>();
  let recordsFile: string;
  beforeAll(async () => {
    recordsFile = join(dir, 'slice_records.json');
    const entries = await readOutputEntries(join(SLICE, 'ours_comp_outputs.json'));
    const by = new Map<string, TurnRecord[]>();
    for (const e of entries) by.set(e.record.dialogueId, [...(by.get(e.record.dialogueId) ?? []), e.record]);
    writeFileSync(
      recordsFile,
      serializeTurnRecords([...by.values()].flatMap((l) => l.sort((a, b) => a.turnIndex - b.turnIndex))),
    );
    for (const f of ['ours_acc_outputs.json', 'ours_comp_outputs.json'])
      for (const e of await readOutputEntries(join(SLICE, f))) if (e.prompt) answers.set(e.prompt, e.output);
  });
  quotaCases({
    name: 'llm-judge',
    respond: (req) => answers.get(req.messages.at(-1)!.content) ?? { status: 400, error: 'unknown prompt' },
    args: (baseURL, cacheDir, out) => [
      'llm-judge',
      'run',
      '--method',
      'ours',
      '--records',
      recordsFile,
      '--templates',
      referencePath('llm-judge/templates'),
      '--base-url',
      baseURL,
      '--api-key-env',
      KEY_ENV,
      '--model',
      'test-model',
      '--cache-dir',
      cacheDir,
      '--out',
      out,
    ],
  });
});

describeWithReferenceData('memory')('memory judge at a quota', () => {
  quotaCases({
    name: 'memory',
    respond: (req) => scriptedVerdict(req.messages.at(-1)!.content),
    args: (baseURL, cacheDir, out) => [
      'memory',
      'judge',
      join(referencePath('memory'), 'sample_run_artifact_martin_mark_sessions0-11.jsonl'),
      '--out',
      join(out, 'exia_eval_stat_result.json'),
      '--format',
      'json',
      '--base-url',
      baseURL,
      '--api-key-env',
      KEY_ENV,
      '--model',
      'test-model',
      '--cache-dir',
      cacheDir,
    ],
  });
});

describeWithReferenceData('scorekeeping')('scorekeeping play at a quota', () => {
  const SK = referencePath('scorekeeping');
  let canonical: Awaited<ReturnType<typeof loadResourceDir>>;
  beforeAll(async () => {
    canonical = await loadResourceDir(SK);
  });
  quotaCases({
    name: 'scorekeeping',
    respond: (req) => perfectAnswer(req.messages, canonical),
    args: (baseURL, cacheDir, out) => [
      'scorekeeping',
      'play',
      '--base-url',
      baseURL,
      '--api-key-env',
      KEY_ENV,
      '--cache-dir',
      cacheDir,
      '--model',
      'test-model',
      '--resources',
      SK,
      '--out',
      out,
      '--experiments',
      'travel-booking,restaurant',
      '--episodes',
      '0-1',
    ],
  });
});
