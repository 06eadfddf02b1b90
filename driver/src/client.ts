/**
 * The `Client`: a pool of core-driven connections, the prepared-statement cache, paging,
 * batches and streaming. Names follow the DataStax Node.js driver where the meaning matches.
 */
import { markPreparing } from "./attempts.ts";
import { type BadRowKind, type BadRowRecord, type BulkCounters, type BulkState, type CsvHeaderRead, type JournalEntry, type RawResponse, concat, type CsvSettings, type MemoryStats, type Pending, readCsvHeader, type RequestOptions, SessionHost, type SniffedField, type SniffedInput, sniffInput, type Tried } from "./session.ts";
import { type ClientOptions, parseHostPort, type ResolvedOptions, resolveOptions } from "./options.ts";
import type { RuntimeHooks } from "./socket.ts";
import { ArgumentError, CqlProtocolError, DriverError, OperationTimedOutError } from "./errors.ts";
import { columnInfo, type ColumnInfo, fromHex, NO_WARNINGS, type PageSource, ResultSet, type Row } from "./result.ts";
import { Metadata } from "./metadata.ts";
import { decodeCachedRows, encodeValueList, formatCqlType, parseCqlType, parseResult, Reader, type TypeInfo, Writer } from "./codec/mod.ts";
import { withZoneOffsets } from "./zone.ts";

export interface ExecuteOptions {
  prepare?: boolean;
  consistency?: number;
  serialConsistency?: number;
  /** Rows per page (the DataStax driver calls it `fetchSize`; both are accepted). */
  pageSize?: number;
  fetchSize?: number;
  /** The `pageState` of a previous ResultSet (hex string or bytes). */
  pageState?: string | Uint8Array;
  /** Only idempotent statements are retried on another node. */
  idempotent?: boolean;
  isIdempotent?: boolean;
  /** Per-request timeout in ms. */
  timeout?: number;
  readTimeout?: number;
  traceQuery?: boolean;
  /** Write timestamp in µs since the epoch. */
  timestamp?: number | bigint;
  /** CQL types for the parameters of an unprepared statement, e.g. `["int", "text"]`. */
  hints?: Array<string | null | undefined>;
  /** Sends to the replicas of this Murmur3 token (e.g. one range of a token-range scan). */
  routingToken?: bigint;
  /** Protocol v5: run this request in another keyspace than the session's. */
  keyspace?: string;
  /** Protocol v5: the server's "now" in seconds for this request (TTLs, deletions). */
  nowInSeconds?: number;
}

/** Options of the page streams (`streamCsv`, `streamJson`, `streamCells`). */
export interface StreamOptions extends ExecuteOptions {
  /** Stop after this many rows; pages are asked for no more than that, so none is cut. */
  maxRows?: number;
}

/** Options of `streamJson` and `streamCells`. */
export interface TextStreamOptions extends StreamOptions {
  /**
   * The zone top-level timestamps are written in, as local time with its offset
   * (`2024-03-10T01:59:59-05:00`): `UTC` (the default, `2024-03-10T06:59:59.000Z`), a fixed
   * offset (`+02:00`) or a zone name (`America/New_York`) the runtime's `Intl` knows. Inside
   * collections, tuples and UDTs they stay UTC. An unknown zone is refused (ERR_CONFIG).
   */
  timeZone?: string;
}

/** What the server said beside a page: its warnings, and the tracing id when traced. */
export interface PageInfo {
  traceId: string | null;
  warnings: string[];
}

const RESULT_KIND_ROWS = 2;

/** The JSON formatters' zone settings: the name, with its offsets when `Intl` knows it. */
function zoneSettings(timeZone: string | undefined): Record<string, unknown> {
  return timeZone === undefined ? {} : withZoneOffsets({ timeZone })!;
}
const EMPTY_BYTES = new Uint8Array(0);

/**
 * Conversion settings of a bulk load, read and checked by the core
 * (core/src/types/conversion.rs); an unknown key is refused.
 */
export interface BulkConversionOptions {
  /** A null field leaves its column unset instead of binding null (default true). */
  nullToUnset?: boolean;
  /**
   * The zone of timestamps written without one: `UTC`, a fixed offset (`+02:00`) or a zone
   * name (`America/New_York`), resolved with the runtime's `Intl` time zone database.
   */
  timeZone?: string;
  /** `iso` or a strftime-like pattern (`%d/%m/%Y %H:%M:%S`). */
  timestampFormat?: string;
  dateFormat?: string;
  timeFormat?: string;
  epochUnit?: "s" | "ms" | "us" | "ns";
  trueWords?: string[];
  falseWords?: string[];
  decimalSeparator?: string;
  groupingSeparator?: string;
  blobFormat?: "hex" | "base64";
  overflow?: "reject" | "saturate";
  rounding?: "unnecessary" | "half-even" | "half-up" | "half-down" | "down" | "up" | "floor" | "ceiling";
}

/** A bulk load run in the core: raw CSV/JSONL bytes in, no JS object per row. */
export interface BulkLoadOptions {
  /** An INSERT/UPDATE with `?` or named bind markers. Or give `table` (`ks.tbl`). */
  query?: string;
  table?: string;
  /** With `table`: the columns to bind, in order (default: all of the table's columns). */
  columns?: string[];
  /** `json`: one JSON array of objects, read element by element (never whole). */
  format?: "csv" | "jsonl" | "json";
  delimiter?: string;
  quote?: string;
  escape?: string;
  comment?: string;
  header?: boolean;
  trim?: boolean;
  maxRecordBytes?: number;
  /** Unquoted fields equal to one of these are null (default `[""]`). */
  nullValues?: string[];
  trueWords?: string[];
  falseWords?: string[];
  /** The unit of timestamps written as integers. */
  epochUnit?: "s" | "ms" | "us";
  /**
   * `field=column,...` (field names or 0-based indexes), or `[field, column]` pairs (a number
   * is a CSV position, a string a name or key, whatever its characters). One field may feed
   * several columns, and a named marker the statement uses twice is fed by one pair.
   */
  mapping?: string | Array<[number | string, string]>;
  /** CSV without a header: a record must have exactly this many fields. */
  fieldCount?: number;
  /**
   * Per-cell write times (µs) and TTLs (s) to load back: for each column, the CSV fields (0-based
   * positions or header names) that carry them. The statement must end `USING TIMESTAMP ? AND TTL ?`.
   */
  cellTimes?: Array<{ column: string; writetime?: number | string; ttl?: number | string }>;
  /** How field text becomes values; the core checks every key (see BulkConversionOptions). */
  conversion?: BulkConversionOptions;
  /** Columns given the same value (CQL text) on every row. */
  constants?: Record<string, string>;
  /** Stop after this many bad rows, or (`"N%"`) once more than N% of the records read were bad. */
  maxErrors?: number | string;
  /** Records (data rows, good or bad) at the start of the input to skip. */
  skipRecords?: number;
  /** Records to read at most, after the skipped ones; the rest of the input is not read. */
  maxRecords?: number;
  ignoreUnknown?: boolean;
  consistency?: number;
  /**
   * Write timestamp in µs since the epoch for every row. Without it each row gets a client-side
   * timestamp when it is read, increasing in input order, so that of rows with the same
   * primary key the last one in the input wins (counter updates take no timestamp).
   */
  timestamp?: number;
  /**
   * The table's primary key columns (partition and clustering): two rows with the same key
   * never share a batch (a batch has one timestamp), matched to the statement's bind markers
   * by name. Default: those of the table the statement writes, read from `system_schema`
   * (`?` markers are named after their columns); where that cannot be read, the partition key
   * alone (rows of one partition then never share a batch).
   */
  keyColumns?: string[];
  initialConcurrency?: number;
  maxConcurrency?: number;
  /** Default: true, unless the statement updates counters. */
  idempotent?: boolean;
  maxRetries?: number;
  /** Per-request timeout in ms. */
  timeout?: number;
  /** Rows starting at or after this offset of the input are left to another process. */
  stopAtOffset?: number;
  /**
   * Rows per request (default 32; 1: one row per request). Above 1, rows that share their replicas (or, with
   * `batchBy: "partition"`, their partition) go out together as one UNLOGGED BATCH (COUNTER
   * for counter updates); a batch the server refuses is retried row by row, so only the
   * rows at fault are reported bad.
   */
  batchSize?: number;
  batchBy?: "replica" | "partition";
  /** A batch closes before its values pass this many bytes (default 32 KiB). */
  batchMaxBytes?: number;
  /** Parse and convert every row, send none: good rows count as loaded, bad rows are reported. */
  dryRun?: boolean;
  /** Stops reading input: rows already parsed settle, a record cut mid-way is dropped. */
  signal?: AbortSignal;
  onBadRow?: (row: BadRowRecord) => void | Promise<void>;
  onProgress?: (state: BulkState) => void;
  /**
   * The write-ahead journal of a non-idempotent load: called synchronously with each row's
   * start (`sent`, always before the request's bytes leave) and acknowledgement (`acked`).
   * A sink that throws closes the client, so nothing is sent unrecorded.
   */
  onJournal?: (entries: JournalEntry[]) => void;
  /** Offsets of rows an earlier run saw acknowledged: skipped (counted in `rowsPrevious`). */
  resumeAcked?: number[];
  /** Offsets of rows an earlier run sent unacknowledged: not sent, reported as `uncertain` bad rows. */
  resumeSent?: number[];
  /**
   * An interrupted run's `watermarkTimestamp` and `lastTimestamp` (at the watermark the input
   * is resumed from): rows count up from the first, one µs each, up to the last, so no row
   * is written again with a later timestamp than the earlier run gave it.
   */
  resumeTimestamp?: number;
  resumeLastTimestamp?: number;
}

/** What a prepared statement binds and returns. */
export interface PreparedInfo {
  query: string;
  /** Bind markers in order, with their CQL types. */
  columns: ColumnInfo[];
  /** Positions of the partition-key columns among the bind markers, in key order. */
  partitionKeyIndexes: number[];
  resultColumns: ColumnInfo[];
}

export type { BadRowKind, BadRowRecord, BulkCounters, BulkState, CsvHeaderRead, JournalEntry };
export { readCsvHeader, sniffInput };
export type { SniffedField, SniffedInput };

export interface BatchQuery {
  query: string;
  params?: unknown[] | Record<string, unknown>;
  hints?: Array<string | null | undefined>;
}

export interface BatchOptions extends ExecuteOptions {
  logged?: boolean;
  counter?: boolean;
}

interface Prepared {
  query: string;
  /** The options descriptor of a call that sets nothing but `prepare`, packed once. */
  defaultDescriptor?: Uint8Array;
  id: Uint8Array;
  /** The facade's number for this statement: EXECUTEs cross the boundary with it. */
  handle: number;
  resultMetadataId: Uint8Array | null;
  bindTypes: TypeInfo[];
  bindNames: string[];
  /** The table the bind markers write (from the first marker's spec), null without markers. */
  bindTable: { keyspace: string; table: string } | null;
  pkIndexes: number[];
  resultColumns: Array<{ keyspace: string; table: string; name: string; type: TypeInfo }>;
  resultInfo: ColumnInfo[];
}

export interface ClientMetrics {
  requests: number;
  errors: number;
  timeouts: number;
  retries: number;
  /** Latency histogram in ms: bucket upper bounds and counts. */
  latency: { bounds: number[]; counts: number[] };
  perHost: Record<string, { requests: number; errors: number }>;
}

const LATENCY_BOUNDS = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, Infinity];


type Listener = (...args: unknown[]) => void;

export class Client {
  readonly options: ResolvedOptions;
  private runtime: RuntimeHooks;
  private contactHosts: Array<{ address: string; host: string; port: number }> = [];
  private session: SessionHost | null = null;
  private prepared = new Map<string, Promise<Prepared>>();
  /** Settled statements by query text, for the synchronous hot path. */
  private preparedReady = new Map<string, { keyspace: string | undefined; statement: Prepared }>();
  private connected = false;
  private writer = new Writer(4096);
  private connecting: Promise<void> | null = null;
  private isShutdown = false;
  private listeners = new Map<string, Set<Listener>>();
  keyspace: string | undefined;
  /** Schema (read from `system_schema` on demand), token ranges and replicas. */
  readonly metadata: Metadata = new Metadata(this);
  metrics: ClientMetrics = {
    requests: 0,
    errors: 0,
    timeouts: 0,
    retries: 0,
    latency: { bounds: LATENCY_BOUNDS, counts: LATENCY_BOUNDS.map(() => 0) },
    perHost: {},
  };

  constructor(options: ClientOptions, runtime: RuntimeHooks) {
    this.options = resolveOptions(options);
    this.runtime = options.socketFactory ? { ...runtime, socketFactory: options.socketFactory, name: "custom" } : runtime;
    this.keyspace = this.options.keyspace;
    const port = this.options.protocolOptions.port;
    this.contactHosts = this.options.contactPoints.map((cp) => {
      const { host, port: p } = parseHostPort(cp, port);
      return { address: `${host}:${p}`, host, port: p };
    });
  }

  on(
    event: "hostUp" | "hostDown" | "nodesChanged" | "topologyChange" | "schemaChange" | "statusChange" | "log",
    fn: Listener,
  ): this {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return this;
  }

  off(event: string, fn: Listener): this {
    this.listeners.get(event)?.delete(fn);
    return this;
  }

  /**
   * Calls the listeners of `event`. One that throws must not stop the others, nor the
   * driver loop that emits (the requests settled by the same batch of events): its error
   * becomes a "log" event at level "warning" (or, from a "log" listener, one console.warn).
   */
  private emit(event: string, ...args: unknown[]): void {
    for (const fn of this.listeners.get(event) ?? []) {
      try {
        fn(...args);
      } catch (e) {
        const message = `a '${event}' listener threw: ${(e as Error)?.message ?? String(e)}`;
        if (event !== "log") {
          this.emit("log", "warning", message, e);
        } else if (!this.warnedLogListener) {
          this.warnedLogListener = true;
          console.warn(`cqlwire: ${message}`);
        }
      }
    }
  }

  private warnedLogListener = false;

  /** Opens the pool. Safe to call more than once; `execute` calls it when needed. */
  connect(): Promise<void> {
    if (this.isShutdown) return Promise.reject(new DriverError("the client was shut down", "ERR_SHUTDOWN"));
    const failure = this.session?.failure;
    if (failure) return Promise.reject(failure);
    if (!this.connecting) {
      this.connecting = this.openSession().catch((e) => {
        this.connecting = null;
        this.session = null;
        throw e;
      });
    }
    return this.connecting;
  }

  private async openSession(): Promise<void> {
    const o = this.options;
    const session = new SessionHost(
      {
        // Offer v5 unless pinned; the core falls back to v4 when the server refuses it.
        protocolVersion: o.protocolVersion ?? o.protocolOptions.maxVersion ?? (o.compression === "snappy" ? 4 : 5),
        compression: o.compression,
        keyspace: this.keyspace,
        credentials: o.credentials,
        authProvider: o.authProvider,
        requestTimeoutMs: o.requestTimeout ?? (o.socketOptions.readTimeout || MAX_TIMEOUT_MS),
        heartbeatIntervalMs: o.pooling.heartBeatInterval,
        maxStreams: o.pooling.maxRequestsPerConnection,
        connectionsPerHost: o.pooling.coreConnectionsPerHost,
        localDataCenter: o.localDataCenter,
        discoverPeers: o.discoverPeers,
        maxAttempts: o.policies.maxAttempts,
        speculativeDelayMs: o.policies.speculativeDelay,
        speculativeMaxExtra: o.policies.speculativeMaxExtra,
        defaultPort: o.protocolOptions.port,
        tls: o.tls ? { ...o.tls, rejectUnauthorized: o.tls.rejectUnauthorized !== false } : undefined,
        connectTimeoutMs: o.socketOptions.connectTimeout,
        coalescingMaxBytes: o.socketOptions.coalescingMaxBytes,
        coalescingWindowMicros: o.socketOptions.coalescingWindowMicros,
        schemaAgreementTimeoutMs: o.protocolOptions.maxSchemaAgreementWaitSeconds * 1000,
        localRack: o.localRack,
        allowRemoteDcs: o.policies.allowRemoteDcs,
        allowList: o.policies.allowList,
        denyList: o.policies.denyList,
        reconnectBaseMs: o.policies.reconnection?.baseDelay,
        reconnectMaxMs: o.policies.reconnection?.maxDelay,
        orphanLimit: o.pooling.orphanLimit,
        maxFrameBytes: o.protocolOptions.maxFrameBytes,
        prepareOnAllHosts: o.prepareOnAllHosts,
        rePrepareOnUp: o.rePrepareOnUp,
        refreshSchemaDelayMs: o.refreshSchemaDelay,
        warmup: o.pooling.warmup,
        addressTranslator: o.addressTranslator,
      },
      this.runtime,
      {
        onNodeUp: (address) => this.emit("hostUp", address),
        onNodeDown: (address, reason) => this.emit("hostDown", address, reason),
        onServerEvent: (ev) => this.onServerEvent(ev),
        onNodesChanged: () => this.emit("nodesChanged"),
        onLog: (message, level) => this.emit("log", level ?? "info", message),
      },
    );
    this.session = session;
    if (this.wireLengthsMeasured) session.measureWireLengths();
    session.decoder = this.decodeExecute;
    session.onFailure = (_context, error) => this.countError(error);
    await session.start(this.contactHosts.map((h) => h.address));
    this.connected = true;
  }

  private onServerEvent(ev: Record<string, unknown>): void {
    switch (ev.type) {
      case "TOPOLOGY_CHANGE":
        this.emit("topologyChange", ev);
        break;
      case "STATUS_CHANGE":
        this.emit("statusChange", ev);
        break;
      case "SCHEMA_CHANGE":
        this.emit("schemaChange", ev);
        break;
    }
  }

  private async ready(): Promise<SessionHost> {
    if (!this.session || !this.connecting) await this.connect();
    else await this.connecting;
    // A shutdown while this call waited for the connection is a shutdown, not "not connected".
    if (this.isShutdown) throw new DriverError("the client was shut down", "ERR_SHUTDOWN");
    if (!this.session) throw new DriverError("the client is not connected", "ERR_NOT_CONNECTED");
    return this.session;
  }

  execute<R extends Row = Row>(query: string, params?: unknown[] | Record<string, unknown> | null, options: ExecuteOptions = NO_OPTIONS): Promise<ResultSet<R>> {
    // The hot path: connected, prepared before, no await between the call and the wire.
    const session = this.session;
    if (session !== null && this.connected && (options.prepare ?? this.options.queryOptions.prepare)) {
      const ps = this.preparedReady.get(query);
      if (ps !== undefined && ps.keyspace === this.keyspace) return this.executePrepared<R>(session, ps.statement, params ?? null, options);
    }
    return this.executeSlow<R>(query, params ?? null, options);
  }

  private async executeSlow<R extends Row>(query: string, params: unknown[] | Record<string, unknown> | null, options: ExecuteOptions): Promise<ResultSet<R>> {
    if (typeof query !== "string" || query.length === 0) throw new ArgumentError("query must be a non-empty string");
    const session = await this.ready();
    if (options.prepare ?? this.options.queryOptions.prepare) {
      const ps = await this.getPrepared(query, session);
      return this.executePrepared<R>(session, ps, params, options);
    }
    const started = performance.now();
    this.metrics.requests++;
    try {
      const values = this.encodeUnprepared(params, options.hints);
      const raw = await session.query(query, values, this.requestOptions(options), this.routingKeyspace(options));
      this.recordLatency(performance.now() - started);
      const rs = this.toResultSet<R>(raw, session, null);
      if (rs.rawPageState !== null) checkPagingAdvances(rs.rows.length, rs.rawPageState, options.pageState, raw.node);
      rs.source = new PageRequest<R>(this, query, params, options);
      return rs;
    } catch (e) {
      this.countError(e);
      throw e;
    }
  }

  /** Packs options and values into one staging buffer and crosses once. */
  private executePrepared<R extends Row>(session: SessionHost, ps: Prepared, params: unknown[] | Record<string, unknown> | null, o: ExecuteOptions): Promise<ResultSet<R>> {
    const started = session.now();
    this.metrics.requests++;
    let staged: Uint8Array;
    let optionsLength: number;
    try {
      // Most calls set nothing but `prepare`: their descriptor is the statement's default.
      let options: Uint8Array;
      if (usesDefaults(o)) {
        options = ps.defaultDescriptor ??= session.packOptions(this.requestOptions(o, ps)).slice();
      } else {
        options = session.packOptions(this.requestOptions(o, ps));
      }
      optionsLength = options.length;
      const w = this.writer.reset();
      w.raw(options);
      this.encodeBoundInto(ps, params, w);
      staged = w.bytes();
    } catch (e) {
      this.countError(e);
      return Promise.reject(e);
    }
    // The parameters and options ride with the request: a PageRequest is built from them
    // only for a result that has a next page. A statement whose rows the server declared
    // without columns at PREPARE (INSERT, UPDATE, DELETE) gets no next page: it keeps neither,
    // so they die young instead of surviving every scavenge while it is in flight; its
    // options only when they name the consistency its ResultSet reports or the page state
    // it asked with (a page that hands it back is refused: checkPagingAdvances).
    if (ps.resultColumns.length > 0) return session.executeHandle<ResultSet<R>>(ps.handle, staged, optionsLength, ps, started, params, o);
    const kept = o.consistency === undefined && o.pageState === undefined ? NO_OPTIONS : o;
    return session.executeHandle<ResultSet<R>>(ps.handle, staged, optionsLength, ps, started, undefined, kept);
  }

  /** Builds the ResultSet of a prepared EXECUTE in the driver loop, off the promise chain. */
  private decodeExecute = (requests: Pending, at: number, now: number, flags: number, events: Uint8Array, view: DataView, start: number, end: number, node: string, attempts: number, tried?: Tried): ResultSet => {
    this.recordLatency(now - requests.startedAt(at));
    const ps = requests.contextAt(at) as Prepared;
    const options = requests.optionsAt(at) as ExecuteOptions;
    const rs = this.resultSetInPlace(flags, events, view, start, end, node, attempts, ps) ??
      this.resultSetOf(flags, events.subarray(start, end), node, attempts, this.session!, ps);
    rs.consistency = options.consistency ?? this.options.queryOptions.consistency;
    // `params` is undefined when the request did not keep them (no next page expected): such
    // a result, should it carry a page state, says it cannot fetch the next page.
    if (rs.rawPageState !== null) {
      checkPagingAdvances(rs.rows.length, rs.rawPageState, options.pageState, node);
      if (requests.paramsAt(at) !== undefined) rs.source = new PageRequest(this, ps, requests.paramsAt(at) as unknown[] | Record<string, unknown> | null, options);
    }
    if (tried !== undefined) rs.tried = tried;
    return rs;
  };

  /**
   * The commonest answers read in place, with no view of the body: a write's Void, and a page
   * of rows in the statement's cached columns with no next page. Null for anything else.
   */
  private resultSetInPlace(flags: number, events: Uint8Array, view: DataView, start: number, end: number, node: string, attempts: number, ps: Prepared): ResultSet | null {
    // Tracing, warnings and a custom payload come before the result: the full path reads them.
    if ((flags & 0x0e) !== 0) return null;
    if (isVoidResult(events, start, end)) return new ResultSet([], NO_COLUMNS, null, node, attempts, NO_WARNINGS, null);
    if (ps.resultColumns.length === 0) return null;
    const rows = decodeCachedRows(events, view, start, end, ps.resultColumns);
    return rows === null ? null : new ResultSet(rows, ps.resultInfo, null, node, attempts, NO_WARNINGS, null, ps.resultColumns);
  }

  private countError(e: unknown): void {
    this.metrics.errors++;
    if (e instanceof OperationTimedOutError) this.metrics.timeouts++;
  }

  private recordLatency(ms: number): void {
    const b = LATENCY_BOUNDS;
    let i = 0;
    while (ms > b[i]) i++;
    this.metrics.latency.counts[i]++;
  }

  private requestOptions(o: ExecuteOptions, prepared?: Prepared): RequestOptions {
    const ps = o.pageState;
    return {
      skipMetadata: prepared !== undefined && prepared.resultColumns.length > 0,
      consistency: o.consistency ?? this.options.queryOptions.consistency,
      serialConsistency: o.serialConsistency,
      pageSize: o.pageSize ?? o.fetchSize ?? this.options.queryOptions.fetchSize,
      pageState: ps === undefined || ps === null ? null : typeof ps === "string" ? fromHex(ps) : ps,
      timestamp: o.timestamp,
      timeoutMs: requestTimeout(o),
      idempotent: o.idempotent ?? o.isIdempotent,
      tracing: o.traceQuery,
      routingToken: o.routingToken,
      keyspace: o.keyspace,
      nowInSeconds: o.nowInSeconds,
    };
  }

  /**
   * The keyspace whose replicas an unprepared statement's `routingToken` names: the query's
   * own, else the client's, as DataStax's token-aware policy takes it. Without one, a token
   * cannot name replicas (their number and placement are the keyspace's) and the plan is
   * the usual one.
   */
  private routingKeyspace(options: ExecuteOptions): string | undefined {
    return options.routingToken === undefined ? undefined : options.keyspace ?? this.keyspace;
  }

  private encodeUnprepared(params: unknown[] | Record<string, unknown> | null, hints?: Array<string | null | undefined>): Uint8Array {
    if (params === null || (Array.isArray(params) && params.length === 0)) return EMPTY;
    if (!Array.isArray(params)) throw new ArgumentError("named parameters need a prepared statement ({ prepare: true })");
    const types = params.map((v, i) => {
      const hint = hints?.[i];
      return hint ? parseCqlType(hint) : inferType(v, i);
    });
    this.writer.reset();
    encodeValueList(types, params, this.writer, undefined, this.options.encoding.useUndefinedAsUnset, this.options.encoding.dataStaxValues);
    return this.writer.bytes();
  }

  private encodeBound(ps: Prepared, params: unknown[] | Record<string, unknown> | null): Uint8Array {
    const w = this.writer.reset();
    this.encodeBoundInto(ps, params, w);
    return w.bytes();
  }

  private encodeBoundInto(ps: Prepared, params: unknown[] | Record<string, unknown> | null, w: Writer): void {
    const given = params === null ? NO_PARAMS : params;
    if (Array.isArray(given) && given.length !== ps.bindTypes.length) {
      throw new ArgumentError(`the statement has ${ps.bindTypes.length} bind marker(s) but ${given.length} parameter(s) were given`);
    }
    if (ps.bindTypes.length === 0) return;
    encodeValueList(ps.bindTypes, given, w, ps.bindNames, this.options.encoding.useUndefinedAsUnset, this.options.encoding.dataStaxValues);
  }

  private preparedKey(query: string): string {
    return `${this.keyspace ?? ""}\u0000${query}`;
  }

  private getPrepared(query: string, session: SessionHost): Promise<Prepared> {
    const key = this.preparedKey(query);
    let p = this.prepared.get(key);
    if (!p) {
      const keyspace = this.keyspace;
      const pending = this.prepareOn(query, session);
      p = pending;
      this.prepared.set(key, pending);
      this.evictPrepared();
      pending.then(
        // A statement evicted while it was being prepared stays out of the cache.
        (statement) => this.prepared.get(key) === pending && this.preparedReady.set(query, { keyspace, statement }),
        () => this.prepared.get(key) === pending && this.prepared.delete(key),
      );
    }
    return p;
  }

  /**
   * Keeps at most `maxPrepared` statements: the oldest prepared goes first (a lookup does not
   * reorder, so the hot path stays one Map read); using it again prepares it again.
   */
  private evictPrepared(): void {
    while (this.prepared.size > this.options.maxPrepared) {
      const oldest = this.prepared.keys().next().value as string;
      this.prepared.delete(oldest);
      const cut = oldest.indexOf("\u0000");
      const keyspace = oldest.slice(0, cut) || undefined;
      const query = oldest.slice(cut + 1);
      if (this.preparedReady.get(query)?.keyspace === keyspace) this.preparedReady.delete(query);
    }
  }

  private async prepareOn(query: string, session: SessionHost): Promise<Prepared> {
    const raw = await session.prepare(query, this.keyspace).catch((e) => Promise.reject(markPreparing(e, query)));
    const { body } = skipPrefix(raw);
    const r = parseResult(body, session.protocolVersion);
    if (r.kind !== "prepared") throw new DriverError(`PREPARE answered with a ${r.kind} result`, "ERR_PROTOCOL");
    return {
      query,
      id: r.id,
      handle: session.registerPrepared(r.id, r.resultMetadataId ?? null),
      resultMetadataId: r.resultMetadataId ?? null,
      bindTypes: r.bindColumns.map((c) => c.type),
      bindNames: r.bindColumns.map((c) => c.name),
      bindTable: r.bindColumns[0] ? { keyspace: r.bindColumns[0].keyspace, table: r.bindColumns[0].table } : null,
      pkIndexes: r.pkIndexes,
      resultColumns: r.resultColumns,
      resultInfo: columnInfo(r.resultColumns),
    };
  }

  private toResultSet<R extends Row>(raw: RawResponse, session: SessionHost, ps: Prepared | null): ResultSet<R> {
    const rs = this.resultSetOf<R>(raw.flags, raw.body, raw.node, raw.attempts, session, ps);
    if (raw.tried !== undefined) rs.tried = raw.tried;
    if (raw.wireLengths !== undefined) rs.wireLengths = raw.wireLengths;
    return rs;
  }

  /** `toResultSet` without the RawResponse: the prepared hot path builds none per request. */
  private resultSetOf<R extends Row>(flags: number, body: Uint8Array, host: string, attempts: number, session: SessionHost, ps: Prepared | null): ResultSet<R> {
    let traceId: string | null = null;
    let warnings = NO_WARNINGS;
    if ((flags & 0x0e) !== 0) ({ body, traceId, warnings } = skipPrefix({ flags, body, node: host, attempts }));
    const r = parseResult(body, session.protocolVersion, ps?.resultColumns, PRIVATE_BODY);
    switch (r.kind) {
      case "rows": {
        if (ps && r.newMetadataId) {
          ps.resultMetadataId = r.newMetadataId;
          session.updatePrepared(ps.handle, r.newMetadataId);
          ps.defaultDescriptor = undefined;
          ps.resultColumns = r.columns;
          ps.resultInfo = columnInfo(r.columns);
        }
        const cols = ps && r.columns === ps.resultColumns ? ps.resultInfo : columnInfo(r.columns);
        return new ResultSet<R>(r.rows as R[], cols, r.pageState ?? null, host, attempts, warnings, traceId, r.columns);
      }
      case "setKeyspace":
        this.keyspace = r.keyspace;
        return new ResultSet<R>([], NO_COLUMNS, null, host, attempts, warnings, traceId);
      default:
        if (r.kind === "schemaChange") this.emit("schemaChange", r);
        return new ResultSet<R>([], NO_COLUMNS, null, host, attempts, warnings, traceId);
    }
  }

  /** Runs the query page by page, calling `rowCallback` per row; resolves at the end. */
  async eachRow(query: string, params: unknown[] | Record<string, unknown> | null, options: ExecuteOptions, rowCallback: (n: number, row: Row) => void): Promise<void> {
    let n = 0;
    for await (const row of this.stream(query, params ?? undefined, options)) rowCallback(n++, row);
  }

  /** Calls `pageCallback` once per page; the next page is fetched after it returns. */
  async eachPage(query: string, params: unknown[] | Record<string, unknown> | null, options: ExecuteOptions, pageCallback: (rs: ResultSet) => void | Promise<void>): Promise<void> {
    let pageState = options.pageState;
    do {
      const rs = await this.execute(query, params, { ...options, pageState });
      await pageCallback(rs);
      pageState = rs.rawPageState ?? undefined;
    } while (pageState);
  }

  /**
   * An async iterable of rows across pages. The next page is requested while the consumer
   * works through the current one, and no more than one page is ever held ahead.
   */
  async *stream<R extends Row = Row>(query: string, params?: unknown[] | Record<string, unknown>, options: ExecuteOptions = {}): AsyncGenerator<R> {
    let next: Promise<ResultSet<R>> | null = this.execute<R>(query, params ?? null, options);
    while (next) {
      const rs: ResultSet<R> = await next;
      next = rs.rawPageState ? this.execute<R>(query, params ?? null, { ...options, pageState: rs.rawPageState }) : null;
      try {
        for (const row of rs.rows) yield row;
      } finally {
        // An early `break` must not leave the prefetched page's rejection unhandled.
        next?.catch(() => {});
      }
    }
  }

  async batch(queries: BatchQuery[] | string[], options: BatchOptions = {}): Promise<ResultSet> {
    if (!Array.isArray(queries) || queries.length === 0) throw new ArgumentError("batch needs at least one query");
    const session = await this.ready();
    const items: BatchQuery[] = queries.map((q) => typeof q === "string" ? { query: q } : q);
    const prepare = options.prepare ?? this.options.queryOptions.prepare;
    const prepared = prepare ? await Promise.all(items.map((q) => this.getPrepared(q.query, session))) : null;
    const enc = new TextEncoder();
    const parts: Uint8Array[] = [];
    let size = 3;
    for (let i = 0; i < items.length; i++) {
      const q = items[i];
      const head = prepared ? prepared[i].id : enc.encode(q.query);
      const values = prepared ? this.encodeBound(prepared[i], q.params ?? null).slice() : this.encodeUnprepared(q.params ?? null, q.hints).slice();
      parts.push(Uint8Array.of(prepared ? 1 : 0), u32le(head.length), head, u32le(values.length), values);
      size += 1 + 4 + head.length + 4 + values.length;
    }
    const desc = new Uint8Array(size);
    desc[0] = options.counter ? 2 : options.logged === false ? 1 : 0;
    desc[1] = items.length & 0xff;
    desc[2] = items.length >> 8;
    let at = 3;
    for (const p of parts) {
      desc.set(p, at);
      at += p.length;
    }
    this.metrics.requests++;
    const raw = await session.batch(desc, this.requestOptions(options));
    return this.toResultSet(raw, session, null);
  }

  /** A table's columns from `system_schema`, each with whether it is in the primary key. */
  private async tableColumns(keyspace: string, table: string): Promise<Array<{ name: string; key: boolean }>> {
    const rs = await this.execute("SELECT column_name, kind FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?", [keyspace, table]);
    return rs.rows.map((r) => ({ name: String(r.column_name), key: r.kind === "partition_key" || r.kind === "clustering" }));
  }

  /**
   * Loads raw CSV or JSONL bytes into a table. Parsing, type conversion by the statement's
   * bind types, routing, retries and acknowledgement all happen in the core; `onBadRow`
   * receives each row that is malformed or was rejected, verbatim, with its reason. The
   * resolved state's `watermark` is the input offset below which every row is settled.
   */
  async bulkLoad(input: AsyncIterable<Uint8Array>, options: BulkLoadOptions): Promise<BulkState> {
    const session = await this.ready();
    let query = options.query;
    let keyColumns = options.keyColumns;
    if (!query) {
      if (!options.table || !/^[A-Za-z0-9_"]+\.[A-Za-z0-9_"]+$/.test(options.table)) {
        throw new ArgumentError("bulkLoad needs a query, or a table as keyspace.table");
      }
      let columns = options.columns;
      if (!columns || !keyColumns) {
        const [ks, table] = options.table.split(".").map((p) => p.replaceAll('"', ""));
        const rows = await this.tableColumns(ks, table);
        if (rows.length === 0) throw new ArgumentError(`table ${options.table} does not exist`);
        columns ??= rows.map((r) => r.name);
        keyColumns ??= rows.filter((r) => r.key).map((r) => r.name);
      }
      const quoted = columns.map((c) => (/^[a-z_][a-z0-9_]*$/.test(c) ? c : `"${c.replaceAll('"', '""')}"`));
      query = `INSERT INTO ${options.table} (${quoted.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
    }
    const ps = await this.getPrepared(query, session);
    // A statement of the caller's own: its markers named after the table's primary key columns
    // (as `?` markers of an INSERT or UPDATE are) let rows of one partition share a batch while
    // two rows with the same key never do. Without them only the partition key is known.
    if (keyColumns === undefined && ps.bindTable) {
      const rows = await this.tableColumns(ps.bindTable.keyspace, ps.bindTable.table).catch(() => []);
      if (rows.length > 0) keyColumns = rows.filter((r) => r.key).map((r) => r.name);
    }
    const counter = /\bUPDATE\b/i.test(query) && /\w+\s*=\s*\w+\s*[+-]/.test(query);
    const config = {
      format: options.format ?? "csv",
      delimiter: options.delimiter,
      quote: options.quote,
      escape: options.escape,
      comment: options.comment,
      header: options.header,
      trim: options.trim,
      maxRecordBytes: options.maxRecordBytes,
      nullValues: options.nullValues,
      trueWords: options.trueWords,
      falseWords: options.falseWords,
      epochUnit: options.epochUnit,
      mapping: options.mapping,
      fieldCount: options.fieldCount,
      conversion: withZoneOffsets(options.conversion),
      cellTimes: options.cellTimes,
      constants: options.constants,
      maxErrors: options.maxErrors,
      skipRecords: options.skipRecords,
      maxRecords: options.maxRecords,
      ignoreUnknown: options.ignoreUnknown,
      consistency: options.consistency ?? this.options.queryOptions.consistency,
      timestamp: options.timestamp,
      keyColumns,
      initialConcurrency: options.initialConcurrency,
      maxConcurrency: options.maxConcurrency,
      idempotent: options.idempotent ?? !counter,
      maxRetries: options.maxRetries,
      timeoutMs: requestTimeout(options),
      seed: Math.floor(Math.random() * 2 ** 32),
      stopAtOffset: options.stopAtOffset,
      batchSize: options.batchSize,
      batchBy: options.batchBy,
      batchMaxBytes: options.batchMaxBytes,
      counter,
      dryRun: options.dryRun,
      journal: options.onJournal !== undefined,
      resumeAcked: options.resumeAcked,
      resumeSent: options.resumeSent,
      resumeTimestamp: options.resumeTimestamp,
      resumeLastTimestamp: options.resumeLastTimestamp,
    };
    return session.bulk(ps.id, ps.resultMetadataId, config, input, options.onBadRow ?? (() => {}), options.onProgress, options.signal, options.onJournal);
  }

  /**
   * Pages of a query as CSV bytes, formatted in the core straight from the result pages
   * (no JS object per row or cell), in the form `bulkLoad` reads back to the same values
   * given the same settings (delimiter, quote, escape, null word, collection format, conversion). Each page
   * carries its header line apart (`header`); with `header: true` the first page's `csv`
   * also starts with it. A statement without a result set (DDL, INSERT) yields one empty
   * page whose `header` is empty.
   */
  async *streamCsv(
    query: string,
    params: unknown[] | Record<string, unknown> | null = null,
    options: StreamOptions & CsvSettings & { header?: boolean } = {},
  ): AsyncGenerator<{ csv: Uint8Array; rows: number; header: Uint8Array; pagingState: Uint8Array | null; info: PageInfo }> {
    const session = await this.ready();
    const { delimiter, quote, escape, nullWord, collectionFormat, conversion } = options;
    const format = session.csvFormatter({
      delimiter,
      quote,
      escape,
      nullWord,
      collectionFormat,
      conversion: withZoneOffsets(conversion),
    });
    let header = options.header ?? false;
    for await (const { page, info } of this.formattedPages(query, params, options, format, session)) {
      if (page === null) {
        yield { csv: EMPTY_BYTES, rows: 0, header: EMPTY_BYTES, pagingState: null, info };
        return;
      }
      const csv = header ? concat([page.header, page.csv]) : page.csv;
      header = false;
      yield { csv, rows: page.rows, header: page.header, pagingState: page.pagingState, info };
    }
  }

  /**
   * Pages of a query as JSON Lines (UTF-8 bytes, one object per row), formatted in the core
   * straight from the result pages: numbers keep every digit (bigint, varint, decimal), NaN
   * and the infinities are strings, blobs `0x..` strings, times ISO-8601 strings, lists, sets,
   * tuples and vectors arrays, maps and UDTs objects; `bulkLoad` reads them back. A statement
   * without a result set yields one empty page with no `columns`.
   */
  async *streamJson(
    query: string,
    params: unknown[] | Record<string, unknown> | null = null,
    options: TextStreamOptions = {},
  ): AsyncGenerator<{ json: Uint8Array; rows: number; columns: string[]; pagingState: Uint8Array | null; info: PageInfo }> {
    const session = await this.ready();
    const format = session.jsonFormatter("objects", zoneSettings(options.timeZone));
    for await (const { page, info } of this.formattedPages(query, params, options, format, session)) {
      if (page === null) {
        yield { json: EMPTY_BYTES, rows: 0, columns: [], pagingState: null, info };
        return;
      }
      yield { json: page.lines, rows: page.rows, columns: page.columns, pagingState: page.pagingState, info };
    }
  }

  /**
   * Pages of a query as each cell's CQL text (null for null), formatted in the core: what a
   * table view shows. A statement without a result set yields one empty page with no
   * `columns`.
   */
  async *streamCells(
    query: string,
    params: unknown[] | Record<string, unknown> | null = null,
    options: TextStreamOptions = {},
  ): AsyncGenerator<{ cells: Array<Array<string | null>>; rows: number; columns: string[]; pagingState: Uint8Array | null; info: PageInfo }> {
    const session = await this.ready();
    const format = session.jsonFormatter("cells", zoneSettings(options.timeZone));
    const decoder = new TextDecoder();
    for await (const { page, info } of this.formattedPages(query, params, options, format, session)) {
      if (page === null) {
        yield { cells: [], rows: 0, columns: [], pagingState: null, info };
        return;
      }
      const text = decoder.decode(page.lines);
      const cells = text === "" ? [] : text.slice(0, -1).split("\n").map((line) => JSON.parse(line) as Array<string | null>);
      yield { cells, rows: page.rows, columns: page.columns, pagingState: page.pagingState, info };
    }
  }

  /**
   * Runs a statement page by page, each page formatted by `format` in the core; `page` is
   * null for a result that is not a row set. With `maxRows`, no page asks for more rows than
   * are still wanted, so none is cut.
   */
  private async *formattedPages<P extends { rows: number; pagingState: Uint8Array | null }>(
    query: string,
    params: unknown[] | Record<string, unknown> | null,
    options: StreamOptions,
    format: (body: Uint8Array) => P,
    session: SessionHost,
  ): AsyncGenerator<{ page: P | null; info: PageInfo }> {
    const maxRows = options.maxRows ?? Infinity;
    if (maxRows !== Infinity && (!Number.isSafeInteger(maxRows) || maxRows < 1)) {
      throw new ArgumentError(`maxRows must be a positive integer, got ${String(options.maxRows)}`);
    }
    const prepare = options.prepare ?? this.options.queryOptions.prepare;
    const ps = prepare ? await this.getPrepared(query, session) : null;
    let pageState: Uint8Array | null | undefined = typeof options.pageState === "string" ? fromHex(options.pageState) : options.pageState;
    const pageSize = options.pageSize ?? options.fetchSize ?? this.options.queryOptions.fetchSize;
    let left = maxRows;
    for (let first = true;; first = false) {
      const ro = this.requestOptions({
        ...options,
        pageSize: Math.min(pageSize, left),
        pageState: pageState ?? undefined,
        traceQuery: first && options.traceQuery,
      });
      const raw = ps
        ? await session.execute(ps.id, ps.resultMetadataId, this.encodeBound(ps, params), ro)
        : await session.query(query, this.encodeUnprepared(params, options.hints), ro, this.routingKeyspace(options));
      const { body, traceId, warnings } = skipPrefix(raw);
      const info = { traceId, warnings };
      if (body.length < 4 || new DataView(body.buffer, body.byteOffset, 4).getInt32(0) !== RESULT_KIND_ROWS) {
        yield { page: null, info };
        return;
      }
      const page = format(body);
      yield { page, info };
      left -= page.rows;
      if (!page.pagingState || left <= 0) return;
      checkPagingAdvances(page.rows, page.pagingState, pageState, raw.node);
      pageState = page.pagingState;
    }
  }

  /** Prepares a statement (once per client) and describes its bind markers and results. */
  async prepare(query: string): Promise<PreparedInfo> {
    const session = await this.ready();
    const ps = await this.getPrepared(query, session);
    return {
      query,
      columns: ps.bindNames.map((name, i) => ({ name, type: formatCqlType(ps.bindTypes[i]), keyspace: "", table: "" })),
      partitionKeyIndexes: [...ps.pkIndexes],
      resultColumns: ps.resultInfo,
    };
  }

  /**
   * The Murmur3 token that `params` of a prepared statement route by (as the server's
   * `token()` computes it), or null when the statement binds no full partition key.
   */
  async getToken(query: string, params: unknown[] | Record<string, unknown>): Promise<bigint | null> {
    const session = await this.ready();
    const ps = await this.getPrepared(query, session);
    if (ps.pkIndexes.length === 0) return null;
    return session.routingToken(this.encodeBound(ps, params), ps.pkIndexes);
  }

  /**
   * The replicas (addresses) owning a Murmur3 token, or the token of a routing key (the
   * partition key serialised as the partitioner hashes it, as the DataStax driver takes it),
   * in `keyspace`, from the ring the connected client holds. Synchronous, as DataStax's.
   */
  replicasOf(keyspace: string, token: bigint | Uint8Array): string[] {
    const session = this.session;
    if (session === null || !this.connected) throw new DriverError("the client is not connected", "ERR_NOT_CONNECTED");
    const t = token instanceof Uint8Array ? routingKeyToken(session, [token]) : token;
    if (typeof t !== "bigint") throw new ArgumentError("getReplicas needs a bigint token or a routing key (Uint8Array/Buffer)");
    return replicasIn(session.tokenRanges(keyspace), t);
  }

  /**
   * The Murmur3 token of a routing key, as the DataStax driver's `routingKey` option takes
   * it: the partition key's value serialised, or one Buffer per component of a composite
   * key (the core joins them as the partitioner does). Pass it as `routingToken` to route a
   * statement the core cannot route by itself (an unprepared one). Needs a connection.
   */
  tokenOfRoutingKey(key: Uint8Array | Uint8Array[]): bigint {
    const session = this.session;
    if (session === null || !this.connected) throw new DriverError("the client is not connected", "ERR_NOT_CONNECTED");
    const components = key instanceof Uint8Array ? [key] : key;
    if (!Array.isArray(components) || components.length === 0 || !components.every((c) => c instanceof Uint8Array)) {
      throw new ArgumentError("a routing key is a Uint8Array/Buffer or a non-empty array of them");
    }
    return routingKeyToken(session, components);
  }

  /** `getTokenRanges`, synchronously, from the ring the connected client holds. */
  tokenRangesNow(keyspace?: string): Array<{ start: bigint; end: bigint; replicas: string[] }> {
    const session = this.session;
    if (session === null || !this.connected) throw new DriverError("the client is not connected", "ERR_NOT_CONNECTED");
    return session.tokenRanges(keyspace);
  }

  /** Nodes and connections as the core sees them, with in-flight and orphaned stream ids. */
  getState(): ReturnType<SessionHost["state"]> {
    return this.session?.state() ?? { protocolVersion: 0, nodes: [], connections: [] };
  }

  /**
   * The token ring: ranges `(start, end]` (Murmur3 tokens as bigint) with the addresses of
   * their replicas in `keyspace`. The first range wraps around from the last token. For
   * parallel scans: `SELECT ... WHERE token(pk) > ? AND token(pk) <= ?` per range, sent to
   * a replica by the driver's token-aware routing.
   */
  async getTokenRanges(keyspace?: string): Promise<Array<{ start: bigint; end: bigint; replicas: string[] }>> {
    const session = await this.ready();
    return session.tokenRanges(keyspace);
  }

  /**
   * Where the core's memory is: `wasmMemoryBytes` is the WASM linear memory of this process
   * (it only grows, to the largest burst so far, and is reused after), `coreBufferBytes` the
   * capacity the session's byte buffers hold now (they shrink back after a burst).
   */
  getMemoryStats(): MemoryStats {
    return this.session?.memoryStats() ?? { wasmMemoryBytes: SessionHost.wasmMemoryBytes(), coreBufferBytes: 0 };
  }

  private wireLengthsMeasured = false;

  /**
   * From now on, results (`rs.wireLengths`) and the errors of requests sent (`err.wireLengths`)
   * carry the lengths of the request's and the response's frame bodies, as DataStax's request
   * trackers are told them. Off by default: a client that does not ask keeps nothing per request.
   */
  measureWireLengths(): void {
    this.wireLengthsMeasured = true;
    this.session?.measureWireLengths();
  }

  /** The core's counters (retries, decisions by reason, per node) beside the client's own. */
  getMetrics(): ClientMetrics & { core: Record<string, unknown> } {
    return { ...this.metrics, core: this.session?.metrics() ?? {} };
  }

  // deno-lint-ignore require-await -- async so that a failure is a rejection, as callers await it
  async shutdown(): Promise<void> {
    this.isShutdown = true;
    this.connected = false;
    this.session?.shutdown();
    this.session = null;
  }
}

const EMPTY = new Uint8Array(0);

/**
 * The token the core's Murmur3 gives a routing key: the components as a list of values, each
 * a key column (one component is the key itself; several are joined as a composite key).
 */
function routingKeyToken(session: SessionHost, components: Uint8Array[]): bigint {
  let size = 2;
  for (const c of components) size += 4 + c.length;
  const values = new Uint8Array(size);
  const v = new DataView(values.buffer);
  v.setUint16(0, components.length);
  let at = 2;
  for (const c of components) {
    v.setInt32(at, c.length);
    values.set(c, at + 4);
    at += 4 + c.length;
  }
  const token = session.routingToken(values, components.map((_, i) => i));
  if (token === null) throw new ArgumentError("the routing key has no token (empty key)");
  return token;
}

/** The replicas of the range `(start, end]` holding `token`; the first range wraps around. */
function replicasIn(ranges: Array<{ start: bigint; end: bigint; replicas: string[] }>, token: bigint): string[] {
  for (const r of ranges) {
    const inside = r.start < r.end ? token > r.start && token <= r.end : r.start === r.end || token > r.start || token <= r.end;
    if (inside) return [...r.replicas];
  }
  return ranges[0] ? [...ranges[0].replicas] : [];
}
const NO_OPTIONS: ExecuteOptions = Object.freeze({});
const NO_PARAMS: unknown[] = [];
const NO_COLUMNS: ColumnInfo[] = [];

/**
 * A page without rows that hands back the very paging state it was asked with: the server
 * makes no progress, and every loop over pages (stream, eachRow, eachPage, autoPage) would
 * ask again for ever, with no row to give its caller a say and no deadline of its own.
 */
function checkPagingAdvances(rows: number, next: Uint8Array, asked: string | Uint8Array | null | undefined, host: string): void {
  if (rows > 0 || asked === undefined || asked === null) return;
  const sent = typeof asked === "string" ? fromHex(asked) : asked;
  if (sent.length !== next.length || sent.some((b, i) => b !== next[i])) return;
  // No byte of the page is at fault, only the two pages together: no offset.
  throw new CqlProtocolError("remote", "paging state", null, "a page without rows returned the paging state it was asked with: the server makes no progress", host);
}

/** Whether an options object changes nothing that goes into the request descriptor. */
function usesDefaults(o: ExecuteOptions): boolean {
  return o.consistency === undefined && o.serialConsistency === undefined && o.pageSize === undefined &&
    o.fetchSize === undefined && o.pageState === undefined && o.timestamp === undefined && o.timeout === undefined &&
    o.readTimeout === undefined && o.idempotent === undefined && o.isIdempotent === undefined &&
    o.traceQuery === undefined && o.routingToken === undefined && o.keyspace === undefined &&
    o.nowInSeconds === undefined;
}

/** Longest per-request timeout: what a timer can wait (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The per-request timeout in ms, checked: a negative, NaN or oversized value used to wrap
 * to 49 days or fall back to the default silently. `readTimeout: 0` is the DataStax driver's
 * "no timeout": the longest timer. `timeout: 0` is refused (leave it out for the default).
 */
function requestTimeout(o: { timeout?: number; readTimeout?: number }): number | undefined {
  const name = o.timeout !== undefined ? "timeout" : "readTimeout";
  const value = o.timeout ?? o.readTimeout;
  if (value === undefined) return undefined;
  if (name === "readTimeout" && value === 0) return MAX_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw new ArgumentError(
      `options.${name} must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${String(value)}`,
    );
  }
  return Math.ceil(value);
}

function u32le(n: number): Uint8Array {
  return Uint8Array.of(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff);
}

const TYPE_CACHE = new Map<string, TypeInfo>();
function cached(t: string): TypeInfo {
  let ti = TYPE_CACHE.get(t);
  if (!ti) TYPE_CACHE.set(t, (ti = parseCqlType(t)));
  return ti;
}

/** The DataStax driver's mapping for parameters of unprepared statements without hints. */
function inferType(v: unknown, index: number): TypeInfo {
  if (v === null || v === undefined) return cached("blob");
  switch (typeof v) {
    case "string":
      return cached("text");
    case "number":
      return cached("double");
    case "bigint":
      return cached("bigint");
    case "boolean":
      return cached("boolean");
    case "symbol":
      return cached("blob");
  }
  if (v instanceof Date) return cached("timestamp");
  if (v instanceof Uint8Array) return cached("blob");
  if (v instanceof Float32Array) return parseCqlType(`vector<float, ${v.length}>`);
  throw new ArgumentError(`cannot infer the CQL type of parameter ${index}; pass { hints } or use { prepare: true }`);
}

/** Reads the tracing id, warnings and custom payload that the frame flags announce. */
/** `parseResult`'s options for a body the driver owns (a response copied out of the core). */
const PRIVATE_BODY = { bodyIsPrivate: true } as const;

function skipPrefix(raw: RawResponse): { body: Uint8Array; traceId: string | null; warnings: string[] } {
  if ((raw.flags & 0x0e) === 0) return { body: raw.body, traceId: null, warnings: NO_WARNINGS };
  const r = new Reader(raw.body);
  let traceId: string | null = null;
  let warnings: string[] = NO_WARNINGS;
  if (raw.flags & 0x02) traceId = formatUuid(r.raw(16, "tracing id"));
  if (raw.flags & 0x08) warnings = r.stringList("warnings");
  if (raw.flags & 0x04) {
    const n = r.u16("custom payload count");
    for (let i = 0; i < n; i++) {
      r.string("custom payload key");
      r.bytes("custom payload value");
    }
  }
  return { body: raw.body.subarray(r.pos), traceId, warnings };
}

/** Whether `u8[start, end)` is a RESULT body of kind Void (an int 1 and nothing else). */
function isVoidResult(u8: Uint8Array, start: number, end: number): boolean {
  return end - start === 4 && u8[start] === 0 && u8[start + 1] === 0 && u8[start + 2] === 0 && u8[start + 3] === 1;
}

function formatUuid(b: Uint8Array): string {
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A statement with its parameters and options: fetches the pages after the first. */
class PageRequest<R extends Row = Row> implements PageSource<R> {
  constructor(
    private readonly client: Client,
    /** The prepared statement, or the query text of an unprepared one. */
    readonly ps: Prepared | string,
    private readonly params: unknown[] | Record<string, unknown> | null,
    private readonly options: ExecuteOptions,
  ) {}

  get consistency(): number | undefined {
    return this.options.consistency ?? this.client.options.queryOptions.consistency;
  }

  fetchPage(pageState: Uint8Array): Promise<ResultSet<R>> {
    const query = typeof this.ps === "string" ? this.ps : this.ps.query;
    return this.client.execute<R>(query, this.params, { ...this.options, pageState });
  }
}
