import { setMaxListeners } from 'node:events';
import { resolve } from 'node:path';
import type { ChatModel } from '@eval/core';
import { EvalError, InputError } from '@eval/core';
import { DiskCache } from './cache';
import { LlmCallError, type LlmConfigError, MissingApiKeyError } from './errors';
import { Budget } from './internal/budget';
import { createCalls } from './internal/calls';
import { ConfigGuard } from './internal/config-guard';
import type { Planned } from './internal/dry-run';
import { createJobRunner, DeadlineError } from './internal/job-runner';
import { checkOptions, isOpenAIHost, resolveOptions } from './internal/options';
import { Pacer } from './internal/pacer';
import { OpenAITransport } from './internal/transport';
import { Stats, Usage } from './internal/usage';
import { JournalWriter } from './journal';
import { DEFAULT_PRICES, priceOf, readPriceTable } from './prices';
import type { Llm, LlmOptions, RunSummary } from './types';

export type { CacheMode } from './cache';
export type { Llm, LlmOptions, RunSummary } from './types';
export { jobKey } from './types';
export { LlmCallError };

/**
 * Creates the LLM runtime of one run: options (`internal/options`), usage and cost (`internal/usage`), the budget
 * (`internal/budget`), the configuration-error guard (`internal/config-guard`), pacing to the quota
 * (`internal/pacer`) around the SDK (`internal/transport`), the calls (`internal/calls`), dry runs
 * (`internal/dry-run`) and the job runner (`internal/job-runner`).
 */
export function createLlm(options: LlmOptions): Llm {
  checkOptions(options);
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const resolved = resolveOptions(options, env);
  const cache = new DiskCache(resolved.cacheDir);
  const usage = new Usage(options.prices, cache, resolved.cache === 'off', resolved.defaultCompletionTokens);
  const budget = new Budget(resolved.maxCost, usage);
  const pacer = new Pacer({ rpm: resolved.rpm, tpm: resolved.tpm, concurrency: resolved.concurrency });
  const global = new Stats();
  const closeController = new AbortController();
  // Every call in flight listens on the run's signal: hundreds of listeners are expected, not a leak.
  setMaxListeners(0, closeController.signal);
  /** Controllers of the `runJobs` in progress (stopped by `interrupt()`, the deadline and a configuration error). */
  const activeRuns = new Set<AbortController>();
  const finishedSummaries: RunSummary[] = [];
  const runningSummaries = new Set<() => RunSummary>();
  const planned = new Map<string, Planned>();

  let apiKey: string | undefined;
  const secret = () => apiKey ?? env[resolved.apiKeyEnv];
  const endpoint = () => resolved.baseURL ?? 'https://api.openai.com/v1';
  const guard = new ConfigGuard(
    resolved.configErrorThreshold,
    () => ({ apiKeyEnv: resolved.apiKeyEnv, endpoint: endpoint(), model: resolved.model }),
    secret,
    (error: LlmConfigError) => {
      for (const c of activeRuns) c.abort(error);
    },
  );

  const ready: Promise<void> = (async () => {
    const file = options.pricesFile ?? env.DIALEVAL_LLM_PRICES;
    if (file) usage.prices = { ...DEFAULT_PRICES, ...(await readPriceTable(file)), ...(options.prices ?? {}) };
    if (resolved.maxCost !== undefined && !priceOf(resolved.model, usage.prices)) {
      throw new InputError(
        `--max-cost needs the price of model "${resolved.model}", which is not in the price table; pass a price table (pricesFile / DIALEVAL_LLM_PRICES)`,
        { field: ['maxCost'] },
      );
    }
  })();
  ready.catch(() => {});

  let transport: OpenAITransport | undefined;
  function getTransport(): OpenAITransport {
    if (transport) return transport;
    const key = env[resolved.apiKeyEnv];
    // Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) usually need no key.
    if (!key && (!resolved.baseURL || isOpenAIHost(resolved.baseURL))) throw new MissingApiKeyError(resolved.apiKeyEnv);
    apiKey = key || undefined;
    transport = new OpenAITransport({
      apiKey: key || 'no-key',
      baseURL: resolved.baseURL,
      policy: resolved.retry,
      pacer,
      fetch: options.fetch,
    });
    return transport;
  }

  let usageLog: Promise<JournalWriter> | undefined;
  const openUsageLog = options.usageLog
    ? () => (usageLog ??= JournalWriter.open(resolve(options.usageLog!), true, { sync: false }))
    : undefined;

  const { makeModel } = createCalls({
    options: resolved,
    defaults: {
      model: options.model,
      temperature: options.temperature,
      topP: options.topP,
      maxTokens: options.maxTokens,
      seed: options.seed,
    },
    ready,
    cache,
    usage,
    budget,
    guard,
    transport: getTransport,
    secret,
    planned,
    usageLog: openUsageLog,
  });

  const runJobs = createJobRunner({
    options: resolved,
    ready,
    log,
    cache,
    usage,
    budget,
    guard,
    pacer,
    pacing: () => pacer.report(),
    global,
    makeModel,
    transport: getTransport,
    secret,
    closeSignal: closeController.signal,
    activeRuns,
    finishedSummaries,
    runningSummaries,
    summaryFile: options.summaryFile,
  });

  // The deadline: every run stops as on Ctrl-C (finished items kept), also while it waits for the quota.
  let deadline: NodeJS.Timeout | undefined;
  let deadlinePassed: DeadlineError | undefined;
  if (resolved.deadlineMs !== undefined) {
    const ms = resolved.deadlineMs;
    deadline = setTimeout(() => {
      deadlinePassed = new DeadlineError(ms);
      log(`${deadlinePassed.message}: stopping; finished items are kept`);
      for (const c of activeRuns) c.abort(deadlinePassed);
    }, ms);
    deadline.unref();
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
    runJobs: (spec) => {
      if (deadlinePassed) {
        const controller = new AbortController();
        controller.abort(deadlinePassed);
        return runJobs({ ...spec, signal: controller.signal });
      }
      return runJobs(spec);
    },
    async close(): Promise<void> {
      clearTimeout(deadline);
      const why = new EvalError('closed', 'the LLM runtime was closed');
      closeController.abort(why);
      pacer.close(why);
      const log = usageLog ? await usageLog.catch(() => undefined) : undefined;
      await log?.close();
      usageLog = undefined;
      await cache.close();
    },
  };
  return llm;
}
