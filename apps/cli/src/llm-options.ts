import { Option, type Command } from 'commander';
// Types only: this file must not load @eval/llm (the CLI imports packages lazily, inside actions).
import type { LlmOptions } from '@eval/llm';
import type { ReadOptions } from '@eval/core';
import { InvalidArgumentError } from 'commander';
import { UsageError } from './util';
import { integer, nonNegativeNumber } from './parsers';

export type { LlmOptions };

/** The flags `addLlmOptions` declares, as commander parses them. */
export interface LlmFlags {
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  concurrency?: number;
  rpm?: number;
  tpm?: number;
  /** Milliseconds (parsed from `--deadline 90s|30m|2h|1h30m|SECONDS`). */
  deadline?: number;
  cacheDir?: string;
  cache?: 'use' | 'refresh' | 'off' | 'replay';
  maxCost?: number;
  dryRun?: boolean;
  dryRunFile?: string;
  batch?: boolean;
  temperature?: number;
  seed?: number;
  maxTokens?: number;
  timeout?: number;
  maxAttempts?: number;
  prices?: string;
  llmSummary?: string;
  progress?: boolean;
  repeats?: number;
  allowInvalidUtf8?: boolean;
}

export const CACHE_MODE_CHOICES = ['use', 'refresh', 'off', 'replay'] as const;

export interface LlmFlagDefaults {
  /** Default of `--model` for this subcommand (e.g. the model the reference used). */
  model?: string;
  /** Default of `--concurrency` (else none: calls in flight follow from the quota). */
  concurrency?: number;
  /** Default of `--temperature` (else none is sent). */
  temperature?: number;
}

/**
 * Adds the LLM flags every LLM subcommand shares: --model, --base-url, --api-key-env, --concurrency, --rpm, --tpm,
 * --deadline, --cache-dir,
 * --cache use|refresh|off|replay, --max-cost, --dry-run, --batch, --temperature, --seed, plus --dry-run-file, --max-tokens,
 * --timeout, --max-attempts, --prices FILE, --llm-summary FILE, --repeats N, --allow-invalid-utf8 and --no-progress.
 */
export function addLlmOptions(command: Command, defaults: LlmFlagDefaults = {}): Command {
  const model = new Option('--model <name>', 'model name sent to the endpoint (part of every cache key)');
  if (defaults.model) model.default(defaults.model);
  command
    .addOption(model)
    .option(
      '--base-url <url>',
      'OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (default: $OPENAI_BASE_URL, else OpenAI)',
    )
    .option(
      '--api-key-env <name>',
      'environment variable holding the API key (the key itself is never written anywhere)',
      'OPENAI_API_KEY',
    )
    .addOption(
      (() => {
        const o = new Option(
          '--concurrency <n>',
          'a fixed most model calls in flight (default: follows from the quota, see --rpm/--tpm)',
        ).argParser(integer('--concurrency', { min: 1 }));
        return defaults.concurrency !== undefined ? o.default(defaults.concurrency) : o;
      })(),
    )
    .addOption(
      new Option(
        '--rpm <n>',
        "requests per minute of your quota: paced to from the first call (default: learned from the endpoint's rate-limit headers, or probed)",
      ).argParser(positiveNumber('--rpm')),
    )
    .addOption(
      new Option(
        '--tpm <n>',
        'tokens per minute of your quota (prompt + max tokens per request, as providers count): paced to from the first call (default: learned or probed)',
      ).argParser(positiveNumber('--tpm')),
    )
    .addOption(
      new Option(
        '--deadline <duration>',
        'stop the run after this long (90s, 30m, 2h, 1h30m or seconds), finished items kept; without it a run waits out every rate limit',
      ).argParser(duration('--deadline')),
    )
    .option('--cache-dir <dir>', 'LLM answer cache directory (default: <DIALEVAL_HOME>/llm-cache)')
    .addOption(
      new Option(
        '--cache <mode>',
        'use: read and write; refresh: overwrite; off: no cache; replay: cache only, a miss is an error (no network, no key)',
      )
        .choices([...CACHE_MODE_CHOICES])
        .default('use'),
    )
    .addOption(
      new Option('--max-cost <usd>', 'budget in USD: stop cleanly (finished items kept) before passing it').argParser(
        nonNegativeNumber('--max-cost'),
      ),
    )
    .option(
      '--dry-run',
      'build every request without calling the model; print calls, tokens and estimated cost; write the requests as JSONL',
    )
    .option(
      '--dry-run-file <file>',
      'where --dry-run writes the requests (Batch API JSONL; default under the cache directory)',
    )
    .option(
      '--batch',
      'send the requests through the OpenAI Batch API (half price, up to 24 h), then finish from the cache',
    )
    .addOption(new Option('--temperature <t>', 'sampling temperature').argParser(nonNegativeNumber('--temperature')))
    .addOption(new Option('--seed <n>', 'sampling seed sent to the endpoint').argParser(integer('--seed')))
    .addOption(
      new Option('--max-tokens <n>', 'most completion tokens per call').argParser(integer('--max-tokens', { min: 1 })),
    )
    .addOption(
      new Option('--timeout <ms>', 'timeout of one model call attempt in ms').argParser(
        integer('--timeout', { min: 1 }),
      ),
    )
    .addOption(
      new Option('--max-attempts <n>', 'attempts per model call (429, 5xx, timeouts are retried)').argParser(
        integer('--max-attempts', { min: 1 }),
      ),
    )
    .option(
      '--prices <file>',
      'JSON price table {"model": {"input": USD/1M, "output": USD/1M, "cachedInput"?: USD/1M}} over the built-in one',
    )
    .option(
      '--llm-summary <file>',
      'write the machine-readable run summary (calls, cache hits, failures, tokens, cost) to FILE',
    )
    .addOption(
      new Option(
        '--repeats <n>',
        "run every call N times (the repeat index is part of the cache key; repeat 0 is a single run's): figures as mean and std across repeats",
      )
        .argParser(integer('--repeats', { min: 1 }))
        .default(1),
    )
    .option('--no-progress', 'no live progress line (it is only drawn on a terminal anyway)')
    .option(
      '--allow-invalid-utf8',
      'replace invalid UTF-8 in the inputs with U+FFFD (counted on stderr) instead of failing with the file and byte offset',
    );
  if (defaults.temperature !== undefined)
    command.setOptionValueWithSource('temperature', defaults.temperature, 'default');
  return command;
}

/** A finite number > 0. */
function positiveNumber(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`${flag} expects a positive number, got "${value}"`);
    return n;
  };
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** A duration in ms: `90s`, `30m`, `2h`, `1h30m`, `1500ms`, or plain seconds. */
function duration(flag: string): (value: string) => number {
  return (value) => {
    const t = value.trim();
    let ms = 0;
    if (/^\d+(\.\d+)?$/.test(t)) ms = Number(t) * 1000;
    else if (/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(t))
      for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    if (!(ms > 0))
      throw new InvalidArgumentError(`${flag} expects a duration such as 90s, 30m, 2h or 1h30m, got "${value}"`);
    return ms;
  };
}

/** Turns parsed flags into `createLlm` options (a plain object; no package is loaded). */
export function llmOptionsFromFlags(flags: LlmFlags): LlmOptions {
  if (!flags.model) {
    throw new UsageError('--model is required for this subcommand (e.g. --model gpt-4o-mini)');
  }
  const out: LlmOptions = { model: flags.model };
  if (flags.baseUrl !== undefined) out.baseURL = flags.baseUrl;
  if (flags.apiKeyEnv !== undefined) out.apiKeyEnv = flags.apiKeyEnv;
  if (flags.concurrency !== undefined) out.concurrency = flags.concurrency;
  if (flags.rpm !== undefined) out.rpm = flags.rpm;
  if (flags.tpm !== undefined) out.tpm = flags.tpm;
  if (flags.deadline !== undefined) out.deadlineMs = flags.deadline;
  if (flags.cacheDir !== undefined) out.cacheDir = flags.cacheDir;
  if (flags.cache !== undefined) out.cache = flags.cache;
  if (flags.maxCost !== undefined) out.maxCost = flags.maxCost;
  if (flags.dryRun) out.dryRun = flags.dryRunFile !== undefined ? { requestsFile: flags.dryRunFile } : true;
  else if (flags.dryRunFile !== undefined) throw new UsageError('--dry-run-file needs --dry-run');
  if (flags.batch) out.batch = true;
  if (flags.temperature !== undefined) out.temperature = flags.temperature;
  if (flags.seed !== undefined) out.seed = flags.seed;
  if (flags.maxTokens !== undefined) out.maxTokens = flags.maxTokens;
  if (flags.timeout !== undefined) out.timeoutMs = flags.timeout;
  if (flags.maxAttempts !== undefined) out.maxAttempts = flags.maxAttempts;
  if (flags.prices !== undefined) out.pricesFile = flags.prices;
  if (flags.llmSummary !== undefined) out.summaryFile = flags.llmSummary;
  if (flags.progress === false) out.progress = false;
  return out;
}

/** How the command reads its inputs: invalid UTF-8 fails (file and byte offset) unless --allow-invalid-utf8. */
export function readOptionsFromFlags(flags: Pick<LlmFlags, 'allowInvalidUtf8'>): ReadOptions {
  if (!flags.allowInvalidUtf8) return {};
  return {
    allowInvalidUtf8: true,
    onInvalidUtf8: (r) =>
      process.stderr.write(
        `warning: ${r.file}: ${r.replaced} invalid UTF-8 sequence(s) replaced with U+FFFD (the first at byte ${r.firstOffset}); the replaced text is what the model sees\n`,
      ),
  };
}
