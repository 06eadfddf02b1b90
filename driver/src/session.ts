/**
 * The driver loop, mirroring quinn's connection driver, for a whole session:
 * 1. each socket chunk is one `handleStaged` call into the core (written into its staging
 *    area), which answers with what the core has to hand out;
 * 2. one `pollTransmit` per event-loop turn returns every connection's pending bytes,
 *    and each socket gets one write (coalescing); a turn that started more than 4 MB of
 *    requests flushes as it goes, so the core never holds a whole burst of large ones;
 * 3. one timer, re-armed only when the core's next deadline comes before it;
 * 4. events are drained in one call and settle promises.
 * A turn asks the core what it has (`pendingOutputs`) once, and skips every poll that has
 * nothing (a request's start and a socket read answer what it has). A request that leaves
 * at once has its bytes polled in the call that starts it, and a read that settles at once
 * its events drained in the call that feeds it: with one request in flight a round trip
 * crosses into WASM twice.
 * The core decides everything else: which node, which connection, retries, reconnects.
 *
 * Every promise handed out settles: on a response, a failure, shutdown, or a failure of the
 * core itself. A WASM trap (a Rust panic, an out-of-bounds access) loses the core's state,
 * so nothing may throw out of a socket, timer or microtask handler: such a throw closes the
 * session instead (`failClosed`), rejecting everything pending, and every later call, with
 * one DriverInternalError. A user listener that throws is reported and the batch goes on.
 */
import { CallError, CsvPageFormatter, csvHeader, JsonPageFormatter, JsonPageKind, sniffInput as coreSniff, WasmSession, wasmMemory } from "../wasm/pkg/cqlwire_wasm.js";
import type { CqlSocket, RuntimeHooks, ShardPort, TlsSettings } from "./socket.ts";
import { PendingTable, rejectWith, type Settle } from "./pending.ts";
import { Slab } from "./slab.ts";
import type { WireLengths } from "./result.ts";
import { SaslBridge, type SaslAuthProvider, type SaslStep } from "./sasl.ts";
import { type AddressTranslator, translateAddress } from "./address_translator.ts";
import { attachFailedAttempts, type CoreNodeError, type FailedAttempt, failedAttempts } from "./attempts.ts";
import { AuthenticationError, ConnectionError, DriverError, DriverInternalError, errorFromCall, errorFromCore, NoHostAvailableError } from "./errors.ts";

/** CSV output settings, checked by the core (core/src/csv_out.rs `CsvFormatSettings`). */
export interface CsvSettings {
  delimiter?: string;
  quote?: string;
  escape?: string;
  nullWord?: string;
  /** Collections, tuples and UDTs as CQL literals (`cql`, default) or JSON (`json`, DSBulk's notation). */
  collectionFormat?: "cql" | "json";
  conversion?: Record<string, unknown>;
}

/** One result page as CSV: its header line apart, then its rows. */
export interface CsvPage {
  rows: number;
  pagingState: Uint8Array | null;
  header: Uint8Array;
  csv: Uint8Array;
}

/** One result page as JSON lines (UTF-8, each ended by a newline), with its column names. */
export interface JsonPage {
  rows: number;
  pagingState: Uint8Array | null;
  columns: string[];
  lines: Uint8Array;
}

interface FormattedPage {
  rows: number;
  pagingState: Uint8Array | null;
  head: Uint8Array;
  rest: Uint8Array;
}

const EVENT_READY = 1;
const EVENT_RESPONSE = 2;
/** A large response body left in linear memory: `[flags][attempts][node u16][at u32][len u32]`. */
const EVENT_RESPONSE_AT = 10;
const EVENT_FAILED = 3;
const EVENT_SERVER = 4;
const EVENT_CONNECT_FAILED = 5;
const EVENT_NODE_UP = 6;
const EVENT_NODE_DOWN = 7;
const EVENT_LOG = 8;
const EVENT_AUTH = 9;
/** A topology refresh added or removed a node (no payload): `state()` has the new set. */
const EVENT_NODES_CHANGED = 11;
const COMMAND_CONNECT = 1;
const COMMAND_CLOSE = 2;
/** A connect to Scylla's shard-aware port: `[shard u16][nr_shards u16]` follow the host and port. */
const COMMAND_CONNECT_SHARD = 3;
/** Bits of the core's `pendingOutputs()`: which polls have something to return. */
const PENDING_COMMANDS = 1;
const PENDING_TRANSMIT = 2;
const PENDING_EVENTS = 4;
/** The core's next deadline is earlier than the timer (or there is no timer): `pollTimeout`. */
const PENDING_TIMEOUT = 8;
/**
 * In a staged call's bits: the poll asked for in the call (`executeStaged`'s transmit,
 * `handleStaged`'s events) ran in it, and its output is where `outputSlot` says.
 */
const POLLED_TRANSMIT = 16;
const POLLED_EVENTS = 32;

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
  /** Routes to the replicas of this Murmur3 token. */
  routingToken?: bigint;
  /** v5: the keyspace this request runs in. */
  keyspace?: string;
  /** v5: the server's notion of "now" for TTLs and deletions, in seconds. */
  nowInSeconds?: number;
}

const textEncoder = new TextEncoder();

/** See `Client.getMemoryStats`. */
export interface MemoryStats {
  wasmMemoryBytes: number;
  coreBufferBytes: number;
}

/** A response as it left the core. */
export interface RawResponse {
  flags: number;
  body: Uint8Array;
  node: string;
  attempts: number;
  /** After more than one execution: what the nodes tried before `node` said, speculative executions. */
  tried?: Tried;
  /** Only when the host measures them (`measureWireLengths`). */
  wireLengths?: WireLengths;
}

/**
 * The requests waiting for their answers, as the decoder sees them: with a `decode` hook the
 * response is turned into the caller's value right here, so one promise per request is all it
 * costs: what the decoder needs (the statement, the call's parameters and options) rides in
 * the table's arrays at `at`, not in objects of its own.
 */
export type { PendingTable as Pending };

/**
 * The body is `events[start, end)`, and `view` a DataView of all of `events`; the body's bytes
 * are never written again (other parts of `events` may be: a decoder reads only its body),
 * so a decoder that can read the body in place makes no view of it.
 * `now` is performance.now() read once for every response of the drain.
 */
export type ResponseDecoder = (requests: PendingTable, at: number, now: number, flags: number, events: Uint8Array, view: DataView, start: number, end: number, node: string, attempts: number, tried?: Tried) => unknown;
export type FailureObserver = (context: unknown, error: Error) => void;

export interface SessionSettings {
  protocolVersion: 4 | 5;
  compression: "none" | "lz4" | "snappy";
  keyspace?: string;
  credentials?: { username: string; password: string };
  requestTimeoutMs: number;
  heartbeatIntervalMs: number;
  maxStreams?: number;
  connectionsPerHost: number;
  localDataCenter?: string;
  discoverPeers: boolean;
  maxAttempts?: number;
  speculativeDelayMs?: number;
  speculativeMaxExtra?: number;
  defaultPort: number;
  tls?: TlsSettings;
  connectTimeoutMs: number;
  coalescingMaxBytes?: number;
  coalescingWindowMicros?: number;
  schemaAgreementTimeoutMs?: number;
  localRack?: string;
  allowRemoteDcs?: boolean;
  allowList?: string[];
  denyList?: string[];
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  orphanLimit?: number;
  maxFrameBytes?: number;
  prepareOnAllHosts?: boolean;
  rePrepareOnUp?: boolean;
  refreshSchemaDelayMs?: number;
  warmup?: boolean;
  /** A JavaScript SASL authenticator; the core waits for its answers. */
  authProvider?: SaslAuthProvider;
  /** Which endpoint to dial for an address (only where a socket is opened). */
  addressTranslator?: AddressTranslator;
}

export interface SessionListener {
  onNodeUp?(address: string): void;
  onNodeDown?(address: string, reason: string): void;
  onServerEvent?(event: Record<string, unknown>): void;
  /** A refresh of the topology added or removed a node; `state().nodes` has the new set. */
  onNodesChanged?(): void;
  /** `level` is "warning" for what the user should act on, else undefined (information). */
  onLog?(message: string, level?: "warning"): void;
}

/** Whether a host is this machine: credentials sent there without TLS stay on it. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || /^127\./.test(h) || h === "::1" ||
    /^(0{1,4}:){7}0{0,3}1$/.test(h) || /^::ffff:127\./.test(h);
}

const textDecoder = new TextDecoder();
const EMPTY = new Uint8Array(0);
/** The staging area the core keeps between requests (wasm/src/lib.rs's STAGING_KEEP). */
const STAGING_KEEP = 64 * 1024;
/**
 * Request bytes started in one turn past which they leave at once rather than at the turn's
 * end: the core's output buffer then holds a few MB of a burst of large requests, not all of
 * it (WASM memory never shrinks; issue #17).
 */
const EARLY_FLUSH_BYTES = 4 * 1024 * 1024;
/**
 * Small drains' events and small flushes' bytes are copied into slabs (`Slab`). An event slab
 * stays small: a blob a caller keeps keeps its slab alive.
 */
const EVENT_SLAB_BYTES = 4096;
const EVENT_SLAB_DRAIN_MAX = 1024;
const WRITE_SLAB_BYTES = 16 * 1024;
const WRITE_SLAB_FLUSH_MAX = 4096;

/**
 * The instance's memory as bytes and as words, where the last poll's output is read; taken
 * again after the memory grew (which detaches the old buffer: length 0).
 */
let memoryBytes = EMPTY;
let memoryWords = new Uint32Array(0);
function linearMemory(): Uint8Array {
  if (memoryBytes.byteLength === 0) {
    const buffer = (wasmMemory() as WebAssembly.Memory).buffer;
    memoryBytes = new Uint8Array(buffer);
    memoryWords = new Uint32Array(buffer);
  }
  return memoryBytes;
}

/** Read once: a getter on Node that costs a call and a heap number per read. */
const TIME_ORIGIN = performance.timeOrigin;

/** Microseconds on the host's clock; the core never reads one. */
export function nowMicros(): number {
  return Math.round((TIME_ORIGIN + performance.now()) * 1000);
}

function seed(): number {
  // Jitter and replica rotation only need to differ between processes.
  return Math.floor(Math.random() * 2 ** 52);
}

export class SessionHost {
  private core: WasmSession;
  /** A view of the core's staging area (`stage`), or EMPTY when it must be taken again. */
  private stagingView = EMPTY;
  private sockets = new Map<number, CqlSocket | null>();
  private writing = new Set<number>();
  private backlog = new Map<number, Uint8Array[]>();
  private pending = new PendingTable();
  private flushScheduled = false;
  /** Bytes of the requests `executeHandle` started since the last flush. */
  private unflushedBytes = 0;
  /** This task's clock reading (see `now`), or -1 when the next read must be fresh. */
  private taskClock = -1;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = -1;
  private readyWaiter: { resolve(): void; reject(e: Error): void } | null = null;
  /** The core's last log line while `start` waits: the connect deadline's error quotes it. */
  private joinLog: string | null = null;
  private closed = false;
  /** Set when the core failed: the error every pending and later call rejects with. */
  private failureError: DriverInternalError | null = null;
  /** Waits that must end when the session closes (bulk loads waiting for input or a turn). */
  private closeWaiters = new Set<(error: Error) => void>();
  private optionsBuf = new ArrayBuffer(64);
  private optionsView = new DataView(this.optionsBuf);
  private optionsBytes = new Uint8Array(this.optionsBuf);
  /** The word in linear memory where the core says where its last poll's output is (`outputSlot`). */
  private readonly outputWord: number;
  /** Where small flushes' bytes are copied: a socket may hold them until written. */
  private readonly writeSlab = new Slab(WRITE_SLAB_BYTES);
  /** Where small drains' events are copied: a caller may keep views of them (blobs). */
  private readonly eventSlab = new Slab(EVENT_SLAB_BYTES);
  /** Bulk loads between their start and close: draining events pumps their rows. */
  private bulkLoads = 0;
  protocolVersion: 4 | 5;
  /** With a JavaScript authenticator: its exchanges, answered back into the core. */
  private readonly sasl: SaslBridge | null;

  constructor(private settings: SessionSettings, private runtime: RuntimeHooks, private listener: SessionListener) {
    this.sasl = settings.authProvider ? new SaslBridge(settings.authProvider, this.saslAnswer) : null;
    // Called unbound: a web runtime's global refuses a `this` other than its global object.
    this.queueMicrotask = runtime.queueMicrotask ?? ((task) => queueMicrotask(task));
    this.protocolVersion = settings.protocolVersion;
    this.core = newCore(JSON.stringify({
      protocolVersion: settings.protocolVersion,
      compression: settings.compression,
      keyspace: settings.keyspace,
      credentials: settings.credentials,
      requestTimeoutMs: settings.requestTimeoutMs,
      // DataStax's socketOptions.connectTimeout also bounds the handshake after TCP connect.
      handshakeTimeoutMs: settings.connectTimeoutMs,
      heartbeatIntervalMs: settings.heartbeatIntervalMs,
      maxStreams: settings.maxStreams,
      connectionsPerHost: settings.connectionsPerHost,
      localDataCenter: settings.localDataCenter,
      discoverPeers: settings.discoverPeers,
      maxAttempts: settings.maxAttempts,
      speculativeDelayMs: settings.speculativeDelayMs,
      speculativeMaxExtra: settings.speculativeMaxExtra,
      defaultPort: settings.defaultPort,
      // Scylla's shard-aware port needs a chosen local port; a user's own factory may not bind one.
      canBindLocalPort: runtime.name !== "custom" && runtime.canBindLocalPort === true,
      tls: settings.tls !== undefined,
      schemaAgreementTimeoutMs: settings.schemaAgreementTimeoutMs,
      localRack: settings.localRack,
      allowRemoteDcs: settings.allowRemoteDcs,
      allowList: settings.allowList,
      denyList: settings.denyList,
      reconnectBaseMs: settings.reconnectBaseMs,
      reconnectMaxMs: settings.reconnectMaxMs,
      orphanLimit: settings.orphanLimit,
      maxFrameBytes: settings.maxFrameBytes,
      prepareOnAllHosts: settings.prepareOnAllHosts,
      reprepareOnUp: settings.rePrepareOnUp,
      refreshSchemaDelayMs: settings.refreshSchemaDelayMs,
      warmup: settings.warmup,
      hostAuthenticator: settings.authProvider !== undefined,
      seed: seed(),
    }));
    this.outputWord = this.core.outputSlot() >>> 2;
  }

  /** Connects to the contact points; resolves once the cluster's metadata is known. */
  async start(contactPoints: string[]): Promise<void> {
    const ready = new Promise<void>((resolve, reject) => (this.readyWaiter = { resolve, reject }));
    let timeout: ReturnType<typeof setTimeout> | undefined;
    const limit = this.settings.connectTimeoutMs * 3;
    const deadline = new Promise<never>((_, reject) => {
      timeout = setTimeout(() => {
        // What the core last said while joining (a control query not answered, say) names
        // the host and the step that held the connect.
        const last = this.joinLog === null ? "" : `; last: ${this.joinLog}`;
        reject(new NoHostAvailableError({}, `could not connect to ${contactPoints.join(", ")} within ${limit} ms${last}`));
      }, limit);
    });
    this.contain(() => {
      this.core.start(nowMicros(), contactPoints.join(","));
      this.drive();
    });
    try {
      await Promise.race([ready, deadline]);
    } catch (e) {
      this.shutdown();
      throw e;
    } finally {
      clearTimeout(timeout);
    }
  }

  packOptions(o: RequestOptions): Uint8Array {
    const ps = o.pageState ?? null;
    const ks = o.keyspace ? textEncoder.encode(o.keyspace) : null;
    const psAt = 42 + (ks ? ks.length : 0);
    const need = psAt + (ps ? ps.length : 0);
    if (need > this.optionsBuf.byteLength) {
      this.optionsBuf = new ArrayBuffer(need * 2);
      this.optionsView = new DataView(this.optionsBuf);
      this.optionsBytes = new Uint8Array(this.optionsBuf);
    }
    const v = this.optionsView;
    const routed = o.routingToken !== undefined;
    const now = o.nowInSeconds !== undefined;
    v.setUint16(0, o.consistency ?? 0xffff, true);
    v.setUint16(2, o.serialConsistency ?? 0xffff, true);
    v.setInt32(4, o.pageSize ?? 0, true);
    v.setBigInt64(8, o.timestamp === undefined ? -(2n ** 63n) : BigInt(o.timestamp), true);
    v.setUint32(16, o.timeoutMs ?? 0, true);
    v.setUint32(20, (o.skipMetadata ? 1 : 0) | (o.idempotent ? 2 : 0) | (o.tracing ? 4 : 0) | (routed ? 8 : 0) | (now ? 16 : 0), true);
    v.setUint32(24, ps ? ps.length : 0, true);
    v.setBigInt64(28, routed ? BigInt.asIntN(64, o.routingToken!) : 0n, true);
    v.setInt32(36, now ? o.nowInSeconds! : 0, true);
    v.setUint16(40, ks ? ks.length : 0, true);
    if (ks) this.optionsBytes.set(ks, 42);
    if (ps) this.optionsBytes.set(ps, psAt);
    return this.optionsBytes.subarray(0, need);
  }

  /** Why calls are refused once closed: the core's failure, or a shutdown. */
  private closedError(): Error {
    return this.failureError ?? new DriverError("the client was shut down", "ERR_SHUTDOWN");
  }

  /** The core failed, if it did: the error the client keeps rejecting with. */
  get failure(): DriverInternalError | null {
    return this.failureError;
  }

  /** The error for a core call that threw: a trap closes the session, anything else is the call's. */
  private callError(e: unknown): Error {
    if (!isTrap(e)) return coreCallError(e);
    this.failClosed(e);
    return this.failureError!;
  }

  /** Runs a core call for a caller: a trap becomes the session's failure, thrown. */
  private coreCall<T>(work: () => T): T {
    if (this.closed) throw this.closedError();
    try {
      return work();
    } catch (e) {
      if (!isTrap(e)) throw e;
      this.failClosed(e);
      throw this.failureError!;
    }
  }

  private submit(start: () => number): Promise<RawResponse> {
    if (this.closed) return Promise.reject(this.closedError());
    let id: number;
    try {
      id = start();
    } catch (e) {
      return Promise.reject(this.callError(e));
    }
    return this.track<RawResponse>(id, undefined, 0, undefined, undefined);
  }

  /**
   * The executor of every request's promise: one function for all, so a request allocates
   * no closure of its own; its settlers are taken from here right after construction.
   */
  private nextSettle: Settle | null = null;
  /** Keeps only `resolve`: a failure settles through it too (`rejectWith`). */
  private takeSettlers = (resolve: (r: never) => void): void => {
    this.nextSettle = resolve as Settle;
  };

  /** The promise of request `id`, settled when its response or failure comes out of the core. */
  /** `bits`: what the core has to hand out after the request started (`pendingBits`), or -1. */
  private track<T>(id: number, context: unknown, started: number, params: unknown, options: unknown, bits = -1): Promise<T> {
    // Asked now: the core forgets the request's body once it is answered.
    if (this.requestLengths !== null) this.requestLengths.set(id, this.core.requestLength(id));
    const p = new Promise<T>(this.takeSettlers);
    this.pending.add(id, this.nextSettle!, context, started, params, options);
    this.nextSettle = null;
    this.sendSoon(bits);
    return p;
  }

  /**
   * After a request started: a request that is the only one in flight leaves now, in the
   * caller's call, since nothing else could join its write (one in flight, every microtask
   * hop and every turn is on the round trip); otherwise at the end of the task, together
   * with every other request started in it (one write for a burst).
   */
  private sendSoon(bits: number): void {
    // Bytes the start polled already (`POLLED_TRANSMIT`) leave now: the output slot holds them.
    if ((bits > 0 && (bits & POLLED_TRANSMIT) !== 0) || this.leavesAtOnce(this.pending.size)) this.turnNow(bits < 0 ? this.pendingBits() : bits);
    else this.kick();
  }

  /**
   * Whether a request that makes `waiting` in flight asks its start's crossing for its bytes
   * too (`POLLED_TRANSMIT`): it leaves in its own call, and neither a journal nor a coalescing
   * window has to see the output first. The one place this is decided on this side; the core
   * declines on its own when events, commands or a bulk load are pending.
   */
  private foldsTransmit(waiting: number): boolean {
    return this.leavesAtOnce(waiting) && this.journals.size === 0 && (this.settings.coalescingWindowMicros ?? 0) <= 0;
  }

  /** Whether a request that makes `waiting` in flight leaves in its own call (`sendSoon`). */
  private leavesAtOnce(waiting: number): boolean {
    return waiting === 1 && this.lastSettled <= 1 && !this.inTurn;
  }

  /**
   * How many requests the last turn that settled any settled. After many at once, their
   * callers' next requests come one microtask after another: the first of them must not
   * leave alone, so they all wait for the turn (one write for the lot).
   */
  private lastSettled = 0;

  /**
   * The frame body length of each request in flight, by id, when a request tracker wants them
   * (`measureWireLengths`); null otherwise, and then nothing is asked or kept per request.
   */
  private requestLengths: Map<number, number> | null = null;

  /** From now on, each response and failure carries its request's and response's body lengths. */
  measureWireLengths(): void {
    this.requestLengths ??= new Map();
  }

  /** Request `id`'s lengths, once: the response's body is `response` bytes. */
  private takeLengths(id: number, response: number): WireLengths {
    const request = this.requestLengths!.get(id) ?? 0;
    this.requestLengths!.delete(id);
    return { request, response };
  }

  /** Turns responses of requests sent with a context into values (see `executeHandle`). */
  decoder: ResponseDecoder | null = null;
  /** Sees failures of requests sent with a context (for error counters), before rejection. */
  onFailure: FailureObserver | null = null;

  query(cql: string, values: Uint8Array, o: RequestOptions, routingKeyspace?: string, routingKey?: Uint8Array): Promise<RawResponse> {
    return this.submit(() => this.core.query(nowMicros(), cql, values, this.packOptions(o), routingKeyspace, routingKey ?? EMPTY));
  }

  prepare(cql: string, keyspace?: string): Promise<RawResponse> {
    return this.submit(() => this.core.prepare(nowMicros(), cql, keyspace));
  }

  execute(id: Uint8Array, resultMetadataId: Uint8Array | null, values: Uint8Array, o: RequestOptions): Promise<RawResponse> {
    return this.submit(() => this.core.execute(nowMicros(), id, resultMetadataId ?? EMPTY, values, this.packOptions(o)));
  }

  /** Registers a prepared statement's ids once, so each EXECUTE passes a number instead. */
  registerPrepared(id: Uint8Array, resultMetadataId: Uint8Array | null): number {
    return this.coreCall(() => this.core.registerPrepared(id, resultMetadataId ?? EMPTY));
  }

  updatePrepared(handle: number, resultMetadataId: Uint8Array): void {
    if (!this.closed) this.coreCall(() => this.core.updatePrepared(handle, resultMetadataId));
  }

  /**
   * The hot path: one crossing with one buffer, `[options descriptor][values]`, which the
   * caller packed with `packOptions` into `staging` followed by the values; the bytes go
   * straight into the core's staging area (`stage`).
   */
  executeHandle<T>(handle: number, staged: Uint8Array, optionsLength: number, context: unknown, started: number, params: unknown, options: unknown): Promise<T> {
    if (this.closed) return Promise.reject(this.closedError());
    let id: number;
    try {
      // `started` is this request's `now()`: one clock read serves both.
      this.stage(staged);
      // A request that will leave in this call (`sendSoon`) has its bytes polled in this crossing.
      const polls = this.foldsTransmit(this.pending.size + 1) ? PENDING_TRANSMIT : 0;
      id = this.core.executeStaged(Math.round((TIME_ORIGIN + started) * 1000), handle, staged.length, optionsLength, this.timerAt, polls);
      if (id < 0) throw this.core.takeError() ?? new DriverError("the core refused the request", "ERR_REQUEST");
    } catch (e) {
      return Promise.reject(this.callError(e));
    }
    // Counted before `track`, whose turn (when it runs one now) sends these bytes.
    this.unflushedBytes += staged.length;
    // What the core has to hand out now, left where its outputs are said to be.
    linearMemory();
    const promise = this.track<T>(id, context, started, params, options, memoryWords[this.outputWord + 2]);
    if (this.unflushedBytes > EARLY_FLUSH_BYTES) this.contain(this.flushEarly);
    return promise;
  }

  /**
   * Copies an EXECUTE's bytes into the core's staging area: no allocation on either side,
   * where a byte-array argument is a malloc, a copy and a free in WASM per request. The
   * view is taken again when the memory grew (its buffer is detached: length 0) or the bytes
   * outgrow it; an area above `STAGING_KEEP` is freed by the core after its request.
   */
  private stage(bytes: Uint8Array): void {
    let view = this.stagingView;
    if (view.length === 0 || view.length < bytes.length) {
      const size = Math.max(bytes.length, STAGING_KEEP);
      // The call first: it may grow the memory, which detaches the previous buffer.
      const at = this.core.stagingArea(size);
      view = new Uint8Array((wasmMemory() as WebAssembly.Memory).buffer, at, size);
      this.stagingView = size > STAGING_KEEP ? EMPTY : view;
    }
    view.set(bytes);
  }

  batch(descriptor: Uint8Array, o: RequestOptions): Promise<RawResponse> {
    return this.submit(() => this.core.batch(nowMicros(), descriptor, this.packOptions(o)));
  }

  /** The Murmur3 token of an encoded value list by its partition-key positions. */
  routingToken(values: Uint8Array, pkIndexes: number[]): bigint | null {
    const t = WasmSession.routingToken(values, Uint16Array.from(pkIndexes));
    return t === undefined || t === null ? null : BigInt(t);
  }

  /** The core's CSV formatter for result pages with these settings (see `Client.streamCsv`). */
  csvFormatter(settings: CsvSettings): (body: Uint8Array) => CsvPage {
    const format = this.pageFormatter(() => new CsvPageFormatter(JSON.stringify(settings)));
    return (body) => {
      const { rows, pagingState, head, rest } = format(body);
      return { rows, pagingState, header: head, csv: rest };
    };
  }

  /**
   * The core's JSON formatter for result pages (see `Client.streamJson`, `Client.streamCells`);
   * `zone`: the time zone of timestamps (`timeZone`, with a named zone's `timeZoneOffsets`).
   */
  jsonFormatter(kind: "objects" | "cells", zone: Record<string, unknown> = {}): (body: Uint8Array) => JsonPage {
    const format = this.pageFormatter(() =>
      new JsonPageFormatter(kind === "cells" ? JsonPageKind.Cells : JsonPageKind.Objects, JSON.stringify(zone))
    );
    const decoder = new TextDecoder();
    return (body) => {
      const { rows, pagingState, head, rest } = format(body);
      return { rows, pagingState, columns: JSON.parse(decoder.decode(head)) as string[], lines: rest };
    };
  }

  /**
   * A core page formatter as a function of a Rows body; its output is
   * `[rows u32][paging state length u32][paging state][head length u32][head][rest]`.
   */
  private pageFormatter(make: () => { format(body: Uint8Array): Uint8Array }): (body: Uint8Array) => FormattedPage {
    if (this.closed) throw this.closedError();
    let formatter: { format(body: Uint8Array): Uint8Array };
    try {
      formatter = make();
    } catch (e) {
      throw this.callError(e);
    }
    return (body) => {
      if (this.closed) throw this.closedError();
      let out: Uint8Array;
      try {
        out = formatter.format(body);
      } catch (e) {
        throw this.callError(e);
      }
      const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
      const psLen = view.getUint32(4, true);
      const headAt = 8 + psLen + 4;
      const headLen = view.getUint32(8 + psLen, true);
      return {
        rows: view.getUint32(0, true),
        pagingState: psLen ? out.slice(8, 8 + psLen) : null,
        head: out.subarray(headAt, headAt + headLen),
        rest: out.subarray(headAt + headLen),
      };
    };
  }

  memoryStats(): MemoryStats {
    const coreBufferBytes = this.closed ? 0 : this.coreCall(() => this.core.bufferBytes());
    return { wasmMemoryBytes: SessionHost.wasmMemoryBytes(), coreBufferBytes };
  }

  static wasmMemoryBytes(): number {
    return WasmSession.memoryBytes();
  }

  private takeTried(id: number): Tried {
    const t = JSON.parse(this.coreCall(() => this.core.takeTried(id))) as { errors?: CoreNodeError[]; speculative_executions?: number; answered_in_us?: number };
    const errors = t.errors ?? [];
    return { hosts: triedHosts(errors), speculativeExecutions: t.speculative_executions ?? 0, attempts: failedAttempts(errors), answeredInMs: (t.answered_in_us ?? 0) / 1000 };
  }

  metrics(): Record<string, unknown> {
    return this.closed ? {} : JSON.parse(this.coreCall(() => this.core.metrics()));
  }

  state(): { protocolVersion: number; nodes: Array<Record<string, unknown>>; connections: Array<Record<string, unknown>> } {
    return this.closed ? { protocolVersion: this.protocolVersion, nodes: [], connections: [] } : JSON.parse(this.coreCall(() => this.core.state()));
  }

  tokenRanges(keyspace?: string): Array<{ start: bigint; end: bigint; replicas: string[] }> {
    if (this.closed) return [];
    const raw = JSON.parse(this.coreCall(() => this.core.tokenRanges(keyspace))) as Array<[string, string, string[]]>;
    return raw.map(([start, end, replicas]) => ({ start: BigInt(start), end: BigInt(end), replicas }));
  }

  shutdown(): void {
    this.close(new DriverError("the client was shut down", "ERR_SHUTDOWN"));
  }

  /**
   * The core threw where nothing can catch it (a socket, timer or microtask handler), or
   * trapped in a call: its state is gone, so the session closes and everything pending,
   * and every later call, rejects with one DriverInternalError.
   */
  private failClosed(cause: unknown): void {
    if (this.closed) return;
    const detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    const what = isTrap(cause) ? "the WASM core trapped" : "the driver loop failed";
    this.failureError = new DriverInternalError(`${what} (${detail}); the client is closed`, { cause });
    this.close(this.failureError);
    this.reportListenerError("log", () => this.listener.onLog?.(this.failureError!.message, "warning"));
  }

  /** Runs a handler that the world calls: whatever it throws closes the session, never escapes. */
  private contain(work: () => void): void {
    try {
      work();
    } catch (e) {
      this.failClosed(e);
    }
  }

  /** Calls a user listener: one that throws is reported, and the events after it still run. */
  private reportListenerError(event: string, call: () => void): void {
    try {
      call();
    } catch (e) {
      if (!this.warnedListener) {
        this.warnedListener = true;
        console.warn(`cqlwire: a '${event}' listener threw, ignored: ${(e as Error)?.message ?? e}`);
      }
    }
  }

  private warnedListener = false;

  /** Resolves with `work`, or rejects when the session closes first. */
  private untilClosed<T>(work: Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(this.closedError());
    return new Promise<T>((resolve, reject) => {
      this.closeWaiters.add(reject);
      work.then(
        (value) => {
          this.closeWaiters.delete(reject);
          resolve(value);
        },
        (error) => {
          this.closeWaiters.delete(reject);
          reject(error);
        },
      );
    });
  }

  private close(err: Error): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const s of this.sockets.values()) {
      try {
        s?.close();
      } catch {
        // Already closed.
      }
    }
    this.sockets.clear();
    for (const settle of this.pending.takeAllSettlers()) rejectWith(settle, err);
    this.readyWaiter?.reject(err);
    this.readyWaiter = null;
    const waiters = [...this.closeWaiters];
    this.closeWaiters.clear();
    for (const reject of waiters) reject(err);
    try {
      this.core.free();
    } catch {
      // Freed already.
    }
  }

  // ---- the loop ---------------------------------------------------------------------

  /** After an input from the world: open/close sockets as told, then a turn. */
  private drive(): void {
    if (this.closed) return;
    this.processCommands(this.pendingBits());
    this.kick();
  }

  /** What the core has to hand out (`PENDING_*` bits), given the deadline the timer is at. */
  private pendingBits(): number {
    return this.core.pendingOutputs(this.timerAt);
  }

  /**
   * Schedules one turn per event-loop turn: everything queued since (by any number of
   * requests) leaves in one write per socket, the timer is checked once, events drained once.
   */
  private kick(): void {
    this.flushScheduled = true;
    this.queueTurn();
  }

  /** Queues `turn` once: it runs a turn when one is scheduled, and forgets the task's clock. */
  private queueTurn(): void {
    if (!this.turnQueued) {
      this.turnQueued = true;
      this.queueMicrotask(this.turn);
    }
  }

  private turnQueued = false;
  private readonly queueMicrotask: (task: () => void) => void;

  /**
   * The queued turn. One that `turnNow` ran early finds nothing scheduled and only
   * forgets the task's clock reading (the turn that ran early kept it for its task).
   */
  private turn = (): void => {
    this.turnQueued = false;
    if (this.flushScheduled) {
      this.flushScheduled = false;
      this.turnBits = -1;
      this.contain(this.runTurn);
    }
    this.taskClock = -1;
  };

  /**
   * A turn in this call, for work nothing else in the task can join; a scheduled one is
   * taken over. `bits` is what the core has to hand out (`pendingBits`), read just before.
   */
  private turnNow(bits: number): void {
    this.flushScheduled = false;
    this.turnBits = bits;
    this.contain(this.runTurn);
  }

  /** The `PENDING_*` bits a turn starts from, or -1 when it must ask the core. */
  private turnBits = -1;

  /** Set while a turn runs: a request a listener starts then waits for the next turn. */
  private inTurn = false;

  /**
   * performance.now(), read once per task: every request started and every response read
   * in one run of the event loop shares the first reading, as Node's timers share the loop's
   * cached time. A reading costs a call into the runtime (an op on Deno, most of a
   * request's clock cost at 1024 in flight). It never outlives its task: whoever keeps it
   * queues a turn, and the turn forgets it. A task that computes for long before sending
   * gives its later requests a deadline earlier by as much.
   * With nothing in flight the reading is not kept: such a request leaves in its own call
   * (`sendSoon`), and a round trip of one request at a time then queues no microtask at all.
   */
  now(): number {
    let t = this.taskClock;
    if (t < 0) {
      t = performance.now();
      if (this.pending.size === 0) return t;
      this.taskClock = t;
      this.queueTurn();
    }
    return t;
  }

  /** A socket read's clock reading (kept by no one: see `now`), for the responses it settles. */
  private readClock = -1;

  private runTurn = (): void => {
    if (this.closed) return;
    this.inTurn = true;
    try {
      this.turnSteps(this.turnBits < 0 ? this.pendingBits() : this.turnBits);
    } finally {
      this.inTurn = false;
    }
  };

  /**
   * One turn from what the core has to hand out. Only draining events changes that within
   * the turn (a bulk load's answers pump its next rows): a request a listener starts queues
   * a turn of its own.
   */
  private turnSteps(bits: number): void {
    // Events first: draining them may start work in the core (a bulk load's next rows)
    // whose bytes must leave in this same flush.
    if ((bits & (PENDING_EVENTS | POLLED_EVENTS)) !== 0) {
      const waiting = this.pending.size;
      this.drainEvents((bits & POLLED_EVENTS) !== 0);
      if (this.pending.size < waiting) this.lastSettled = waiting - this.pending.size;
      if (this.bulkLoads > 0 && !this.closed) bits = this.pendingBits();
    }
    const window = this.settings.coalescingWindowMicros ?? 0;
    if (window > 0) {
      // Let more requests pile up first; one pending delayed flush at a time.
      if (!this.delayedFlush) {
        this.delayedFlush = true;
        setTimeout(this.flushLater, window >= 1000 ? Math.round(window / 1000) : 0);
      }
    } else {
      this.flush(bits);
    }
    if ((bits & PENDING_TIMEOUT) !== 0) this.armTimer();
    // Every bulk load waiting for a turn looks at its state again.
    if (this.bulkWaiters.size === 0) return;
    const waiters = [...this.bulkWaiters];
    this.bulkWaiters.clear();
    for (const wake of waiters) wake();
  }

  /** One per bulk load that waits for the core to make progress. */
  private bulkWaiters = new Set<() => void>();

  /** The journal sinks of journaled bulk loads, by load id: fed before every transmit. */
  private journals = new Map<number, (entries: JournalEntry[]) => void>();

  /**
   * Hands a load's journal entries to its sink. Called before the session's bytes leave,
   * so a row's start is on record before the row can be applied; a sink that throws closes
   * the session (nothing more is sent).
   */
  private drainJournal(id: number): void {
    const sink = this.journals.get(id);
    if (!sink) return;
    const buf = this.coreCall(() => this.core.bulkJournal(id));
    if (buf.length === 0) return;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const entries: JournalEntry[] = [];
    for (let at = 0; at + 9 <= buf.length; at += 9) {
      entries.push({ kind: buf[at] === 1 ? "sent" : "acked", offset: Number(view.getBigUint64(at + 1, true)) });
    }
    try {
      sink(entries);
    } catch (e) {
      this.close(new DriverError(`the bulk load's journal could not be written: ${(e as Error)?.message ?? e}`, "ERR_JOURNAL", { cause: e }));
      throw e;
    }
  }
  private delayedFlush = false;

  private flushLater = (): void => {
    this.delayedFlush = false;
    this.contain(() => this.flush(this.pendingBits()));
  };

  /**
   * Runs a bulk load in the core: input chunks go in as they are needed, rows are parsed,
   * encoded, routed and acknowledged there, and only counters and bad rows come back.
   */
  async bulk(
    preparedId: Uint8Array,
    resultMetadataId: Uint8Array | null,
    config: Record<string, unknown>,
    input: AsyncIterable<Uint8Array>,
    onBadRow: (row: BadRowRecord) => void | Promise<void>,
    onProgress?: (state: BulkState) => void,
    signal?: AbortSignal,
    onJournal?: (entries: JournalEntry[]) => void,
  ): Promise<BulkState> {
    if (this.closed) throw this.closedError();
    let id: number;
    try {
      id = this.core.bulkStart(nowMicros(), preparedId, resultMetadataId ?? EMPTY, JSON.stringify(config));
    } catch (e) {
      throw this.callError(e);
    }
    this.bulkLoads++;
    if (onJournal) this.journals.set(id, onJournal);
    const iterator = input[Symbol.asyncIterator]();
    let ended = false;
    // Called by the caller's AbortSignal: nothing may throw back into its abort().
    const stop = () =>
      this.contain(() => {
        if (!ended && !this.closed) {
          ended = true;
          this.core.bulkStop(nowMicros(), id);
          this.drive();
        }
      });
    signal?.addEventListener("abort", stop, { once: true });
    if (signal?.aborted) stop();
    try {
      for (;;) {
        if (this.closed) {
          throw this.failureError ?? new DriverError("the client was shut down during a bulk load", "ERR_SHUTDOWN");
        }
        this.drainJournal(id);
        const state = JSON.parse(this.coreCall(() => this.core.bulkState(id))) as BulkState;
        const { counters, status } = state;
        const bad = this.coreCall(() => this.core.bulkBadRows(id));
        if (bad.length) for (const row of unpackBadRows(bad)) await onBadRow(row);
        onProgress?.(state);
        // On an error (a header that fits no column, too many bad rows) input stops, but
        // rows in flight still settle, so the watermark is final when this returns.
        if (status.done || (status.error && counters.inFlight === 0 && counters.waitingRetry === 0)) return state;
        if (status.error && !ended) stop();
        if (status.wantsInput && !ended) {
          // An input that never yields must not keep the load from settling on shutdown.
          const next = await this.untilClosed(iterator.next());
          if (this.closed) continue;
          if (next.done) {
            ended = true;
            this.coreCall(() => this.core.bulkFinish(nowMicros(), id));
          } else {
            this.coreCall(() => this.core.bulkPush(nowMicros(), id, next.value));
          }
          this.drive();
          continue;
        }
        await this.untilClosed(new Promise<void>((resolve) => this.bulkWaiters.add(resolve)));
      }
    } finally {
      signal?.removeEventListener("abort", stop);
      if (!this.closed) this.drainJournal(id);
      this.journals.delete(id);
      if (this.closed) {
        // The input may be stuck in next(); its return() would wait behind it.
        Promise.resolve(iterator.return?.()).catch(() => {});
      } else {
        try {
          await iterator.return?.();
          if (!this.closed) this.coreCall(() => this.core.bulkClose(id));
        } finally {
          this.bulkLoads--;
        }
      }
    }
  }

  private processCommands(bits: number): void {
    if ((bits & PENDING_COMMANDS) === 0) return;
    const buf = this.core.pollCommands();
    if (buf.length === 0) return;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let at = 0;
    while (at + 7 <= buf.length) {
      const kind = buf[at];
      const conn = view.getUint32(at + 1, true);
      const len = view.getUint16(at + 5, true);
      const host = textDecoder.decode(buf.subarray(at + 7, at + 7 + len));
      at += 7 + len;
      // The core splits the address: the port follows the host (an empty host and 0 for a close).
      const port = view.getUint16(at, true);
      at += 2;
      if (kind === COMMAND_CONNECT_SHARD) {
        const shard = { shard: view.getUint16(at, true), nrShards: view.getUint16(at + 2, true) };
        at += 4;
        this.openSocket(conn, host, port, shard);
      } else if (kind === COMMAND_CONNECT) this.openSocket(conn, host, port);
      else if (kind === COMMAND_CLOSE) this.closeSocket(conn);
    }
  }

  /** Hosts already warned about clear-text credentials: one warning per host. */
  private clearTextWarned = new Set<string>();

  /**
   * PLAIN authentication sends the password as it is: without TLS, anyone on the path to a
   * host off this machine can read it. Warned once per host, as a "log" event.
   */
  private warnClearTextCredentials(host: string, port: number): void {
    const credentials = this.settings.credentials;
    if (!credentials || this.settings.tls || isLoopback(host) || this.clearTextWarned.has(host)) return;
    this.clearTextWarned.add(host);
    const message = `credentials of user '${credentials.username}' go to ${host}:${port} in clear text ` +
      `(no TLS) when it asks for authentication: enable TLS, or connect over loopback`;
    this.reportListenerError("log", () => this.listener.onLog?.(message, "warning"));
  }

  private openSocket(conn: number, host: string, port: number, shard?: ShardPort): void {
    this.sockets.set(conn, null);
    const translator = this.settings.addressTranslator;
    // The deadline covers the translator too: one that never answers fails the attempt.
    let translating = translator !== undefined;
    const ms = this.settings.connectTimeoutMs;
    let timeout: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timeout = setTimeout(() =>
        reject(new Error(translating ? `address translator did not answer for ${host}:${port} within ${ms} ms` : `connect timed out after ${ms} ms`)), ms);
    });
    const opening = translator === undefined ? this.dial(conn, host, port, shard) : translateAddress(translator, host, port).then((to) => {
      translating = false;
      // Abandoned meanwhile (timed out, closed): no socket is opened.
      if (this.closed || !this.sockets.has(conn)) throw new Error("connect abandoned");
      return this.dial(conn, to.host, to.port, shard);
    });
    Promise.race([opening, deadline]).then(
      (socket) =>
        this.contain(() => {
          clearTimeout(timeout);
          if (this.closed || !this.sockets.has(conn)) return socket.close();
          this.sockets.set(conn, socket);
          this.core.handleConnected(nowMicros(), conn);
          this.drive();
        }),
      (e) =>
        this.contain(() => {
          clearTimeout(timeout);
          opening.then((s) => s.close(), () => {});
          if (this.closed || !this.sockets.has(conn)) return;
          this.sockets.delete(conn);
          this.core.handleConnectFailed(nowMicros(), conn, String((e as Error)?.message ?? e));
          this.drive();
        }),
    );
  }

  /** Opens the socket of connection `conn` to the endpoint to dial (translated or not). */
  private dial(conn: number, host: string, port: number, shard?: ShardPort): Promise<CqlSocket> {
    this.warnClearTextCredentials(host, port);
    return this.runtime.socketFactory(
      { host, port, tls: this.settings.tls, connectTimeoutMs: this.settings.connectTimeoutMs, shard },
      {
        // Without `contain`'s closure: a read is the hot path, and a closure per read was
        // about 110 bytes of garbage per round trip at 1 in flight (V8's sampling heap profiler).
        onData: (chunk) => {
          try {
            this.onSocketData(conn, chunk);
          } catch (e) {
            this.failClosed(e);
          }
        },
        onClose: () =>
          this.contain(() => {
            if (this.closed || !this.sockets.has(conn)) return;
            this.sockets.delete(conn);
            this.core.handleEof(nowMicros(), conn);
            this.drive();
          }),
      },
    );
  }

  /** One socket read, fed to the core; the responses it completes settle in this call. */
  private onSocketData(conn: number, chunk: Uint8Array): void {
    if (this.closed || !this.sockets.has(conn)) return;
    this.stage(chunk);
    const now = this.taskClock >= 0 ? this.taskClock : performance.now();
    // Outside a turn the events are drained at once (`turnNow` below): in this same crossing.
    const bits = this.core.handleStaged(Math.round((TIME_ORIGIN + now) * 1000), conn, chunk.length, this.timerAt, this.inTurn ? 0 : PENDING_EVENTS);
    if (bits < 0) throw new Error("the core refused a staged read");
    // The responses settle in this call, not a microtask later: each chunk got a
    // turn of its own anyway (every read is a task, or ends in an await).
    this.processCommands(bits);
    if (this.inTurn) return this.kick();
    this.readClock = now;
    this.turnNow(bits);
    this.readClock = -1;
  }

  /** An authenticator answered (at any later time): the token goes out with the next turn. */
  private saslAnswer = (conn: number, token: Uint8Array | null, error: string | null): void =>
    this.contain(() => {
      if (this.closed) return;
      this.core.authAnswer(nowMicros(), conn, token ?? undefined, error ?? undefined);
      this.drive();
    });

  private closeSocket(conn: number): void {
    this.sasl?.forget(conn);
    const s = this.sockets.get(conn);
    this.sockets.delete(conn);
    this.backlog.delete(conn);
    try {
      s?.close();
    } catch {
      // Already closed.
    }
  }

  private flushEarly = (): void => this.flush(this.pendingBits());

  /** Writes what the core has for the sockets, when `bits` (`pendingBits`) says it has some. */
  private flush(bits: number): void {
    this.unflushedBytes = 0;
    if (this.closed) return;
    if (this.journals.size > 0) for (const id of this.journals.keys()) this.drainJournal(id);
    let len: number;
    if ((bits & POLLED_TRANSMIT) !== 0) len = this.polledLength();
    else if ((bits & PENDING_TRANSMIT) !== 0) len = this.core.pollTransmit();
    else return;
    if (len === 0) return;
    const slab = this.copyOut(len, this.writeSlab, WRITE_SLAB_FLUSH_MAX);
    const buf = slab.bytes;
    const view = slab.view;
    const base = slab.last;
    // `[bytes][conn u32][len u32]` per connection, read from the end.
    let end = base + len;
    while (end - base >= 8) {
      const conn = view.getUint32(end - 8, true);
      const bytes = view.getUint32(end - 4, true);
      const start = end - 8 - bytes;
      if (start < base) break;
      this.write(conn, buf.subarray(start, end - 8));
      end = start;
    }
  }

  /**
   * One write per socket per flush (in slices of at most `coalescingMaxBytes`); while a
   * write is in progress, later bytes wait and leave together when it completes.
   */
  private write(conn: number, bytes: Uint8Array): void {
    const socket = this.sockets.get(conn);
    if (!socket) return;
    if (this.writing.has(conn)) {
      let q = this.backlog.get(conn);
      if (!q) this.backlog.set(conn, (q = []));
      q.push(bytes);
      return;
    }
    const cap = this.settings.coalescingMaxBytes ?? Infinity;
    while (bytes.length > 0) {
      const slice = bytes.length > cap ? bytes.subarray(0, cap) : bytes;
      // The whole of it (the usual case) leaves no rest to make a view of.
      bytes = slice === bytes ? EMPTY : bytes.subarray(slice.length);
      let r: void | Promise<void>;
      try {
        r = socket.write(slice);
      } catch (e) {
        this.failSocket(conn, e as Error);
        return;
      }
      if (r && typeof (r as Promise<void>).then === "function") {
        this.writing.add(conn);
        if (bytes.length > 0) this.backlog.set(conn, [bytes]);
        (r as Promise<void>).then(
          () =>
            this.contain(() => {
              this.writing.delete(conn);
              const q = this.backlog.get(conn);
              if (q && q.length) {
                this.backlog.delete(conn);
                this.write(conn, concat(q));
              }
            }),
          (e) => this.contain(() => this.failSocket(conn, e as Error)),
        );
        return;
      }
    }
  }

  private failSocket(conn: number, _e: Error): void {
    this.writing.delete(conn);
    this.backlog.delete(conn);
    if (this.closed || !this.sockets.has(conn)) return;
    this.closeSocket(conn);
    this.core.handleEof(nowMicros(), conn);
    this.drive();
  }

  /**
   * The last poll's output (`len` bytes), copied out of linear memory (at the returned slab's
   * `last`): into `shared` when it is at most `sharedMax` bytes, else into a buffer of its own.
   * A socket may hold what it writes, and a caller what it decoded, past the next poll. A
   * large output is released in the core at once, so it is not kept at a burst's size.
   */
  private copyOut(len: number, shared: Slab, sharedMax: number): Slab {
    const slab = len <= sharedMax ? shared : new Slab(len);
    slab.copy(linearMemory(), memoryWords[this.outputWord], len);
    if (len > STAGING_KEEP) this.core.releaseOutput();
    return slab;
  }

  /**
   * One timer for the core's next deadline. It is moved only when the deadline comes
   * earlier; a timer that fires before a deadline that moved later is a harmless spurious
   * `handleTimeout`, and far cheaper than re-arming on every request.
   */
  private armTimer(): void {
    const at = this.core.pollTimeout();
    if (at < 0 || (this.timer !== undefined && this.timerAt <= at)) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    const delayMs = Math.max(0, Math.ceil((at - nowMicros()) / 1000));
    this.timer = setTimeout(this.onTimer, delayMs);
    // Heartbeats and reconnections must not keep a process alive on their own.
    if (this.pending.size === 0) this.runtime.unrefTimer?.(this.timer);
  }

  private onTimer = (): void => {
    this.timer = undefined;
    this.timerAt = -1;
    this.contain(() => {
      if (this.closed) return;
      this.core.handleTimeout(nowMicros());
      this.drive();
    });
  };

  private nodeAddresses: string[] = [];

  /** Coordinator addresses by node id, refreshed from the core when an id is new. */
  private nodeAddress(id: number): string {
    if (id === 0xffff) return "";
    let a = this.nodeAddresses[id];
    if (a === undefined) {
      for (const n of this.state().nodes) this.nodeAddresses[n.id as number] = n.address as string;
      a = this.nodeAddresses[id] ?? "";
    }
    return a;
  }

  /**
   * A response event: its request's promise settles with the decoded value or the raw response.
   * `head` is the event's payload from `at`: `[flags u8][attempts u8][node u16 LE]`, the same
   * for a body in the event buffer and one handed over in place.
   */
  private settleResponse(id: number, now: number, head: Uint8Array, at: number, events: Uint8Array, view: DataView, start: number, end: number): void {
    const flags = head[at];
    const attempts = head[at + 1];
    const node = this.nodeAddress(head[at + 2] | (head[at + 3] << 8));
    // Retried or speculated: the DataStax driver's info.triedHosts and speculativeExecutions.
    // Asked before the request leaves the table: a trap here closes the session, which rejects it.
    const tried = attempts > 1 ? this.takeTried(id) : undefined;
    const t = this.pending;
    const slot = t.take(id);
    if (slot < 0) return;
    const settle = t.settleAt(slot);
    if (t.contextAt(slot) !== undefined && this.decoder !== null) {
      let value: unknown;
      try {
        value = this.decoder(t, slot, now, flags, events, view, start, end, node, attempts, tried);
      } catch (e) {
        t.release(slot);
        rejectWith(settle, e as Error);
        return;
      }
      t.release(slot);
      if (this.requestLengths !== null) (value as { wireLengths?: WireLengths }).wireLengths = this.takeLengths(id, end - start);
      settle(value);
    } else {
      t.release(slot);
      const raw: RawResponse = { flags, attempts, node, body: events.subarray(start, end), tried };
      if (this.requestLengths !== null) raw.wireLengths = this.takeLengths(id, end - start);
      settle(raw);
    }
  }

  /** The length of what a staged call polled into the output slot (`POLLED_*`). */
  private polledLength(): number {
    linearMemory();
    return memoryWords[this.outputWord + 1];
  }

  /** `polled`: the read's crossing drained them already (`POLLED_EVENTS`). */
  private drainEvents(polled: boolean): void {
    const drained = polled ? this.polledLength() : this.core.pollEvents();
    if (drained === 0) return;
    const slab = this.copyOut(drained, this.eventSlab, EVENT_SLAB_DRAIN_MAX);
    const buf = slab.bytes;
    const view = slab.view;
    let at = slab.last;
    const end = at + drained;
    let now = this.readClock;
    let inPlace = false;
    while (at + 9 <= end) {
      const kind = buf[at];
      const id = view.getUint32(at + 1, true);
      const len = view.getUint32(at + 5, true);
      const start = at + 9;
      at = start + len;
      if (kind === EVENT_RESPONSE) {
        // The commonest event, read in place.
        // One clock read serves every response that came out together.
        if (now < 0) now = this.now();
        this.settleResponse(id, now, buf, start, buf, view, start + 4, at);
        continue;
      }
      if (kind === EVENT_RESPONSE_AT) {
        // Copied out of linear memory once, before anything feeds the core again (which
        // releases it): a large page is not also copied into the event buffer.
        const body = new Uint8Array((wasmMemory() as WebAssembly.Memory).buffer, view.getUint32(start + 4, true), view.getUint32(start + 8, true)).slice();
        inPlace = true;
        if (now < 0) now = this.now();
        this.settleResponse(id, now, buf, start, body, new DataView(body.buffer), 0, body.length);
        continue;
      }
      const payload = buf.subarray(start, at);
      switch (kind) {
        case EVENT_FAILED: {
          const error = sessionError(JSON.parse(textDecoder.decode(payload)));
          if (this.requestLengths !== null) (error as Error & { wireLengths?: WireLengths }).wireLengths = this.takeLengths(id, 0);
          const t = this.pending;
          const at = t.take(id);
          if (at < 0) break;
          const settle = t.settleAt(at);
          const context = t.contextAt(at);
          t.release(at);
          if (context !== undefined) this.reportListenerError("failure", () => this.onFailure?.(context, error));
          rejectWith(settle, error);
          break;
        }
        case EVENT_READY: {
          this.protocolVersion = JSON.parse(textDecoder.decode(payload)).protocolVersion;
          this.readyWaiter?.resolve();
          this.readyWaiter = null;
          break;
        }
        case EVENT_CONNECT_FAILED: {
          const { errors } = JSON.parse(textDecoder.decode(payload)) as { errors: Array<[string, Record<string, unknown>]> };
          const inner: Record<string, Error> = {};
          for (const [address, reason] of errors) inner[address] = errorFromCore(reason, address);
          const auth = Object.values(inner).find((e) => e instanceof AuthenticationError);
          this.readyWaiter?.reject(auth ?? new NoHostAvailableError(inner));
          this.readyWaiter = null;
          break;
        }
        case EVENT_SERVER: {
          this.nodeAddresses = [];
          const event = JSON.parse(textDecoder.decode(payload));
          this.reportListenerError("server event", () => this.listener.onServerEvent?.(event));
          break;
        }
        case EVENT_NODE_UP: {
          this.nodeAddresses = [];
          const { address } = JSON.parse(textDecoder.decode(payload));
          this.reportListenerError("hostUp", () => this.listener.onNodeUp?.(address));
          break;
        }
        case EVENT_NODES_CHANGED: {
          this.nodeAddresses = [];
          this.reportListenerError("nodesChanged", () => this.listener.onNodesChanged?.());
          break;
        }
        case EVENT_NODE_DOWN: {
          const e = JSON.parse(textDecoder.decode(payload));
          this.reportListenerError("hostDown", () => this.listener.onNodeDown?.(e.address, e.reason));
          break;
        }
        case EVENT_LOG: {
          const { message } = JSON.parse(textDecoder.decode(payload));
          if (this.readyWaiter !== null) this.joinLog = message;
          this.reportListenerError("log", () => this.listener.onLog?.(message));
          break;
        }
        case EVENT_AUTH: {
          this.sasl?.onStep(id, JSON.parse(textDecoder.decode(payload)) as SaslStep);
          break;
        }
      }
    }
    // The large bodies were copied out: their memory serves the next burst.
    if (inPlace) this.core.releaseDrained();
  }
}

/** Counters of a bulk load. */
export interface BulkCounters {
  rowsOk: number;
  rowsBad: number;
  rowsRejected: number;
  retries: number;
  inFlight: number;
  window: number;
  waitingRetry: number;
  /** Input offset below which every row is acknowledged or in the bad file. */
  watermark: number;
  /** The line where the first row past the watermark starts. */
  watermarkLine: number;
  /** Rows below the watermark that were acknowledged, and that went to the bad rows. */
  watermarkRowsOk: number;
  watermarkRowsBad: number;
  bytesPushed: number;
  /** Rows skipped because an earlier run saw them acknowledged (`resumeAcked`). */
  rowsPrevious: number;
  /** Rows set aside because an earlier run sent them without an acknowledgement (`resumeSent`). */
  rowsUncertain: number;
  /** Bytes of values and raw records of the rows read and not yet settled: reading pauses past the core's budget (4 MiB). */
  heldBytes: number;
  /** Client write timestamps (µs): none earlier went to a row past the watermark; the last given. Null without them. */
  watermarkTimestamp: number | null;
  lastTimestamp: number | null;
}

/** A journaled load's record of one row (by the input offset of its first byte). */
export interface JournalEntry {
  /** `sent`: its request was started and may be applied; `acked`: it was acknowledged. */
  kind: "sent" | "acked";
  offset: number;
}

/** Where a bulk load stands: its counters, and what the loop feeding it acts on. */
export interface BulkState {
  counters: BulkCounters;
  status: {
    /** More input would be turned into requests now. */
    wantsInput: boolean;
    /** Every row pushed is settled, or the load stopped and nothing is in flight. */
    done: boolean;
    /** Why the load stopped early. */
    error: string | null;
  };
}

/**
 * Why a row will not be loaded: `syntax` (CSV quoting, JSON syntax, field count), `size` (over a
 * limit: only the record's head is kept), `encoding` (not UTF-8), `value` (a field does not fit
 * its column, or a partition key column is null), `rejected` (the server refused it: see
 * `serverCode`), `not_sent` (it could not be sent), `uncertain` (an earlier run sent it and saw no
 * acknowledgement: with `resumeSent`, never sent again).
 */
export type BadRowKind = "syntax" | "size" | "encoding" | "value" | "rejected" | "not_sent" | "uncertain";

const BAD_ROW_KINDS: Record<number, BadRowKind> = {
  1: "syntax",
  2: "size",
  3: "encoding",
  4: "value",
  5: "rejected",
  6: "not_sent",
  7: "uncertain",
};

export interface BadRowRecord {
  kind: BadRowKind;
  /** The record's bytes exactly as read (line end excluded). */
  raw: Uint8Array;
  /** 1-based line where the record starts. */
  line: number;
  /** Input offset of the record's first byte. */
  offset: number;
  /** The statement's column at fault. */
  column: string | null;
  /** The 0-based CSV field at fault. */
  field: number | null;
  /** The 0-based byte of the record at fault. */
  byte: number | null;
  /** The server's error code, for a row it refused with an ERROR. */
  serverCode: number | null;
  /** Requests that carried the row (0: never sent). */
  attempts: number;
  reason: string;
  /** The text of the field at fault (its first 256 bytes), when one field is. */
  value: string | null;
}

/** Fixed part of a packed bad row: kind, line, offset, attempts, code, field, byte, column length. */
const BAD_ROW_HEAD = 1 + 8 + 8 + 4 + 4 + 4 + 8 + 2;

function unpackBadRows(buf: Uint8Array): BadRowRecord[] {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const rows: BadRowRecord[] = [];
  let at = 0;
  while (at + BAD_ROW_HEAD <= buf.length) {
    const kind = BAD_ROW_KINDS[buf[at]] ?? "syntax";
    const line = Number(view.getBigUint64(at + 1, true));
    const offset = Number(view.getBigUint64(at + 9, true));
    const attempts = view.getUint32(at + 17, true);
    const code = view.getInt32(at + 21, true);
    const field = view.getUint32(at + 25, true);
    const byte = view.getBigUint64(at + 29, true);
    const columnLen = view.getUint16(at + 37, true);
    at += BAD_ROW_HEAD;
    const column = columnLen ? textDecoder.decode(buf.subarray(at, at + columnLen)) : null;
    at += columnLen;
    const reasonLen = view.getUint32(at, true);
    at += 4;
    const reason = textDecoder.decode(buf.subarray(at, at + reasonLen));
    at += reasonLen;
    const rawLen = view.getUint32(at, true);
    at += 4;
    const raw = buf.slice(at, at + rawLen);
    at += rawLen;
    const valueLen = view.getUint32(at, true);
    at += 4;
    const value = valueLen === 0xFFFFFFFF ? null : textDecoder.decode(buf.subarray(at, at + valueLen));
    if (valueLen !== 0xFFFFFFFF) at += valueLen;
    rows.push({
      kind,
      raw,
      line,
      offset,
      column,
      field: field === 0xFFFFFFFF ? null : field,
      byte: byte === 0xFFFFFFFFFFFFFFFFn ? null : Number(byte),
      serverCode: code < 0 ? null : code,
      attempts,
      reason,
      value,
    });
  }
  return rows;
}

export function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** How a request got its answer beyond its first execution. */
export interface Tried {
  /** What each node tried before the one that answered said, by node. */
  hosts: Record<string, string>;
  speculativeExecutions: number;
  /** Each execution that failed before the answer, with its own error and time. */
  attempts: FailedAttempt[];
  /** Milliseconds from the answering execution being sent to its answer. */
  answeredInMs: number;
}

/** `[node, message, code]` per node tried, as the core reports them, by node. */
export function triedHosts(errors: CoreNodeError[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [address, message] of errors) out[address] = message;
  return out;
}

/** The error for a request that failed for good, with its attempts and trace attached. */
function sessionError(json: Record<string, unknown>): Error {
  const node = String(json.node ?? "");
  // [node, message, server error code or null, the attempt's error and time] per node tried.
  const errors = (json.errors ?? []) as CoreNodeError[];
  let err: Error;
  if (json.no_host_available) {
    const inner: Record<string, Error> = {};
    for (const [address, message] of errors) inner[address] = new ConnectionError(message, address);
    err = new NoHostAvailableError(inner, Object.keys(inner).length ? undefined : String(json.message));
  } else {
    err = errorFromCore(json, node);
  }
  Object.assign(err, { attempts: json.attempts, trace: json.trace, coordinator: node, triedHosts: triedHosts(errors) });
  if (errors.length > 0) attachFailedAttempts(err, failedAttempts(errors));
  return err;
}

/** A WebAssembly trap: the core's state is lost (a panic aborts, an access went out of bounds). */
function isTrap(e: unknown): boolean {
  return typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError;
}

/** The core for a session config; a refused config is the call's typed error (an ArgumentError). */
function newCore(configJson: string): WasmSession {
  try {
    return new WasmSession(configJson);
  } catch (e) {
    throw isTrap(e) ? e : coreCallError(e);
  }
}

/** What the first CSV record of some input is (see `readCsvHeader`). */
export type CsvHeaderRead =
  | { status: "needMore" }
  | { status: "empty" }
  | { status: "record"; fields: string[]; start: number; rawLength: number; end: number; line: number; nextLine: number }
  | { status: "fault"; reason: string; start: number; rawLength: number; end: number; line: number; nextLine: number };

/**
 * Reads the header record of CSV input with the core's reader (the one a bulk load uses):
 * `input` is the input's first bytes, `atEnd` says there are no more. Field names cross as
 * strings; positions are byte offsets into `input` (`start` is past a byte order mark).
 */
export function readCsvHeader(
  input: Uint8Array,
  options: { delimiter?: string; quote?: string; escape?: string; comment?: string; trim?: boolean; maxRecordBytes?: number },
  atEnd: boolean,
): CsvHeaderRead {
  let json: string;
  try {
    json = csvHeader(input, JSON.stringify(options), atEnd);
  } catch (e) {
    throw coreCallError(e);
  }
  return JSON.parse(json) as CsvHeaderRead;
}

/** A field of a sniffed input: its name, the CQL type every sampled value fits, and counts. */
export interface SniffedField {
  name: string;
  cqlType: string;
  nulls: number;
  values: number;
}

/** What the core read from a sample of an input (see `sniffInput`). */
export interface SniffedInput {
  fields: SniffedField[];
  /** The settings the load must use so that every sampled value fits its type. */
  settings: { nullValues: string[]; timestampFormat: string | null; dateFormat: string | null };
  records: number;
  skipped: number;
}

/**
 * Sniffs the first bytes of an input with the core (types, null words, timestamp and date
 * formats; core/src/bulk/sniff.rs): `options` are the load's bulk options (format, CSV
 * characters, header, nullValues, conversion, ...), at most `maxRecords` records are read,
 * `atEnd` says `input` is the whole input. A refusal is an ArgumentError.
 */
export function sniffInput(input: Uint8Array, options: Record<string, unknown>, maxRecords: number, atEnd: boolean): SniffedInput {
  let json: string;
  try {
    json = coreSniff(input, JSON.stringify(options), maxRecords, atEnd);
  } catch (e) {
    throw coreCallError(e);
  }
  return JSON.parse(json) as SniffedInput;
}

/** A facade call threw: its CallError carries typed fields (freed here once read). */
function coreCallError(e: unknown): Error {
  if (!(e instanceof CallError)) return new DriverError(String((e as Error)?.message ?? e), "ERR_DRIVER", { cause: e });
  const fields = { code: e.code, message: e.message, side: e.side, field: e.field, offset: e.offset, reason: e.reason };
  e.free();
  return errorFromCall(fields);
}
