import { setMaxListeners } from 'node:events';
import { join, resolve } from 'node:path';
import type { ChatMessage, ChatModel, ChatOptions, ChatResult } from '@eval/core';
import { dialevalHome, EvalError, FileSystemError, InputError, writeFileAtomic, writeJsonAtomic } from '@eval/core';
import { runBatchRounds, type BatchOptions, type BatchReport } from './batch';
import type { CacheMode, CachedResponse } from './cache';
import { CACHE_MODES, DiskCache } from './cache';
import {
  BudgetExceededError,
  CacheMissError,
  isCode,
  LlmCallError,
  LlmConfigError,
  MissingApiKeyError,
  RequestDeferredError,
  type LlmConfigCause,
} from './errors';
import { JournalWriter, readJournal, type JournalRecord } from './journal';
import { AdaptiveLimiter } from './limiter';
import {
  BATCH_DISCOUNT,
  costOf,
  DEFAULT_PRICES,
  priceOf,
  readPriceTable,
  type ModelPrice,
  type PriceTable,
} from './prices';
import { formatCost, formatTokens, ProgressLine, progressWanted } from './progress';
import {
  buildRequest,
  requestKey,
  wireBody,
  type CanonicalRequest,
  type KeyExtras,
  type MaxTokensParam,
} from './request';
import { countPromptTokens } from './tokens';
import { DEFAULT_RETRY, errnoOf, OpenAITransport, redact, UNREACHABLE_ERRNOS, type RetryPolicy } from './transport';

export interface DryRunOptions {
  /** Where the planned requests go (JSONL in the Batch API input format). Default `<cacheDir>/dry-run/<run name>.requests.jsonl`. */
  requestsFile?: string;
  /**
   * Completion tokens of the realistic estimate when neither this run nor the cache has observed any for the same
   * method (default {@link DEFAULT_COMPLETION_TOKENS}).
   */
  completionTokens?: number;
  /** Completion tokens of the upper bound for calls whose request sets no max tokens (default {@link DEFAULT_UPPER_COMPLETION_TOKENS}). */
  upperCompletionTokens?: number;
}

/** Completion tokens expected of a call when its request sets no max tokens and none were observed for its method. */
export const DEFAULT_COMPLETION_TOKENS = 256;
/** Completion tokens of a dry run's upper bound for a call whose request sets no max tokens. */
export const DEFAULT_UPPER_COMPLETION_TOKENS = 4096;
/** Identical configuration failures (401, 403, 404, refused connection, DNS, replay miss) after which a run stops. */
export const DEFAULT_CONFIG_ERROR_THRESHOLD = 3;
/** Before the endpoint has answered once, a call waits at most this long for the call before it. */
const FIRST_CONTACT_WAIT_MS = 2000;

export interface LlmOptions {
  /** Model name sent to the endpoint (and part of every cache key). */
  model: string;
  /** OpenAI-compatible base URL, e.g. `http://localhost:11434/v1`. Default: `$OPENAI_BASE_URL`, else OpenAI. */
  baseURL?: string;
  /** Name of the environment variable holding the API key (default `OPENAI_API_KEY`). The key is never written anywhere. */
  apiKeyEnv?: string;
  /** Most calls in flight at once (default 16); adaptive: halved on 429, recovers on success. */
  concurrency?: number;
  /** Cache directory (default `<dialevalHome()>/llm-cache`). */
  cacheDir?: string;
  /** `use` (default), `refresh` (ignore hits, overwrite), `off` (no cache), `replay` (a miss is an error; no network, no key). */
  cache?: CacheMode;
  /** Budget in USD: a call that could take the run past it is not sent, and the run stops cleanly. */
  maxCost?: number;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  /** Build and record every request without calling the model; print calls, tokens and estimated cost. */
  dryRun?: boolean | DryRunOptions;
  /** Send the run's requests through the OpenAI Batch API first (half price, slower), then complete from cache. */
  batch?: boolean | BatchOptions;
  /** Timeout of one attempt in ms (default 120,000). */
  timeoutMs?: number;
  /** Attempts per call, the first included (default 5). */
  maxAttempts?: number;
  /** First retry delay in ms (default 500); doubles per attempt, with jitter. */
  backoffBaseMs?: number;
  /** Longest wait before a retry in ms (default 60,000). */
  backoffMaxMs?: number;
  /** Live progress line on stderr (default: only when stderr is a TTY and `CI` is unset). */
  progress?: boolean;
  /** Price table (USD per 1M tokens) merged over the defaults. */
  prices?: PriceTable;
  /** JSON price table file merged over the defaults (also `$DIALEVAL_LLM_PRICES`). */
  pricesFile?: string;
  /** Write the machine-readable summary of every `runJobs` here (atomically). */
  summaryFile?: string;
  /**
   * Append one JSON line per model call (`event: "call"`: time, model, request key, tokens, cost, attempts, latency)
   * and per retried attempt (`event: "retry"`: status, reason, delay). Never fsync'd: a log, not a journal.
   */
  usageLog?: string;
  /** Name of the max-tokens body field (default `max_completion_tokens` for api.openai.com, else `max_tokens`). */
  maxTokensParam?: MaxTokensParam;
  /** Items of `runJobs` in progress at once (default 2 x concurrency, at least 16). */
  itemConcurrency?: number;
  /** `fetch` for the SDK (e.g. one with a proxy dispatcher); default: a keep-alive node:http fetch for JSON calls. */
  fetch?: typeof fetch;
  /** Environment to read the key and defaults from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Where reports (dry run, batch status) go; default stderr. */
  log?: (line: string) => void;
  /**
   * A cache-key component: runs with different namespaces never share answers (two recorded runs whose prompts
   * coincide live in one cache side by side). Absent: the key of earlier versions.
   */
  namespace?: string;
  /**
   * Identical configuration failures (401, 403, 404, refused connection, DNS failure, replay miss) with no success
   * in between after which every call fails at once with an `LlmConfigError` and `runJobs` stops (default 3).
   * A missing key stops at once.
   */
  configErrorThreshold?: number;
  /**
   * Completion tokens the budget reserves for a call whose request sets no max tokens, until the run or the cache
   * has observed some for the same method (default {@link DEFAULT_COMPLETION_TOKENS}).
   */
  defaultCompletionTokens?: number;
}

export interface UsageSummary {
  /** Requests answered by the endpoint (retries not counted). */
  calls: number;
  /** Calls answered from the disk cache (or by an identical call in flight). */
  cacheHits: number;
  /** Calls that failed for good. */
  failedCalls: number;
  /** Attempts that were retried. */
  retries: number;
  /** Requests answered through the Batch API. */
  batchCalls: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
  /** USD, from the price table; 0 when no price is known (`costKnown` false). */
  cost: number;
  costKnown: boolean;
}

/** One end of a dry run's range. */
export interface DryRunEstimate {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** USD (0 with `costKnown` false). */
  cost: number;
  /** How the figures were obtained, in one sentence. */
  explanation: string;
}

export interface DryRunReport {
  /** Distinct requests recorded (the first uncached call of each item; more with a `dryRunCalls` model). */
  calls: number;
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  completionTokensAssumed: boolean;
  /** The realistic estimate's cost (same as `estimate.realistic.cost`). */
  cost: number;
  costKnown: boolean;
  requestsFile: string;
  /** Calls and cost as a range: a realistic estimate and an upper bound, each explained. */
  estimate: { realistic: DryRunEstimate; upper: DryRunEstimate };
}

/**
 * Why a `runJobs` stopped before every item was run: the budget, `interrupt()`, a configuration error, or a
 * filesystem error (`FileSystemError` from the cache, the journal or `run`: nothing more can be recorded).
 */
export type RunStop = 'budget' | 'aborted' | 'config' | 'filesystem';

/** An item (one repeat of it) that failed: not counted into any metric, retried by the next run. */
export interface JobFailure {
  /** Job key: the item id, or `<id>#<repeat>` for repeats > 0 (see {@link jobKey}). */
  key: string;
  error: string;
}

export interface RunSummary extends UsageSummary {
  name: string;
  items: number;
  /** Items with a value (this run or a previous one). */
  done: number;
  /** Items recorded as failed in this run. */
  failed: number;
  /** Items taken from the journal (finished in a previous run). */
  skipped: number;
  /** Items not run: the budget stopped the run, the run was aborted, or (dry run) they wait for a model answer. */
  notRun: number;
  stoppedByBudget: boolean;
  /** Set when the run stopped early: budget reached, interrupted (`Llm.interrupt`), or a configuration error. */
  stopped?: RunStop;
  /** The configuration error that stopped the run (`stopped: 'config'`). */
  configError?: { cause: LlmConfigCause; message: string; fix: string };
  /** Items (jobs) failed in this run or recorded as failed and not retried, with their reasons. */
  failures: JobFailure[];
  /** Runs of each item (`repeats`, default 1); `items` counts jobs (items x repeats). */
  repeats: number;
  /** Journal lines dropped because their checksum did not match (their items are run again). */
  journalDropped?: number;
  dryRun?: DryRunReport;
  batch?: BatchReport;
  journal?: string;
  elapsedMs: number;
  /** The adaptive limiter: configured maximum, lowest limit reached (after 429s), limit at the end. */
  concurrency: { max: number; min: number; final: number };
  model: string;
  cacheMode: CacheMode;
}

/**
 * The outcome of one job (an item, or one repeat of it). A failed job (`ok: false`) is not a value: its calls
 * failed after all retries (or `run` threw); `error` is the reason, `code` the error code when there was one
 * (`llm_call_failed`, `cache_miss`...), `status` the HTTP status of a failed call. `repeat` is present when the run
 * has `repeats` > 1.
 */
export type JobResult<R> =
  | { id: string; repeat?: number; ok: true; value: R }
  | { id: string; repeat?: number; ok: false; error: string; code?: string; status?: number };

export interface JobContext {
  /** The run's model: cached, retried, rate-limited, and counted in this run's summary (keyed by `repeat`). */
  model: ChatModel;
  signal: AbortSignal;
  /** Repeat index of this job (0 unless `repeats` > 1). */
  repeat: number;
}

/** A package's own call-count model for dry runs: how many calls one item makes, realistically and at most. */
export interface CallCountEstimate {
  realistic: number;
  upper: number;
}

export interface RunJobsSpec<I, R> {
  name: string;
  items: I[];
  id: (item: I) => string;
  run: (item: I, ctx: JobContext) => Promise<R>;
  /** JSONL journal (fsync'd): items already in it are not run again. */
  journal?: string;
  /** Re-run items the journal records as failed (default true). */
  retryFailed?: boolean;
  /** Summary file of this run (overrides the `summaryFile` option). */
  summaryFile?: string;
  signal?: AbortSignal;
  /**
   * Run every item this many times (default 1), each repeat with its index in the cache key (repeat 0 keeps the
   * key of a single run, so existing caches stay valid). Job keys: `<id>` for repeat 0, `<id>#<r>` after.
   */
  repeats?: number;
  /**
   * Dry run: the calls one item makes, realistically and at most (e.g. a game's re-prompts), when later calls depend
   * on answers the dry run cannot give. Without it, each item counts the requests recorded for it.
   */
  dryRunCalls?: (item: I) => CallCountEstimate;
  /**
   * The method whose completion-token statistics this run's calls share (budget reservations, dry-run estimates;
   * stored with cached answers). Default `name`; give one when a command makes one run per user or file.
   */
  method?: string;
}

export interface RunJobsResult<R> {
  /** In item order (repeats of an item together); jobs not run have none. */
  results: Array<JobResult<R>>;
  summary: RunSummary;
  /** Job keys of the failed jobs: the next run (same journal) retries exactly these. */
  failed: string[];
  /** Job keys not run (budget, interruption, configuration error, or a dry run waiting for answers). */
  notRun: string[];
}

export interface Llm {
  /** Cached, retried, rate-limited ChatModel: every call of a run goes through it. */
  readonly model: ChatModel;
  readonly dryRun: boolean;
  readonly options: Readonly<ResolvedOptions>;
  /**
   * Runs `run` for every item (x `repeats`). Resolves with results and summary, also when stopped by the budget or
   * `interrupt()`; rejects with an `LlmConfigError` when a configuration error stopped it (its summary is written
   * to the summary file first and is in `summaries()`).
   */
  runJobs<I, R>(spec: RunJobsSpec<I, R>): Promise<RunJobsResult<R>>;
  /** The model whose cache keys carry repeat index `repeat` (0: the same as `model`). */
  modelFor(options: { repeat: number }): ChatModel;
  usage(): UsageSummary;
  /** Summaries of every `runJobs` of this runtime so far; one in progress is a snapshot. */
  summaries(): RunSummary[];
  /**
   * Stops the runs in progress (Ctrl-C): no new item starts, calls in flight are aborted, `runJobs` resolves with
   * `stopped: 'aborted'` and writes its summary file. See `catchInterrupts`.
   */
  interrupt(reason?: string): void;
  /** Stops progress output, closes files, aborts calls in flight. */
  close(): Promise<void>;
}

export interface ResolvedOptions {
  model: string;
  baseURL?: string;
  apiKeyEnv: string;
  concurrency: number;
  cacheDir: string;
  cache: CacheMode;
  maxCost?: number;
  maxTokensParam: MaxTokensParam;
  itemConcurrency: number;
  retry: RetryPolicy;
  dryRun:
    | false
    | (Required<Pick<DryRunOptions, 'completionTokens' | 'upperCompletionTokens'>> & { requestsFile?: string });
  batch: false | BatchOptions;
  progress: boolean;
  namespace?: string;
  configErrorThreshold: number;
  defaultCompletionTokens: number;
}

/** Job key of repeat `repeat` of item `id`: the id itself for repeat 0 (a single run), `<id>#<repeat>` after. */
export function jobKey(id: string, repeat: number): string {
  return repeat === 0 ? id : `${id}#${repeat}`;
}

class Stats {
  calls = 0;
  cacheHits = 0;
  failedCalls = 0;
  retries = 0;
  batchCalls = 0;
  promptTokens = 0;
  completionTokens = 0;
  cachedTokens = 0;
  cost = 0;
  unpricedCalls = 0;

  summary(): UsageSummary {
    return {
      calls: this.calls,
      cacheHits: this.cacheHits,
      failedCalls: this.failedCalls,
      retries: this.retries,
      batchCalls: this.batchCalls,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      cachedTokens: this.cachedTokens,
      totalTokens: this.promptTokens + this.completionTokens,
      cost: this.cost,
      costKnown: this.unpricedCalls === 0,
    };
  }
}

type Phase =
  | { kind: 'live'; plan?: Map<string, Planned> }
  | { kind: 'collect'; record: (req: CanonicalRequest, key: string, extras?: KeyExtras) => void; plan?: undefined };

/** Per-call context: the repeat index (cache key) and the method label (completion statistics). */
interface CallContext {
  repeat: number;
  label: string;
}

/** A planned (dry-run) request. */
interface Planned {
  key: string;
  req: CanonicalRequest;
  promptTokens: number;
  label: string;
}

function checkOptions(o: LlmOptions): void {
  const bad = (field: string, msg: string) => {
    throw new InputError(msg, { field: [field], code: 'input_error' });
  };
  if (!o || typeof o.model !== 'string' || o.model.trim() === '') bad('model', 'a model name is required (--model)');
  if (o.cache !== undefined && !CACHE_MODES.includes(o.cache))
    bad('cache', `cache mode must be one of ${CACHE_MODES.join(', ')}, got "${o.cache}"`);
  for (const f of [
    'concurrency',
    'maxAttempts',
    'itemConcurrency',
    'configErrorThreshold',
    'defaultCompletionTokens',
  ] as const) {
    const v = o[f];
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) bad(f, `${f} must be a positive integer, got ${v}`);
  }
  for (const f of ['maxCost', 'timeoutMs', 'backoffBaseMs', 'backoffMaxMs', 'temperature', 'topP'] as const) {
    const v = o[f];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0))
      bad(f, `${f} must be a non-negative number, got ${v}`);
  }
  if (o.seed !== undefined && !Number.isInteger(o.seed)) bad('seed', `seed must be an integer, got ${o.seed}`);
  if (o.maxTokens !== undefined && (!Number.isInteger(o.maxTokens) || o.maxTokens < 1))
    bad('maxTokens', `maxTokens must be a positive integer, got ${o.maxTokens}`);
  if (o.namespace !== undefined && (typeof o.namespace !== 'string' || o.namespace.trim() === ''))
    bad('namespace', 'namespace must be a non-empty string');
  if (o.dryRun && o.batch) bad('batch', '--dry-run and --batch cannot be combined');
  if (o.cache === 'replay' && o.batch)
    bad('batch', '--batch needs the network; it cannot be combined with --cache replay');
}

function isOpenAIHost(baseURL: string | undefined): boolean {
  if (!baseURL) return true;
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'run';
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** The configuration cause behind a failed call, if it is one. */
function configCauseOf(error: unknown): { cause: LlmConfigCause; status?: number } | undefined {
  if (LlmConfigError.isInstance(error)) return { cause: error.cause, status: error.status };
  if (isCode(error, 'cache_miss')) return { cause: 'replay-miss' };
  if (error instanceof LlmCallError) {
    if (error.status === 401) return { cause: 'unauthorized', status: 401 };
    if (error.status === 403) return { cause: 'forbidden', status: 403 };
    if (error.status === 404) return { cause: 'model-not-found', status: 404 };
    if (!error.retryable && error.errno === 'ECONNREFUSED') return { cause: 'connection-refused' };
    if (!error.retryable && error.errno && UNREACHABLE_ERRNOS.has(error.errno)) return { cause: 'dns' };
  }
  return undefined;
}

/** Creates the LLM runtime of one run: one limiter, one cache, one usage account. */
export function createLlm(options: LlmOptions): Llm {
  checkOptions(options);
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const concurrency = options.concurrency ?? 16;
  const baseURL = options.baseURL ?? (env.OPENAI_BASE_URL || undefined);
  const dryRunOpt = options.dryRun ? (typeof options.dryRun === 'object' ? options.dryRun : {}) : undefined;
  const resolved: ResolvedOptions = {
    model: options.model,
    baseURL,
    apiKeyEnv: options.apiKeyEnv ?? 'OPENAI_API_KEY',
    concurrency,
    cacheDir: resolve(options.cacheDir ?? join(dialevalHome(env), 'llm-cache')),
    cache: options.cache ?? 'use',
    maxCost: options.maxCost,
    maxTokensParam: options.maxTokensParam ?? (isOpenAIHost(baseURL) ? 'max_completion_tokens' : 'max_tokens'),
    itemConcurrency: options.itemConcurrency ?? Math.max(16, concurrency * 2),
    retry: {
      maxAttempts: options.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
      timeoutMs: options.timeoutMs ?? DEFAULT_RETRY.timeoutMs,
      backoffBaseMs: options.backoffBaseMs ?? DEFAULT_RETRY.backoffBaseMs,
      backoffMaxMs: options.backoffMaxMs ?? DEFAULT_RETRY.backoffMaxMs,
    },
    dryRun: dryRunOpt
      ? {
          completionTokens: dryRunOpt.completionTokens ?? options.defaultCompletionTokens ?? DEFAULT_COMPLETION_TOKENS,
          upperCompletionTokens: dryRunOpt.upperCompletionTokens ?? DEFAULT_UPPER_COMPLETION_TOKENS,
          requestsFile: dryRunOpt.requestsFile,
        }
      : false,
    batch: options.batch ? (typeof options.batch === 'object' ? options.batch : {}) : false,
    progress: options.progress ?? progressWanted(process.stderr, env),
    namespace: options.namespace,
    configErrorThreshold: options.configErrorThreshold ?? DEFAULT_CONFIG_ERROR_THRESHOLD,
    defaultCompletionTokens: options.defaultCompletionTokens ?? DEFAULT_COMPLETION_TOKENS,
  };
  const defaults = {
    model: options.model,
    temperature: options.temperature,
    topP: options.topP,
    maxTokens: options.maxTokens,
    seed: options.seed,
  };
  const cache = new DiskCache(resolved.cacheDir);
  const limiter = new AdaptiveLimiter(concurrency);
  const global = new Stats();
  const closeController = new AbortController();
  // Every call in flight listens on the run's signal: hundreds of listeners are expected, not a leak.
  setMaxListeners(0, closeController.signal);
  const inflight = new Map<string, Promise<CachedResponse>>();
  /** Dry run: requests planned by calls made outside `runJobs` (each `runJobs` keeps its own plan). */
  const planned = new Map<string, Planned>();
  let transport: OpenAITransport | undefined;
  let apiKey: string | undefined;
  let usageLog: JournalWriter | undefined;
  let usageLogOpening: Promise<JournalWriter> | undefined;

  // Budget: spent (committed) plus reserved (calls in flight, at their expected cost).
  let spent = 0;
  let reserved = 0;
  /** Reservations not settled yet (counted: the sum of floats does not come back to exactly 0). */
  let reservations = 0;
  let budgetHit = false;
  /** Calls waiting for reservations in flight to settle before they know whether they fit the budget. */
  let settleWaiters: Array<() => void> = [];
  /** Completion tokens observed per method label in this run, and (looked up once) in the cache. */
  const observed = new Map<string, { n: number; sum: number }>();
  /** Completion tokens of cached answers by model and method, read once (when first needed). */
  let fromCache: Map<string, { n: number; sum: number }> | undefined;

  // Configuration errors: identical failures in a row (any success resets), and the error that stopped the runtime.
  let configRun: { cause?: LlmConfigCause; count: number; status?: number; detail: string } = { count: 0, detail: '' };
  let configStop: LlmConfigError | undefined;
  /** Controllers of the `runJobs` in progress (stopped by `interrupt()` and by a configuration error). */
  const activeRuns = new Set<AbortController>();
  /** Summaries of the runs so far: finished ones, and a snapshot function for each run in progress. */
  const finishedSummaries: RunSummary[] = [];
  const runningSummaries = new Set<() => RunSummary>();

  let prices: PriceTable = { ...DEFAULT_PRICES, ...(options.prices ?? {}) };
  const ready: Promise<void> = (async () => {
    const file = options.pricesFile ?? env.DIALEVAL_LLM_PRICES;
    if (file) prices = { ...DEFAULT_PRICES, ...(await readPriceTable(file)), ...(options.prices ?? {}) };
    if (resolved.maxCost !== undefined && !priceOf(resolved.model, prices)) {
      throw new InputError(
        `--max-cost needs the price of model "${resolved.model}", which is not in the price table; pass a price table (pricesFile / DIALEVAL_LLM_PRICES)`,
        { field: ['maxCost'] },
      );
    }
  })();
  ready.catch(() => {});

  function getTransport(): OpenAITransport {
    if (transport) return transport;
    const key = env[resolved.apiKeyEnv];
    if (!key) {
      // Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) usually need no key.
      if (!baseURL || isOpenAIHost(baseURL)) throw new MissingApiKeyError(resolved.apiKeyEnv);
    }
    apiKey = key || undefined;
    transport = new OpenAITransport({
      apiKey: key || 'no-key',
      baseURL,
      policy: resolved.retry,
      limiter,
      fetch: options.fetch,
    });
    return transport;
  }

  const secret = () => apiKey ?? env[resolved.apiKeyEnv];
  const endpoint = () => baseURL ?? 'https://api.openai.com/v1';

  function price(model: string): ModelPrice | undefined {
    return priceOf(model, prices);
  }

  function observe(label: string, res: CachedResponse): void {
    if (!res.usage) return;
    const o = observed.get(label) ?? { n: 0, sum: 0 };
    o.n++;
    o.sum += res.usage.completionTokens;
    observed.set(label, o);
  }

  function account(
    sinks: Stats[],
    req: CanonicalRequest,
    res: CachedResponse,
    factor: number,
    batch: boolean,
    label: string,
  ): number {
    const usage = res.usage;
    const p = price(req.model);
    const cost = usage && p ? costOf(p, usage, factor) : 0;
    for (const s of sinks) {
      if (batch) s.batchCalls++;
      else s.calls++;
      if (usage) {
        s.promptTokens += usage.promptTokens;
        s.completionTokens += usage.completionTokens;
        s.cachedTokens += usage.cachedTokens ?? 0;
      }
      if (p) s.cost += cost;
      else s.unpricedCalls++;
    }
    observe(label, res);
    return cost;
  }

  /**
   * Completion tokens a call is expected to produce: its request's max tokens when set; else the mean observed so
   * far in this run for the same method, else in the cache for the same method and model; else the default.
   */
  function expectedCompletionTokens(req: CanonicalRequest, label: string): number {
    if (req.params.max_tokens !== undefined) return req.params.max_tokens;
    return meanCompletionTokens(req.model, label) ?? resolved.defaultCompletionTokens;
  }

  /**
   * Mean completion tokens observed for `label` in this runtime, else in the cache for `label` and `model`, else for
   * any method of this runtime (`undefined`: none seen).
   */
  function meanCompletionTokens(model: string, label: string): number | undefined {
    const o = observed.get(label);
    if (o && o.n > 0) return o.sum / o.n;
    const fromCacheMean = cachedMean(model, label);
    if (fromCacheMean !== undefined) return fromCacheMean;
    let n = 0;
    let sum = 0;
    for (const v of observed.values()) {
      n += v.n;
      sum += v.sum;
    }
    return n > 0 ? sum / n : undefined;
  }

  function cachedMean(model: string, label: string): number | undefined {
    fromCache ??= resolved.cache === 'off' ? new Map() : cache.completionStats();
    const c = fromCache.get(`${model}\u0000${label}`);
    return c && c.n > 0 ? c.sum / c.n : undefined;
  }

  async function estimateCost(req: CanonicalRequest, label: string, factor = 1): Promise<number> {
    const p = price(req.model);
    if (!p) return 0;
    const promptTokens = await countPromptTokens(req);
    return costOf(p, { promptTokens, completionTokens: expectedCompletionTokens(req, label) }, factor);
  }

  /**
   * Reserves the expected cost of a call. When it does not fit next to the calls in flight, it waits for them to
   * settle (`wait`, the default) and tries again; it throws only when it does not fit with nothing in flight, so a
   * run spends close to its budget before it stops.
   */
  async function reserve(req: CanonicalRequest, label: string, factor = 1, wait = true): Promise<number> {
    if (resolved.maxCost === undefined) return 0;
    if (!price(req.model)) {
      throw new InputError(`--max-cost needs the price of model "${req.model}", which is not in the price table`, {
        field: ['model'],
      });
    }
    const est = await estimateCost(req, label, factor);
    for (;;) {
      if (reservations === 0) reserved = 0;
      if (!budgetHit && spent + reserved + est <= resolved.maxCost) {
        reserved += est;
        if (est > 0) reservations++;
        return est;
      }
      if (!budgetHit && wait && reservations > 0) {
        await new Promise<void>((r) => settleWaiters.push(r));
        continue;
      }
      budgetHit = true;
      throw new BudgetExceededError(
        `budget: spent ${formatCost(spent)} (+${formatCost(reserved)} in flight); the next call (~${formatCost(est)}) could pass --max-cost ${formatCost(resolved.maxCost)}`,
      );
    }
  }

  function settle(reservation: number, actual: number | undefined): void {
    reserved -= reservation;
    if (reservation > 0) reservations = Math.max(0, reservations - 1);
    if (actual !== undefined) spent += actual;
    if (settleWaiters.length > 0) {
      const waiters = settleWaiters;
      settleWaiters = [];
      for (const w of waiters) w();
    }
  }

  // First contact: until the endpoint has answered one call, calls go one at a time, so that a wrong key, model or
  // URL costs a few requests (configErrorThreshold), not one per item in flight. A call waits for the one before it
  // at most FIRST_CONTACT_WAIT_MS (an endpoint that hangs does not serialise the run).
  let reachedEndpoint = false;
  let gateTail: Promise<void> = Promise.resolve();
  async function throughGate<T>(send: () => Promise<T>): Promise<T> {
    if (reachedEndpoint) return send();
    const previous = gateTail;
    let release!: () => void;
    gateTail = new Promise<void>((r) => (release = r));
    try {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([previous, new Promise<void>((r) => (timer = setTimeout(r, FIRST_CONTACT_WAIT_MS)))]);
      clearTimeout(timer);
      if (configStop) throw configStop;
      if (reachedEndpoint) {
        // The call before answered: the calls queued behind this one go now too, all at once (not one by one).
        release();
        return await send();
      }
      const out = await send();
      reachedEndpoint = true;
      release();
      return out;
    } catch (error) {
      // Let the caller count this failure (it may stop the runtime) before the next call is let through.
      setImmediate(release);
      throw error;
    }
  }

  function noteSuccess(): void {
    if (configRun.count > 0) configRun = { count: 0, detail: '' };
  }

  const FIXES: Record<LlmConfigCause, () => string> = {
    'missing-key': () => `set ${resolved.apiKeyEnv} to your API key, or name another variable with --api-key-env`,
    unauthorized: () =>
      `check the key in ${resolved.apiKeyEnv} (or name another variable with --api-key-env); it must be valid for ${endpoint()}`,
    forbidden: () =>
      `use a key (${resolved.apiKeyEnv}) that may use model "${resolved.model}" at ${endpoint()}, or choose another --model`,
    'model-not-found': () =>
      `check --model "${resolved.model}" (the endpoint does not know it) and --base-url ${endpoint()} (an OpenAI-compatible URL ends in /v1)`,
    'connection-refused': () =>
      `nothing accepts connections at ${endpoint()}: start the server, or correct --base-url (or OPENAI_BASE_URL)`,
    dns: () =>
      `the host of ${endpoint()} does not resolve: correct --base-url (or OPENAI_BASE_URL), or check the network`,
    'replay-miss': () =>
      `run once with --cache use (it needs the network and a key) to record the answers, or point --cache-dir at the cache that holds them`,
  };

  /** Counts a failed call; identical configuration failures in a row stop the runtime. */
  function noteFailure(error: unknown): void {
    if (configStop) return;
    if (error instanceof MissingApiKeyError) {
      stopFor(error);
      return;
    }
    const c = configCauseOf(error);
    if (!c) return;
    const detail = redact(errorMessage(error), secret());
    if (configRun.cause === c.cause) configRun = { ...configRun, count: configRun.count + 1, detail };
    else configRun = { cause: c.cause, count: 1, status: c.status, detail };
    if (configRun.count >= resolved.configErrorThreshold) {
      stopFor(
        new LlmConfigError(c.cause, {
          detail: `${configRun.count} calls in a row failed: ${detail}`,
          fix: FIXES[c.cause](),
          status: c.status,
          failures: configRun.count,
        }),
      );
    }
  }

  /** A Batch API failure (files, batches) that means the configuration is wrong, as an `LlmConfigError`. */
  function batchConfigError(error: unknown): LlmConfigError | undefined {
    if (LlmConfigError.isInstance(error)) return error;
    const status = (error as { status?: unknown })?.status;
    const errno = errnoOf(error);
    const cause: LlmConfigCause | undefined =
      status === 401
        ? 'unauthorized'
        : status === 403
          ? 'forbidden'
          : status === 404
            ? 'model-not-found'
            : errno === 'ECONNREFUSED'
              ? 'connection-refused'
              : errno && UNREACHABLE_ERRNOS.has(errno)
                ? 'dns'
                : undefined;
    if (!cause) return undefined;
    const detail = `Batch API: ${redact(errorMessage(error), secret())}`;
    return new LlmConfigError(cause, {
      detail,
      fix: FIXES[cause](),
      status: typeof status === 'number' ? status : undefined,
    });
  }

  function stopFor(error: LlmConfigError): void {
    configStop = error;
    for (const c of activeRuns) c.abort(error);
  }

  async function logUsage(entry: Record<string, unknown>): Promise<void> {
    if (!options.usageLog) return;
    if (!usageLog) {
      usageLogOpening ??= JournalWriter.open(resolve(options.usageLog), true, { sync: false });
      usageLog = await usageLogOpening;
    }
    await usageLog.appendLine(entry);
  }

  async function chat(
    messages: ChatMessage[],
    chatOptions: ChatOptions | undefined,
    sinks: Stats[],
    phase: Phase,
    ctx: CallContext,
    signal?: AbortSignal,
  ): Promise<ChatResult> {
    await ready;
    if (configStop) throw configStop;
    const req = buildRequest(messages, chatOptions, defaults);
    const key = requestKey(req, { namespace: resolved.namespace, repeat: ctx.repeat });
    const sig = chatOptions?.signal ?? signal;
    const mode = resolved.cache;
    if (mode === 'use' || mode === 'replay') {
      // Replay: a miss is fatal, so look again for entries written meanwhile (another process, a batch) first.
      const hit = await cache.get(key, mode === 'replay' ? { refresh: true } : undefined);
      if (hit) {
        for (const s of sinks) s.cacheHits++;
        observe(ctx.label, hit);
        noteSuccess();
        return { ...hit, cached: true };
      }
      if (mode === 'replay') {
        if (!configStop) for (const s of sinks) s.failedCalls++;
        const miss = new CacheMissError(key);
        // Misses after the stop (calls that started before it) are part of the stop, not failures of their items.
        if (configStop) throw configStop;
        if (!resolved.dryRun) noteFailure(miss);
        throw miss;
      }
    }
    if (resolved.dryRun) {
      const plan = phase.plan ?? planned;
      if (!plan.has(key)) plan.set(key, { key, req, promptTokens: await countPromptTokens(req), label: ctx.label });
      throw new RequestDeferredError(key, 'dry-run');
    }
    if (phase.kind === 'collect') {
      phase.record(req, key, { namespace: resolved.namespace, repeat: ctx.repeat });
      throw new RequestDeferredError(key, 'batch');
    }
    const same = inflight.get(key);
    if (same) {
      // An identical request is in flight: share its answer (it will be in the cache too).
      const res = await same;
      for (const s of sinks) s.cacheHits++;
      return { ...res, cached: true };
    }
    const p = (async () => {
      const reservation = await reserve(req, ctx.label);
      const started = Date.now();
      let res: CachedResponse;
      let attempts: number;
      try {
        const t = getTransport();
        const out = await throughGate(() =>
          t.send(wireBody(req, resolved.maxTokensParam), sig, (info) => {
            for (const s of sinks) s.retries++;
            if (options.usageLog)
              void logUsage({
                event: 'retry',
                t: new Date().toISOString(),
                model: req.model,
                key,
                attempt: info.attempt,
                status: info.status,
                reason: info.reason,
                delayMs: info.delayMs,
              }).catch(() => {});
          }),
        );
        res = out.response;
        attempts = out.attempts;
      } catch (error) {
        settle(reservation, undefined);
        throw error;
      }
      noteSuccess();
      const cost = account(sinks, req, res, 1, false, ctx.label);
      // Without usage figures the estimate stands in for the real cost.
      settle(reservation, res.usage ? cost : reservation);
      if (mode !== 'off') await cache.set(req, res, 'live', key, ctx.label || undefined);
      if (options.usageLog) {
        await logUsage({
          event: 'call',
          t: new Date().toISOString(),
          model: req.model,
          key,
          promptTokens: res.usage?.promptTokens,
          completionTokens: res.usage?.completionTokens,
          cachedTokens: res.usage?.cachedTokens,
          cost: price(req.model) ? cost : null,
          finishReason: res.finishReason,
          attempts,
          latencyMs: Date.now() - started,
        });
      }
      return res;
    })();
    inflight.set(key, p);
    try {
      const res = await p;
      return { ...res, cached: false };
    } catch (error) {
      if (!isCode(error, 'budget_exceeded') && error !== configStop) for (const s of sinks) s.failedCalls++;
      if (error instanceof Error && !EvalError.isInstance(error)) {
        // Never let a key reach a message (SDK or server text).
        error.message = redact(error.message, secret());
      }
      if (!(sig?.aborted ?? false)) noteFailure(error);
      throw error;
    } finally {
      inflight.delete(key);
    }
  }

  function makeModel(sinks: Stats[], phase: Phase, ctx: CallContext, signal?: AbortSignal): ChatModel {
    return {
      id: `openai:${resolved.model}`,
      chat: (messages, chatOptions) => chat(messages, chatOptions, sinks, phase, ctx, signal),
    };
  }

  async function writeDryRunFile(
    name: string,
    plan: Map<string, Planned>,
    cacheHits: number,
    calls: CallCountEstimate | undefined,
  ): Promise<DryRunReport> {
    const dr = resolved.dryRun as Exclude<ResolvedOptions['dryRun'], false>;
    const file = resolve(dr.requestsFile ?? join(resolved.cacheDir, 'dry-run', `${safeName(name)}.requests.jsonl`));
    let promptTokens = 0;
    let realisticCompletion = 0;
    let upperCompletion = 0;
    let realisticCost = 0;
    let upperCost = 0;
    let costKnown = true;
    let assumed = false;
    let observedUsed = false;
    const lines: string[] = [];
    for (const pl of plan.values()) {
      const max = pl.req.params.max_tokens;
      const mean = meanCompletionTokens(pl.req.model, pl.label);
      if (mean !== undefined) observedUsed = true;
      else assumed = true;
      const realistic = Math.min(max ?? Number.POSITIVE_INFINITY, mean ?? dr.completionTokens);
      const upper = max ?? dr.upperCompletionTokens;
      promptTokens += pl.promptTokens;
      realisticCompletion += realistic;
      upperCompletion += upper;
      const p = price(pl.req.model);
      if (p) {
        realisticCost += costOf(p, { promptTokens: pl.promptTokens, completionTokens: realistic });
        upperCost += costOf(p, { promptTokens: pl.promptTokens, completionTokens: upper });
      } else costKnown = false;
      lines.push(
        JSON.stringify({
          custom_id: pl.key,
          method: 'POST',
          url: '/v1/chat/completions',
          body: wireBody(pl.req, resolved.maxTokensParam),
        }),
      );
    }
    await writeFileAtomic(file, lines.length ? `${lines.join('\n')}\n` : '');
    const n = plan.size;
    // With a call-count model the recorded requests stand for the average call; without one each is one call.
    const realisticCalls = calls ? calls.realistic : n;
    const upperCalls = calls ? calls.upper : n;
    const scale = (total: number, count: number) => (n === 0 ? 0 : (total / n) * count);
    const completionWhy = observedUsed
      ? `completion tokens as observed for the same method${assumed ? ` (${dr.completionTokens} where none were observed)` : ''}, capped by each request's max tokens`
      : `${dr.completionTokens} completion tokens per call (none observed yet for this method), capped by each request's max tokens`;
    const callsWhy = calls
      ? `${realisticCalls} calls from the package's call-count model for the items not answered by the cache`
      : `${n} distinct uncached request(s) (the first uncached call of each item; calls that depend on earlier answers are not counted)`;
    const realisticEst: DryRunEstimate = {
      calls: realisticCalls,
      promptTokens: Math.round(scale(promptTokens, realisticCalls)),
      completionTokens: Math.round(scale(realisticCompletion, realisticCalls)),
      cost: scale(realisticCost, realisticCalls),
      explanation: `${callsWhy}; prompt tokens counted locally; ${completionWhy}`,
    };
    const upperEst: DryRunEstimate = {
      calls: upperCalls,
      promptTokens: Math.round(scale(promptTokens, upperCalls)),
      completionTokens: Math.round(scale(upperCompletion, upperCalls)),
      cost: scale(upperCost, upperCalls),
      explanation: `${calls ? `${upperCalls} calls, the most the package's call-count model allows` : `the same ${n} request(s)`}; every call using its request's max tokens (${dr.upperCompletionTokens} where none is set)`,
    };
    return {
      calls: n,
      cacheHits,
      promptTokens,
      completionTokens: realisticCompletion,
      completionTokensAssumed: assumed,
      cost: realisticEst.cost,
      costKnown,
      requestsFile: file,
      estimate: { realistic: realisticEst, upper: upperEst },
    };
  }

  function modelFor(o: { repeat: number }): ChatModel {
    if (!Number.isInteger(o?.repeat) || o.repeat < 0)
      throw new InputError(`repeat must be a non-negative integer, got ${o?.repeat}`, { field: ['repeat'] });
    return makeModel([global], { kind: 'live' }, { repeat: o.repeat, label: '' }, closeController.signal);
  }

  const llm: Llm = {
    model: modelFor({ repeat: 0 }),
    dryRun: Boolean(resolved.dryRun),
    options: resolved,
    usage: () => global.summary(),
    modelFor,
    summaries: () => [...finishedSummaries, ...[...runningSummaries].map((f) => f())],
    interrupt(reason?: string): void {
      const why = new EvalError('interrupted', reason ? `interrupted (${reason})` : 'interrupted');
      for (const c of activeRuns) c.abort(why);
    },

    async runJobs<I, R>(spec: RunJobsSpec<I, R>): Promise<RunJobsResult<R>> {
      await ready;
      const started = Date.now();
      if (
        !spec ||
        typeof spec.name !== 'string' ||
        !Array.isArray(spec.items) ||
        typeof spec.run !== 'function' ||
        typeof spec.id !== 'function'
      ) {
        throw new InputError('runJobs needs { name, items, id, run }');
      }
      const repeats = spec.repeats ?? 1;
      const method = spec.method ?? spec.name;
      if (!Number.isInteger(repeats) || repeats < 1)
        throw new InputError(`repeats must be a positive integer, got ${spec.repeats}`, { field: ['repeats'] });
      const ids = spec.items.map((item, i) => {
        const id = spec.id(item);
        if (typeof id !== 'string' || id === '')
          throw new InputError(`item ${i} has no id (id() must return a non-empty string)`, { record: i });
        return id;
      });
      const seen = new Set<string>();
      for (let i = 0; i < ids.length; i++) {
        if (seen.has(ids[i]!))
          throw new InputError(`duplicate item id "${ids[i]}": ids must be unique for the journal to resume`, {
            record: i,
          });
        seen.add(ids[i]!);
      }
      // Jobs: every item x repeat, repeats of an item together.
      const jobs: Array<{ item: number; repeat: number; key: string }> = [];
      const keys = new Set<string>();
      for (let i = 0; i < ids.length; i++) {
        for (let r = 0; r < repeats; r++) {
          const key = jobKey(ids[i]!, r);
          if (keys.has(key))
            throw new InputError(`item id "${ids[i]}" collides with the job key of a repeat ("${key}")`, { record: i });
          keys.add(key);
          jobs.push({ item: i, repeat: r, key });
        }
      }
      // A dry run reads the journal (finished items need no calls) but never writes it.
      const journalFile = spec.journal ? resolve(spec.journal) : undefined;
      const previous = journalFile ? await readJournal(journalFile) : undefined;
      if (previous && previous.dropped > 0) {
        log(
          `journal ${journalFile}: ${previous.dropped} line(s) failed their checksum and were dropped; their items are run again`,
        );
      }
      const retryFailed = spec.retryFailed ?? true;

      const stats = new Stats();
      const sinks = [global, stats];
      const jobPlan = new Map<string, Planned>();
      const controller = new AbortController();
      setMaxListeners(0, controller.signal);
      const onOuterAbort = () => controller.abort(spec.signal?.reason ?? closeController.signal.reason);
      spec.signal?.addEventListener('abort', onOuterAbort, { once: true });
      closeController.signal.addEventListener('abort', onOuterAbort, { once: true });
      activeRuns.add(controller);
      if (configStop) controller.abort(configStop);

      const results = new Array<JobResult<R> | undefined>(jobs.length);
      const failures: JobFailure[] = [];
      const notRunKeys: string[] = [];
      /** Dry run: jobs stopped at a request the dry run recorded (they would make calls). */
      const deferredJobs: number[] = [];
      let done = 0;
      let failed = 0;
      let skipped = 0;
      let stoppedByBudget = false;
      /** A filesystem error that stops the run (rethrown after the summary). */
      let fatal: unknown;
      const stopWithFatal = (error: unknown) => {
        if (fatal !== undefined) return;
        fatal = error;
        controller.abort(error);
      };
      const todo: number[] = [];
      const resultOf = (
        j: number,
        rec: JournalRecord,
        extra: { code?: string; status?: number } = {},
      ): JobResult<R> => {
        const job = jobs[j]!;
        const base = repeats > 1 ? { id: ids[job.item]!, repeat: job.repeat } : { id: ids[job.item]! };
        if (rec.ok) return { ...base, ok: true, value: rec.value as R };
        const out: JobResult<R> = { ...base, ok: false, error: rec.error };
        const code = extra.code ?? rec.code;
        const status = extra.status ?? rec.status;
        if (code !== undefined) out.code = code;
        if (status !== undefined) out.status = status;
        return out;
      };
      for (let j = 0; j < jobs.length; j++) {
        const rec = previous?.records.get(jobs[j]!.key);
        if (rec && (rec.ok || !retryFailed)) {
          results[j] = resultOf(j, rec);
          skipped++;
          if (rec.ok) done++;
          else {
            failed++;
            failures.push({ key: jobs[j]!.key, error: rec.error });
          }
        } else {
          todo.push(j);
        }
      }

      const progress = new ProgressLine(
        () => {
          const u = stats.summary();
          return {
            name: spec.name,
            total: jobs.length,
            done,
            failed,
            skipped,
            calls: u.calls + u.batchCalls,
            cacheHits: u.cacheHits,
            tokens: u.totalTokens,
            cost: u.cost,
            costKnown: u.costKnown,
            startedAt: started,
          };
        },
        { enabled: resolved.progress },
      );

      const stopReason = (): RunStop | undefined => {
        if (configStop && controller.signal.reason === configStop) return 'config';
        if (fatal && controller.signal.reason === fatal) return 'filesystem';
        if (stoppedByBudget) return 'budget';
        if (controller.signal.aborted) return 'aborted';
        return undefined;
      };
      const snapshot = (): RunSummary => {
        const stopped = stopReason();
        const summary: RunSummary = {
          name: spec.name,
          items: jobs.length,
          done,
          failed,
          skipped,
          notRun: notRunKeys.length,
          stoppedByBudget,
          ...(stopped ? { stopped } : {}),
          ...(stopped === 'config' && configStop
            ? { configError: { cause: configStop.cause, message: configStop.message, fix: configStop.fix } }
            : {}),
          failures: [...failures],
          repeats,
          ...stats.summary(),
          elapsedMs: Date.now() - started,
          concurrency: { max: limiter.max, min: limiter.minReached, final: limiter.limit },
          model: resolved.model,
          cacheMode: resolved.cache,
        };
        if (journalFile) summary.journal = journalFile;
        if (previous?.dropped) summary.journalDropped = previous.dropped;
        return summary;
      };
      runningSummaries.add(snapshot);

      let batchReport: BatchReport | undefined;
      let writer: JournalWriter | undefined;
      try {
        if (resolved.batch && todo.length > 0) {
          try {
            batchReport = await runBatchRounds({
              items: todo.map((j) => jobs[j]!),
              run: async (job, record) => {
                const model = makeModel(
                  [],
                  { kind: 'collect', record },
                  { repeat: job.repeat, label: method },
                  controller.signal,
                );
                await spec.run(spec.items[job.item]!, { model, signal: controller.signal, repeat: job.repeat });
              },
              options: resolved.batch,
              cache,
              cacheDir: resolved.cacheDir,
              maxTokensParam: resolved.maxTokensParam,
              client: () => getTransport().client,
              reserve: (req) => reserve(req, method, BATCH_DISCOUNT, false),
              settle,
              onAnswer: (req, res) => account(sinks, req, res, BATCH_DISCOUNT, true, method),
              label: method,
              log,
              secret,
              signal: controller.signal,
            });
          } catch (error) {
            // Interrupted or stopped: the summary says so. A key, model or URL the Batch API refuses is a
            // configuration error like any other; anything else is the run's failure.
            if (!controller.signal.aborted) {
              const config = batchConfigError(error);
              if (!config) throw error;
              stopFor(config);
            }
          }
          if (batchReport?.stoppedByBudget) stoppedByBudget = true;
        }

        if (journalFile && !resolved.dryRun)
          writer = await JournalWriter.open(journalFile, previous?.endsWithNewline ?? true);
        const models = Array.from({ length: repeats }, (_, r) =>
          makeModel(sinks, { kind: 'live', plan: jobPlan }, { repeat: r, label: method }, controller.signal),
        );
        let next = 0;
        const worker = async () => {
          while (next < todo.length) {
            const j = todo[next++]!;
            const job = jobs[j]!;
            // Once the budget is reached no new item starts (after a batch phase, items still run: those the batch
            // answered complete from the cache, the others stop at their first uncached call).
            if (((stoppedByBudget || budgetHit) && !resolved.batch) || controller.signal.aborted) {
              if (budgetHit) stoppedByBudget = true;
              notRunKeys.push(job.key);
              continue;
            }
            let rec: JournalRecord;
            const extra: { code?: string; status?: number } = {};
            try {
              const value = await spec.run(spec.items[job.item]!, {
                model: models[job.repeat]!,
                signal: controller.signal,
                repeat: job.repeat,
              });
              const json = value === undefined ? null : (JSON.parse(JSON.stringify(value)) as R);
              rec = { id: job.key, ok: true, value: json };
            } catch (error) {
              if (isCode(error, 'budget_exceeded')) {
                stoppedByBudget = true;
                notRunKeys.push(job.key);
                continue;
              }
              if (isCode(error, 'fs_error')) {
                // The disk refuses (no space, no permission): stop rather than fail every item the same way.
                stopWithFatal(error);
                notRunKeys.push(job.key);
                continue;
              }
              // A call that failed for good is this item's failure even when the run stops meanwhile; anything else
              // thrown while the run is stopping (an aborted call) means the item was not run.
              const ownFailure = error instanceof LlmCallError || isCode(error, 'cache_miss');
              if (
                isCode(error, 'request_deferred') ||
                LlmConfigError.isInstance(error) ||
                (controller.signal.aborted && !ownFailure)
              ) {
                if (isCode(error, 'request_deferred')) deferredJobs.push(j);
                notRunKeys.push(job.key);
                continue;
              }
              if (EvalError.isInstance(error)) extra.code = error.code;
              if (error instanceof LlmCallError && error.status !== undefined) extra.status = error.status;
              rec = { id: job.key, ok: false, error: redact(errorMessage(error), secret()), ...extra };
            }
            if (writer) {
              try {
                await writer.append({ ...rec, t: new Date().toISOString() });
              } catch (error) {
                stopWithFatal(error);
                notRunKeys.push(job.key);
                continue;
              }
            }
            results[j] = resultOf(j, rec, extra);
            if (rec.ok) done++;
            else {
              failed++;
              failures.push({ key: job.key, error: rec.error });
            }
          }
        };
        await Promise.all(Array.from({ length: Math.min(resolved.itemConcurrency, Math.max(1, todo.length)) }, worker));
      } finally {
        progress.stop();
        await writer?.close().catch((error: unknown) => {
          fatal ??= FileSystemError.from(error, journalFile);
        });
        spec.signal?.removeEventListener('abort', onOuterAbort);
        closeController.signal.removeEventListener('abort', onOuterAbort);
        activeRuns.delete(controller);
        runningSummaries.delete(snapshot);
      }

      const summary = snapshot();
      if (batchReport) summary.batch = batchReport;
      if (resolved.dryRun) {
        let calls: CallCountEstimate | undefined;
        if (spec.dryRunCalls) {
          calls = { realistic: 0, upper: 0 };
          for (const j of deferredJobs) {
            const c = spec.dryRunCalls(spec.items[jobs[j]!.item]!);
            calls.realistic += c.realistic;
            calls.upper += c.upper;
          }
        }
        summary.dryRun = await writeDryRunFile(spec.name, jobPlan, stats.cacheHits, calls);
        const d = summary.dryRun;
        const r = d.estimate.realistic;
        const u = d.estimate.upper;
        const cost = (c: number) => (d.costKnown ? formatCost(c) : 'unknown (no price for the model)');
        const nCalls = (n: number) => `${n} call${n === 1 ? '' : 's'}`;
        log(
          `dry run "${spec.name}": ${nCalls(d.calls)} to send (${d.cacheHits} answered from cache); requests written to ${d.requestsFile}\n` +
            `  realistic: ${nCalls(r.calls)}, ~${formatTokens(r.promptTokens)} prompt + ~${formatTokens(r.completionTokens)} completion tokens, ${cost(r.cost)} (${r.explanation})\n` +
            `  upper bound: ${nCalls(u.calls)}, ~${formatTokens(u.promptTokens)} prompt + ~${formatTokens(u.completionTokens)} completion tokens, ${cost(u.cost)} (${u.explanation})`,
        );
      }
      if (stoppedByBudget)
        log(
          `"${spec.name}" stopped by the budget (--max-cost ${formatCost(resolved.maxCost ?? 0)}): ${notRunKeys.length} item(s) not run; finished items are kept`,
        );
      finishedSummaries.push(summary);
      const summaryFile = spec.summaryFile ?? options.summaryFile;
      if (summaryFile) await writeJsonAtomic(resolve(summaryFile), summary);
      if (summary.stopped === 'config' && configStop) throw configStop;
      if (fatal !== undefined) throw fatal;
      return {
        results: results.filter((r): r is JobResult<R> => r !== undefined),
        summary,
        failed: failures.map((f) => f.key),
        notRun: notRunKeys,
      };
    },

    async close(): Promise<void> {
      closeController.abort(new EvalError('closed', 'the LLM runtime was closed'));
      if (usageLogOpening) usageLog = await usageLogOpening.catch(() => undefined);
      await usageLog?.close();
      usageLog = undefined;
      await cache.close();
    },
  };
  return llm;
}

export type { CacheMode };
export { LlmCallError };
