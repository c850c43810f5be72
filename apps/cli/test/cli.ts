import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { SHARED_ROOT } from '../../../test-support/reference-data';

export {
  describeWithReferenceData,
  hasReferenceData,
  itWithReferenceData,
  referencePath,
} from '../../../test-support/reference-data';

export const CLI_ROOT = join(__dirname, '..');
/** `../shared` beside the checkout: guard tests that read it with `itWithReferenceData`/`describeWithReferenceData`. */
export const SHARED = SHARED_ROOT;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  cwd?: string;
  /** Run the real binary in a child process (default: in process, unless DIALEVAL_E2E=spawn). */
  spawn?: boolean;
}

/**
 * Runs `dialeval` with `args` and returns exit code and streams as a user sees them.
 *
 * By default the CLI's `main()` runs in this process with stdout/stderr captured (the same code path as the binary,
 * minus process start-up, which dominates on a loaded 2-core machine). `spawn: true` (or DIALEVAL_E2E=spawn for the
 * whole suite) runs the real binary from source in a child process (tsx, `@eval/source` condition).
 */
export function runCli(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  if (options.spawn || process.env.DIALEVAL_E2E === 'spawn') return runCliProcess(args, options);
  return runCliInProcess(args, options);
}

export function runCliProcess(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@eval/source', '--import', 'tsx', join(CLI_ROOT, 'src', 'bin.ts'), ...args],
      { cwd: options.cwd ?? CLI_ROOT, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

let queue: Promise<unknown> = Promise.resolve();

/** In-process runs are serialised: stdout, stderr, env, cwd and exitCode are process-wide. */
function runCliInProcess(args: string[], options: RunCliOptions): Promise<CliResult> {
  const run = queue.then(() => runOnce(args, options));
  queue = run.catch(() => {});
  return run;
}

async function runOnce(args: string[], options: RunCliOptions): Promise<CliResult> {
  const { main } = await import('../src/main');
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write;
  const err = process.stderr.write;
  const stdinDescriptor = Object.getOwnPropertyDescriptor(process, 'stdin');
  const savedEnv: Record<string, string | undefined> = {};
  const savedExit = process.exitCode;
  const savedCwd = process.cwd();
  const capture = (append: (s: string) => void) =>
    ((chunk: string | Uint8Array, encoding?: unknown, cb?: unknown) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const callback = typeof encoding === 'function' ? encoding : cb;
      if (typeof callback === 'function') queueMicrotask(() => (callback as () => void)());
      return true;
    }) as typeof process.stdout.write;
  for (const [k, v] of Object.entries(options.env ?? {})) {
    savedEnv[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  process.exitCode = undefined;
  process.stdout.write = capture((s) => (stdout += s));
  process.stderr.write = capture((s) => (stderr += s));
  if (options.input !== undefined) {
    Object.defineProperty(process, 'stdin', { value: Readable.from([options.input]), configurable: true });
  }
  if (options.cwd) process.chdir(options.cwd);
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    if (stdinDescriptor) Object.defineProperty(process, 'stdin', stdinDescriptor);
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    process.exitCode = savedExit;
    if (options.cwd) process.chdir(savedCwd);
  }
}

/**
 * Runs the binary from source in a child process with a module-resolution hook and returns the `@eval/*` packages
 * that were resolved: how the tests show that a subcommand loads its package lazily.
 */
export function probeResolved(args: string[]): { status: number | null; stderr: string; packages: string[] } {
  const log = join(mkdtempSync(join(tmpdir(), 'dialeval-lazy-')), 'resolved.log');
  writeFileSync(log, '');
  const r = spawnSync(
    process.execPath,
    [
      '--conditions=@eval/source',
      '--import',
      'tsx',
      '--import',
      join(CLI_ROOT, 'test', 'fixtures-resolve-log.mjs'),
      join(CLI_ROOT, 'src', 'bin.ts'),
      ...args,
    ],
    { cwd: CLI_ROOT, env: { ...process.env, DIALEVAL_RESOLVE_LOG: log }, encoding: 'utf8' },
  );
  const packages = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].sort();
  return { status: r.status, stderr: r.stderr, packages };
}
