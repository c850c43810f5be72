export interface ProgressState {
  name: string;
  total: number;
  done: number;
  failed: number;
  skipped: number;
  calls: number;
  cacheHits: number;
  tokens: number;
  cost: number;
  costKnown: boolean;
  startedAt: number;
}

export function formatTokens(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function formatCost(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** The live line: `judge 120/1000 · 95 calls · 25 cached · 2 failed · 48k tok · $0.0123 · ETA 2m10s`. */
export function progressLine(s: ProgressState, now = Date.now()): string {
  const finished = s.done + s.failed;
  const ranNow = finished - s.skipped;
  const remaining = s.total - finished;
  const elapsed = now - s.startedAt;
  const eta =
    ranNow > 0 && remaining > 0 ? formatDuration((elapsed / ranNow) * remaining) : remaining === 0 ? '0s' : '?';
  return [
    `${s.name} ${finished}/${s.total}`,
    `${s.calls} calls`,
    `${s.cacheHits} cached`,
    `${s.failed} failed`,
    `${formatTokens(s.tokens)} tok`,
    s.costKnown ? formatCost(s.cost) : 'cost ?',
    `ETA ${eta}`,
  ].join(' · ');
}

/** Whether to draw a live line: stderr is a terminal and no CI variable is set. */
export function progressWanted(
  stream: NodeJS.WriteStream = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return Boolean(stream.isTTY) && !env.CI;
}

/** One live line on a TTY, redrawn at most every `intervalMs`; nothing at all when disabled. */
export class ProgressLine {
  private timer: NodeJS.Timeout | undefined;
  private readonly stream: NodeJS.WriteStream;
  private drawn = false;

  constructor(
    private readonly state: () => ProgressState,
    options: { enabled: boolean; stream?: NodeJS.WriteStream; intervalMs?: number },
  ) {
    this.stream = options.stream ?? process.stderr;
    if (options.enabled) {
      this.timer = setInterval(() => this.draw(), options.intervalMs ?? 200);
      this.timer.unref();
    }
  }

  private draw(): void {
    const cols = this.stream.columns || 120;
    this.stream.write(`\r\x1b[K${progressLine(this.state()).slice(0, cols - 1)}`);
    this.drawn = true;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}
