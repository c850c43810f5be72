import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunBenchmark, type RunWriter, startRun } from '@eval/core';
import type { Command } from 'commander';

/** `--run DIR` and `--system NAME`, as `addRunOptions` declares them. */
export interface RunFlags {
  run?: string;
  system?: string;
}

export interface OpenRunInit {
  benchmark: string;
  /** Whatever changes the numbers (method, normalisation version, mode). */
  variant: string;
  /** Default system name when `--system` is not given (else derived from `input`). */
  system?: string;
  /** The main input file or directory: the system name is derived from it when neither `--system` nor `system` is. */
  input?: string;
  /** Options that can change a number, defaults included. */
  options?: Record<string, unknown>;
  /** More `@eval/*` packages whose versions to record (always: `@eval/core` and `@eval/<benchmark>` when it exists). */
  packages?: string[];
  /**
   * The benchmark's `runBenchmark` descriptor: the run records its `package` (so that `compare`, `runs` and `report`
   * find it; default `@eval/<benchmark>` when that is installed) and its `cluster` unit.
   */
  descriptor?: Pick<RunBenchmark, 'package' | 'cluster'>;
}

/** Adds `--run <dir>` and `--system <name>` to an evaluating command. */
export function addRunOptions(cmd: Command): Command {
  return cmd
    .option(
      '--run <dir>',
      'write a run record (run.json, items.jsonl) into DIR (default with $DIALEVAL_RUNS: <parent>/<benchmark>/<system>/<timestamp>)',
    )
    .option('--system <name>', "the evaluated system's name in the run record (default: from the input file name)");
}

let commandLine: string[] | undefined;
/** The command line as runs record it (scrubbed once: a command writing several runs records the same one). */
let scrubbedCommand: string[] | undefined;

/** Called by `main()` with the arguments it parses: the run's `command` (scrubbed). */
export function rememberCommandLine(argv: string[]): void {
  commandLine = [...argv];
  scrubbedCommand = undefined;
}

/** Flag names whose value is a secret: `--api-key`, `--token`, `--hf-token`, `--password`, ... (not `--max-tokens`). */
const SECRET_FLAG = /(^|[-_])(api[-_]?key|key|token|secret|password|passwd|auth|credentials?)$/i;
const SECRET_VALUE =
  /^(sk|pk|rk|xox[abp]|gh[pousr]|hf|AKIA)[-_A-Za-z0-9]{8,}$|^[A-Za-z0-9_-]{32,}$|^eyJ[\w-]+\.[\w-]+\.[\w-]+$/;

/** Redacts what looks like a key: values of `--*key*`/`--*token*`-like flags, key-shaped words, URL user info and queries. */
export function scrubArgv(argv: string[]): string[] {
  const out: string[] = [];
  let redactNext = false;
  for (const arg of argv) {
    if (redactNext) {
      out.push('***');
      redactNext = false;
      continue;
    }
    const flag = /^--?([^=]+)(=(.*))?$/.exec(arg);
    // `--api-key-env NAME` names a variable: not a secret
    if (flag && SECRET_FLAG.test(flag[1]!) && !/-env$/i.test(flag[1]!)) {
      if (flag[2] !== undefined) out.push(`${arg.slice(0, arg.indexOf('='))}=***`);
      else {
        out.push(arg);
        redactNext = true;
      }
      continue;
    }
    out.push(scrubWord(arg));
  }
  return out;
}

/** Options as recorded: a string under a key-like name (`apiKey`, `hf_token`; not `apiKeyEnv`) or shaped like a key becomes `***`. */
export function scrubOptions(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) {
    const kebab = name.replace(/([a-z0-9])([A-Z])/g, '$1-$2');
    const secretName = SECRET_FLAG.test(kebab) && !/-env$/i.test(kebab);
    out[name] = typeof value === 'string' && (secretName || SECRET_VALUE.test(value)) ? '***' : value;
  }
  return out;
}

function scrubWord(arg: string): string {
  if (SECRET_VALUE.test(arg)) return '***';
  // URLs: drop user info and query (either can carry a key); most arguments are no URL
  if (!arg.includes('://')) return arg;
  return arg.replace(
    /\b([a-z][a-z0-9+.-]*:\/\/)([^/\s@]*@)?([^\s?#]*)(\?[^\s#]*)?/gi,
    (_m, scheme: string, user: string | undefined, rest: string, query: string | undefined) =>
      `${scheme}${user ? '***@' : ''}${rest}${query ? '?***' : ''}`,
  );
}

function here(): string {
  // ESM (source, tsx, the ESM build) has import.meta.url; the CJS build has __filename.
  return typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);
}

function readVersion(file: string): string | undefined {
  try {
    const v = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Versions looked up so far (a command writing several runs, cgt one per setting, asks for the same ones). */
const versions = new Map<string, string | undefined>();

/** The CLI's own version (apps/cli/package.json, one level above src/ and dist/). */
export function cliVersion(): string | undefined {
  if (!versions.has('dialeval')) versions.set('dialeval', readVersion(join(dirname(here()), '..', 'package.json')));
  return versions.get('dialeval');
}

/** Installed version of an `@eval/*` package, as the CLI resolves it; undefined when it is not installed. */
export function packageVersion(name: string): string | undefined {
  if (versions.has(name)) return versions.get(name);
  let version: string | undefined;
  try {
    version = readVersion(createRequire(here()).resolve(`${name}/package.json`));
  } catch {
    version = undefined;
  }
  versions.set(name, version);
  return version;
}

/** A file-name-safe system name from an input path: `out/augpt.json.gz` -> `augpt`. */
export function systemFromInput(input: string): string {
  let name = basename(input.replace(/[\\/]+$/, ''));
  name = name.replace(/\.gz$/i, '').replace(/\.(jsonl|json|csv|txt|tsv)$/i, '');
  name = name.replace(/[^\w.-]+/g, '_').replace(/^\.+/, '');
  return name || 'system';
}

function timestamp(now = new Date()): string {
  return now.toISOString().replace(/[-:]/g, '');
}

/** The command line as every run of this process records it (scrubbed once). */
const recordedCommand = (): string[] => (scrubbedCommand ??= scrubArgv(commandLine ?? process.argv.slice(2)));

/** Whether {@link openRun} will write a run (`--run DIR`, or `$DIALEVAL_RUNS`): known before the command reads its inputs. */
export function runRequested(opts: RunFlags): boolean {
  return opts.run !== undefined || Boolean(process.env.DIALEVAL_RUNS);
}

/**
 * Opens the run record of an evaluating command, or returns undefined when none is asked for: `--run DIR` writes into
 * DIR; else `DIALEVAL_RUNS=<parent>` writes into `<parent>/<benchmark>/<system>/<timestamp>`. Fills `tool` (CLI and
 * `@eval/*` versions, node, platform) and `command` (the arguments, scrubbed of anything that looks like a key).
 */
export async function openRun(opts: RunFlags, init: OpenRunInit): Promise<RunWriter | undefined> {
  const system = opts.system ?? init.system ?? (init.input !== undefined ? systemFromInput(init.input) : 'system');
  let dir = opts.run;
  const parent = process.env.DIALEVAL_RUNS;
  if (dir === undefined && parent) {
    const base = join(parent, init.benchmark, system.replace(/[^\w.-]+/g, '_'), timestamp());
    dir = base;
    for (let i = 2; existsSync(dir); i++) dir = `${base}-${i}`;
  }
  if (dir === undefined) return undefined;
  const packages: Record<string, string> = {};
  for (const name of ['@eval/core', `@eval/${init.benchmark}`, ...(init.packages ?? [])]) {
    const v = packageVersion(name);
    if (v !== undefined) packages[name] = v;
  }
  const cli = cliVersion();
  const builtIn = `@eval/${init.benchmark}`;
  const benchmarkPackage = init.descriptor?.package ?? (packages[builtIn] !== undefined ? builtIn : undefined);
  return startRun(dir, {
    benchmark: init.benchmark,
    variant: init.variant,
    system,
    ...(benchmarkPackage !== undefined ? { package: benchmarkPackage } : {}),
    ...(init.descriptor?.cluster !== undefined ? { cluster: init.descriptor.cluster } : {}),
    command: recordedCommand(),
    options: scrubOptions(init.options ?? {}),
    tool: { ...(cli !== undefined ? { cli } : {}), packages },
  });
}
