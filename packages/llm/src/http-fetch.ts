import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

const agents = {
  http: new HttpAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' }),
};

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
    readonly headers: Headers,
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

function abortError(signal: AbortSignal): unknown {
  const reason = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const e = new Error('This operation was aborted');
  e.name = 'AbortError';
  return e;
}

/**
 * A lean `fetch` for the SDK's JSON requests, on node:http(s) with keep-alive agents. Requests whose body is a
 * string (or absent) go through node:http; anything else (multipart uploads) goes to the global `fetch`. The body is
 * read whole (so the SDK's timeout covers it) and handed over as a Response-compatible object.
 * Why: undici's fetch spends most of its CPU in web streams; at hundreds of calls per second that becomes the
 * bottleneck of a run on a small machine.
 */
export const leanFetch: typeof fetch = async (input, init) => {
  const body = init?.body;
  if ((body !== undefined && body !== null && typeof body !== 'string') || typeof input !== 'string' && !(input instanceof URL)) {
    return fetch(input, init);
  }
  const url = typeof input === 'string' ? new URL(input) : input;
  const isHttps = url.protocol === 'https:';
  if (!isHttps && url.protocol !== 'http:') return fetch(input, init);
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) throw abortError(signal);
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((v, k) => {
    headers[k] = v;
  });
  if (typeof body === 'string') headers['content-length'] = String(Buffer.byteLength(body));
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  return new Promise<Response>((resolve, reject) => {
    const req = (isHttps ? httpsRequest : httpRequest)(url, { method: init?.method ?? 'GET', headers, agent: isHttps ? agents.https : agents.http });
    let settled = false;
    const onAbort = () => {
      req.destroy();
      if (!settled) {
        settled = true;
        reject(abortError(signal!));
      }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
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
        const h = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) h.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const status = res.statusCode ?? 500;
        const nullBody = status === 204 || status === 205 || status === 304;
        let data = Buffer.concat(chunks);
        const encoding = (h.get('content-encoding') ?? '').trim().toLowerCase();
        if (encoding && encoding !== 'identity') {
          try {
            data = encoding === 'gzip' || encoding === 'x-gzip' ? gunzipSync(data) : encoding === 'br' ? brotliDecompressSync(data) : encoding === 'deflate' ? inflateSync(data) : data;
            h.delete('content-encoding');
            h.delete('content-length');
          } catch (error) {
            reject(new TypeError('fetch failed', { cause: error }));
            return;
          }
        }
        resolve(new BufferedResponse(nullBody ? null : data, status, res.statusMessage ?? '', h, url.href) as unknown as Response);
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
};
