#!/usr/bin/env node
// Bench of issue 23, "LLM runs that finish at the provider's quota": `llm-judge run --method ours`, `memory judge` and
// `scorekeeping play`, each a whole CLI process with DEFAULT flags, against the scripted server's rate-limited mode
// (token buckets for requests and tokens per minute, refilled continuously; buckets of one second's worth, a burst
// far smaller than a provider's minute) running in this process. Per command: an unlimited run (the reference results
// and the request and token counts), then an RPM-bound and a TPM-bound run whose quota is set from those counts so
// that the quota binds for QUOTA_BOUND_S seconds (longer when the command alone takes that long here); one headerless
// case (429s without any header). Printed per run: wall time against the quota bound (answered requests / RPM or
// admitted tokens / TPM, whichever is larger), the share of requests answered 429, failed items, exit code, whether
// the result files equal the unlimited run's, and the client's CPU per call (reported, not a target). Targets: exit 0,
// no failed item, equal results; with headers also wall <= 1.1 x bound + allowance (the unlimited run's wall time,
// at least ALLOWANCE_S: process start-up, inputs, the command's own work) and at most 2% 429s. Exits 1 when a target is missed. Whole script: under 2 minutes on a 2-core machine.
//
//   node scripts/bench-llm-quota.mjs [llm-judge|memory|scorekeeping ...]
//
// The CLI runs from dist when built (`pnpm bench` builds first), else from source through tsx. The script re-runs
// itself under tsx (the scripted answers come from the packages' and tests' TypeScript sources).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
if (!process.env.BENCH_LLM_QUOTA_CHILD) {
  const r = spawnSync(
    process.execPath,
    ['--conditions=@eval/source', '--import', 'tsx', fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit', env: { ...process.env, BENCH_LLM_QUOTA_CHILD: '1' }, cwd: join(root, 'apps', 'cli') },
  );
  process.exit(r.status ?? 1);
}

/** The CLI's working directory (this script's, after it re-runs itself): relative paths in outputs start here. */
const CLI_CWD = join(root, 'apps', 'cli');
const SHARED = process.env.EVAL_SHARED_DIR ? resolve(process.env.EVAL_SHARED_DIR) : join(root, '..', 'shared');
const shared = (...p) => join(SHARED, ...p);
const BOUND_S = Number(process.env.QUOTA_BOUND_S ?? 4);
const ALLOWANCE_S = Number(process.env.QUOTA_ALLOWANCE_S ?? 3);
const KEY_ENV = 'DIALEVAL_BENCH_QUOTA_KEY';
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const cliPkg = JSON.parse(readFileSync(join(root, 'apps', 'cli', 'package.json'), 'utf8'));
const CLI_DIST = join(root, 'apps', 'cli', cliPkg.bin.dialeval);
const cliCommand = existsSync(CLI_DIST)
  ? [CLI_DIST]
  : ['--conditions=@eval/source', '--import', 'tsx', join(root, 'apps', 'cli', 'src', 'bin.ts')];

/** A workspace package as the CLI resolves it (its sources under tsx's `@eval/source` condition). */
const fromCli = createRequire(join(root, 'apps', 'cli', 'package.json'));
const imp = (name) => import(pathToFileURL(fromCli.resolve(name)).href);
const { startTestServer } = await imp('@eval/llm/testing');
const dir = mkdtempSync(join(tmpdir(), 'bench-llm-quota-'));

/** Runs the CLI as a child process: exit code, stderr, wall ms and CPU ms (user + system, /usr/bin/time). */
function runCli(args) {
  return new Promise((resolvePromise) => {
    const timeFile = join(dir, `time-${Date.now()}-${Math.random()}`);
    const argv = TIME
      ? [TIME, ['-f', '%U %S', '-o', timeFile, process.execPath, ...cliCommand, ...args]]
      : [process.execPath, [...cliCommand, ...args]];
    const started = performance.now();
    const child = spawn(argv[0], argv[1], {
      env: { ...process.env, [KEY_ENV]: 'sk-bench-quota', CI: '1', DIALEVAL_HOME: join(dir, 'home') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const ms = performance.now() - started;
      let cpuMs;
      if (TIME && existsSync(timeFile)) {
        const [u, s] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1).split(/\s+/).map(Number);
        cpuMs = (u + s) * 1000;
      }
      resolvePromise({
        code: code ?? 1,
        stderr: stderr.replace(/^Command exited with non-zero status \d+\n/m, ''),
        stdout,
        ms,
        cpuMs,
      });
    });
  });
}

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
/** The result files (run record and journals aside; JSON without clock fields; the output path as `<out>`). */
function resultFiles(out) {
  const files = new Map();
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (!['run.json', 'items.jsonl'].includes(name) && !name.endsWith('.journal.jsonl')) {
        const text = readFileSync(p, 'utf8').split(out).join('<out>').split(relative(CLI_CWD, out)).join('<out>');
        let norm = text;
        try {
          norm = JSON.stringify(JSON.parse(text, (k, v) => (CLOCK_FIELDS.has(k) ? undefined : v)));
        } catch {}
        files.set(relative(out, p), norm);
      }
    }
  };
  if (existsSync(out)) walk(out);
  return files;
}
/** Result files that differ from the reference's. */
const differing = (a, b) =>
  [...new Set([...a.keys(), ...b.keys()])]
    .filter((k) => a.get(k) !== b.get(k))
    .map((k) => {
      const x = a.get(k) ?? '';
      const y = b.get(k) ?? '';
      let i = 0;
      while (i < x.length && x[i] === y[i]) i++;
      return `${k} at "${x.slice(Math.max(0, i - 40), i + 40)}" vs "${y.slice(Math.max(0, i - 40), i + 40)}"`;
    });

async function commands() {
  const { readOutputEntries, serializeTurnRecords } = await imp('@eval/llm-judge');
  const { loadResourceDir, perfectAnswer } = await imp('@eval/scorekeeping');
  const { scriptedVerdict } = await import(pathToFileURL(join(root, 'apps', 'cli', 'test', 'memory-script.ts')).href);
  const list = [];
  const slice = shared('llm-judge', 'slice');
  if (existsSync(slice) && existsSync(shared('llm-judge', 'templates'))) {
    const entries = await readOutputEntries(join(slice, 'ours_comp_outputs.json'));
    const by = new Map();
    for (const e of entries) by.set(e.record.dialogueId, [...(by.get(e.record.dialogueId) ?? []), e.record]);
    const records = join(dir, 'slice_records.json');
    writeFileSync(
      records,
      serializeTurnRecords([...by.values()].flatMap((l) => l.sort((a, b) => a.turnIndex - b.turnIndex))),
    );
    const answers = new Map();
    for (const f of ['ours_acc_outputs.json', 'ours_comp_outputs.json'])
      for (const e of await readOutputEntries(join(slice, f))) if (e.prompt) answers.set(e.prompt, e.output);
    list.push({
      name: 'llm-judge',
      respond: (req) => answers.get(req.messages.at(-1).content) ?? { status: 400, error: 'unknown prompt' },
      args: (out) => [
        'llm-judge',
        'run',
        '--method',
        'ours',
        '--records',
        records,
        '--templates',
        shared('llm-judge', 'templates'),
        '--out',
        out,
      ],
    });
  } else console.log('llm-judge: skipped (no ../shared/llm-judge slice)');
  const artifact = shared('memory', 'sample_run_artifact_martin_mark_sessions0-11.jsonl');
  if (existsSync(artifact)) {
    list.push({
      name: 'memory',
      respond: (req) => scriptedVerdict(req.messages.at(-1).content),
      args: (out) => [
        'memory',
        'judge',
        artifact,
        '--out',
        join(out, 'exia_eval_stat_result.json'),
        '--format',
        'json',
      ],
    });
  } else console.log('memory: skipped (no ../shared/memory artifact)');
  if (existsSync(shared('scorekeeping'))) {
    const canonical = await loadResourceDir(shared('scorekeeping'));
    list.push({
      name: 'scorekeeping',
      respond: (req) => perfectAnswer(req.messages, canonical),
      args: (out) => [
        'scorekeeping',
        'play',
        '--resources',
        shared('scorekeeping'),
        '--out',
        out,
        '--experiments',
        'travel-booking,restaurant,letter-number',
        '--episodes',
        '0-1',
      ],
    });
  } else console.log('scorekeeping: skipped (no ../shared/scorekeeping)');
  const only = process.argv.slice(2);
  return only.length ? list.filter((c) => only.includes(c.name)) : list;
}

async function run(c, tag, rateLimit) {
  const server = await startTestServer({ respond: c.respond, latencyMs: [5, 20], rateLimit });
  const out = join(dir, c.name, tag);
  const flags = [
    '--base-url',
    server.baseURL,
    '--api-key-env',
    KEY_ENV,
    '--model',
    'test-model',
    '--cache-dir',
    join(dir, c.name, `${tag}-cache`),
  ];
  const r = await runCli([...c.args(out), ...flags]);
  const stats = server.rateLimitStats();
  const requests = server.chatRequests().length;
  await server.close();
  const failed = /(\d+) failed, \d+ skipped/.exec(r.stderr);
  return { ...r, stats, requests, out, failedItems: failed ? Number(failed[1]) : undefined };
}

const ok = [];
const started = performance.now();
console.log(
  `llm quota bench: load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores; CLI from ${existsSync(CLI_DIST) ? 'dist' : 'source (tsx)'}`,
);
for (const c of await commands()) {
  const ref = await run(c, 'unlimited', { rpm: 1e9, tpm: 1e12 });
  if (ref.code !== 0) {
    console.log(`${c.name}: the unlimited run failed (exit ${ref.code}):\n${ref.stderr}`);
    ok.push(false);
    continue;
  }
  const reference = resultFiles(ref.out);
  const { admitted, admittedTokens } = ref.stats;
  const boundS = Math.max(BOUND_S, (1.3 * ref.ms) / 1000);
  const rpm = Math.ceil((admitted / boundS) * 60);
  const tpm = Math.ceil((admittedTokens / boundS) * 60);
  const cases = [
    { tag: 'rpm', rateLimit: { rpm, burst: { requests: Math.ceil(rpm / 60) } }, headers: true },
    { tag: 'tpm', rateLimit: { rpm: 1e9, tpm, burst: { tokens: Math.ceil(tpm / 60) } }, headers: true },
  ];
  if (c.name === 'llm-judge')
    cases.push({
      tag: 'headerless',
      rateLimit: { rpm, burst: { requests: Math.ceil(rpm / 60) }, headers: 'none' },
      headers: false,
    });
  for (const k of cases) {
    const r = await run(c, k.tag, k.rateLimit);
    const { rpm: qr, tpm: qt } = k.rateLimit;
    const boundMs = Math.max(
      qr ? (r.stats.admitted / qr) * 60_000 : 0,
      qt ? (r.stats.admittedTokens / qt) * 60_000 : 0,
    );
    const share = r.requests ? r.stats.limited / r.requests : 0;
    const diff = differing(resultFiles(r.out), reference);
    const same = diff.length === 0;
    // What the command costs without any quota (start-up, reading inputs, its own work) overlaps the waiting at
    // best; the allowance is the larger of it and ALLOWANCE_S.
    const allowanceMs = Math.max(ALLOWANCE_S * 1000, ref.ms);
    const pass =
      r.code === 0 &&
      r.failedItems === 0 &&
      r.stats.admitted === admitted &&
      same &&
      (!k.headers || (r.ms <= 1.1 * boundMs + allowanceMs && share <= 0.02));
    ok.push(pass);
    const quota = [qr && qr < 1e9 ? `${qr} RPM` : '', qt ? `${qt} TPM` : ''].filter(Boolean).join(', ');
    console.log(
      `${c.name} ${k.tag}${k.headers ? '' : ' (429s without headers)'}: ${quota}: wall ${(r.ms / 1000).toFixed(1)} s vs bound ${(boundMs / 1000).toFixed(1)} s (ratio ${(r.ms / boundMs).toFixed(2)}${k.headers ? `, target <= 1.1 x bound + ${(allowanceMs / 1000).toFixed(1)} s` : ''}); ${r.stats.limited} of ${r.requests} requests answered 429 (${(100 * share).toFixed(1)}%${k.headers ? ', target <= 2%' : ''}); failed items ${r.failedItems ?? '?'}; exit ${r.code}; results ${same ? 'equal' : `DIFFER (${diff.slice(0, 3).join(', ')})`} to the unlimited run's; client CPU ${r.cpuMs !== undefined ? `${(r.cpuMs / r.requests).toFixed(1)} ms/call` : 'n/a'} ${pass ? 'OK' : 'FAIL'}`,
    );
    if (!pass && r.code !== 0) console.log(r.stderr.split('\n').slice(-12).join('\n'));
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(
  `llm quota bench: ${((performance.now() - started) / 1000).toFixed(0)} s, ${ok.filter(Boolean).length} of ${ok.length} OK`,
);
if (ok.some((x) => !x)) process.exitCode = 1;
