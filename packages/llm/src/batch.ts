import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { toFile } from 'openai';
import { writeJsonAtomic } from '@eval/core';
import type { CachedResponse, DiskCache } from './cache';
import { isCode } from './errors';
import { sha256 } from './hash';
import { requestKey, wireBody, type CanonicalRequest, type KeyExtras, type MaxTokensParam } from './request';
import { redact, toResponse } from './internal/transport';

export interface BatchOptions {
  /** Time between two status polls in ms (default 30,000). */
  pollIntervalMs?: number;
  /** Give up waiting after this many ms (default 26 hours); the batch stays submitted and a later run resumes it. */
  maxWaitMs?: number;
  /** Collect-submit-apply rounds (default 3): a round handles requests that depend on the answers of the previous one. */
  maxRounds?: number;
  /** Where the state files of submitted batches live (default `<cacheDir>/batches`). */
  stateDir?: string;
  completionWindow?: '24h';
}

export interface BatchReport {
  rounds: number;
  /** Requests put in batches by this invocation (resumed batches included). */
  requests: number;
  /** Requests answered through batches and written to the cache. */
  answered: number;
  /** Requests a batch could not answer (they are sent live afterwards). */
  failed: number;
  /** Batch ids used, in order. */
  batches: string[];
  /** Batches found already submitted (by an earlier invocation) and resumed. */
  resumed: number;
  stoppedByBudget: boolean;
}

interface BatchState {
  v: 1;
  hash: string;
  requests: number;
  inputFileId: string;
  batchId?: string;
  status: 'uploaded' | 'submitted' | 'completed' | 'applied' | 'failed';
  /** Cache-key extras (namespace, repeat) of the requests that have some, by key: needed to map answers back. */
  extras?: Record<string, KeyExtras>;
  createdAt: string;
  updatedAt: string;
}

type BatchObject = OpenAI.Batches.Batch;

export interface BatchRunArgs<I> {
  items: I[];
  run: (item: I, record: (req: CanonicalRequest, key: string, extras?: KeyExtras) => void) => Promise<void>;
  options: BatchOptions;
  cache: DiskCache;
  cacheDir: string;
  maxTokensParam: MaxTokensParam;
  client: () => OpenAI;
  reserve: (req: CanonicalRequest) => Promise<number>;
  settle: (reservation: number, actual: number | undefined) => void;
  onAnswer: (req: CanonicalRequest, res: CachedResponse) => number;
  /** Method label stored with the cached answers. */
  label?: string;
  log: (line: string) => void;
  secret: () => string | undefined;
  signal: AbortSignal;
}

const TERMINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);
const ADMIN = { maxRetries: 4 } as const;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Rebuilds the canonical request from a Batch API input line body (so that results map back to cache keys). */
export function requestFromBody(body: Record<string, unknown>): CanonicalRequest {
  const req: CanonicalRequest = {
    model: String(body.model),
    messages: (body.messages as CanonicalRequest['messages']).map((m) => ({ role: m.role, content: m.content })),
    params: {},
  };
  if (typeof body.temperature === 'number') req.params.temperature = body.temperature;
  if (typeof body.top_p === 'number') req.params.top_p = body.top_p;
  const mt = body.max_completion_tokens ?? body.max_tokens;
  if (typeof mt === 'number') req.params.max_tokens = mt;
  if (typeof body.seed === 'number') req.params.seed = body.seed;
  if (body.response_format) req.response_format = body.response_format as CanonicalRequest['response_format'];
  return req;
}

async function readState(file: string): Promise<BatchState | undefined> {
  try {
    const s = JSON.parse(await readFile(file, 'utf8')) as BatchState;
    return s && s.v === 1 && typeof s.hash === 'string' && typeof s.inputFileId === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

async function writeState(file: string, state: BatchState): Promise<void> {
  await writeJsonAtomic(file, { ...state, updatedAt: new Date().toISOString() });
}

async function downloadText(client: OpenAI, fileId: string): Promise<string> {
  const res = await client.files.content(fileId, ADMIN);
  return res.text();
}

function parseLines(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A damaged line is skipped: its request is sent live later.
    }
  }
  return out;
}

/**
 * Batch phase of a run: runs the items against the cache, collecting the requests they would send; submits them
 * as one Batch API job (or finds the job an earlier invocation submitted, through a state file named after the
 * hash of the request set); waits; writes every answer to the cache. Repeats for requests that depend on
 * answers, up to `maxRounds`. The normal run then completes from the cache.
 */
export async function runBatchRounds<I>(args: BatchRunArgs<I>): Promise<BatchReport> {
  const report: BatchReport = {
    rounds: 0,
    requests: 0,
    answered: 0,
    failed: 0,
    batches: [],
    resumed: 0,
    stoppedByBudget: false,
  };
  const stateDir = args.options.stateDir ?? join(args.cacheDir, 'batches');
  const poll = args.options.pollIntervalMs ?? 30_000;
  const maxWait = args.options.maxWaitMs ?? 26 * 3600_000;
  const maxRounds = args.options.maxRounds ?? 3;

  // Requests a batch of this invocation could not answer: not resubmitted, they are sent live afterwards.
  const failedKeys = new Set<string>();
  // Batches an earlier invocation submitted and did not collect (killed while waiting, or while writing the cache):
  // poll and apply every one of them before anything new is submitted, so that no paid request is sent twice.
  await resumeOutstanding(args, stateDir, report, failedKeys, poll, maxWait);

  for (let round = 1; round <= maxRounds; round++) {
    const collected = new Map<string, CanonicalRequest>();
    const extras = new Map<string, KeyExtras>();
    let next = 0;
    const worker = async () => {
      while (next < args.items.length) {
        const item = args.items[next++]!;
        try {
          await args.run(item, (req, key, extra) => {
            if (!collected.has(key) && !failedKeys.has(key)) {
              collected.set(key, req);
              if (extra && (extra.namespace || extra.repeat)) extras.set(key, extra);
            }
          });
        } catch (error) {
          if (args.signal.aborted) throw error;
          // Deferred requests end the item here; other errors will show again (and be recorded) in the live run.
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, Math.max(1, args.items.length)) }, worker));
    if (collected.size === 0) break;
    report.rounds = round;

    const keys = [...collected.keys()].sort();
    const hash = sha256(keys.join('\n'));
    const stateFile = join(stateDir, `${hash}.json`);
    let state = await readState(stateFile);
    const client = args.client();
    const reservations = new Map<string, number>();

    if (state && (state.status === 'failed' || state.status === 'applied')) {
      await rm(stateFile, { force: true });
      state = undefined;
    }
    let batch: BatchObject | undefined;
    if (state?.batchId) {
      batch = await client.batches.retrieve(state.batchId, ADMIN);
      report.resumed++;
      args.log(`batch ${batch.id}: found (submitted earlier), status ${batch.status}`);
    } else {
      if (!state) {
        const submit: string[] = [];
        // In collection order (roughly item order), so that a budget cut keeps the first items.
        for (const k of collected.keys()) {
          try {
            reservations.set(k, await args.reserve(collected.get(k)!));
            submit.push(k);
          } catch (error) {
            if (!isCode(error, 'budget_exceeded')) throw error;
            report.stoppedByBudget = true;
            break;
          }
        }
        if (submit.length === 0) break;
        const jsonl = submit
          .map((k) =>
            JSON.stringify({
              custom_id: k,
              method: 'POST',
              url: '/v1/chat/completions',
              body: wireBody(collected.get(k)!, args.maxTokensParam),
            }),
          )
          .join('\n');
        const file = await client.files.create(
          { file: await toFile(Buffer.from(`${jsonl}\n`), `dialeval-${hash.slice(0, 16)}.jsonl`), purpose: 'batch' },
          ADMIN,
        );
        state = {
          v: 1,
          hash,
          requests: submit.length,
          inputFileId: file.id,
          status: 'uploaded',
          createdAt: new Date().toISOString(),
          updatedAt: '',
        };
        const stateExtras = Object.fromEntries(submit.filter((k) => extras.has(k)).map((k) => [k, extras.get(k)!]));
        if (Object.keys(stateExtras).length > 0) state.extras = stateExtras;
        // A budget-limited (partial) submission is still filed under the hash of the whole collected set: a later
        // invocation resumes it, and the requests left out are collected again in the next round.
        await writeState(stateFile, state);
      } else {
        // Uploaded, but the batch may or may not have been created before the previous run died: look for it.
        for await (const b of client.batches.list({ limit: 100 }, ADMIN)) {
          if ((b.metadata as Record<string, string> | null)?.dialeval_hash === hash) {
            batch = b;
            report.resumed++;
            break;
          }
        }
      }
      if (!batch) {
        batch = await client.batches.create(
          {
            input_file_id: state.inputFileId,
            endpoint: '/v1/chat/completions',
            completion_window: args.options.completionWindow ?? '24h',
            metadata: { dialeval_hash: hash },
          },
          ADMIN,
        );
        args.log(`batch ${batch.id}: submitted ${state.requests} request(s)`);
      }
      state = { ...state, batchId: batch.id, status: 'submitted' };
      await writeState(stateFile, state);
    }
    report.batches.push(batch.id);
    report.requests += state!.requests;

    const deadline = Date.now() + maxWait;
    let lastStatus = batch.status;
    while (!TERMINAL.has(batch.status)) {
      if (Date.now() >= deadline) {
        for (const r of reservations.values()) args.settle(r, undefined);
        throw new Error(
          `batch ${batch.id} still ${batch.status} after ${Math.round(maxWait / 1000)} s; run again later to resume it`,
        );
      }
      await sleep(poll, args.signal);
      batch = await client.batches.retrieve(batch.id, ADMIN);
      if (batch.status !== lastStatus) {
        const c = batch.request_counts;
        args.log(
          `batch ${batch.id}: ${batch.status}${c ? ` (${c.completed}/${c.total} done, ${c.failed} failed)` : ''}`,
        );
        lastStatus = batch.status;
      }
    }
    if (batch.status === 'failed' || (!batch.output_file_id && !batch.error_file_id)) {
      const why = batch.errors?.data?.map((e) => e.message).join('; ') || batch.status;
      args.log(`batch ${batch.id}: ${batch.status} (${redact(why, args.secret())}); its requests will be sent live`);
      for (const r of reservations.values()) args.settle(r, undefined);
      report.failed += state!.requests;
      for (const k of keys) failedKeys.add(k);
      await writeState(stateFile, { ...state!, status: 'failed' });
      break;
    }
    await writeState(stateFile, { ...state!, status: 'completed' });
    const before = report.answered;
    await applyBatch(args, batch, collected, reservations, report, failedKeys, extras);
    for (const r of reservations.values()) args.settle(r, undefined);
    await writeState(stateFile, { ...state!, status: 'applied' });
    if (report.answered === before) break;
  }
  return report;
}

async function resumeOutstanding<I>(
  args: BatchRunArgs<I>,
  stateDir: string,
  report: BatchReport,
  failedKeys: Set<string>,
  poll: number,
  maxWait: number,
): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(stateDir)).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return;
  }
  for (const name of names) {
    const file = join(stateDir, name);
    let state = await readState(file);
    if (!state || state.status === 'applied' || state.status === 'failed') continue;
    const client = args.client();
    let batch: BatchObject | undefined;
    if (state.batchId) batch = await client.batches.retrieve(state.batchId, ADMIN);
    else {
      // Uploaded; the batch may have been created just before the earlier run died: look for it.
      for await (const b of client.batches.list({ limit: 100 }, ADMIN)) {
        if ((b.metadata as Record<string, string> | null)?.dialeval_hash === state.hash) {
          batch = b;
          break;
        }
      }
      if (!batch) continue; // never submitted: nothing was paid; the round that collects it again submits it
      state = { ...state, batchId: batch.id, status: 'submitted' };
      await writeState(file, state);
    }
    report.resumed++;
    report.batches.push(batch.id);
    report.requests += state.requests;
    args.log(
      `batch ${batch.id}: found (submitted earlier), status ${batch.status}; collecting it before submitting anything`,
    );
    const deadline = Date.now() + maxWait;
    while (!TERMINAL.has(batch.status)) {
      if (Date.now() >= deadline)
        throw new Error(
          `batch ${batch.id} still ${batch.status} after ${Math.round(maxWait / 1000)} s; run again later to resume it`,
        );
      await sleep(poll, args.signal);
      batch = await client.batches.retrieve(batch.id, ADMIN);
    }
    if (batch.status === 'failed' || (!batch.output_file_id && !batch.error_file_id)) {
      const why = batch.errors?.data?.map((e) => e.message).join('; ') || batch.status;
      args.log(`batch ${batch.id}: ${batch.status} (${redact(why, args.secret())}); its requests will be sent again`);
      report.failed += state.requests;
      await writeState(file, { ...state, status: 'failed' });
      continue;
    }
    await writeState(file, { ...state, status: 'completed' });
    await applyBatch(
      args,
      batch,
      new Map(),
      new Map(),
      report,
      failedKeys,
      new Map(Object.entries(state.extras ?? {})),
    );
    await writeState(file, { ...state, status: 'applied' });
  }
}

/** Downloads a finished batch's output and writes every successful answer to the cache. */
async function applyBatch<I>(
  args: BatchRunArgs<I>,
  batch: BatchObject,
  collected: Map<string, CanonicalRequest>,
  reservations: Map<string, number>,
  report: BatchReport,
  failedKeys: Set<string>,
  extras: Map<string, KeyExtras> = new Map(),
): Promise<void> {
  const client = args.client();
  const outputs = batch.output_file_id ? parseLines(await downloadText(client, batch.output_file_id)) : [];
  const errors = batch.error_file_id ? parseLines(await downloadText(client, batch.error_file_id)) : [];
  const needInput = outputs.some((o) => typeof o.custom_id === 'string' && !collected.has(o.custom_id));
  const requests = new Map(collected);
  if (needInput) {
    for (const line of parseLines(await downloadText(client, batch.input_file_id))) {
      if (typeof line.custom_id === 'string' && line.body && typeof line.body === 'object') {
        try {
          requests.set(line.custom_id, requestFromBody(line.body as Record<string, unknown>));
        } catch {
          // unusable input line: its answer cannot be mapped back
        }
      }
    }
  }
  for (const out of outputs) {
    const key = out.custom_id;
    const response = out.response as { status_code?: number; body?: unknown } | null | undefined;
    const req = typeof key === 'string' ? requests.get(key) : undefined;
    if (!req || requestKey(req, extras.get(key as string)) !== key || !response || response.status_code !== 200) {
      report.failed++;
      if (typeof key === 'string') failedKeys.add(key);
      continue;
    }
    let res: CachedResponse;
    try {
      res = toResponse(response.body);
    } catch {
      report.failed++;
      failedKeys.add(key);
      continue;
    }
    await args.cache.set(req, res, 'batch', key as string, args.label);
    const cost = args.onAnswer(req, res);
    const r = reservations.get(key);
    if (r !== undefined) {
      args.settle(r, cost);
      reservations.delete(key);
    } else {
      args.settle(0, cost);
    }
    report.answered++;
  }
  report.failed += errors.length;
  for (const e of errors) if (typeof e.custom_id === 'string') failedKeys.add(e.custom_id);
}
