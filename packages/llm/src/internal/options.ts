import { join, resolve } from 'node:path';
import { dialevalHome, InputError } from '@eval/core';
import { CACHE_MODES } from '../cache';
import { progressWanted } from '../progress';
import {
  DEFAULT_COMPLETION_TOKENS,
  DEFAULT_CONFIG_ERROR_THRESHOLD,
  DEFAULT_UPPER_COMPLETION_TOKENS,
  type LlmOptions,
  type ResolvedOptions,
} from '../types';
import { DEFAULT_RETRY } from './transport';

/** Items in progress at once when no fixed concurrency is set: they wait for the quota, not for each other. */
const PACED_ITEM_CONCURRENCY = 256;

/** Rejects options no run could use, naming the field. */
export function checkOptions(o: LlmOptions): void {
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
  for (const f of ['rpm', 'tpm', 'deadlineMs'] as const) {
    const v = o[f];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v <= 0))
      bad(f, `${f} must be a positive number, got ${v}`);
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

export function isOpenAIHost(baseURL: string | undefined): boolean {
  if (!baseURL) return true;
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/** The options with every default filled in (the environment gives the base URL and the progress default). */
export function resolveOptions(options: LlmOptions, env: NodeJS.ProcessEnv): ResolvedOptions {
  const baseURL = options.baseURL ?? (env.OPENAI_BASE_URL || undefined);
  const dryRunOpt = options.dryRun ? (typeof options.dryRun === 'object' ? options.dryRun : {}) : undefined;
  const c = options.concurrency;
  return {
    model: options.model,
    baseURL,
    apiKeyEnv: options.apiKeyEnv ?? 'OPENAI_API_KEY',
    concurrency: c,
    rpm: options.rpm,
    tpm: options.tpm,
    deadlineMs: options.deadlineMs,
    cacheDir: resolve(options.cacheDir ?? join(dialevalHome(env), 'llm-cache')),
    cache: options.cache ?? 'use',
    maxCost: options.maxCost,
    maxTokensParam: options.maxTokensParam ?? (isOpenAIHost(baseURL) ? 'max_completion_tokens' : 'max_tokens'),
    itemConcurrency: options.itemConcurrency ?? (c === undefined ? PACED_ITEM_CONCURRENCY : Math.max(16, c * 2)),
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
}
