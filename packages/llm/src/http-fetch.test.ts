import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { leanFetch } from './http-fetch';

describe('leanFetch', () => {
  it('sends the body and headers, returns a standard Response (status, headers, gzip decoded), and aborts', async () => {
    const seen: Array<{ method?: string; headers: Record<string, unknown>; body: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body });
        if (req.url === '/gzip') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-test': 'yes' });
          res.end(gzipSync(JSON.stringify({ zipped: true })));
        } else if (req.url === '/slow') {
          setTimeout(() => res.end('late'), 1000);
        } else {
          res.writeHead(429, { 'retry-after-ms': '5' });
          res.end('{"error":{"message":"slow down"}}');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await leanFetch(`${base}/gzip`, {
        method: 'POST',
        headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-test')).toBe('yes');
      expect(r.headers.get('X-Test')).toBe('yes'); // names are case-insensitive
      expect(r.headers.has('content-encoding')).toBe(false); // decoded
      const names = [...r.headers.entries()].map(([k]) => k);
      expect(names).toEqual([...names].sort()); // in name order, as Headers iterates
      expect(Object.fromEntries(r.headers)).toMatchObject({ 'content-type': 'application/json', 'x-test': 'yes' });
      expect(await r.json()).toEqual({ zipped: true });
      expect(seen[0]).toMatchObject({
        method: 'POST',
        body: '{"a":1}',
        headers: { authorization: 'Bearer k', 'content-length': '7' },
      });
      const limited = await leanFetch(new URL(`${base}/limited`), { method: 'GET' });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after-ms')).toBe('5');
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 50);
      await expect(leanFetch(`${base}/slow`, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
      await expect(leanFetch('http://127.0.0.1:9/x')).rejects.toThrow('fetch failed');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
