import type { ChatModel } from '@eval/core';
import type { BatchOptions, BatchReport } from './batch';
import type { CacheMode } from './cache';
import type { LlmConfigCause } from './internal/config-errors';
import type { PacingReport } from './internal/pacer';
import type { RetryPolicy } from './internal/transport';
import type { PriceTable } from './prices';
import type { MaxTokensParam } from './request';

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

export interface LlmOptions {
  /** Model name sent to the endpoint (and part of every cache key). */
  model: string;
  /** OpenAI-compatible base URL, e.g. `http://localhost:11434/v1`. Default: `$OPENAI_BASE_URL`, else OpenAI. */
  baseURL?: string;
  /** Name of the environment variable holding the API key (default `OPENAI_API_KEY`). The key is never written anywhere. */
  apiKeyEnv?: string;
  /**
   * A fixed most calls in flight. Default: none; calls in flight follow from the quota (see `rpm`, `tpm`): paced to
   * the rate limits learned from the endpoint's headers, or probed (back off on 429, probe upwards) when it sends none.
   */
  concurrency?: number;
  /** Requests per minute of the account's quota, if known (`--rpm`): paced to from the first call. */
  rpm?: number;
  /** Tokens per minute of the account's quota, if known (`--tpm`): paced to from the first call. */
  tpm?: number;
  /**
   * Longest time in ms the runtime may run (from `createLlm`; default none). When it passes, runs stop as on Ctrl-C
   * (`stopped: 'deadline'`, finished items kept): the only way, besides an interruption, that waiting for a rate
   * limit ends.
   */
  deadlineMs?: number;
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
  /** Attempts per call, the first included (default 5). Rate-limit answers (429) are waited for and use none up. */
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
  /** Items of `runJobs` in progress at once (default 2 x concurrency, at least 16; 256 without a fixed concurrency). */
  itemConcurrency?: number;
  /** `fetch` for the SDK (e.g. one with a proxy dispatcher); default: the SDK's own. */
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

/** A dry run's time estimate. */
export interface DryRunTime {
  /** Wall time in ms of the realistic estimate at the quota (the larger of calls / RPM and tokens / TPM). */
  ms: number;
  /** The quota assumed (absent: not limited), and where it comes from (`stated`: --rpm/--tpm; `default`: a first-tier account). */
  rpm?: number;
  tpm?: number;
  source: 'stated' | 'default';
  /** When the run takes long (over 10 minutes): cost and time through the Batch API (half price, up to 24 h). */
  batch?: { cost: number; explanation: string };
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
  /** How long the realistic run takes at the quota, and (when that is long) what the Batch API would cost instead. */
  time: DryRunTime;
}

/**
 * Why a `runJobs` stopped before every item was run: the budget, `interrupt()`, a configuration error, or a
 * filesystem error (`FileSystemError` from the cache, the journal or `run`: nothing more can be recorded).
 */
export type RunStop = 'budget' | 'aborted' | 'deadline' | 'config' | 'filesystem';

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
  /** Most calls in flight allowed: the highest and lowest cap of the run and the cap at its end. */
  concurrency: { max: number; min: number; final: number };
  /** What pacing learned and did: limits (stated, from headers or probed), 429 answers, time waited for the quota. */
  pacing?: PacingReport;
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
  /** A fixed most calls in flight; undefined: follows from the quota. */
  concurrency?: number;
  rpm?: number;
  tpm?: number;
  deadlineMs?: number;
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
