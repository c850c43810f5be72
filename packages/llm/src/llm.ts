import { setMaxListeners } from 'node:events';
import { join, resolve } from 'node:path';
import type { ChatMessage, ChatModel, ChatOptions, ChatResult } from '@eval/core';
import { dialevalHome, EvalError, InputError, writeFileAtomic, writeJsonAtomic } from '@eval/core';
import { runBatchRounds, type BatchOptions, type BatchReport } from './batch';
import type { CacheMode, CachedResponse } from './cache';
import { CACHE_MODES, DiskCache } from './cache';
import { BudgetExceededError, CacheMissError, isCode, LlmCallError, MissingApiKeyError, RequestDeferredError } from './errors';
import { JournalWriter, readJournal, type JournalRecord } from './journal';
import { AdaptiveLimiter } from './limiter';
import { BATCH_DISCOUNT, costOf, DEFAULT_PRICES, priceOf, readPriceTable, type ModelPrice, type PriceTable } from './prices';
import { formatCost, formatTokens, ProgressLine, progressWanted } from './progress';
import { buildRequest, requestKey, wireBody, type CanonicalRequest, type MaxTokensParam } from './request';
import { countPromptTokens } from './tokens';
import { DEFAULT_RETRY, OpenAITransport, redact, type RetryPolicy } from './transport';

export interface DryRunOptions {
  /** Where the planned requests go (JSONL in the Batch API input format). Default `<cacheDir>/dry-run/<run name>.requests.jsonl`. */
  requestsFile?: string;
  /** Completion tokens assumed per call when the request sets no max tokens (default 256). */
  completionTokens?: number;
}

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

export interface DryRunReport {
  calls: number;
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  completionTokensAssumed: boolean;
  cost: number;
  costKnown: boolean;
  requestsFile: string;
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
  dryRun?: DryRunReport;
  batch?: BatchReport;
  journal?: string;
  elapsedMs: number;
  /** The adaptive limiter: configured maximum, lowest limit reached (after 429s), limit at the end. */
  concurrency: { max: number; min: number; final: number };
  model: string;
  cacheMode: CacheMode;
}

export type JobResult<R> = { id: string; ok: true; value: R } | { id: string; ok: false; error: string };

export interface JobContext {
  /** The run's model: cached, retried, rate-limited, and counted in this run's summary. */
  model: ChatModel;
  signal: AbortSignal;
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
}

export interface RunJobsResult<R> {
  results: Array<JobResult<R>>;
  summary: RunSummary;
}

export interface Llm {
  /** Cached, retried, rate-limited ChatModel: every call of a run goes through it. */
  readonly model: ChatModel;
  readonly dryRun: boolean;
  readonly options: Readonly<ResolvedOptions>;
  runJobs<I, R>(spec: RunJobsSpec<I, R>): Promise<RunJobsResult<R>>;
  usage(): UsageSummary;
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
  dryRun: false | Required<Pick<DryRunOptions, 'completionTokens'>> & { requestsFile?: string };
  batch: false | BatchOptions;
  progress: boolean;
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

type Phase = { kind: 'live'; plan?: Map<string, Planned> } | { kind: 'collect'; record: (req: CanonicalRequest, key: string) => void; plan?: undefined };

/** A planned (dry-run) request. */
interface Planned {
  key: string;
  req: CanonicalRequest;
  promptTokens: number;
}

function checkOptions(o: LlmOptions): void {
  const bad = (field: string, msg: string) => {
    throw new InputError(msg, { field: [field], code: 'input_error' });
  };
  if (!o || typeof o.model !== 'string' || o.model.trim() === '') bad('model', 'a model name is required (--model)');
  if (o.cache !== undefined && !CACHE_MODES.includes(o.cache)) bad('cache', `cache mode must be one of ${CACHE_MODES.join(', ')}, got "${o.cache}"`);
  for (const f of ['concurrency', 'maxAttempts', 'itemConcurrency'] as const) {
    const v = o[f];
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) bad(f, `${f} must be a positive integer, got ${v}`);
  }
  for (const f of ['maxCost', 'timeoutMs', 'backoffBaseMs', 'backoffMaxMs', 'temperature', 'topP'] as const) {
    const v = o[f];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) bad(f, `${f} must be a non-negative number, got ${v}`);
  }
  if (o.seed !== undefined && !Number.isInteger(o.seed)) bad('seed', `seed must be an integer, got ${o.seed}`);
  if (o.maxTokens !== undefined && (!Number.isInteger(o.maxTokens) || o.maxTokens < 1)) bad('maxTokens', `maxTokens must be a positive integer, got ${o.maxTokens}`);
  if (o.dryRun && o.batch) bad('batch', '--dry-run and --batch cannot be combined');
  if (o.cache === 'replay' && o.batch) bad('batch', '--batch needs the network; it cannot be combined with --cache replay');
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
    dryRun: dryRunOpt ? { completionTokens: dryRunOpt.completionTokens ?? 256, requestsFile: dryRunOpt.requestsFile } : false,
    batch: options.batch ? (typeof options.batch === 'object' ? options.batch : {}) : false,
    progress: options.progress ?? progressWanted(process.stderr, env),
  };
  const defaults = { model: options.model, temperature: options.temperature, topP: options.topP, maxTokens: options.maxTokens, seed: options.seed };
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

  // Budget: spent (committed) plus reserved (calls in flight, at their worst-case estimate).
  let spent = 0;
  let reserved = 0;
  let maxCompletionSeen = 0;
  let budgetHit = false;

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
    transport = new OpenAITransport({ apiKey: key || 'no-key', baseURL, policy: resolved.retry, limiter, fetch: options.fetch });
    return transport;
  }

  const secret = () => apiKey ?? env[resolved.apiKeyEnv];

  function price(model: string): ModelPrice | undefined {
    return priceOf(model, prices);
  }

  function account(sinks: Stats[], req: CanonicalRequest, res: CachedResponse, factor: number, batch: boolean): number {
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
    if (usage) maxCompletionSeen = Math.max(maxCompletionSeen, usage.completionTokens);
    return cost;
  }

  async function estimateCost(req: CanonicalRequest, factor = 1): Promise<number> {
    const p = price(req.model);
    if (!p) return 0;
    const promptTokens = await countPromptTokens(req);
    const completion = req.params.max_tokens ?? Math.max(maxCompletionSeen, 256);
    return costOf(p, { promptTokens, completionTokens: completion }, factor);
  }

  /** Reserves the worst-case cost of a call; throws when it could pass the budget. */
  async function reserve(req: CanonicalRequest, factor = 1): Promise<number> {
    if (resolved.maxCost === undefined) return 0;
    if (!price(req.model)) {
      throw new InputError(`--max-cost needs the price of model "${req.model}", which is not in the price table`, { field: ['model'] });
    }
    const est = await estimateCost(req, factor);
    if (budgetHit || spent + reserved + est > resolved.maxCost) {
      budgetHit = true;
      throw new BudgetExceededError(
        `budget: spent ${formatCost(spent)} (+${formatCost(reserved)} in flight); the next call (~${formatCost(est)}) could pass --max-cost ${formatCost(resolved.maxCost)}`,
      );
    }
    reserved += est;
    return est;
  }

  function settle(reservation: number, actual: number | undefined): void {
    reserved -= reservation;
    if (actual !== undefined) spent += actual;
  }

  async function logUsage(entry: Record<string, unknown>): Promise<void> {
    if (!options.usageLog) return;
    if (!usageLog) {
      usageLogOpening ??= JournalWriter.open(resolve(options.usageLog), true, { sync: false });
      usageLog = await usageLogOpening;
    }
    await usageLog.appendLine(entry);
  }

  async function chat(messages: ChatMessage[], chatOptions: ChatOptions | undefined, sinks: Stats[], phase: Phase, signal?: AbortSignal): Promise<ChatResult> {
    await ready;
    const req = buildRequest(messages, chatOptions, defaults);
    const key = requestKey(req);
    const sig = chatOptions?.signal ?? signal;
    const mode = resolved.cache;
    if (mode === 'use' || mode === 'replay') {
      // Replay: a miss is fatal, so look again for entries written meanwhile (another process, a batch) first.
      const hit = await cache.get(key, mode === 'replay' ? { refresh: true } : undefined);
      if (hit) {
        for (const s of sinks) s.cacheHits++;
        return { ...hit, cached: true };
      }
      if (mode === 'replay') {
        for (const s of sinks) s.failedCalls++;
        throw new CacheMissError(key);
      }
    }
    if (resolved.dryRun) {
      const plan = phase.plan ?? planned;
      if (!plan.has(key)) plan.set(key, { key, req, promptTokens: await countPromptTokens(req) });
      throw new RequestDeferredError(key, 'dry-run');
    }
    if (phase.kind === 'collect') {
      phase.record(req, key);
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
      const reservation = await reserve(req);
      const started = Date.now();
      let res: CachedResponse;
      let attempts: number;
      try {
        const t = getTransport();
        const out = await t.send(wireBody(req, resolved.maxTokensParam), sig, (info) => {
          for (const s of sinks) s.retries++;
          if (options.usageLog) void logUsage({ event: 'retry', t: new Date().toISOString(), model: req.model, key, attempt: info.attempt, status: info.status, reason: info.reason, delayMs: info.delayMs }).catch(() => {});
        });
        res = out.response;
        attempts = out.attempts;
      } catch (error) {
        settle(reservation, undefined);
        throw error;
      }
      const cost = account(sinks, req, res, 1, false);
      // Without usage figures the estimate stands in for the real cost.
      settle(reservation, res.usage ? cost : reservation);
      if (mode !== 'off') await cache.set(req, res, 'live', key);
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
      if (!isCode(error, 'budget_exceeded')) for (const s of sinks) s.failedCalls++;
      if (error instanceof Error && !EvalError.isInstance(error)) {
        // Never let a key reach a message (SDK or server text).
        error.message = redact(error.message, secret());
      }
      throw error;
    } finally {
      inflight.delete(key);
    }
  }

  function makeModel(sinks: Stats[], phase: Phase, signal?: AbortSignal): ChatModel {
    return {
      id: `openai:${resolved.model}`,
      chat: (messages, chatOptions) => chat(messages, chatOptions, sinks, phase, signal),
    };
  }

  async function writeDryRunFile(name: string, plan: Map<string, Planned>, cacheHits: number): Promise<DryRunReport> {
    const dr = resolved.dryRun as Exclude<ResolvedOptions['dryRun'], false>;
    const file = resolve(dr.requestsFile ?? join(resolved.cacheDir, 'dry-run', `${safeName(name)}.requests.jsonl`));
    let promptTokens = 0;
    let completionTokens = 0;
    let cost = 0;
    let costKnown = true;
    let assumed = false;
    const lines: string[] = [];
    for (const pl of plan.values()) {
      const completion = pl.req.params.max_tokens ?? dr.completionTokens;
      if (pl.req.params.max_tokens === undefined) assumed = true;
      promptTokens += pl.promptTokens;
      completionTokens += completion;
      const p = price(pl.req.model);
      if (p) cost += costOf(p, { promptTokens: pl.promptTokens, completionTokens: completion });
      else costKnown = false;
      lines.push(JSON.stringify({ custom_id: pl.key, method: 'POST', url: '/v1/chat/completions', body: wireBody(pl.req, resolved.maxTokensParam) }));
    }
    await writeFileAtomic(file, lines.length ? `${lines.join('\n')}\n` : '');
    return { calls: plan.size, cacheHits, promptTokens, completionTokens, completionTokensAssumed: assumed, cost, costKnown, requestsFile: file };
  }

  const llm: Llm = {
    model: makeModel([global], { kind: 'live' }, closeController.signal),
    dryRun: Boolean(resolved.dryRun),
    options: resolved,
    usage: () => global.summary(),

    async runJobs<I, R>(spec: RunJobsSpec<I, R>): Promise<RunJobsResult<R>> {
      await ready;
      const started = Date.now();
      if (!spec || typeof spec.name !== 'string' || !Array.isArray(spec.items) || typeof spec.run !== 'function' || typeof spec.id !== 'function') {
        throw new InputError('runJobs needs { name, items, id, run }');
      }
      const ids = spec.items.map((item, i) => {
        const id = spec.id(item);
        if (typeof id !== 'string' || id === '') throw new InputError(`item ${i} has no id (id() must return a non-empty string)`, { record: i });
        return id;
      });
      const seen = new Set<string>();
      for (let i = 0; i < ids.length; i++) {
        if (seen.has(ids[i]!)) throw new InputError(`duplicate item id "${ids[i]}": ids must be unique for the journal to resume`, { record: i });
        seen.add(ids[i]!);
      }
      // A dry run reads the journal (finished items need no calls) but never writes it.
      const journalFile = spec.journal ? resolve(spec.journal) : undefined;
      const previous = journalFile ? await readJournal(journalFile) : undefined;
      const retryFailed = spec.retryFailed ?? true;

      const stats = new Stats();
      const sinks = [global, stats];
      const jobPlan = new Map<string, Planned>();
      const controller = new AbortController();
      setMaxListeners(0, controller.signal);
      const onOuterAbort = () => controller.abort(spec.signal?.reason ?? closeController.signal.reason);
      spec.signal?.addEventListener('abort', onOuterAbort, { once: true });
      closeController.signal.addEventListener('abort', onOuterAbort, { once: true });

      const results = new Array<JobResult<R> | undefined>(ids.length);
      let done = 0;
      let failed = 0;
      let skipped = 0;
      let notRun = 0;
      let stoppedByBudget = false;
      const todo: number[] = [];
      for (let i = 0; i < ids.length; i++) {
        const rec = previous?.records.get(ids[i]!);
        if (rec && (rec.ok || !retryFailed)) {
          results[i] = rec.ok ? { id: rec.id, ok: true, value: rec.value as R } : { id: rec.id, ok: false, error: rec.error };
          skipped++;
          if (rec.ok) done++;
          else failed++;
        } else {
          todo.push(i);
        }
      }

      const progress = new ProgressLine(
        () => {
          const u = stats.summary();
          return {
            name: spec.name,
            total: ids.length,
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

      let batchReport: BatchReport | undefined;
      let writer: JournalWriter | undefined;
      try {
        if (resolved.batch && todo.length > 0) {
          batchReport = await runBatchRounds({
            items: todo.map((i) => spec.items[i]!),
            run: async (item, record) => {
              const model = makeModel([], { kind: 'collect', record }, controller.signal);
              await spec.run(item, { model, signal: controller.signal });
            },
            options: resolved.batch,
            cache,
            cacheDir: resolved.cacheDir,
            maxTokensParam: resolved.maxTokensParam,
            client: () => getTransport().client,
            reserve: (req) => reserve(req, BATCH_DISCOUNT),
            settle,
            onAnswer: (req, res) => account(sinks, req, res, BATCH_DISCOUNT, true),
            log,
            secret,
            signal: controller.signal,
          });
          if (batchReport.stoppedByBudget) stoppedByBudget = true;
        }

        if (journalFile && !resolved.dryRun) writer = await JournalWriter.open(journalFile, previous?.endsWithNewline ?? true);
        const model = makeModel(sinks, { kind: 'live', plan: jobPlan }, controller.signal);
        let next = 0;
        const worker = async () => {
          while (next < todo.length) {
            const i = todo[next++]!;
            const id = ids[i]!;
            // Once the budget is reached no new item starts (after a batch phase, items still run: those the batch
            // answered complete from the cache, the others stop at their first uncached call).
            if (((stoppedByBudget || budgetHit) && !resolved.batch) || controller.signal.aborted) {
              if (budgetHit) stoppedByBudget = true;
              notRun++;
              continue;
            }
            let rec: JournalRecord;
            try {
              const value = await spec.run(spec.items[i]!, { model, signal: controller.signal });
              const json = value === undefined ? null : (JSON.parse(JSON.stringify(value)) as R);
              rec = { id, ok: true, value: json };
            } catch (error) {
              if (isCode(error, 'budget_exceeded')) {
                stoppedByBudget = true;
                notRun++;
                continue;
              }
              if (isCode(error, 'request_deferred') || controller.signal.aborted) {
                notRun++;
                continue;
              }
              rec = { id, ok: false, error: redact(errorMessage(error), secret()) };
            }
            if (writer) await writer.append({ ...rec, t: new Date().toISOString() });
            results[i] = rec.ok ? { id, ok: true, value: rec.value as R } : { id, ok: false, error: rec.error };
            if (rec.ok) done++;
            else failed++;
          }
        };
        await Promise.all(Array.from({ length: Math.min(resolved.itemConcurrency, Math.max(1, todo.length)) }, worker));
      } finally {
        progress.stop();
        await writer?.close();
        spec.signal?.removeEventListener('abort', onOuterAbort);
        closeController.signal.removeEventListener('abort', onOuterAbort);
      }

      const summary: RunSummary = {
        name: spec.name,
        items: ids.length,
        done,
        failed,
        skipped,
        notRun,
        stoppedByBudget,
        ...stats.summary(),
        elapsedMs: Date.now() - started,
        concurrency: { max: limiter.max, min: limiter.minReached, final: limiter.limit },
        model: resolved.model,
        cacheMode: resolved.cache,
      };
      if (journalFile) summary.journal = journalFile;
      if (batchReport) summary.batch = batchReport;
      if (resolved.dryRun) {
        summary.dryRun = await writeDryRunFile(spec.name, jobPlan, stats.cacheHits);
        const d = summary.dryRun;
        log(
          `dry run "${spec.name}": ${d.calls} call${d.calls === 1 ? '' : 's'} to send (${d.cacheHits} answered from cache), ` +
            `~${formatTokens(d.promptTokens)} prompt tokens + ~${formatTokens(d.completionTokens)} completion tokens` +
            `${d.completionTokensAssumed ? ` (assumed ${resolved.dryRun ? resolved.dryRun.completionTokens : 0} per call without max tokens)` : ''}, ` +
            `estimated cost ${d.costKnown ? formatCost(d.cost) : 'unknown (no price for the model)'}; requests written to ${d.requestsFile}`,
        );
      }
      if (stoppedByBudget) log(`"${spec.name}" stopped by the budget (--max-cost ${formatCost(resolved.maxCost ?? 0)}): ${notRun} item(s) not run; finished items are kept`);
      const summaryFile = spec.summaryFile ?? options.summaryFile;
      if (summaryFile) await writeJsonAtomic(resolve(summaryFile), summary);
      return { results: results.filter((r): r is JobResult<R> => r !== undefined), summary };
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
