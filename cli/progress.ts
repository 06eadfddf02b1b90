// Progress of long commands on stderr: a live bar (cli-progress) on a terminal, otherwise a
// plain line every few seconds, so logs of scripted runs show that work goes on.

import cliProgress from "cli-progress";

export interface ProgressState {
  rows: number;
  bad: number;
  retries: number;
  /** Input bytes consumed (load) — what ETA is computed from. */
  bytes?: number;
  concurrency?: number;
}

export interface ProgressOptions {
  /** What is counted, e.g. "load" or "unload". */
  label: string;
  /** Total input bytes when known (ETA and percentage). */
  totalBytes: number | null;
  /** Interactive terminal: a live bar; otherwise lines every `intervalMs`. */
  interactive: boolean;
  intervalMs: number;
  /** Where lines go (tests capture them). */
  write?: (line: string) => void;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const total = Math.round(seconds);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  const mm = String(minutes).padStart(hours > 0 ? 2 : 1, "0");
  return `${hours > 0 ? `${hours}:` : ""}${mm}:${String(secs).padStart(2, "0")}`;
}

export function formatBytesPerSecond(bytesPerSecond: number): string {
  return `${(bytesPerSecond / 1e6).toFixed(bytesPerSecond >= 1e7 ? 0 : 1)} MB/s`;
}

const encoder = new TextEncoder();

export class ProgressDisplay {
  private readonly started = performance.now();
  private lastLine = performance.now();
  private bar: { start: (...args: unknown[]) => void; update: (...args: unknown[]) => void; stop: () => void } | null =
    null;
  private latest: ProgressState = { rows: 0, bad: 0, retries: 0 };

  constructor(private readonly options: ProgressOptions) {
    if (options.interactive) {
      const withTotal = options.totalBytes !== null && options.totalBytes > 0;
      const format = withTotal
        ? `${options.label} [{bar}] {percentage}% | {rows} rows | {rate} rows/s | {mbps} | ETA {etaText} | {bad} bad | {retries} retries`
        : `${options.label} {rows} rows | {rate} rows/s | {mbps} | {bad} bad | {retries} retries`;
      const bar = new cliProgress.SingleBar({
        format,
        hideCursor: false,
        clearOnComplete: true,
        barsize: 24,
        fps: 4,
      }, cliProgress.Presets.shades_classic);
      bar.start(withTotal ? options.totalBytes : 1, 0, this.payload(this.latest));
      this.bar = bar;
    }
  }

  private payload(state: ProgressState): Record<string, string | number> {
    const seconds = Math.max(0.001, (performance.now() - this.started) / 1000);
    const bytes = state.bytes ?? 0;
    const bytesPerSecond = bytes / seconds;
    const total = this.options.totalBytes;
    const eta = total !== null && bytesPerSecond > 0 ? (total - bytes) / bytesPerSecond : NaN;
    return {
      rows: state.rows,
      rate: Math.round(state.rows / seconds),
      mbps: formatBytesPerSecond(bytesPerSecond),
      etaText: formatDuration(eta),
      bad: state.bad,
      retries: state.retries,
    };
  }

  /** The total once it is known (a URL's Content-Length arrives with its answer). */
  setTotalBytes(total: number | null): void {
    this.options.totalBytes = total;
  }

  update(state: ProgressState): void {
    this.latest = { ...state };
    if (this.bar !== null) {
      const value = this.options.totalBytes !== null && this.options.totalBytes > 0
        ? Math.min(state.bytes ?? 0, this.options.totalBytes)
        : 0;
      this.bar.update(value, this.payload(state));
      return;
    }
    const now = performance.now();
    if (now - this.lastLine < this.options.intervalMs) return;
    this.lastLine = now;
    this.emit(this.describe(state));
  }

  describe(state: ProgressState): string {
    const p = this.payload(state);
    const total = this.options.totalBytes;
    const share = total !== null && total > 0 ? `${((100 * (state.bytes ?? 0)) / total).toFixed(1)}% of input, ` : "";
    const eta = total !== null && total > 0 ? `, ETA ${p.etaText}` : "";
    const concurrency = state.concurrency !== undefined ? `, concurrency ${state.concurrency}` : "";
    return `${this.options.label}: ${share}${state.rows} rows (${p.rate} rows/s, ${p.mbps})${eta}, ` +
      `${state.bad} bad, ${state.retries} retries${concurrency}`;
  }

  private emit(line: string): void {
    if (this.options.write) this.options.write(line);
    else Deno.stderr.writeSync(encoder.encode(`${line}\n`));
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}
