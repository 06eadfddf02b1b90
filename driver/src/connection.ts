/**
 * The driver loop of one connection, mirroring quinn's connection driver:
 * 1. each socket chunk is one `handleBytes` call into the core;
 * 2. everything the core queued in this event-loop turn leaves in one socket write;
 * 3. one timer, re-armed only when the core's next deadline changes;
 * 4. events are drained in one call and settle promises.
 */
import { WasmConnection } from "../wasm/pkg/cqlwire_wasm.js";
import type { CqlSocket, RuntimeHooks, SocketTarget } from "./socket.ts";
import { ConnectionError, DriverError, errorFromCore } from "./errors.ts";

const EVENT_READY = 1;
const EVENT_RESPONSE = 2;
const EVENT_FAILED = 3;
const EVENT_SERVER = 4;
const EVENT_CLOSED = 5;

export interface RequestOptions {
  consistency?: number;
  serialConsistency?: number;
  pageSize?: number;
  pageState?: Uint8Array | null;
  timestamp?: bigint | number;
  timeoutMs?: number;
  skipMetadata?: boolean;
  idempotent?: boolean;
  tracing?: boolean;
}

/** A response as it left the core: frame flags, then the body with its prefixes. */
export interface RawResponse {
  flags: number;
  body: Uint8Array;
}

interface Pending {
  resolve(r: RawResponse): void;
  reject(e: Error): void;
}

export interface ConnectionConfig {
  protocolVersion: 4 | 5;
  keyspace?: string;
  credentials?: { username: string; password: string };
  requestTimeoutMs: number;
  heartbeatIntervalMs: number;
  maxStreams?: number;
  orphanLimit?: number;
}

const textDecoder = new TextDecoder();

/** Microseconds on a clock that only moves forward, as the core wants. */
export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

export class Connection {
  readonly host: string;
  protocolVersion: 4 | 5;
  private core: WasmConnection;
  private socket: CqlSocket | null = null;
  private pending = new Map<number, Pending>();
  private flushScheduled = false;
  private writing = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = -1;
  private readyWaiter: { resolve(): void; reject(e: Error): void } | null = null;
  private closedError: Error | null = null;
  private optionsBuf = new ArrayBuffer(64);
  private optionsView = new DataView(this.optionsBuf);
  private optionsBytes = new Uint8Array(this.optionsBuf);
  onServerEvent: ((event: Record<string, unknown>) => void) | null = null;
  onClose: ((error: Error) => void) | null = null;
  /** The close reason as the core reported it, e.g. `{ kind: "version_refused", fallback: 4 }`. */
  closeReason: Record<string, unknown> | null = null;

  constructor(private target: SocketTarget, private config: ConnectionConfig, private runtime: RuntimeHooks) {
    this.host = `${target.host}:${target.port}`;
    this.protocolVersion = config.protocolVersion;
    this.core = new WasmConnection(JSON.stringify({
      protocolVersion: config.protocolVersion,
      keyspace: config.keyspace,
      credentials: config.credentials,
      requestTimeoutMs: config.requestTimeoutMs,
      heartbeatIntervalMs: config.heartbeatIntervalMs,
      maxStreams: config.maxStreams,
      orphanLimit: config.orphanLimit,
    }));
  }

  get closed(): boolean {
    return this.closedError !== null;
  }
  get inFlight(): number {
    return this.closedError ? 0 : this.core.inFlight() + this.core.queued();
  }
  get orphans(): number {
    return this.closedError ? 0 : this.core.orphans();
  }
  get usable(): boolean {
    return !this.closedError && this.core.state() === "ready";
  }

  /** Opens the socket and completes the handshake. */
  async open(): Promise<void> {
    const ready = new Promise<void>((resolve, reject) => (this.readyWaiter = { resolve, reject }));
    // Rejected by destroy() when the socket never opens; the catch below reports that.
    ready.catch(() => {});
    let timeoutHandle: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timeoutHandle = setTimeout(
        () => reject(new ConnectionError(`connection to ${this.host} timed out after ${this.target.connectTimeoutMs} ms`, this.host, "ERR_CONNECT_TIMEOUT")),
        this.target.connectTimeoutMs,
      );
    });
    try {
      this.socket = await Promise.race([
        this.runtime.socketFactory(this.target, {
          onData: (chunk) => this.onData(chunk),
          onClose: (error) => this.onSocketClose(error),
        }),
        deadline,
      ]);
      this.core.start(nowMicros());
      this.drive();
      await Promise.race([ready, deadline]);
    } catch (e) {
      this.destroy(e instanceof Error ? e : new Error(String(e)));
      throw e;
    } finally {
      clearTimeout(timeoutHandle);
    }
  }

  private packOptions(o: RequestOptions): Uint8Array {
    const ps = o.pageState ?? null;
    const need = 28 + (ps ? ps.length : 0);
    if (need > this.optionsBuf.byteLength) {
      this.optionsBuf = new ArrayBuffer(need * 2);
      this.optionsView = new DataView(this.optionsBuf);
      this.optionsBytes = new Uint8Array(this.optionsBuf);
    }
    const v = this.optionsView;
    v.setUint16(0, o.consistency ?? 0xffff, true);
    v.setUint16(2, o.serialConsistency ?? 0xffff, true);
    v.setInt32(4, o.pageSize ?? 0, true);
    v.setBigInt64(8, o.timestamp === undefined ? -(2n ** 63n) : BigInt(o.timestamp), true);
    v.setUint32(16, o.timeoutMs ?? 0, true);
    v.setUint32(20, (o.skipMetadata ? 1 : 0) | (o.idempotent ? 2 : 0) | (o.tracing ? 4 : 0), true);
    v.setUint32(24, ps ? ps.length : 0, true);
    if (ps) this.optionsBytes.set(ps, 28);
    return this.optionsBytes.subarray(0, need);
  }

  private submit(start: () => number): Promise<RawResponse> {
    if (this.closedError) return Promise.reject(this.closedError);
    let id: number;
    try {
      id = start();
    } catch (e) {
      return Promise.reject(coreCallError(e));
    }
    const p = new Promise<RawResponse>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.drive();
    return p;
  }

  query(cql: string, values: Uint8Array, o: RequestOptions): Promise<RawResponse> {
    return this.submit(() => this.core.query(nowMicros(), cql, values, this.packOptions(o)));
  }

  prepare(cql: string, keyspace?: string): Promise<RawResponse> {
    return this.submit(() => this.core.prepare(nowMicros(), cql, keyspace));
  }

  execute(id: Uint8Array, resultMetadataId: Uint8Array | null, values: Uint8Array, o: RequestOptions): Promise<RawResponse> {
    return this.submit(() => this.core.execute(nowMicros(), id, resultMetadataId ?? EMPTY, values, this.packOptions(o)));
  }

  batch(descriptor: Uint8Array, o: RequestOptions): Promise<RawResponse> {
    return this.submit(() => this.core.batch(nowMicros(), descriptor, this.packOptions(o)));
  }

  register(events: string[]): Promise<RawResponse> {
    return this.submit(() => this.core.register(nowMicros(), events.join(",")));
  }

  close(): void {
    this.destroy(new ConnectionError(`connection to ${this.host} was closed by the client`, this.host, "ERR_SHUTDOWN"));
  }

  // ---- the loop -------------------------------------------------------------------

  private onData(chunk: Uint8Array): void {
    if (this.closedError) return;
    this.core.handleBytes(nowMicros(), chunk);
    this.drive();
  }

  private onSocketClose(error?: Error): void {
    if (this.closedError) return;
    this.core.handleEof(nowMicros());
    this.drainEvents();
    this.destroy(error ?? new ConnectionError(`connection to ${this.host} closed`, this.host));
  }

  private drive(): void {
    if (!this.flushScheduled && !this.writing) {
      this.flushScheduled = true;
      queueMicrotask(() => this.flush());
    }
    this.armTimer();
    this.drainEvents();
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.closedError || !this.socket || this.writing) return;
    const bytes = this.core.pollTransmit();
    if (bytes.length === 0) return;
    let r: void | Promise<void>;
    try {
      r = this.socket.write(bytes);
    } catch (e) {
      this.destroy(new ConnectionError(`write to ${this.host} failed: ${(e as Error).message}`, this.host, "ERR_CONNECTION", { cause: e }));
      return;
    }
    if (r && typeof (r as Promise<void>).then === "function") {
      // While a write is in progress, new frames pile up in the core and leave together.
      this.writing = true;
      (r as Promise<void>).then(
        () => {
          this.writing = false;
          this.flush();
        },
        (e) => this.destroy(new ConnectionError(`write to ${this.host} failed: ${(e as Error).message}`, this.host, "ERR_CONNECTION", { cause: e })),
      );
    }
  }

  private armTimer(): void {
    if (this.closedError) return;
    const at = this.core.pollTimeout();
    if (at === this.timerAt) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = at;
    if (at < 0) return;
    const delayMs = Math.max(0, Math.ceil((at - nowMicros()) / 1000));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = -1;
      if (this.closedError) return;
      this.core.handleTimeout(nowMicros());
      this.drive();
    }, delayMs);
    if (this.pending.size === 0) this.runtime.unrefTimer?.(this.timer);
  }

  private drainEvents(): void {
    if (this.closedError) return;
    const buf = this.core.pollEvents();
    if (buf.length === 0) return;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let at = 0;
    while (at + 9 <= buf.length) {
      const kind = buf[at];
      const id = view.getUint32(at + 1, true);
      const len = view.getUint32(at + 5, true);
      const payload = buf.subarray(at + 9, at + 9 + len);
      at += 9 + len;
      switch (kind) {
        case EVENT_RESPONSE: {
          const p = this.pending.get(id);
          if (p) {
            this.pending.delete(id);
            p.resolve({ flags: payload[0], body: payload.subarray(1) });
          }
          break;
        }
        case EVENT_FAILED: {
          const p = this.pending.get(id);
          if (p) {
            this.pending.delete(id);
            p.reject(errorFromCore(JSON.parse(textDecoder.decode(payload)), this.host));
          }
          break;
        }
        case EVENT_READY: {
          const ready = JSON.parse(textDecoder.decode(payload));
          this.protocolVersion = ready.protocolVersion;
          this.readyWaiter?.resolve();
          this.readyWaiter = null;
          break;
        }
        case EVENT_SERVER:
          this.onServerEvent?.(JSON.parse(textDecoder.decode(payload)));
          break;
        case EVENT_CLOSED: {
          this.closeReason = JSON.parse(textDecoder.decode(payload));
          this.destroy(errorFromCore(this.closeReason!, this.host));
          return;
        }
      }
    }
  }

  private destroy(error: Error): void {
    if (this.closedError) return;
    this.closedError = error;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    try {
      this.socket?.close();
    } catch {
      // Already closed: nothing left to release.
    }
    this.readyWaiter?.reject(error);
    this.readyWaiter = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(error);
    try {
      this.core.free();
    } catch {
      // Freed already.
    }
    this.onClose?.(error);
  }
}

const EMPTY = new Uint8Array(0);

/** A JsError from the facade carries `[CODE] message`. */
function coreCallError(e: unknown): Error {
  const m = String((e as Error)?.message ?? e);
  const match = /^\[([A-Z_]+)\] (.*)$/s.exec(m);
  return match ? new DriverError(match[2], match[1]) : new DriverError(m);
}
