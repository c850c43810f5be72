import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { ChatMessage } from '@eval/core';

/** A chat-completion request as the server saw it. */
export interface TestRequest {
  model: string;
  messages: ChatMessage[];
  /** The whole JSON body. */
  body: any;
}

export interface TestReplyObject {
  /** Assistant text (default: `echo: <last user message>`). */
  content?: string;
  /** HTTP status (default 200). Non-2xx replies carry an OpenAI-style error body. */
  status?: number;
  /** Extra response headers, e.g. `{ 'retry-after': '1' }` or `{ 'retry-after-ms': '50' }`. */
  headers?: Record<string, string>;
  /** `finish_reason` (default `stop`). */
  finishReason?: string;
  /** Usage figures to report (default: a deterministic count, see {@link defaultUsage}); `null` reports none. */
  usage?: { promptTokens?: number; completionTokens?: number; cachedTokens?: number } | null;
  /** Latency of this reply in ms (overrides the server's `latencyMs`). */
  delayMs?: number;
  /** Never answer (until the client gives up or the server closes). */
  hang?: boolean;
  /** Send this text as the response body verbatim (truncated or invalid JSON), with status 200 unless `status` says otherwise. */
  raw?: string;
  /** Error message of a non-2xx reply. */
  error?: string;
  /**
   * Send only the first part of the real body (this many bytes, or half of it with `true`) under the full
   * `content-length`, then cut the connection: a body truncated in transit.
   */
  truncate?: boolean | number;
}

export type TestReply = string | TestReplyObject;

export interface RespondContext {
  /** 0-based index of this chat request among all chat requests received. */
  index: number;
  /** How many identical bodies (same JSON) were received before this one: 0 on the first try, 1 on the first retry... */
  attempt: number;
  /** True when the request comes from a Batch API input file rather than over HTTP. */
  batch: boolean;
}

export interface TestRule {
  /** Matches when the last user message contains the string / matches the RegExp, or when the function says so. */
  match: string | RegExp | ((req: TestRequest, ctx: RespondContext) => boolean);
  reply: TestReply | ((req: TestRequest, ctx: RespondContext) => TestReply | Promise<TestReply>);
  /** Use the rule at most this many times (default: unlimited). */
  times?: number;
}

export interface TestServerOptions {
  /** Rules tried in order before `respond`: the first that matches (and has uses left) answers. */
  rules?: TestRule[];
  /** Answers every chat request no rule took (default: echo the last user message). */
  respond?: (req: TestRequest, ctx: RespondContext) => TestReply | Promise<TestReply>;
  /** Fixed latency in ms, or a `[min, max]` range drawn uniformly per request (default 0). */
  latencyMs?: number | [number, number];
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  batch?: {
    /**
     * A batch reports `in_progress` for this many status polls before `completed` (default 1);
     * `Infinity` leaves every batch outstanding (until {@link TestServer.completeBatches}).
     */
    completeAfterPolls?: number;
    /** Make every batch end `failed` (validation error). */
    fail?: boolean;
    /** Input lines for which this returns true (or an HTTP status) go to the error file instead of the output. */
    failLine?: (req: TestRequest, ctx: { customId: string; line: number }) => boolean | number;
  };
  /**
   * Answer every request on every route (chat, files, batches) with this error: `{ status: 401 }` for a refused
   * key, 403 for a forbidden model, 404 for an unknown model or path. Changeable later with `setFailAll`.
   */
  failAll?: { status: number; error?: string };
  /**
   * Enforce a quota on chat requests as providers do: token buckets for requests and tokens per minute, refilled
   * continuously. A request is admitted when both buckets hold its cost (one request; its prompt tokens, counted as
   * {@link defaultUsage} does, plus its `max_tokens` / `max_completion_tokens`); otherwise it gets 429.
   */
  rateLimit?: RateLimitOptions;
}

export interface RateLimitOptions {
  /** Requests per minute (default: no request limit). */
  rpm?: number;
  /** Tokens per minute (default: no token limit). */
  tpm?: number;
  /** Bucket capacities (the burst allowed from full); default a full minute's worth (`rpm`, `tpm`), as OpenAI. */
  burst?: { requests?: number; tokens?: number };
  /**
   * `openai` (default): every answer carries `x-ratelimit-limit/remaining/reset-requests/-tokens`, a 429 also
   * `retry-after-ms` and `retry-after`. `none`: no rate-limit header at all, not even on a 429.
   */
  headers?: 'openai' | 'none';
  /** Answer 429 `insufficient_quota` (an account without credit) to every chat request. */
  insufficientQuota?: boolean;
}

/** What the rate-limited mode did. */
export interface RateLimitStats {
  /** Chat requests admitted (answered), and the tokens charged for them. */
  admitted: number;
  admittedTokens: number;
  /** Chat requests answered 429. */
  limited: number;
}

/** A duration in OpenAI's header format: `120ms`, `1.5s`, `6m0s`, `1h2m3.5s`. */
export function formatRateLimitDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  let rest = ms / 1000;
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  rest -= m * 60;
  const sec = Math.round(rest * 1000) / 1000;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${sec}s`;
}

/** Requests and tokens per minute, refilled continuously (the provider's side of the quota). */
class QuotaBuckets {
  private requests: number;
  private tokens: number;
  private at = Date.now();
  readonly capRequests: number;
  readonly capTokens: number;
  readonly stats: RateLimitStats = { admitted: 0, admittedTokens: 0, limited: 0 };

  constructor(private readonly o: RateLimitOptions) {
    this.capRequests = o.burst?.requests ?? o.rpm ?? Infinity;
    this.capTokens = o.burst?.tokens ?? o.tpm ?? Infinity;
    this.requests = this.capRequests;
    this.tokens = this.capTokens;
  }

  private refill(now: number): void {
    const dt = now - this.at;
    this.at = now;
    if (this.o.rpm) this.requests = Math.min(this.capRequests, this.requests + (dt * this.o.rpm) / 60_000);
    if (this.o.tpm) this.tokens = Math.min(this.capTokens, this.tokens + (dt * this.o.tpm) / 60_000);
  }

  /** Admits a request of `cost` tokens (taking from both buckets) or says how long to wait. */
  admit(cost: number): { ok: boolean; retryAfterMs: number } {
    const now = Date.now();
    this.refill(now);
    const needTokens = Math.min(cost, this.capTokens);
    const waitReq = this.o.rpm && this.requests < 1 ? ((1 - this.requests) * 60_000) / this.o.rpm : 0;
    const waitTok = this.o.tpm && this.tokens < needTokens ? ((needTokens - this.tokens) * 60_000) / this.o.tpm : 0;
    if (waitReq > 0 || waitTok > 0) {
      this.stats.limited++;
      return { ok: false, retryAfterMs: Math.ceil(Math.max(waitReq, waitTok)) };
    }
    if (this.o.rpm) this.requests -= 1;
    if (this.o.tpm) this.tokens -= cost;
    this.stats.admitted++;
    this.stats.admittedTokens += cost;
    return { ok: true, retryAfterMs: 0 };
  }

  headers(extra: { retryAfterMs?: number } = {}): Record<string, string> {
    if (this.o.headers === 'none') return {};
    this.refill(Date.now());
    const h: Record<string, string> = {};
    if (this.o.rpm) {
      h['x-ratelimit-limit-requests'] = String(this.o.rpm);
      h['x-ratelimit-remaining-requests'] = String(Math.max(0, Math.floor(this.requests)));
      h['x-ratelimit-reset-requests'] = formatRateLimitDuration(
        ((this.capRequests - this.requests) * 60_000) / this.o.rpm,
      );
    }
    if (this.o.tpm) {
      h['x-ratelimit-limit-tokens'] = String(this.o.tpm);
      h['x-ratelimit-remaining-tokens'] = String(Math.max(0, Math.floor(this.tokens)));
      h['x-ratelimit-reset-tokens'] = formatRateLimitDuration(((this.capTokens - this.tokens) * 60_000) / this.o.tpm);
    }
    if (extra.retryAfterMs !== undefined) {
      h['retry-after-ms'] = String(extra.retryAfterMs);
      h['retry-after'] = String(Math.ceil(extra.retryAfterMs / 1000));
    }
    return h;
  }
}

export interface LoggedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** Parsed JSON body (multipart uploads: `{ purpose, filename, bytes }`; no body: `undefined`). */
  body: any;
  /** Receipt time (ms since the epoch). */
  time: number;
  /** Status sent (`undefined` while pending or for hangs). */
  status?: number;
  /** Latency the server applied before answering a chat request (ms). */
  delayMs?: number;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>/v1`: pass it as `baseURL`. */
  baseURL: string;
  port: number;
  /** Every request received, in order. */
  requests: LoggedRequest[];
  /** Only the chat-completion requests. */
  chatRequests(): LoggedRequest[];
  /** Files uploaded (id -> content). */
  files: Map<string, { filename: string; purpose: string; bytes: Buffer }>;
  /** Batches created, in order (the objects the server reports). */
  batches(): Array<Record<string, any>>;
  /** Lets every batch created so far complete on its next status poll (later ones are not affected). */
  completeBatches(): void;
  /** What the rate-limited mode (`rateLimit`) admitted and refused so far. */
  rateLimitStats(): RateLimitStats;
  /** Starts (or, with `undefined`, stops) answering every request with an error (see `failAll`). */
  setFailAll(fault: { status: number; error?: string } | undefined): void;
  close(): Promise<void>;
}

/**
 * A base URL on 127.0.0.1 where nothing listens (a port bound and released again): connections are refused.
 */
export async function refusedBaseURL(): Promise<string> {
  const srv = createNetServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

/** Default usage: ceil(chars / 4) per message plus 3, and ceil(chars / 4) for the answer. */
export function defaultUsage(
  messages: ChatMessage[],
  content: string,
): { promptTokens: number; completionTokens: number } {
  let prompt = 3;
  for (const m of messages) prompt += 3 + Math.ceil((m.content?.length ?? 0) / 4);
  return { promptTokens: prompt, completionTokens: Math.ceil(content.length / 4) };
}

function lastUser(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'user') return messages[i]!.content;
  return '';
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Minimal multipart/form-data parser (enough for the SDK's file uploads). */
function parseMultipart(buf: Buffer, contentType: string): Map<string, { filename?: string; data: Buffer }> {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const out = new Map<string, { filename?: string; data: Buffer }>();
  if (!m) return out;
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  let pos = buf.indexOf(boundary);
  while (pos >= 0) {
    const start = pos + boundary.length;
    if (buf.subarray(start, start + 2).toString() === '--') break;
    const next = buf.indexOf(boundary, start);
    if (next < 0) break;
    const part = buf.subarray(start + 2, next - 2); // skip CRLF after the boundary and before the next one
    const sep = part.indexOf('\r\n\r\n');
    if (sep >= 0) {
      const head = part.subarray(0, sep).toString('utf8');
      const name = /name="([^"]*)"/i.exec(head)?.[1];
      const filename = /filename="([^"]*)"/i.exec(head)?.[1];
      if (name !== undefined) out.set(name, { filename, data: part.subarray(sep + 4) });
    }
    pos = next;
  }
  return out;
}

interface BatchRecord {
  object: Record<string, any>;
  polls: number;
  /** Released by `completeBatches()`: completes on its next poll. */
  released?: boolean;
  ready: Promise<void>;
}

/**
 * Starts a scripted OpenAI-compatible server on 127.0.0.1 (random port): `POST /v1/chat/completions`,
 * `POST /v1/files`, `GET /v1/files/{id}`, `GET /v1/files/{id}/content`, `POST /v1/batches`, `GET /v1/batches`,
 * `GET /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`. Answers come from `rules`, then `respond`, then an echo;
 * every request is logged in `requests`.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const requests: LoggedRequest[] = [];
  const files = new Map<string, { filename: string; purpose: string; bytes: Buffer }>();
  const batches = new Map<string, BatchRecord>();
  const seen = new Map<string, number>();
  const ruleUses = new Map<TestRule, number>();
  const sockets = new Set<Socket>();
  const pendingTimers = new Set<NodeJS.Timeout>();
  let failAll = options.failAll;
  const quota =
    options.rateLimit && !options.rateLimit.insufficientQuota ? new QuotaBuckets(options.rateLimit) : undefined;
  let chatIndex = 0;
  let ids = 0;
  const newId = (prefix: string) => `${prefix}-${(++ids).toString().padStart(6, '0')}`;

  const latency = (): number => {
    const l = options.latencyMs ?? 0;
    if (typeof l === 'number') return l;
    return l[0] + Math.random() * (l[1] - l[0]);
  };

  async function decide(req: TestRequest, ctx: RespondContext): Promise<TestReplyObject> {
    for (const rule of options.rules ?? []) {
      const used = ruleUses.get(rule) ?? 0;
      if (rule.times !== undefined && used >= rule.times) continue;
      const m = rule.match;
      const text = lastUser(req.messages);
      const hit = typeof m === 'string' ? text.includes(m) : m instanceof RegExp ? m.test(text) : m(req, ctx);
      if (!hit) continue;
      ruleUses.set(rule, used + 1);
      const r = typeof rule.reply === 'function' ? await rule.reply(req, ctx) : rule.reply;
      return typeof r === 'string' ? { content: r } : r;
    }
    if (options.respond) {
      const r = await options.respond(req, ctx);
      return typeof r === 'string' ? { content: r } : r;
    }
    return { content: `echo: ${lastUser(req.messages)}` };
  }

  function completionBody(req: TestRequest, reply: TestReplyObject): Record<string, unknown> {
    const content = reply.content ?? `echo: ${lastUser(req.messages)}`;
    const body: Record<string, unknown> = {
      id: newId('chatcmpl'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: req.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: null },
          finish_reason: reply.finishReason ?? 'stop',
          logprobs: null,
        },
      ],
    };
    if (reply.usage !== null) {
      const d = defaultUsage(req.messages, content);
      const p = reply.usage?.promptTokens ?? d.promptTokens;
      const c = reply.usage?.completionTokens ?? d.completionTokens;
      body.usage = {
        prompt_tokens: p,
        completion_tokens: c,
        total_tokens: p + c,
        prompt_tokens_details: { cached_tokens: reply.usage?.cachedTokens ?? 0 },
      };
    }
    return body;
  }

  function errorBody(status: number, message?: string, code?: string): Record<string, unknown> {
    const type =
      code ?? (status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error');
    return { error: { message: message ?? `scripted ${status}`, type, code: type, param: null } };
  }

  function send(
    res: ServerResponse,
    log: LoggedRequest,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    if (res.destroyed || res.writableEnded) return;
    log.status = status;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': newId('req'), ...headers });
    res.end(text);
  }

  async function handleChat(res: ServerResponse, log: LoggedRequest, body: any): Promise<void> {
    const req: TestRequest = { model: body?.model, messages: body?.messages ?? [], body };
    let quotaHeaders: Record<string, string> = {};
    if (options.rateLimit?.insufficientQuota) {
      return send(
        res,
        log,
        429,
        errorBody(
          429,
          'You exceeded your current quota, please check your plan and billing details.',
          'insufficient_quota',
        ),
      );
    }
    if (quota) {
      const cost =
        defaultUsage(req.messages, '').promptTokens + Number(body?.max_tokens ?? body?.max_completion_tokens ?? 0);
      const admitted = quota.admit(cost);
      if (!admitted.ok) {
        const headers = quota.headers({ retryAfterMs: admitted.retryAfterMs });
        return send(res, log, 429, errorBody(429, 'Rate limit reached (scripted quota)'), headers);
      }
      quotaHeaders = quota.headers();
    }
    const fingerprint = JSON.stringify(body);
    const attempt = seen.get(fingerprint) ?? 0;
    seen.set(fingerprint, attempt + 1);
    const reply = await decide(req, { index: chatIndex++, attempt, batch: false });
    if (reply.hang) return; // never answered; the socket is destroyed on close()
    const delay = reply.delayMs ?? latency();
    log.delayMs = delay;
    const finish = () => {
      const status = reply.status ?? 200;
      const headers = { ...quotaHeaders, ...reply.headers };
      if (reply.raw !== undefined) return send(res, log, status, reply.raw, headers);
      if (status >= 400) return send(res, log, status, errorBody(status, reply.error), headers);
      if (reply.truncate) {
        const full = Buffer.from(JSON.stringify(completionBody(req, reply)));
        const cut = typeof reply.truncate === 'number' ? reply.truncate : Math.floor(full.length / 2);
        log.status = status;
        res.writeHead(status, {
          'content-type': 'application/json',
          'content-length': String(full.length),
          ...headers,
        });
        res.write(full.subarray(0, cut), () => res.destroy());
        return;
      }
      send(res, log, status, completionBody(req, reply), headers);
    };
    if (delay > 0) {
      const t = setTimeout(() => {
        pendingTimers.delete(t);
        finish();
      }, delay);
      pendingTimers.add(t);
    } else finish();
  }

  async function processBatch(rec: BatchRecord): Promise<void> {
    const o = rec.object;
    const input = files.get(o.input_file_id);
    const out: string[] = [];
    const err: string[] = [];
    let total = 0;
    for (const line of (input?.bytes.toString('utf8') ?? '').split('\n')) {
      if (!line.trim()) continue;
      total++;
      const lineNo = total;
      let parsed: any;
      try {
        parsed = JSON.parse(line);
      } catch {
        err.push(
          JSON.stringify({
            id: newId('batch_req'),
            custom_id: null,
            response: null,
            error: { code: 'invalid_json', message: 'line is not JSON' },
          }),
        );
        continue;
      }
      const body = parsed.body ?? {};
      const req: TestRequest = { model: body.model, messages: body.messages ?? [], body };
      const fingerprint = JSON.stringify(body);
      const attempt = seen.get(fingerprint) ?? 0;
      seen.set(fingerprint, attempt + 1);
      const failed = options.batch?.failLine?.(req, { customId: String(parsed.custom_id), line: lineNo });
      const reply: TestReplyObject = failed
        ? { status: typeof failed === 'number' ? failed : 500, error: 'scripted batch line failure' }
        : await decide(req, { index: chatIndex++, attempt, batch: true });
      const status = reply.hang ? 500 : (reply.status ?? 200);
      if (status >= 400 || reply.raw !== undefined) {
        err.push(
          JSON.stringify({
            id: newId('batch_req'),
            custom_id: parsed.custom_id,
            response: {
              status_code: status >= 400 ? status : 500,
              request_id: newId('req'),
              body: errorBody(status, reply.error),
            },
            error: null,
          }),
        );
      } else {
        out.push(
          JSON.stringify({
            id: newId('batch_req'),
            custom_id: parsed.custom_id,
            response: { status_code: 200, request_id: newId('req'), body: completionBody(req, reply) },
            error: null,
          }),
        );
      }
    }
    const put = (lines: string[], name: string) => {
      const id = newId('file');
      files.set(id, {
        filename: name,
        purpose: 'batch_output',
        bytes: Buffer.from(lines.length ? `${lines.join('\n')}\n` : ''),
      });
      return id;
    };
    o.output_file_id = out.length ? put(out, `${o.id}_output.jsonl`) : null;
    o.error_file_id = err.length ? put(err, `${o.id}_error.jsonl`) : null;
    o.request_counts = { total, completed: out.length, failed: err.length };
  }

  function fileObject(id: string): Record<string, unknown> {
    const f = files.get(id)!;
    return {
      id,
      object: 'file',
      bytes: f.bytes.length,
      created_at: Math.floor(Date.now() / 1000),
      filename: f.filename,
      purpose: f.purpose,
      status: 'processed',
    };
  }

  function batchView(rec: BatchRecord): Record<string, any> {
    const o = rec.object;
    if (o.status === 'cancelled' || o.status === 'failed' || o.status === 'completed') return o;
    if (options.batch?.fail) {
      o.status = 'failed';
      o.errors = {
        object: 'list',
        data: [{ code: 'invalid_request', message: 'scripted batch failure', line: null, param: null }],
      };
      o.failed_at = Math.floor(Date.now() / 1000);
      return o;
    }
    const view = rec.released || rec.polls >= (options.batch?.completeAfterPolls ?? 1) ? 'completed' : 'in_progress';
    if (view === 'completed') {
      o.status = 'completed';
      o.completed_at = Math.floor(Date.now() / 1000);
      return o;
    }
    return {
      ...o,
      status: 'in_progress',
      output_file_id: null,
      error_file_id: null,
      request_counts: { total: o.request_counts.total, completed: 0, failed: 0 },
    };
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const log: LoggedRequest = { method: req.method ?? 'GET', path, body: undefined, time: Date.now() };
    requests.push(log);
    try {
      const raw = await readBody(req);
      const ctype = req.headers['content-type'] ?? '';
      let body: any;
      let parts: Map<string, { filename?: string; data: Buffer }> | undefined;
      if (ctype.startsWith('multipart/form-data')) {
        parts = parseMultipart(raw, ctype);
        const file = parts.get('file');
        body = {
          purpose: parts.get('purpose')?.data.toString('utf8'),
          filename: file?.filename,
          bytes: file?.data.length ?? 0,
        };
      } else if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          log.body = raw.toString('utf8');
          return send(res, log, 400, errorBody(400, 'body is not JSON'));
        }
      }
      log.body = body;
      if (failAll) return send(res, log, failAll.status, errorBody(failAll.status, failAll.error));
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return send(res, log, 401, errorBody(401, 'Incorrect API key provided'));
      }
      const method = req.method ?? 'GET';
      let m: RegExpExecArray | null;
      if (method === 'POST' && path === '/v1/chat/completions') return await handleChat(res, log, body);
      if (method === 'POST' && path === '/v1/files') {
        const file = parts?.get('file');
        if (!file) return send(res, log, 400, errorBody(400, 'no file part'));
        const id = newId('file');
        files.set(id, {
          filename: file.filename ?? 'upload.jsonl',
          purpose: parts?.get('purpose')?.data.toString('utf8') ?? 'batch',
          bytes: Buffer.from(file.data),
        });
        return send(res, log, 200, fileObject(id));
      }
      if (method === 'GET' && (m = /^\/v1\/files\/([^/]+)\/content$/.exec(path))) {
        const f = files.get(m[1]!);
        if (!f) return send(res, log, 404, errorBody(404, `no file ${m[1]}`));
        log.status = 200;
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(f.bytes);
      }
      if (method === 'GET' && (m = /^\/v1\/files\/([^/]+)$/.exec(path))) {
        if (!files.has(m[1]!)) return send(res, log, 404, errorBody(404, `no file ${m[1]}`));
        return send(res, log, 200, fileObject(m[1]!));
      }
      if (method === 'POST' && path === '/v1/batches') {
        if (!body?.input_file_id || !files.has(body.input_file_id))
          return send(res, log, 400, errorBody(400, 'unknown input_file_id'));
        const id = newId('batch');
        const object: Record<string, any> = {
          id,
          object: 'batch',
          endpoint: body.endpoint,
          errors: null,
          input_file_id: body.input_file_id,
          completion_window: body.completion_window ?? '24h',
          status: 'validating',
          output_file_id: null,
          error_file_id: null,
          created_at: Math.floor(Date.now() / 1000),
          request_counts: { total: 0, completed: 0, failed: 0 },
          metadata: body.metadata ?? null,
        };
        const rec: BatchRecord = { object, polls: 0, ready: Promise.resolve() };
        rec.ready = processBatch(rec);
        batches.set(id, rec);
        return send(res, log, 200, { ...object });
      }
      if (method === 'GET' && path === '/v1/batches') {
        const data = [...batches.values()].reverse().map((r) => ({ ...r.object }));
        return send(res, log, 200, {
          object: 'list',
          data,
          first_id: data[0]?.id ?? null,
          last_id: data.at(-1)?.id ?? null,
          has_more: false,
        });
      }
      if (method === 'GET' && (m = /^\/v1\/batches\/([^/]+)$/.exec(path))) {
        const rec = batches.get(m[1]!);
        if (!rec) return send(res, log, 404, errorBody(404, `no batch ${m[1]}`));
        await rec.ready;
        rec.polls++;
        return send(res, log, 200, batchView(rec));
      }
      if (method === 'POST' && (m = /^\/v1\/batches\/([^/]+)\/cancel$/.exec(path))) {
        const rec = batches.get(m[1]!);
        if (!rec) return send(res, log, 404, errorBody(404, `no batch ${m[1]}`));
        if (rec.object.status !== 'completed') rec.object.status = 'cancelled';
        return send(res, log, 200, rec.object);
      }
      return send(res, log, 404, errorBody(404, `no route ${method} ${path}`));
    } catch (error) {
      send(res, log, 500, errorBody(500, `test server error: ${(error as Error).message}`));
    }
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    files,
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions'),
    batches: () => [...batches.values()].map((r) => r.object),
    completeBatches: () => {
      for (const rec of batches.values()) rec.released = true;
    },
    rateLimitStats: () => ({ ...(quota?.stats ?? { admitted: 0, admittedTokens: 0, limited: 0 }) }),
    setFailAll: (fault) => {
      failAll = fault;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of pendingTimers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
