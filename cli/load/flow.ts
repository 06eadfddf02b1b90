// Flow control of the writers: a concurrency limit that adapts to the cluster (AIMD), a
// rows-per-second limit, and a latency histogram for the summary.

/**
 * Requests in flight, bounded by a limit that adapts: it starts at `initial`, grows a little
 * after every round (as many completions as the limit) whose mean latency stays near the
 * best seen, and halves at once, at most once per round, when the cluster says it is
 * overloaded or a request times out. It never exceeds `max` nor drops below 1.
 */
export class AdaptiveConcurrency {
  private active = 0;
  private waiters: Array<() => void> = [];
  private drainers: Array<() => void> = [];
  private currentLimit: number;
  private roundCount = 0;
  private roundLatency = 0;
  private roundPeak = 0;
  private baseline: number | null = null;
  private baselineAt = 0;
  private round = 0;
  private lastDecreaseRound = -1;
  peak = 0;

  constructor(readonly max: number, initial = 32, private readonly adaptive = true) {
    this.currentLimit = Math.max(1, Math.min(initial, max));
  }

  get limit(): number {
    return this.currentLimit;
  }

  get inFlight(): number {
    return this.active;
  }

  /** Takes a slot if one is free, without waiting. */
  tryAcquire(): boolean {
    if (this.active >= this.currentLimit) return false;
    this.active++;
    if (this.active > this.peak) this.peak = this.active;
    if (this.active > this.roundPeak) this.roundPeak = this.active;
    return true;
  }

  async acquire(): Promise<void> {
    while (this.active >= this.currentLimit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.active++;
    if (this.active > this.peak) this.peak = this.active;
    if (this.active > this.roundPeak) this.roundPeak = this.active;
  }

  /** Frees a slot; `latencyMs` of a successful request feeds the adaptation. */
  release(latencyMs?: number): void {
    this.active--;
    if (latencyMs !== undefined && this.adaptive) this.observe(latencyMs);
    this.wake();
  }

  private wake(): void {
    // Woken acquirers check the limit again, so waking one too many costs nothing.
    let free = this.currentLimit - this.active;
    while (free-- > 0 && this.waiters.length > 0) this.waiters.shift()!();
    if (this.active === 0) { for (const drainer of this.drainers.splice(0)) drainer(); }
  }

  private observe(latencyMs: number): void {
    this.roundCount++;
    this.roundLatency += latencyMs;
    if (this.roundCount < this.currentLimit) return;
    const mean = this.roundLatency / this.roundCount;
    // A limit the load does not reach (reading or converting is the bottleneck) says
    // nothing about the cluster, so it only grows when requests actually queued up to it.
    const saturated = this.roundPeak >= this.currentLimit;
    this.roundCount = 0;
    this.roundLatency = 0;
    this.roundPeak = 0;
    this.round++;
    // The baseline is the best round seen, creeping up by 1% a second so that a cluster
    // that became slower for good is eventually taken as it is.
    const now = performance.now();
    if (this.baseline !== null) this.baseline *= 1.01 ** ((now - this.baselineAt) / 1000);
    this.baselineAt = now;
    if (this.baseline === null || mean < this.baseline) this.baseline = mean;
    const fine = mean <= 2 * this.baseline + 0.5;
    if (fine && saturated && this.currentLimit < this.max) {
      this.currentLimit = Math.min(this.max, this.currentLimit + Math.max(1, Math.round(this.currentLimit / 8)));
    } else if (mean > 4 * this.baseline + 2 && this.currentLimit > 1) {
      this.currentLimit = Math.max(1, Math.floor(this.currentLimit * 0.9));
    }
  }

  /** Overloaded, or a timeout: multiplicative decrease, once per round. */
  backOff(): void {
    if (!this.adaptive || this.lastDecreaseRound === this.round) return;
    this.lastDecreaseRound = this.round;
    this.currentLimit = Math.max(1, Math.floor(this.currentLimit / 2));
  }

  async drain(): Promise<void> {
    while (this.active > 0) await new Promise<void>((resolve) => this.drainers.push(resolve));
  }
}

/** Where the rate limiter reads the time (ms) and how it waits; tests pass a simulated one. */
export interface PacingClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const WALL_CLOCK: PacingClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** At most `perSecond` rows per second, paced evenly. */
export class RateLimiter {
  private next = 0;
  constructor(private readonly perSecond: number, private readonly clock: PacingClock = WALL_CLOCK) {}

  async take(rows: number): Promise<void> {
    const now = this.clock.now();
    const start = Math.max(now, this.next);
    this.next = start + (rows * 1000) / this.perSecond;
    const wait = start - now;
    if (wait >= 1) await this.clock.sleep(wait);
  }
}

/** Log-scale latency buckets (5% wide) from 10 µs to about 10 minutes. */
export class LatencyHistogram {
  private static readonly BASE = 1.05;
  private static readonly MIN_MS = 0.01;
  private readonly counts: Uint32Array;
  count = 0;
  private sum = 0;
  private maxMs = 0;

  constructor() {
    this.counts = new Uint32Array(400);
  }

  record(ms: number): void {
    const position = ms <= LatencyHistogram.MIN_MS
      ? 0
      : Math.ceil(Math.log(ms / LatencyHistogram.MIN_MS) / Math.log(LatencyHistogram.BASE));
    this.counts[Math.min(this.counts.length - 1, position)]++;
    this.count++;
    this.sum += ms;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  /** The upper bound of the bucket holding the q-quantile (q in [0, 1]); 0 when empty. */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i];
      if (seen >= rank) return Math.min(this.maxMs, LatencyHistogram.MIN_MS * LatencyHistogram.BASE ** i);
    }
    return this.maxMs;
  }

  get mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  get max(): number {
    return this.maxMs;
  }
}

/** Exact quantile of sorted values (for bench, which keeps every latency). */
export function sortedQuantile(sorted: Float64Array | number[], q: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index];
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
