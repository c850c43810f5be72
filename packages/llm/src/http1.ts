import { connect, type Socket } from 'node:net';

/** A complete HTTP/1.1 response: header names lower-cased (repeated values joined with ", "), body still encoded. */
export interface Http1Response {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface Http1Request {
  hostname: string;
  port: number;
  /** The `Host` header (host, and port when not the default). */
  host: string;
  path: string;
  method: string;
  /** Header names as they go on the wire (with `content-length` for a body); `host` and `connection` are added unless given. */
  headers: Record<string, string>;
  body?: string;
}

/** Idle keep-alive connections by `hostname:port`, newest last (reused first, as the `lifo` agents did). */
const idle = new Map<string, Conn[]>();
/** Most idle connections kept per origin (node's agent default `maxFreeSockets`). */
const MAX_IDLE = 256;
/** Largest response head accepted (node's default `maxHeaderSize`). */
const MAX_HEAD = 16 * 1024;
const CRLF2 = Buffer.from('\r\n\r\n');
/** What node:http refuses in a header value (`ERR_INVALID_CHAR`): control characters other than tab. */
const INVALID_HEADER = /[^\t\x20-\x7e\x80-\xff]/;
/** Where sockets read into (`onread`); every read is copied out before the next one. */
const readBuffer = Buffer.allocUnsafe(64 * 1024);
const NON_ASCII = /[\x80-\xff]/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function hangUp(message: string): Error {
  const e = new Error(message) as NodeJS.ErrnoException;
  e.code = 'ECONNRESET';
  return e;
}

function parseError(message: string): Error {
  const e = new Error(`Parse Error: ${message}`) as NodeJS.ErrnoException;
  e.code = 'HPE_INVALID_RESPONSE';
  return e;
}

interface Exchange {
  method: string;
  resolve: (res: Http1Response) => void;
  reject: (error: unknown) => void;
}

/**
 * One keep-alive connection and the parser of the response it is waiting for. Its socket listeners are installed
 * once (not per request), and a response is parsed from the socket's chunks directly: no `ClientRequest`,
 * `IncomingMessage`, parser callbacks or readable stream per call.
 */
class Conn {
  readonly socket: Socket;
  readonly key: string;
  private ex: Exchange | undefined;
  /** Bytes received and not consumed yet (the head being read, or a chunked body's framing). */
  private pending: Buffer | undefined;
  private res: Http1Response | undefined;
  private keepAlive = true;
  /** Body framing: 'length' (content-length), 'chunked', or 'close' (until the server closes). */
  private framing: 'length' | 'chunked' | 'close' = 'length';
  private remaining = 0;
  private chunkState: 'size' | 'data' | 'data-end' | 'trailer' = 'size';
  private bodyParts: Buffer[] = [];

  constructor(req: Http1Request, key: string) {
    this.key = key;
    // `onread`: bytes arrive in one shared buffer, copied out at once, without a readable stream's push and 'data'.
    this.socket = connect({
      host: req.hostname,
      port: req.port,
      noDelay: true,
      onread: {
        buffer: readBuffer,
        callback: (n: number, buf: Uint8Array): boolean => {
          this.onData(Buffer.from(buf.subarray(0, n)));
          return true;
        },
      },
    });
    this.socket.setKeepAlive(true, 1000);
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('close', () => this.onEnd());
  }

  /** Sends one request; the connection must be idle. */
  send(req: Http1Request, ex: Exchange): void {
    this.ex = ex;
    this.res = undefined;
    this.pending = undefined;
    this.bodyParts = [];
    this.chunkState = 'size';
    this.keepAlive = true;
    this.socket.ref();
    let head = `${req.method} ${req.path} HTTP/1.1\r\n`;
    if (req.headers.host === undefined) head += `host: ${req.host}\r\n`;
    if (req.headers.connection === undefined) head += 'connection: keep-alive\r\n';
    let latin1 = false;
    for (const name in req.headers) {
      const value = req.headers[name]!;
      if (NON_ASCII.test(value)) latin1 = true;
      head += `${name}: ${value}\r\n`;
    }
    // As node:http, the head goes out as latin1 and the body as UTF-8 (one string write when the head is ASCII).
    if (latin1)
      this.socket.write(Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), Buffer.from(req.body ?? '', 'utf8')]));
    else this.socket.write(`${head}\r\n${req.body ?? ''}`);
  }

  /** Stops the exchange in progress (timeout, abort): the connection is not reused. */
  destroy(): void {
    this.ex = undefined;
    this.socket.destroy();
    this.drop();
  }

  private drop(): void {
    const list = idle.get(this.key);
    const i = list ? list.indexOf(this) : -1;
    if (i >= 0) list!.splice(i, 1);
  }

  private fail(error: unknown): void {
    const ex = this.ex;
    this.ex = undefined;
    this.drop();
    this.socket.destroy();
    ex?.reject(error);
  }

  private onEnd(): void {
    if (this.ex && this.res && this.framing === 'close') {
      this.complete(false);
      return;
    }
    this.fail(hangUp(this.res ? 'aborted' : 'socket hang up'));
  }

  private onData(chunk: Buffer): void {
    if (!this.ex) {
      // Nothing asked for: a server that talks out of turn is not reused.
      this.destroy();
      return;
    }
    if (!this.res) {
      const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
      const end = buf.indexOf(CRLF2);
      if (end < 0) {
        if (buf.length > MAX_HEAD) return this.fail(parseError('header overflow'));
        this.pending = buf;
        return;
      }
      this.pending = undefined;
      if (!this.parseHead(buf.toString('latin1', 0, end))) return;
      if (!this.res) {
        // An interim (1xx) response: the real one follows.
        const rest = buf.subarray(end + 4);
        if (rest.length > 0) this.onData(rest);
        return;
      }
      chunk = buf.subarray(end + 4);
      if (this.framing === 'length' && this.remaining === 0) {
        if (chunk.length > 0) this.keepAlive = false;
        this.complete(this.keepAlive);
        return;
      }
      if (chunk.length === 0) return;
    }
    if (this.framing === 'chunked') this.onChunked(chunk);
    else if (this.framing === 'close') this.bodyParts.push(chunk);
    else {
      if (chunk.length > this.remaining) {
        this.keepAlive = false; // more than the response: the connection is out of step
        chunk = chunk.subarray(0, this.remaining);
      }
      this.bodyParts.push(chunk);
      this.remaining -= chunk.length;
      if (this.remaining === 0) this.complete(this.keepAlive);
    }
  }

  /** Reads the status line and headers; false when it failed the exchange. */
  private parseHead(head: string): boolean {
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0]!);
    if (!m) {
      this.fail(parseError('invalid status line'));
      return false;
    }
    const status = Number(m[2]);
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : '';
      if (!TOKEN.test(name)) {
        this.fail(parseError('invalid header'));
        return false;
      }
      const value = line.slice(colon + 1).trim();
      const old = headers[name];
      headers[name] =
        old === undefined ? value : name === 'content-length' || name === 'content-type' ? old : `${old}, ${value}`;
    }
    if (status < 200) {
      if (status === 101) {
        this.fail(parseError('unexpected protocol switch'));
        return false;
      }
      return true; // 100 Continue, 103 Early Hints
    }
    const connection = (headers.connection ?? '').toLowerCase();
    this.keepAlive = m[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    this.res = { status, statusText: m[3] ?? '', headers, body: Buffer.alloc(0) };
    const te = headers['transfer-encoding'];
    const cl = headers['content-length'];
    if (this.ex!.method === 'HEAD' || status === 204 || status === 304) {
      this.framing = 'length';
      this.remaining = 0;
    } else if (te?.toLowerCase().includes('chunked')) {
      this.framing = 'chunked';
    } else if (cl !== undefined) {
      if (!/^\d+$/.test(cl)) {
        this.fail(parseError('invalid content-length'));
        return false;
      }
      this.framing = 'length';
      this.remaining = Number(cl);
    } else {
      this.framing = 'close';
      this.keepAlive = false;
    }
    return true;
  }

  private onChunked(chunk: Buffer): void {
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    let pos = 0;
    for (;;) {
      if (this.chunkState === 'data') {
        const take = Math.min(this.remaining, buf.length - pos);
        if (take > 0) this.bodyParts.push(buf.subarray(pos, pos + take));
        pos += take;
        this.remaining -= take;
        if (this.remaining > 0) return;
        this.chunkState = 'data-end';
      }
      const nl = buf.indexOf('\r\n', pos);
      if (nl < 0) {
        if (buf.length - pos > MAX_HEAD) return this.fail(parseError('chunk framing overflow'));
        this.pending = pos < buf.length ? buf.subarray(pos) : undefined;
        return;
      }
      const line = buf.toString('latin1', pos, nl);
      pos = nl + 2;
      if (this.chunkState === 'data-end') {
        if (line !== '') return this.fail(parseError('invalid chunk end'));
        this.chunkState = 'size';
      } else if (this.chunkState === 'size') {
        const size = /^([0-9a-fA-F]+)[ \t]*(?:;.*)?$/.exec(line);
        if (!size) return this.fail(parseError('invalid chunk size'));
        this.remaining = Number.parseInt(size[1]!, 16);
        this.chunkState = this.remaining === 0 ? 'trailer' : 'data';
      } else if (line === '') {
        // The last chunk and its trailers are in.
        this.complete(this.keepAlive && pos === buf.length);
        return;
      }
    }
  }

  private complete(reuse: boolean): void {
    const ex = this.ex!;
    const res = this.res!;
    this.ex = undefined;
    this.res = undefined;
    this.pending = undefined;
    res.body = this.bodyParts.length === 1 ? this.bodyParts[0]! : Buffer.concat(this.bodyParts);
    this.bodyParts = [];
    if (reuse && !this.socket.destroyed) {
      let list = idle.get(this.key);
      if (!list) idle.set(this.key, (list = []));
      if (list.length < MAX_IDLE) {
        this.socket.unref(); // an idle connection does not keep the process alive
        list.push(this);
      } else this.socket.destroy();
    } else this.socket.destroy();
    ex.resolve(res);
  }
}

/**
 * Sends one request over a pooled keep-alive HTTP/1.1 connection (plain http) and resolves with the whole response.
 * Failures reject as `fetch` does, with a `TypeError('fetch failed')` whose cause is node's socket error
 * (`ECONNREFUSED`...), or an `ECONNRESET` error when the connection closed before the response was complete
 * (`socket hang up` before the head, `aborted` after), as with node:http. `bind` arranges cancellation (timeout,
 * abort): the connection is closed and the promise rejects with the error given to `cancel`, as it is.
 */
export function http1Request(
  req: Http1Request,
  bind: (cancel: (error: unknown) => void) => () => void,
): Promise<Http1Response> {
  return new Promise<Http1Response>((resolve, reject) => {
    for (const name in req.headers) {
      if (!TOKEN.test(name) || INVALID_HEADER.test(req.headers[name]!)) {
        const e = new TypeError(`Invalid character in header content ["${name}"]`) as TypeError & { code: string };
        e.code = 'ERR_INVALID_CHAR';
        reject(e);
        return;
      }
    }
    const key = `${req.hostname}:${req.port}`;
    const list = idle.get(key);
    let conn = list?.pop();
    while (conn?.socket.destroyed) conn = list!.pop();
    conn ??= new Conn(req, key);
    let settled = false;
    const done = bind((error) => {
      conn.destroy();
      done(); // the binding's own timer and listener go too
      if (!settled) {
        settled = true;
        reject(error);
      }
    });
    conn.send(req, {
      method: req.method,
      resolve: (res) => {
        done();
        if (settled) return;
        settled = true;
        resolve(res);
      },
      reject: (error) => {
        done();
        if (settled) return;
        settled = true;
        reject(new TypeError('fetch failed', { cause: error }));
      },
    });
  });
}
