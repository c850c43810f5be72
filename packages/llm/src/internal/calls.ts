import type { ChatMessage, ChatModel, ChatOptions, ChatResult } from '@eval/core';
import { EvalError } from '@eval/core';
import type { CachedResponse, DiskCache } from '../cache';
import { CacheMissError, isCode, RequestDeferredError } from '../errors';
import type { JournalWriter } from '../journal';
import { buildRequest, requestKey, wireBody, type CanonicalRequest, type KeyExtras } from '../request';
import { countPromptTokens, quickPromptTokens } from '../tokens';
import type { ResolvedOptions } from '../types';
import type { Budget } from './budget';
import type { ConfigGuard } from './config-guard';
import type { Planned } from './dry-run';
import { type OpenAITransport, redact } from './transport';
import type { Stats, Usage } from './usage';

/** Where a call's request goes: live (sent, or planned by a dry run), or collected for the Batch API. */
export type Phase =
  | { kind: 'live'; plan?: Map<string, Planned> }
  | { kind: 'collect'; record: (req: CanonicalRequest, key: string, extras?: KeyExtras) => void; plan?: undefined };

/** Per-call context: the repeat index (cache key) and the method label (completion statistics). */
export interface CallContext {
  repeat: number;
  label: string;
}

export interface CallDeps {
  options: ResolvedOptions;
  /** Sampling defaults of every request. */
  defaults: { model: string; temperature?: number; topP?: number; maxTokens?: number; seed?: number };
  ready: Promise<void>;
  cache: DiskCache;
  usage: Usage;
  budget: Budget;
  guard: ConfigGuard;
  transport: () => OpenAITransport;
  secret: () => string | undefined;
  /** Dry run: requests planned by calls made outside `runJobs`. */
  planned: Map<string, Planned>;
  /** The usage log (`usageLog` option), opened on first use. */
  usageLog: (() => Promise<JournalWriter>) | undefined;
}

/**
 * The runtime's calls: cache lookup (and replay), dry-run planning, batch collection, sharing of identical calls in
 * flight, the budget, then the transport (pacing, retries); every answer is counted, cached and logged.
 */
export function createCalls(d: CallDeps) {
  const { options, cache, usage, budget, guard } = d;
  const inflight = new Map<string, Promise<CachedResponse>>();

  async function logUsage(entry: Record<string, unknown>): Promise<void> {
    if (d.usageLog) await (await d.usageLog()).appendLine(entry);
  }

  async function send(
    req: CanonicalRequest,
    key: string,
    sinks: Stats[],
    ctx: CallContext,
    sig: AbortSignal | undefined,
  ): Promise<CachedResponse> {
    const reservation = await budget.reserve(req, ctx.label);
    const started = Date.now();
    let res: CachedResponse;
    let attempts: number;
    try {
      const t = d.transport();
      // What the request costs the quota: its prompt (counted locally) and the completion tokens it reserves.
      let counted: { promptTokens: number; exact: boolean; reserveTokens: number } | undefined;
      const cost = () => {
        if (counted?.exact) return counted;
        const prompt = quickPromptTokens(req);
        counted = { promptTokens: prompt.tokens, exact: prompt.exact, reserveTokens: req.params.max_tokens ?? 0 };
        return counted;
      };
      const out = await guard.throughGate(() =>
        t.send(
          wireBody(req, options.maxTokensParam),
          sig,
          (info) => {
            for (const s of sinks) s.retries++;
            if (d.usageLog)
              void logUsage({
                event: 'retry',
                t: new Date().toISOString(),
                model: req.model,
                key,
                attempt: info.attempt,
                status: info.status,
                reason: info.reason,
                delayMs: info.delayMs,
                ...(info.rateLimited ? { rateLimited: true } : {}),
              }).catch(() => {});
          },
          cost,
        ),
      );
      res = out.response;
      attempts = out.attempts;
    } catch (error) {
      budget.settle(reservation, undefined);
      throw error;
    }
    guard.noteSuccess();
    const cost = usage.account(sinks, req, res, 1, false, ctx.label);
    // Without usage figures the estimate stands in for the real cost.
    budget.settle(reservation, res.usage ? cost : reservation);
    if (options.cache !== 'off') await cache.set(req, res, 'live', key, ctx.label || undefined);
    if (d.usageLog) {
      await logUsage({
        event: 'call',
        t: new Date().toISOString(),
        model: req.model,
        key,
        promptTokens: res.usage?.promptTokens,
        completionTokens: res.usage?.completionTokens,
        cachedTokens: res.usage?.cachedTokens,
        cost: usage.price(req.model) ? cost : null,
        finishReason: res.finishReason,
        attempts,
        latencyMs: Date.now() - started,
      });
    }
    return res;
  }

  async function chat(
    messages: ChatMessage[],
    chatOptions: ChatOptions | undefined,
    sinks: Stats[],
    phase: Phase,
    ctx: CallContext,
    signal?: AbortSignal,
  ): Promise<ChatResult> {
    await d.ready;
    if (guard.stopped) throw guard.stopped;
    const req = buildRequest(messages, chatOptions, d.defaults);
    const key = requestKey(req, { namespace: options.namespace, repeat: ctx.repeat });
    const sig = chatOptions?.signal ?? signal;
    const mode = options.cache;
    if (mode === 'use' || mode === 'replay') {
      // Replay: a miss is fatal, so look again for entries written meanwhile (another process, a batch) first.
      const hit = await cache.get(key, mode === 'replay' ? { refresh: true } : undefined);
      if (hit) {
        for (const s of sinks) s.cacheHits++;
        usage.observe(ctx.label, hit);
        guard.noteSuccess();
        return { ...hit, cached: true };
      }
      if (mode === 'replay') {
        if (!guard.stopped) for (const s of sinks) s.failedCalls++;
        const miss = new CacheMissError(key);
        // Misses after the stop (calls that started before it) are part of the stop, not failures of their items.
        if (guard.stopped) throw guard.stopped;
        if (!options.dryRun) guard.noteFailure(miss);
        throw miss;
      }
    }
    if (options.dryRun) {
      const plan = phase.plan ?? d.planned;
      if (!plan.has(key)) plan.set(key, { key, req, promptTokens: await countPromptTokens(req), label: ctx.label });
      throw new RequestDeferredError(key, 'dry-run');
    }
    if (phase.kind === 'collect') {
      phase.record(req, key, { namespace: options.namespace, repeat: ctx.repeat });
      throw new RequestDeferredError(key, 'batch');
    }
    const same = inflight.get(key);
    if (same) {
      // An identical request is in flight: share its answer (it will be in the cache too).
      const res = await same;
      for (const s of sinks) s.cacheHits++;
      return { ...res, cached: true };
    }
    const p = send(req, key, sinks, ctx, sig);
    inflight.set(key, p);
    try {
      const res = await p;
      return { ...res, cached: false };
    } catch (error) {
      if (!isCode(error, 'budget_exceeded') && error !== guard.stopped) for (const s of sinks) s.failedCalls++;
      if (error instanceof Error && !EvalError.isInstance(error)) {
        // Never let a key reach a message (SDK or server text).
        error.message = redact(error.message, d.secret());
      }
      if (!(sig?.aborted ?? false)) guard.noteFailure(error);
      // A quota no wait restores stopped the runtime: the call fails with that cause.
      if (guard.stopped && !EvalError.isInstance(error)) throw guard.stopped;
      throw error;
    } finally {
      inflight.delete(key);
    }
  }

  function makeModel(sinks: Stats[], phase: Phase, ctx: CallContext, signal?: AbortSignal): ChatModel {
    return {
      id: `openai:${options.model}`,
      chat: (messages, chatOptions) => chat(messages, chatOptions, sinks, phase, ctx, signal),
    };
  }

  return { makeModel };
}
