import { describe, expect, it } from 'vitest';
import { formatDuration, progressLine, ProgressLine, progressWanted } from './progress';

describe('progress', () => {
  const state = {
    name: 'judge',
    total: 1000,
    done: 118,
    failed: 2,
    skipped: 20,
    calls: 95,
    cacheHits: 25,
    tokens: 48_200,
    cost: 0.01234,
    costKnown: true,
    startedAt: 0,
  };

  it('formats one line with done/total, calls, cache hits, failures, tokens, cost and ETA', () => {
    // 120 finished, 100 of them in this run in 10 s -> 0.1 s per item, 880 left -> 88 s
    expect(progressLine(state, 10_000)).toBe(
      'judge 120/1000 · 95 calls · 25 cached · 2 failed · 48k tok · $0.0123 · ETA 1m28s',
    );
    expect(progressLine({ ...state, costKnown: false, done: 0, failed: 0, skipped: 0 }, 10)).toContain(
      'cost ? · ETA ?',
    );
    expect(formatDuration(3 * 3600_000 + 5 * 60_000)).toBe('3h05m');
  });

  it('is drawn only on a TTY outside CI', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    const pipe = { isTTY: false } as NodeJS.WriteStream;
    expect(progressWanted(tty, {})).toBe(true);
    expect(progressWanted(tty, { CI: 'true' })).toBe(false);
    expect(progressWanted(pipe, {})).toBe(false);
  });

  it('redraws one line in place and clears it at the end; writes nothing when disabled', async () => {
    const writes: string[] = [];
    const stream = { isTTY: true, columns: 200, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream;
    const p = new ProgressLine(() => ({ ...state, startedAt: Date.now() }), { enabled: true, stream, intervalMs: 5 });
    await new Promise((r) => setTimeout(r, 30));
    p.stop();
    expect(writes.length).toBeGreaterThan(1);
    expect(writes[0]).toMatch(/^\r\x1b\[Kjudge 120\/1000/);
    expect(writes.at(-1)).toBe('\r\x1b[K');
    const none: string[] = [];
    const q = new ProgressLine(() => state, {
      enabled: false,
      stream: { write: (s: string) => none.push(s) } as unknown as NodeJS.WriteStream,
      intervalMs: 5,
    });
    await new Promise((r) => setTimeout(r, 20));
    q.stop();
    expect(none).toEqual([]);
  });
});
