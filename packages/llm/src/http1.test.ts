import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http1Request, type Http1Request } from './http1';
import { leanFetchWith } from './http-fetch';

/** What the raw server does with one request (its head and body), on the connection it came on. */
type Script = (socket: Socket, request: { head: string; body: string }) => void;

const noCancel = () => () => {};

describe('http1Request (plain http chat calls)', () => {
  let server: Server;
  let port: number;
  let script: Script;
  const connections: Socket[] = [];
  const heads: string[] = [];
  const seenBodies: string[] = [];

  beforeAll(async () => {
    server = createServer((socket) => {
      connections.push(socket);
      let buf = '';
      socket.on('data', (d) => {
        buf += d.toString('latin1');
        for (;;) {
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = buf.slice(0, end);
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (buf.length < end + 4 + length) return;
          const body = Buffer.from(buf.slice(end + 4, end + 4 + length), 'latin1').toString('utf8');
          buf = buf.slice(end + 4 + length);
          heads.push(head);
          seenBodies.push(body);
          script(socket, { head, body });
        }
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of connections) s.destroy();
    await new Promise((r) => server.close(r));
  });

  const req = (body = '{"q":1}', extra: Partial<Http1Request> = {}): Http1Request => ({
    hostname: '127.0.0.1',
    port,
    host: `127.0.0.1:${port}`,
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    body,
    ...extra,
  });

  it('sends one request per connection at a time and reuses kept-alive connections', async () => {
    script = (s, r) =>
      s.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Seen: ${encodeURIComponent(r.body)}\r\nContent-Length: 11\r\n\r\n{"ok":true}`,
      );
    const before = connections.length;
    const a = await http1Request(req('{"q":"é"}'), noCancel);
    expect(a).toMatchObject({
      status: 200,
      statusText: 'OK',
      headers: { 'content-type': 'application/json', 'x-seen': encodeURIComponent('{"q":"é"}') },
    });
    expect(a.body.toString()).toBe('{"ok":true}');
    expect(heads.at(-1)).toMatch(
      new RegExp(
        `^POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: keep-alive\r\ncontent-type: application/json\r\ncontent-length: 10$`,
      ),
    );
    await http1Request(req(), noCancel);
    const both = await Promise.all([http1Request(req(), noCancel), http1Request(req(), noCancel)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(connections.length - before).toBe(2); // the first connection served three requests
  });

  it('reads bodies split anywhere: content-length, chunked (extensions, trailers), until close; skips 1xx', async () => {
    const bytewise = (s: Socket, text: string, end = false) => {
      let i = 0;
      const next = () => {
        if (i < text.length) {
          s.write(text[i++]!, 'latin1', next);
        } else if (end) s.end();
      };
      next();
    };
    script = (s) => bytewise(s, 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello');
    expect((await http1Request(req(), noCancel)).body.toString()).toBe('hello');
    script = (s) =>
      bytewise(
        s,
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nx-trailer: t\r\n\r\n',
      );
    const chunked = await http1Request(req(), noCancel);
    expect(chunked.status).toBe(201);
    expect(chunked.body.toString()).toBe('hello, world');
    script = (s) => bytewise(s, 'HTTP/1.1 200 OK\r\n\r\nuntil the end', true);
    expect((await http1Request(req(), noCancel)).body.toString()).toBe('until the end');
    script = (s) => s.write('HTTP/1.1 204 No Content\r\n\r\n');
    expect((await http1Request(req(), noCancel)).body.length).toBe(0);
  });

  it('does not reuse a connection the server closes, nor one closed while idle', async () => {
    const servedBy: Socket[] = [];
    script = (s) => {
      servedBy.push(s);
      s.end('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok');
    };
    await http1Request(req(), noCancel);
    script = (s) => {
      servedBy.push(s);
      s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    };
    await http1Request(req(), noCancel);
    expect(servedBy[1]).not.toBe(servedBy[0]);
    // The server drops its idle keep-alive connections: the next request opens a new one.
    // (A server-side socket closes once the client, having seen the end, closed its side too.)
    await Promise.all(
      connections.filter((s) => !s.destroyed).map((s) => new Promise((r) => (s.once('close', r), s.end()))),
    );
    expect((await http1Request(req(), noCancel)).body.toString()).toBe('ok');
  });

  it('fails as fetch does: connection closed before or during the response, garbage, refused', async () => {
    script = (s) => s.destroy();
    await expect(http1Request(req(), noCancel)).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { code: 'ECONNRESET', message: 'socket hang up' },
    });
    script = (s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"id": "chatcmpl-x", "choi');
    await expect(http1Request(req(), noCancel)).rejects.toMatchObject({
      message: 'fetch failed',
      cause: { code: 'ECONNRESET', message: 'aborted' },
    });
    script = (s) => s.write('SSH-2.0-OpenSSH\r\n\r\n');
    await expect(http1Request(req(), noCancel)).rejects.toMatchObject({
      message: 'fetch failed',
      cause: { message: expect.stringMatching(/^Parse Error/) },
    });
    await expect(http1Request({ ...req(), port: 9 }, noCancel)).rejects.toMatchObject({
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    });
  });

  it('cancels (timeout, abort) with the given error and refuses header values that would split the request', async () => {
    script = () => {}; // never answers
    const sent = heads.length;
    const why = new Error('timed out');
    let released = 0;
    await expect(
      http1Request(req(), (cancel) => {
        const t = setTimeout(() => cancel(why), 20);
        return () => {
          released++;
          clearTimeout(t);
        };
      }),
    ).rejects.toBe(why);
    expect(released).toBeGreaterThan(0); // a cancelled request leaves no timer behind
    expect(heads.length).toBe(sent + 1);
    await expect(
      http1Request({ ...req(), headers: { authorization: 'Bearer k\r\nx-injected: 1' } }, noCancel),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
    script = (s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    expect((await http1Request(req(), noCancel)).body.toString()).toBe('ok');
    expect(heads.length).toBe(sent + 2); // the refused request never went out
    // Header values go out as latin1 (as node:http sends them), the body as UTF-8.
    const body = '{"q":"é"}';
    await http1Request(
      { ...req(body), headers: { 'x-name': 'café', 'content-length': String(Buffer.byteLength(body)) } },
      noCancel,
    );
    expect(heads.at(-1)).toMatch(/\r\nx-name: café\r\n/);
    expect(seenBodies.at(-1)).toBe(body);
  });

  it('serves leanFetchWith with a cancel binding: a Response with decoded body and headers', async () => {
    const zipped = gzipSync('{"zipped":true}');
    script = (s) => {
      s.write(
        `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\nretry-after-ms: 5\r\ncontent-length: ${zipped.length}\r\n\r\n`,
      );
      s.write(zipped);
    };
    const r = await leanFetchWith(
      `http://127.0.0.1:${port}/v1/chat/completions`,
      { method: 'POST', headers: { Authorization: 'Bearer k' }, body: '{}' },
      noCancel,
    );
    expect(r.status).toBe(429);
    expect(r.ok).toBe(false);
    expect(r.headers.get('Retry-After-Ms')).toBe('5');
    expect(r.headers.has('content-encoding')).toBe(false);
    expect(await r.json()).toEqual({ zipped: true });
    expect(heads.at(-1)).toMatch(
      /\r\nauthorization: Bearer k\r\ncontent-length: 2\r\naccept-encoding: gzip, deflate, br$/,
    );
  });
});
