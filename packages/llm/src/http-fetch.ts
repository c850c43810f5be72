import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { http1Request } from './http1';

const agents = {
  http: new HttpAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' }),
};

/**
 * The read side of `Headers` (plus `set`/`append`/`delete`) over the header object node:http already parsed (names
 * lower-cased, repeated values joined with ", "). undici's `Headers` validates and sorts on every `append`, which
 * costs more than the rest of the response handling together.
 */
class ResponseHeaders {
  private readonly map: Map<string, string>;
  constructor(raw: NodeJS.Dict<string | string[]>) {
    this.map = new Map();
    for (const name in raw) {
      const v = raw[name];
      if (v !== undefined) this.map.set(name, Array.isArray(v) ? v.join(', ') : v);
    }
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  set(name: string, value: string): void {
    this.map.set(name.toLowerCase(), String(value));
  }
  append(name: string, value: string): void {
    const k = name.toLowerCase();
    const old = this.map.get(k);
    this.map.set(k, old === undefined ? String(value) : `${old}, ${value}`);
  }
  delete(name: string): void {
    this.map.delete(name.toLowerCase());
  }
  getSetCookie(): string[] {
    const v = this.map.get('set-cookie');
    return v === undefined ? [] : [v];
  }
  forEach(fn: (value: string, name: string, parent: ResponseHeaders) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
  /** In name order, as `Headers` iterates. */
  *entries(): IterableIterator<[string, string]> {
    for (const k of [...this.map.keys()].sort()) yield [k, this.map.get(k)!];
  }
  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}

/**
 * The parts of `Response` the SDK reads for a non-streaming call (status, headers, url, text/json), over a buffered
 * body. Building a real `Response` costs web-stream machinery per call; `body` (streaming) is created only if read.
 */
class BufferedResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  bodyUsed = false;
  constructor(
    private readonly data: Buffer | null,
    readonly status: number,
    readonly statusText: string,
    readonly headers: ResponseHeaders,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status < 300;
  }
  get body(): ReadableStream<Uint8Array> | null {
    return this.data ? new Response(this.data).body : null;
  }
  async text(): Promise<string> {
    this.bodyUsed = true;
    return this.data ? this.data.toString('utf8') : '';
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    this.bodyUsed = true;
    const d = this.data ?? Buffer.alloc(0);
    return d.buffer.slice(d.byteOffset, d.byteOffset + d.byteLength) as ArrayBuffer;
  }
  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.arrayBuffer());
  }
  async blob(): Promise<Blob> {
    return new Blob([await this.arrayBuffer()], { type: this.headers.get('content-type') ?? '' });
  }
  clone(): BufferedResponse {
    return new BufferedResponse(this.data, this.status, this.statusText, this.headers, this.url);
  }
}

/** The response of a whole body: decoded (gzip, br, deflate), `content-encoding` and `content-length` dropped. Throws when decoding fails. */
function bufferedResponse(
  status: number,
  statusText: string,
  raw: NodeJS.Dict<string | string[]>,
  body: Buffer,
  href: string,
): Response {
  const h = new ResponseHeaders(raw);
  const nullBody = status === 204 || status === 205 || status === 304;
  let data = body;
  const encoding = (h.get('content-encoding') ?? '').trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    data =
      encoding === 'gzip' || encoding === 'x-gzip'
        ? gunzipSync(data)
        : encoding === 'br'
          ? brotliDecompressSync(data)
          : encoding === 'deflate'
            ? inflateSync(data)
            : data;
    h.delete('content-encoding');
    h.delete('content-length');
  }
  return new BufferedResponse(nullBody ? null : data, status, statusText, h, href) as unknown as Response;
}

function abortError(signal: AbortSignal): unknown {
  const reason = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const e = new Error('This operation was aborted');
  e.name = 'AbortError';
  return e;
}

interface Target {
  isHttps: boolean;
  href: string;
  /** Host and port, as the `Host` header gives them. */
  host: string;
  options: ReturnType<typeof urlToHttpOptions>;
}

/** Parsed request targets by URL text: the SDK calls the same few URLs over and over. */
const targets = new Map<string, Target | null>();

function targetOf(input: string | URL): Target | null {
  const text = typeof input === 'string' ? input : input.href;
  let t = targets.get(text);
  if (t !== undefined) return t;
  const url = typeof input === 'string' ? new URL(input) : input;
  const isHttps = url.protocol === 'https:';
  t =
    isHttps || url.protocol === 'http:'
      ? { isHttps, href: url.href, host: url.host, options: urlToHttpOptions(url) }
      : null;
  if (targets.size >= 256) targets.clear();
  targets.set(text, t);
  return t;
}

function plainHeaders(h: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (Object.getPrototypeOf(h) === Object.prototype) {
    // A plain record (the transport's own chat calls): undici's `Headers` would validate and sort it on every call.
    for (const k in h as Record<string, string>) out[k.toLowerCase()] = String((h as Record<string, string>)[k]);
    return out;
  }
  // The SDK hands over a `Headers`: read it as it is rather than copying it into another one.
  (h instanceof Headers ? h : new Headers(h)).forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

/**
 * A lean `fetch` for the SDK's JSON requests, on node:http(s) with keep-alive agents. Requests whose body is a
 * string (or absent) go through node:http; anything else (multipart uploads) goes to the global `fetch`. The body is
 * read whole (so the SDK's timeout covers it) and handed over as a Response-compatible object.
 * Why: undici's fetch spends most of its CPU in web streams; at hundreds of calls per second that becomes the
 * bottleneck of a run on a small machine.
 */
export const leanFetch: typeof fetch = (input, init) => leanFetchWith(input, init);

/**
 * Arranges for `cancel(error)` to be called when a request must stop (timeout, the run's signal) and returns the
 * function that undoes this once the response is complete.
 */
export type CancelBinding = (cancel: (error: unknown) => void) => () => void;

/**
 * {@link leanFetch}, with cancellation given by `bind` instead of `init.signal` when `bind` is given: the transport
 * cancels on a timer and on the run's signal without an `AbortController` and an `EventTarget` listener per call
 * (about a tenth of the client's CPU per call at concurrency 200). With `bind`, the URL must be http(s) and the body
 * a string or absent; a plain http URL then goes over a pooled connection of {@link http1Request}'s rather than
 * node:http.
 */
export async function leanFetchWith(
  input: Parameters<typeof fetch>[0],
  init?: RequestInit,
  bind?: CancelBinding,
): Promise<Response> {
  const body = init?.body;
  if (
    bind &&
    ((body !== undefined && body !== null && typeof body !== 'string') ||
      (typeof input !== 'string' && !(input instanceof URL)) ||
      !targetOf(input))
  ) {
    throw new TypeError('fetch failed', {
      cause: new Error('leanFetchWith: an http(s) URL and a string body are required'),
    });
  }
  if (
    (body !== undefined && body !== null && typeof body !== 'string') ||
    (typeof input !== 'string' && !(input instanceof URL))
  ) {
    return fetch(input, init);
  }
  const target = targetOf(input);
  if (!target) return fetch(input, init);
  const { isHttps } = target;
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) throw abortError(signal);
  const headers = plainHeaders(init?.headers);
  if (typeof body === 'string') headers['content-length'] = String(Buffer.byteLength(body));
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  if (bind && !isHttps) {
    // The transport's chat calls over plain http: a pooled HTTP/1.1 connection without node:http's per-request
    // machinery (see http1.ts). https, and every other request, go through node:http(s).
    const o = target.options;
    const res = await http1Request(
      {
        hostname: o.hostname!,
        port: Number(o.port) || 80,
        host: target.host,
        path: o.path ?? '/',
        method: init?.method ?? 'GET',
        headers,
        body: body ?? undefined,
      },
      bind,
    );
    try {
      return bufferedResponse(res.status, res.statusText, res.headers, res.body, target.href);
    } catch (error) {
      throw new TypeError('fetch failed', { cause: error });
    }
  }
  return new Promise<Response>((resolve, reject) => {
    const options = {
      ...target.options,
      method: init?.method ?? 'GET',
      headers,
      agent: isHttps ? agents.https : agents.http,
    };
    const req = (isHttps ? httpsRequest : httpRequest)(options);
    let settled = false;
    const cancel = (error: unknown) => {
      req.destroy();
      if (!settled) {
        settled = true;
        reject(error);
      }
    };
    let done: () => void;
    if (bind) done = bind(cancel);
    else if (signal) {
      const onAbort = () => cancel(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      done = () => signal.removeEventListener('abort', onAbort);
    } else done = () => {};
    req.on('error', (error) => {
      done();
      if (!settled) {
        settled = true;
        reject(new TypeError('fetch failed', { cause: error }));
      }
    });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (error) => {
        done();
        if (!settled) {
          settled = true;
          reject(new TypeError('fetch failed', { cause: error }));
        }
      });
      res.on('end', () => {
        done();
        if (settled) return;
        settled = true;
        try {
          resolve(
            bufferedResponse(
              res.statusCode ?? 500,
              res.statusMessage ?? '',
              res.headers,
              chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
              target.href,
            ),
          );
        } catch (error) {
          reject(new TypeError('fetch failed', { cause: error }));
        }
      });
      res.on('aborted', () => {
        done();
        if (!settled) {
          settled = true;
          reject(new TypeError('fetch failed', { cause: new Error('response aborted') }));
        }
      });
    });
    req.end(body ?? undefined);
  });
}
