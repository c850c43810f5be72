import { join, resolve } from 'node:path';
import { writeFileAtomic } from '@eval/core';
import { BATCH_DISCOUNT, costOf } from '../prices';
import { formatCost, formatTokens } from '../progress';
import { wireBody, type CanonicalRequest, type MaxTokensParam } from '../request';
import type { CallCountEstimate, DryRunEstimate, DryRunReport, DryRunTime, ResolvedOptions } from '../types';
import type { Usage } from './usage';

/** The quota a dry run assumes when none is stated: OpenAI's first usage tier for its chat models. */
export const DEFAULT_QUOTA = { rpm: 500, tpm: 30_000 } as const;
/** A dry run longer than this at the quota also says what the Batch API would cost and take. */
const LONG_RUN_MS = 10 * 60_000;

/** A planned (dry-run) request. */
export interface Planned {
  key: string;
  req: CanonicalRequest;
  promptTokens: number;
  label: string;
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'run';
}

/** "1 h 05 min", "12 min 30 s", "45 s". */
export function formatDuration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min${s % 60 ? ` ${String(s % 60).padStart(2, '0')} s` : ''}`;
  const h = Math.floor(m / 60);
  return `${h} h ${String(m % 60).padStart(2, '0')} min`;
}

/**
 * Writes a dry run's planned requests (Batch API JSONL) and estimates its calls, tokens, cost and time: a realistic
 * estimate and an upper bound, each explained; the time at the stated quota (`--rpm`/`--tpm`) or a first-tier one.
 */
export async function writeDryRun(args: {
  name: string;
  plan: Map<string, Planned>;
  cacheHits: number;
  calls: CallCountEstimate | undefined;
  options: ResolvedOptions;
  usage: Usage;
}): Promise<DryRunReport> {
  const { name, plan, cacheHits, calls, options, usage } = args;
  const dr = options.dryRun as Exclude<ResolvedOptions['dryRun'], false>;
  const file = resolve(dr.requestsFile ?? join(options.cacheDir, 'dry-run', `${safeName(name)}.requests.jsonl`));
  let promptTokens = 0;
  let realisticCompletion = 0;
  let upperCompletion = 0;
  /** Tokens the provider's rate limiter counts: the prompt plus max tokens where set (reserved), else the completion. */
  let quotaTokens = 0;
  let realisticCost = 0;
  let upperCost = 0;
  let costKnown = true;
  let assumed = false;
  let observedUsed = false;
  const lines: string[] = [];
  for (const pl of plan.values()) {
    const max = pl.req.params.max_tokens;
    const mean = usage.meanCompletionTokens(pl.req.model, pl.label);
    if (mean !== undefined) observedUsed = true;
    else assumed = true;
    const realistic = Math.min(max ?? Number.POSITIVE_INFINITY, mean ?? dr.completionTokens);
    const upper = max ?? dr.upperCompletionTokens;
    promptTokens += pl.promptTokens;
    realisticCompletion += realistic;
    upperCompletion += upper;
    quotaTokens += pl.promptTokens + (max ?? realistic);
    const p = usage.price(pl.req.model);
    if (p) {
      realisticCost += costOf(p, { promptTokens: pl.promptTokens, completionTokens: realistic });
      upperCost += costOf(p, { promptTokens: pl.promptTokens, completionTokens: upper });
    } else costKnown = false;
    lines.push(
      JSON.stringify({
        custom_id: pl.key,
        method: 'POST',
        url: '/v1/chat/completions',
        body: wireBody(pl.req, options.maxTokensParam as MaxTokensParam),
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
  const stated = options.rpm !== undefined || options.tpm !== undefined;
  const rpm = options.rpm ?? (stated ? Number.POSITIVE_INFINITY : DEFAULT_QUOTA.rpm);
  const tpm = options.tpm ?? (stated ? Number.POSITIVE_INFINITY : DEFAULT_QUOTA.tpm);
  const ms = Math.max(realisticCalls / rpm, scale(quotaTokens, realisticCalls) / tpm) * 60_000;
  const time: DryRunTime = { ms, source: stated ? 'stated' : 'default' };
  if (Number.isFinite(rpm)) time.rpm = rpm;
  if (Number.isFinite(tpm)) time.tpm = tpm;
  if (ms > LONG_RUN_MS) {
    time.batch = {
      cost: realisticEst.cost * BATCH_DISCOUNT,
      explanation: 'the Batch API: half price, no rate limit on the run, finished within 24 h (often within an hour)',
    };
  }
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
    time,
  };
}

/** The dry run's report for stderr. */
export function formatDryRun(name: string, d: DryRunReport): string {
  const r = d.estimate.realistic;
  const u = d.estimate.upper;
  const cost = (c: number) => (d.costKnown ? formatCost(c) : 'unknown (no price for the model)');
  const nCalls = (n: number) => `${n} call${n === 1 ? '' : 's'}`;
  const t = d.time;
  const quota = [
    t.rpm !== undefined ? `${t.rpm.toLocaleString('en-US')} requests/min` : '',
    t.tpm !== undefined ? `${t.tpm.toLocaleString('en-US')} tokens/min` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const why = t.source === 'stated' ? 'as stated' : 'a first-tier quota; state yours with --rpm and --tpm';
  let time = `  time: ~${formatDuration(t.ms)} at ${quota} (${why})`;
  if (t.batch) time += `\n  with --batch instead: ${cost(t.batch.cost)} (${t.batch.explanation})`;
  return (
    `dry run "${name}": ${nCalls(d.calls)} to send (${d.cacheHits} answered from cache); requests written to ${d.requestsFile}\n` +
    `  realistic: ${nCalls(r.calls)}, ~${formatTokens(r.promptTokens)} prompt + ~${formatTokens(r.completionTokens)} completion tokens, ${cost(r.cost)} (${r.explanation})\n` +
    `  upper bound: ${nCalls(u.calls)}, ~${formatTokens(u.promptTokens)} prompt + ~${formatTokens(u.completionTokens)} completion tokens, ${cost(u.cost)} (${u.explanation})\n` +
    time
  );
}
