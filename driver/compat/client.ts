/**
 * The DataStax driver's `Client` over cqlwire's: callbacks or promises, `eachRow` with
 * `autoPage`/`nextPage`, `stream()`, Host objects and events, DataStax value representations.
 * Each runtime entry (compat/node.ts, compat/deno.ts, compat/workerd.ts) plugs in its client.
 */
import type { BaseClient, ClientOptions, Row as CoreRow } from "../mod.ts";
import { ArgumentError, AuthenticationError, DriverError, NoHostAvailableError, OperationTimedOutError } from "../src/errors.ts";
import { consistencies } from "../src/types.ts";
import { type BufferClass, useBufferClass } from "../src/values/bytes.ts";
import { dataCollection, type MaterializedView, type TableMetadata, udt, type UdtInfo, withSchemaTypes } from "./schema.ts";
import { type Metadata, STRATEGY_PREFIX } from "../src/metadata.ts";
import type { Aggregate, SchemaFunction } from "../src/schema_functions.ts";
import { type EncodingOptions, statementHints, withUserCollections } from "./convert.ts";
import { Host, HostMap } from "./hosts.ts";
import { type CompatClientOptions, type CompatQueryOptions, clientOptions, executeOptions, type ExecutionProfile } from "./options.ts";
import { convertRows, ResultSet } from "./result.ts";
import { dataStaxError, setMessage } from "./errors.ts";
import { coerceNumericStrings } from "./coerce.ts";
import { CqlTypeError } from "../src/codec/errors.ts";
import { formatCqlType } from "../src/codec/mod.ts";
import { longToBigInt } from "./numbers.ts";
import { checkProfilePolicies, MonotonicTimestampGenerator, type TimestampGenerator } from "./policies.ts";
import { type DnsModule, setDns } from "./address_resolution.ts";
import type { Row } from "./values.ts";
import { Token, TokenRange, tokenValueOf } from "./token.ts";
import { type ClientMetrics, DefaultMetrics } from "./metrics.ts";
import { ClientExecutionOptions } from "./execution_options.ts";
import type { TrackedParams, TrackedQuery } from "./tracker.ts";
import { Tracking, trackingOptions } from "./tracking.ts";
import { failedPreparing } from "../src/attempts.ts";
import { type QueryTrace, readTrace } from "./trace.ts";

export type { QueryTrace } from "./trace.ts";

/**
 * The core's `Metadata` with DataStax's synchronous token methods in place of its own, and
 * DataStax's overloads (a callback, or a promise) where the core has one optional callback.
 * As DataStax's, the promises are declared without `null` (code assigns `await getTable(...)`
 * to a `TableMetadata`); a table, view or UDT that does not exist still gives `null`.
 */
type Lookups = "getReplicas" | "getTokenRanges" | "getTable" | "getMaterializedView" | "getUdt" | "getTrace" | "refreshKeyspace" | "refreshKeyspaces" | "getFunctions" | "getFunction" | "getAggregates" | "getAggregate";
type Signature = Array<string | { code: number; info?: unknown }>;
export type CompatMetadata = Omit<Metadata, Lookups> & {
  getTable(keyspace: string, table: string, callback: ValueCallback<TableMetadata>): void;
  getTable(keyspace: string, table: string): Promise<TableMetadata>;
  getMaterializedView(keyspace: string, view: string, callback: ValueCallback<MaterializedView>): void;
  getMaterializedView(keyspace: string, view: string): Promise<MaterializedView>;
  getUdt(keyspace: string, name: string, callback: ValueCallback<UdtInfo>): void;
  getUdt(keyspace: string, name: string): Promise<UdtInfo>;
  getTrace(traceId: string | { toString(): string }, callback: ValueCallback<QueryTrace>): void;
  getTrace(traceId: string | { toString(): string }, consistency: number | null | undefined, callback: ValueCallback<QueryTrace>): void;
  getTrace(traceId: string | { toString(): string }, consistency?: number | null): Promise<QueryTrace>;
  getFunctions(keyspace: string, name: string, callback: ValueCallback<SchemaFunction[]>): void;
  getFunctions(keyspace: string, name: string): Promise<SchemaFunction[]>;
  getFunction(keyspace: string, name: string, signature: Signature, callback: ValueCallback<SchemaFunction>): void;
  getFunction(keyspace: string, name: string, signature: Signature): Promise<SchemaFunction>;
  getAggregates(keyspace: string, name: string, callback: ValueCallback<Aggregate[]>): void;
  getAggregates(keyspace: string, name: string): Promise<Aggregate[]>;
  getAggregate(keyspace: string, name: string, signature: Signature, callback: ValueCallback<Aggregate>): void;
  getAggregate(keyspace: string, name: string, signature: Signature): Promise<Aggregate>;
  isDbaas(): boolean;
  refreshKeyspace(name: string, callback: EmptyCallback): void;
  refreshKeyspace(name: string): Promise<void>;
  refreshKeyspaces(callback: EmptyCallback): void;
  refreshKeyspaces(waitReconnect: boolean, callback: EmptyCallback): void;
  refreshKeyspaces(waitReconnect?: boolean): Promise<void>;
  getReplicas(keyspace: string, token: Uint8Array | bigint | Token | TokenRange): Host[];
  getTokenRanges(): Set<TokenRange>;
  getTokenRangesForHost(keyspace: string, host: Host | string): Set<TokenRange> | null;
  newToken(components: string | Uint8Array | Uint8Array[]): Token;
  newTokenRange(start: Token, end: Token): TokenRange;
};

/**
 * Keyspaces with `strategy` as DataStax (and the server) name it, the full class name
 * ("org.apache.cassandra.locator.NetworkTopologyStrategy"): cqlwire's own metadata shortens it,
 * and code comparing the class name would silently take the other branch.
 */
function withStrategyClasses(keyspaces: Metadata["keyspaces"]): Metadata["keyspaces"] {
  const out: Metadata["keyspaces"] = {};
  for (const [name, ks] of Object.entries(keyspaces)) {
    if (ks.virtual) out[name] = virtualKeyspace(name);
    else out[name] = ks.strategy.includes(".") ? ks : { ...ks, strategy: STRATEGY_PREFIX + ks.strategy };
  }
  return out;
}

/**
 * A virtual keyspace as DataStax gives it: its `system_virtual_schema` row has only the name, so
 * `durableWrites`, `strategy` and `strategyOptions` are undefined (declared as DataStax declares them).
 */
function virtualKeyspace(name: string): Metadata["keyspaces"][string] {
  const none = undefined as unknown as string & boolean & Record<string, string>;
  return { name, durableWrites: none, strategy: none, strategyOptions: none, virtual: true };
}

type Params = unknown[] | Record<string, unknown> | null | undefined;
/**
 * DataStax's callback types: `err` is declared `Error` though it is `null` on success (theirs
 * too), so that callbacks written against their declarations (`(err: Error, rs) => ...`,
 * `err => error = err`) type-check here.
 */
export type ValueCallback<T> = (err: Error, val: T) => void;
export type EmptyCallback = (err: Error) => void;
type Callback<T> = ValueCallback<T>;
/** How the callbacks are really called. */
type NodeCallback<T> = (err: Error | null, value?: T) => void;
// Listeners take `any`, as on DataStax's Client (an EventEmitter): `client.on("hostUp", (h) => h.address)`.
// deno-lint-ignore no-explicit-any
type Listener = (...args: any[]) => void;

/** What a runtime provides: its cqlwire client and how to make a stream of rows. */
export interface CompatRuntime {
  Client: new (options: ClientOptions) => BaseClient;
  /** The rows of the pages: a `ResultStream` (a Node `Readable`) where there is one; else an async iterable emitter. */
  readable(pages: AsyncIterable<Row[]>): RowStream;
  /** `node:buffer`'s class where the runtime has the module but maybe no global (Deno). */
  Buffer?: BufferClass;
  /** `node:dns`, for EC2MultiRegionTranslator (a Worker has none). */
  dns?: DnsModule;
}

/** What `stream()` returns: `on` chains and its listeners take `any`, as on DataStax's EventEmitter. */
export interface RowStream extends AsyncIterable<Row> {
  // deno-lint-ignore no-explicit-any
  on(event: string, listener: (...args: any[]) => void): this;
}

let runtime: CompatRuntime | null = null;

export function setCompatRuntime(r: CompatRuntime): void {
  runtime = r;
  setDns(r.dns);
  if (r.Buffer) useBufferClass(r.Buffer);
}

/**
 * Calls a user's callback in a task of its own, outside the promise that settled it: as with
 * DataStax, what the callback throws is an uncaught exception (mocha fails the test, a process
 * without a handler exits), not a rejection of a promise nobody holds.
 */
function callBack(fn: () => void): void {
  queueMicrotask(fn);
}

/** Unprepared: the params with numeric strings as numbers by their hints, or null. */
function withHintedNumericStrings(params: NonNullable<Params>, hints: Array<string | null | undefined> | undefined) {
  if (!Array.isArray(params) || !hints) return null;
  return coerceNumericStrings(hints.map((type) => ({ name: "", type: type ?? null })), params);
}

/** Runs `promise` through `callback` when there is one; else returns it. */
function settle<T>(promise: Promise<T>, callback: Callback<T> | undefined): Promise<T> | undefined {
  if (typeof callback !== "function") return promise;
  const cb = callback as NodeCallback<T>;
  promise.then((v) => callBack(() => cb(null, v)), (e) => callBack(() => cb(e)));
  return undefined;
}

/**
 * DataStax's refusal of a `localDataCenter` no node is in, at once on `connect()` (the core
 * would wait for a local node until its requests time out): an `ArgumentError` inside a
 * `NoHostAvailableError`, keyed by the node that told the data centers.
 */
function localDataCenterError(dc: string | undefined, nodes: ReadonlyArray<Record<string, unknown>>): NoHostAvailableError | null {
  const found = [...new Set(nodes.map((n) => String(n.datacenter ?? "")))];
  if (!dc || nodes.length === 0 || found.includes(dc)) return null;
  const inner = new ArgumentError(`localDataCenter was configured as '${dc}', but only found hosts in data centers: [${found.join(", ")}]`);
  const host = String(nodes[0].address);
  return new NoHostAvailableError({ [host]: inner }, `All host(s) tried for query failed. First host tried, ${host}: ${inner}. See innerErrors.`);
}

/** DataStax's error for metadata read before `connect()`. */
const UNINITIALIZED = "Metadata has not been initialized.  This could only happen if you have not connected yet.";

export class Client {
  readonly options: CompatClientOptions;
  readonly hosts: HostMap = new HostMap();
  readonly profiles: Map<string, ExecutionProfile> = new Map();
  /** cqlwire's own client underneath (its modern API: bigint, bulkLoad, streamCsv...). */
  readonly cqlwire: BaseClient;
  /**
   * `options.metrics`, else a `DefaultMetrics`: told of each request's outcome, as DataStax's.
   * cqlwire's own counters and latency histogram are `client.cqlwire.getMetrics()`.
   */
  readonly metrics: ClientMetrics;
  private readonly tracking: Tracking;
  private readonly encoding: EncodingOptions;
  private readonly listeners = new Map<string, Set<Listener>>();
  private connected = false;
  /** Requests made before the client was connected, until they settle (see `shutdown`). */
  private readonly early = new Set<Promise<unknown>>();
  /**
   * The keyspace refreshes schema changes started, chained. DataStax keeps `metadata.keyspaces`
   * in step with DDL: a CREATE KEYSPACE's `execute` resolves once the keyspace is in it.
   */
  private schemaRefresh: Promise<void> = Promise.resolve();
  private metadataView: CompatMetadata | undefined;
  /** Null when `policies.timestampGeneration` is null: the server stamps the writes. */
  private readonly timestamps: TimestampGenerator | null;

  constructor(options: CompatClientOptions) {
    if (runtime === null) throw new DriverError("cqlwire/compat was loaded without a runtime entry", "ERR_NO_RUNTIME");
    if (options === null || typeof options !== "object") throw new ArgumentError("Client options must be an object");
    const { tracker, metrics } = trackingOptions(options);
    this.metrics = metrics ?? new DefaultMetrics();
    this.tracking = new Tracking(this.metrics, tracker, (address) => this.hosts.get(address) ?? { address });
    this.options = options;
    this.encoding = options.encoding ?? {};
    for (const p of options.profiles ?? []) {
      checkProfilePolicies(p, options.policies);
      this.profiles.set(p.name, p);
    }
    const generator = options.policies?.timestampGeneration;
    this.timestamps = generator === null ? null : generator ?? new MonotonicTimestampGenerator();
    this.cqlwire = new runtime.Client(clientOptions(options));
    if (tracker !== null) this.cqlwire.measureWireLengths();
    this.cqlwire.on("hostUp", (address) => this.hostChanged(String(address), true));
    this.cqlwire.on("hostDown", (address) => this.hostChanged(String(address), false));
    this.cqlwire.on("log", (level, message) => this.emit("log", level, "Client", message));
    // A node joining or leaving: hostAdd / hostRemove when the core's refresh of the topology
    // found it, as DataStax's control connection does (TOPOLOGY_CHANGE itself comes before
    // that refresh, debounced by refreshSchemaDelay).
    this.cqlwire.on("nodesChanged", () => this.connected && this.syncHosts());
    // Both a DDL's own result and the server's pushed event: whichever comes first refreshes.
    this.cqlwire.on("schemaChange", (change) => this.onSchemaChange(change as { target?: unknown; keyspace?: unknown }));
  }

  private onSchemaChange(change: { target?: unknown; keyspace?: unknown }): void {
    const keyspace = change.keyspace;
    if (!this.connected || this.options.isMetadataSyncEnabled === false) return;
    if (change.target !== "KEYSPACE" || typeof keyspace !== "string") return;
    const refresh = async () => {
      try {
        await this.cqlwire.metadata.refreshKeyspace(keyspace);
      } catch (e) {
        this.emit("log", "warning", "Client", `could not refresh the metadata of keyspace ${keyspace}: ${(e as Error).message}`);
      }
    };
    this.schemaRefresh = this.schemaRefresh.then(refresh).catch(() => {}); // a throwing log listener too
  }

  get keyspace(): string | undefined {
    return this.cqlwire.keyspace;
  }

  /**
   * The core's `Metadata`, with DataStax's synchronous token methods: `getReplicas(keyspace,
   * routingKey | Token | TokenRange)` returning Host objects, `getTokenRanges()` and
   * `getTokenRangesForHost(keyspace, host)` as Sets of `TokenRange`, `newToken`, `newTokenRange`.
   */
  get metadata(): CompatMetadata {
    const tokens = {
      getReplicas: (keyspace: string, token: Uint8Array | bigint | Token | TokenRange) => this.getReplicas(keyspace, token),
      getTokenRanges: () => new Set(this.tokenRanges(undefined).map((r) => r.range)),
      getTokenRangesForHost: (keyspace: string, host: Host | string) => {
        const address = typeof host === "string" ? host : host?.address;
        if (!this.hosts.get(address)) return null;
        return new Set(this.tokenRanges(keyspace).filter((r) => r.replicas.includes(address)).map((r) => r.range));
      },
      newToken: (components: string | Uint8Array | Uint8Array[]) => new Token(tokenValueOf(components, (k) => this.cqlwire.tokenOfRoutingKey(k))),
      newTokenRange: (start: Token, end: Token) => new TokenRange(start, end),
      ...this.schemaMethods(),
    };
    return this.metadataView ??= new Proxy(this.cqlwire.metadata as unknown as CompatMetadata, {
      get: (target, key) => {
        if (typeof key === "string" && Object.hasOwn(tokens, key)) return tokens[key as keyof typeof tokens];
        if (key === "keyspaces") return withStrategyClasses(target.keyspaces);
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  /** getTable, getUdt, functions... giving DataStax's classes and schema types (compat/schema.ts). */
  private schemaMethods() {
    const md = this.cqlwire.metadata;
    const execute = (query: string, params: unknown[]) => this.cqlwire.execute(query, params, { prepare: true });
    type Cb<T> = (err: unknown, value?: T) => void;
    const typed = <T extends SchemaFunction | Aggregate>(ks: string, p: Promise<T[]> | undefined, aggregates: boolean) =>
      (p as Promise<T[]>).then((items) => withSchemaTypes(md, execute, ks, items, aggregates));
    const one = <T>(items: Promise<T[]>) => items.then((x) => x[0] ?? null);
    return {
      getTable: (ks: string, name: string, cb?: Cb<unknown>) => settle(dataCollection(md, execute, ks, name, false), cb),
      getMaterializedView: (ks: string, name: string, cb?: Cb<unknown>) => settle(dataCollection(md, execute, ks, name, true), cb),
      getUdt: (ks: string, name: string, cb?: Cb<unknown>) => settle(udt(md, ks, name), cb),
      // The keyspace as metadata.keyspaces gives it (full strategy class; a virtual one's undefined fields).
      refreshKeyspace: (ks: string, cb?: Cb<unknown>) =>
        settle(md.refreshKeyspace(ks)!.then((k) => k && withStrategyClasses({ [ks]: k })[ks]), cb),
      getFunctions: (ks: string, name: string, cb?: Cb<unknown>) => settle(typed(ks, md.getFunctions(ks, name), false), cb),
      getAggregates: (ks: string, name: string, cb?: Cb<unknown>) => settle(typed(ks, md.getAggregates(ks, name), true), cb),
      getFunction: (ks: string, name: string, sig: Parameters<Metadata["getFunction"]>[2], cb?: Cb<unknown>) =>
        settle(one(typed(ks, md.getFunction(ks, name, sig)!.then((f) => (f ? [f] : [])), false)), cb),
      getAggregate: (ks: string, name: string, sig: Parameters<Metadata["getAggregate"]>[2], cb?: Cb<unknown>) =>
        settle(one(typed(ks, md.getAggregate(ks, name, sig)!.then((f) => (f ? [f] : [])), true)), cb),
      getTrace: (id: unknown, consistency?: number | null | Cb<unknown>, cb?: Cb<unknown>) => {
        if (typeof consistency === "function") [cb, consistency] = [consistency, null];
        const query = (cql: string, o: { consistency?: number }) => this.cqlwire.execute(cql, null, o);
        const trace = this.connected ? readTrace(query, this.encoding, id, consistency) : Promise.reject(new Error(UNINITIALIZED));
        return settle(trace, cb);
      },
      /** DataStax's: true for DataStax Astra (a cloud secure bundle), which cqlwire does not connect to. */
      isDbaas: () => false,
    };
  }

  on(event: string, listener: Listener): this {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return this;
  }

  addListener(event: string, listener: Listener): this {
    return this.on(event, listener);
  }

  once(event: string, listener: Listener): this {
    const once: Listener = (...args) => {
      this.off(event, once);
      listener(...args);
    };
    return this.on(event, once);
  }

  off(event: string, listener: Listener): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  removeListener(event: string, listener: Listener): this {
    return this.off(event, listener);
  }

  removeAllListeners(event?: string): this {
    if (event === undefined) this.listeners.clear();
    else this.listeners.delete(event);
    return this;
  }

  /**
   * DataStax's `client.log(level, message, furtherInfo)`: a "log" event from "Client". The mapper
   * and the timestamp generator (its drift warning) log through it.
   */
  log(level: string, message: string, furtherInfo?: unknown): void {
    this.emit("log", level, "Client", message, furtherInfo ?? "");
  }

  emit(event: string, ...args: unknown[]): boolean {
    const set = this.listeners.get(event);
    if (!set || set.size === 0) return false;
    for (const fn of [...set]) {
      // A listener that throws must not break the driver loop that emitted.
      try {
        fn(...args);
      } catch (e) {
        queueMicrotask(() => {
          throw e;
        });
      }
    }
    return true;
  }

  // As DataStax's declarations: a promise without a callback, nothing with one (so that
  // `(await client.execute(...)).rows` type-checks).
  connect(): Promise<void>;
  connect(callback: Callback<void>): void;
  connect(callback?: Callback<void>): Promise<void> | undefined {
    return settle(this.connectOnce().catch((e) => Promise.reject(dataStaxError(e, undefined))), callback);
  }

  private async connectOnce(): Promise<void> {
    // DataStax logs this at info level before connecting: code that waits for a log event sees one.
    if (!this.connected) this.emit("log", "info", "Client", "Connecting to cluster using 'cqlwire/compat'");
    await this.cqlwire.connect().catch((e) => {
      // DataStax reports a connection refused for its credentials to the metrics.
      if (e instanceof AuthenticationError) this.metrics.onAuthenticationError(e);
      throw e;
    });
    if (this.connected) return;
    // Left connected: a later call asks again and fails the same way; shutdown() closes it.
    const wrongDc = localDataCenterError(this.options.localDataCenter, this.cqlwire.getState().nodes);
    if (wrongDc !== null) throw wrongDc;
    // Before `connected`: the hosts found by connecting are not announced (DataStax attaches
    // its hostAdd/hostUp listeners once its control connection is initialised).
    this.syncHosts();
    this.connected = true;
    if (this.options.isMetadataSyncEnabled !== false) await this.cqlwire.metadata.refreshKeyspaces();
    this.emit("connected");
  }

  /**
   * Host objects for the nodes the core knows, with hostAdd/hostRemove for the changes once
   * connected.
   */
  private syncHosts(): void {
    const announce = this.connected;
    const nodes = this.cqlwire.getState().nodes;
    const tokens = this.tokensByHost();
    const seen = new Set<string>();
    for (const n of nodes) {
      const address = String(n.address);
      seen.add(address);
      const existing = this.hosts.get(address);
      if (existing) existing.update(n);
      const host = existing ?? new Host(address, n);
      if (tokens !== null) host.tokens = tokens.get(address) ?? [];
      if (!existing) {
        this.hosts.set(address, host);
        if (announce) this.emit("hostAdd", host);
      }
    }
    for (const address of this.hosts.keys()) {
      if (!seen.has(address)) {
        const host = this.hosts.get(address)!;
        this.hosts.delete(address);
        if (announce) this.emit("hostRemove", host);
      }
    }
  }

  /**
   * Each node's tokens as DataStax's `Host#tokens`: the text of the ring's range ends it owns,
   * in the order `system.local`'s set<text> of tokens has them (by text). Null while the core
   * has no ring (a host event before connecting or after shutdown): the hosts keep theirs.
   */
  private tokensByHost(): Map<string, string[]> | null {
    let ranges: ReturnType<BaseClient["tokenRangesNow"]>;
    try {
      ranges = this.cqlwire.tokenRangesNow();
    } catch {
      return null;
    }
    const out = new Map<string, string[]>();
    for (const r of ranges) {
      const owner = r.replicas[0];
      if (owner === undefined) continue;
      let list = out.get(owner);
      if (!list) out.set(owner, (list = []));
      list.push(String(r.end));
    }
    for (const list of out.values()) list.sort();
    return out;
  }

    private hostChanged(address: string, up: boolean): void {
    this.syncHosts();
    const host = this.hosts.get(address);
    if (!host) return;
    host.setUp(up);
    if (this.connected) this.emit(up ? "hostUp" : "hostDown", host);
  }

  execute(query: string, params?: Params, options?: CompatQueryOptions): Promise<ResultSet>;
  execute(query: string, params: Params, options: CompatQueryOptions, callback: Callback<ResultSet>): void;
  execute(query: string, params: Params, callback: Callback<ResultSet>): void;
  execute(query: string, callback: Callback<ResultSet>): void;
  execute(query: string, params?: Params | Callback<ResultSet>, options?: CompatQueryOptions | Callback<ResultSet>, callback?: Callback<ResultSet>): Promise<ResultSet> | undefined {
    if (typeof params === "function") return settle(this.run(query, null, undefined), params);
    if (typeof options === "function") return settle(this.run(query, params, undefined), options);
    return settle(this.run(query, params, options), callback);
  }

  private run(query: string, params: Params, options: CompatQueryOptions | undefined): Promise<ResultSet> {
    return this.tracked(this.runConnected(query, params, options));
  }

  /** `request`, kept in `early` while it settles when it was made before connecting. */
  private tracked<T>(request: Promise<T>): Promise<T> {
    if (this.connected) return request;
    this.early.add(request);
    const done = () => this.early.delete(request);
    request.then(done, done);
    return request;
  }

  private async runConnected(query: string, params: Params, options: CompatQueryOptions | undefined): Promise<ResultSet> {
    params = withUserCollections(params, this.encoding);
    try {
      if (!this.connected) await this.connectOnce();
      const o = this.queryOptions(params, options);
      if (o.hints?.some(isUdtHint)) o.hints = await this.withUdtFields(o.hints);
      const refreshBefore = this.schemaRefresh;
      const prepared = o.prepare ?? this.options.queryOptions?.prepare;
      const report = this.trackedStatement(query, params, options, prepared);
      const tracked = typeof report === "function" ? report : await report;
      const send = (values: Params) => this.tracking.observe(() => this.cqlwire.execute(query, values ?? null, o), tracked, (e, attempt) => this.reshape(e, attempt ? undefined : query, options));
      const raw = await send(params).catch(async (e) => {
        const retry = !(e instanceof CqlTypeError) || !params ? null : prepared ? await this.withNumericStrings(query, params) : withHintedNumericStrings(params, o.hints);
        if (retry === null) throw e;
        return send(retry);
      });
      // A schema change this request made (its result emitted it) is in the metadata first.
      if (this.schemaRefresh !== refreshBefore) await this.schemaRefresh;
      return ResultSet.of(raw, this.encoding, this.consistencyOf(o));
    } catch (e) {
      throw this.reshape(e, query, options);
    }
  }

  private reshape(e: unknown, query: unknown, options: CompatQueryOptions | undefined): unknown {
    if (hintErrors.has(e as Error)) return e;
    // DataStax names no coordinator on an error while preparing (lib/prepare-handler.js), only
    // the statement it prepared (a batch's own statement too).
    const preparing = failedPreparing(e);
    if (preparing !== undefined) {
      delete (e as { coordinator?: string }).coordinator;
      query ??= preparing;
    }
    if (e instanceof OperationTimedOutError) this.timedOut(e, query, options);
    return dataStaxError(e, query);
  }

  /** DataStax's text for a request the node did not answer in time, and the statement (unless a batch). */
  private timedOut(e: OperationTimedOutError, query: unknown, options: CompatQueryOptions | undefined): void {
    if (e.host === undefined) return;
    setMessage(e, `The host ${e.host} did not reply before timeout ${this.executionOptions(options).getReadTimeout()} ms`);
    if (query !== undefined) (e as OperationTimedOutError & { query?: unknown }).query = query;
  }

  /**
   * What the tracker is told about a statement, made when it reports: its values as given,
   * except a prepared statement's named values, which DataStax hands over as an array in the
   * order of the statement's markers.
   */
  private trackedStatement(query: string, params: Params, options: CompatQueryOptions | undefined, prepared: boolean | undefined): StatementReport | Promise<StatementReport> {
    const report = (values: TrackedParams): StatementReport => () => ({ query, params: values, options: this.executionOptions(options) });
    // Only a tracker of a prepared statement's named values waits (for the statement's markers).
    if (this.tracking.tracker === null || !prepared || !params || Array.isArray(params)) return report(params);
    const lower = Object.fromEntries(Object.entries(params).map(([k, v]) => [k.toLowerCase(), v]));
    return this.cqlwire.prepare(query).then(({ columns }) => report(columns.length > 0 ? columns.map((c) => lower[c.name]) : params));
  }

  /** A request's options as DataStax's trackers read them. */
  private executionOptions(options: CompatQueryOptions | undefined): ClientExecutionOptions {
    const named = options?.executionProfile;
    return new ClientExecutionOptions(options, this.options, typeof named === "string" ? this.profiles.get(named) : named);
  }

  /**
   * DataStax's `udt<name>` hints (a UDT of the client's keyspace, or `udt<ks.name>`) as the
   * type parser reads a UDT without the schema: `udt<ks.name>{field:type,...}`. DataStax's
   * TypeErrors when there is no keyspace or no such type.
   */
  private async withUdtFields(hints: Array<string | null | undefined>): Promise<Array<string | null | undefined>> {
    const out = [...hints];
    for (let i = 0; i < out.length; i++) {
      const h = out[i];
      if (!isUdtHint(h)) continue;
      const inner = h.trim().slice(4, -1).trim();
      const dot = inner.indexOf(".");
      const [ks, name] = dot >= 0 ? [inner.slice(0, dot), inner.slice(dot + 1)] : [this.keyspace, inner];
      if (!ks) throw hintError(`No keyspace specified for udt: ${inner}`);
      const t = await this.cqlwire.metadata.udtType(ks, name);
      if (t === null) throw hintError(`User defined type not found: ${ks}.${name}`);
      out[i] = formatCqlType(t, { udt: "expanded" });
    }
    return out;
  }

  /** The params with numeric strings as numbers by the statement's bind types, or null. */
  private async withNumericStrings(query: string, params: NonNullable<Params>) {
    const { columns } = await this.cqlwire.prepare(query);
    return coerceNumericStrings(columns, params);
  }

  /** The statement's options, with hints for DataStax values in unprepared statements. */
  private queryOptions(params: Params, options: CompatQueryOptions | undefined) {
    const o = this.withRoutingKey(this.withTimestamp(executeOptions(options, this.profiles)), options);
    const prepare = o.prepare ?? this.options.queryOptions?.prepare ?? false;
    if (!prepare && Array.isArray(params)) {
      const hints = statementHints(params, o.hints);
      if (hints) o.hints = hints;
      else delete o.hints;
    }
    return o;
  }

  /**
   * DataStax's `routingKey` (a serialised partition key, or its components) becomes the token
   * the request is routed by, as DataStax routes by it ahead of a prepared statement's own key.
   */
  private withRoutingKey<T extends { routingToken?: bigint }>(o: T, options: CompatQueryOptions | undefined): T {
    const key = options?.routingKey;
    if (key !== undefined && key !== null) o.routingToken = this.cqlwire.tokenOfRoutingKey(key);
    return o;
  }

  /** The generator's timestamp, unless the query gives its own (as the DataStax driver). */
  private withTimestamp<T extends { timestamp?: number | bigint }>(o: T): T {
    if (o.timestamp !== undefined || this.timestamps === null) return o;
    const t = this.timestamps.next(this);
    if (t !== null && t !== undefined) o.timestamp = typeof t === "object" ? longToBigInt(t as never) : t;
    return o;
  }

  /** The consistency a request goes out with: its own, the client's, else the core's LOCAL_ONE. */
  private consistencyOf(o: { consistency?: number }): number {
    return o.consistency ?? this.cqlwire.options.queryOptions.consistency ?? consistencies.localOne;
  }

  batch(queries: Array<string | { query: string; params?: Params }>, options?: CompatQueryOptions): Promise<ResultSet>;
  batch(queries: Array<string | { query: string; params?: Params }>, options: CompatQueryOptions, callback: Callback<ResultSet>): void;
  batch(queries: Array<string | { query: string; params?: Params }>, callback: Callback<ResultSet>): void;
  batch(queries: Array<string | { query: string; params?: Params }>, options?: CompatQueryOptions | Callback<ResultSet>, callback?: Callback<ResultSet>): Promise<ResultSet> | undefined {
    if (typeof options === "function") return settle(this.tracked(this.runBatch(queries, undefined)), options);
    return settle(this.tracked(this.runBatch(queries, options)), callback);
  }

  private async runBatch(queries: Array<string | { query: string; params?: Params }>, options: CompatQueryOptions | undefined): Promise<ResultSet> {
    // Checked before connecting, as DataStax: a client shut down meanwhile still says why.
    if (!Array.isArray(queries)) throw new ArgumentError("Queries should be an Array");
    if (queries.length === 0) throw new ArgumentError("Queries array should not be empty");
    if (!this.connected) await this.connectOnce();
    const o = this.withRoutingKey(this.withTimestamp(executeOptions(options, this.profiles)), options);
    // The batch's hints are DataStax's, one array per query: read per item below.
    delete o.hints;
    const items = queries.map((q, i) => {
      const item = typeof q === "string" ? { query: q } : q;
      const prepare = o.prepare ?? this.options.queryOptions?.prepare ?? false;
      // DataStax's batch hints: one array per query, in the batch's options.
      const hints = !prepare && Array.isArray(item.params) ? statementHints(item.params, (options as CompatQueryOptions | undefined)?.hints?.[i]) : undefined;
      return { query: item.query, params: withUserCollections(item.params ?? undefined, this.encoding), hints };
    });
    // DataStax's tracker gets the batch's statements as `{ query, params }` items.
    const tracked = () => ({ query: items.map((i) => ({ query: i.query, params: i.params })), params: undefined, options: this.executionOptions(options) });
    const raw = await this.tracking.observe(() => this.cqlwire.batch(items as never, o), tracked, (e) => this.reshape(e, undefined, options));
    return ResultSet.of(raw, this.encoding, this.consistencyOf(o));
  }

  /**
   * Calls `rowCallback(n, row)` for each row, then `callback(err, result)`. With `autoPage`
   * every page is fetched; without, `result.nextPage()` fetches the next one and the same
   * callbacks run again.
   */
  eachRow(query: string, ...args: unknown[]): void {
    const fns = args.filter((a) => typeof a === "function") as Array<(...x: unknown[]) => void>;
    const rest = args.filter((a) => typeof a !== "function");
    const [rowCallback, callback] = fns;
    if (typeof rowCallback !== "function") throw new ArgumentError("eachRow needs a row callback");
    const params = rest[0] as Params;
    const options = (rest[1] ?? {}) as CompatQueryOptions;
    // As DataStax: `n` counts within each page, and the result's rowLength is the total so far.
    let total = 0;
    const page = (pageState: Uint8Array | undefined) => {
      this.run(query, params, pageState ? { ...options, pageState } : options).then(
        (rs) => {
          try {
            // A result without rows has none, and adds an undefined rowLength (NaN), as DataStax's.
            for (let n = 0; n < (rs.rows?.length ?? 0); n++) rowCallback(n, rs.rows[n]);
          } catch (e) {
            if (callback) callBack(() => callback(e as Error));
            return;
          }
          total += rs.rowLength;
          const next = rs.raw?.rawPageState;
          if (next && options.autoPage) return page(next);
          if (next) rs.nextPage = () => page(next);
          rs.rowLength = total;
          if (callback) callBack(() => callback(null, rs));
        },
        (e) => {
          if (callback) callBack(() => callback(e));
        },
      );
    };
    page(undefined);
  }

  /** The rows across pages: a Node `Readable` in object mode on Node, and async iterable everywhere. */
  stream(query: string, params?: Params, options?: CompatQueryOptions, callback?: Callback<void>): RowStream {
    const s = runtime!.readable(this.pagesAcross(query, params, options));
    if (typeof callback === "function") {
      s.on("end", () => (callback as NodeCallback<void>)(null));
      s.on("error", (e) => callback(e as Error));
    }
    return s;
  }

  private async *pagesAcross(query: string, params: Params, options: CompatQueryOptions | undefined): AsyncGenerator<Row[]> {
    params = withUserCollections(params, this.encoding);
    try {
      if (!this.connected) await this.connectOnce();
      const o = this.queryOptions(params, options);
      const report = this.trackedStatement(query, params, options, o.prepare ?? this.options.queryOptions?.prepare);
      const tracked = typeof report === "function" ? report : await report;
      const reshape = (e: unknown, attempt = false) => this.reshape(e, attempt ? undefined : query, options);
      let rs = await this.tracking.observe(() => this.cqlwire.execute<CoreRow>(query, params ?? null, o), tracked, reshape);
      for (;;) {
        yield convertRows(rs, this.encoding);
        const page = rs;
        // Each page is a request of its own, reported as such.
        const next: typeof rs | null = page.rawPageState === null ? null : await this.tracking.observe(() => page.fetchNextPage() as Promise<typeof rs>, tracked, reshape);
        if (next === null) return;
        rs = next;
      }
    } catch (e) {
      throw dataStaxError(e, query);
    }
  }

  shutdown(): Promise<void>;
  shutdown(callback: Callback<void>): void;
  shutdown(callback?: Callback<void>): Promise<void> | undefined {
    this.emit("log", "info", "Client", "Shutting down");
    // DataStax tells the tracker when a connected client shuts down.
    if (this.connected) this.tracking.tracker?.shutdown();
    // DataStax: a shutdown while connecting waits for the connection, and the requests made
    // meanwhile (before or after it) run, with their results or server errors; then it closes.
    const closed = this.early.size === 0 ? this.cqlwire.shutdown() : this.earlySettled().then(() => this.cqlwire.shutdown());
    return settle(closed.then(() => {
      this.connected = false;
    }), callback);
  }

  private async earlySettled(): Promise<void> {
    while (this.early.size > 0) await Promise.allSettled([...this.early]);
  }

  getState(): ClientState {
    return new ClientState(this.cqlwire.getState(), this.hosts);
  }

  /**
   * The hosts that own a routing key (a Buffer: the partition key serialised, as DataStax
   * takes it) or a Murmur3 token (cqlwire's bigint) in `keyspace`. Synchronous, as DataStax's.
   */
  getReplicas(keyspace: string, token: Uint8Array | bigint | Token | TokenRange): Host[] {
    // As DataStax's: a keyspace not in metadata.keyspaces (unknown, or not loaded) has no replicas
    // to give, null (declared as DataStax declares it, without null).
    if (keyspace && !Object.hasOwn(this.cqlwire.metadata.keyspaces, keyspace)) return null as unknown as Host[];
    // A range's replicas are those of its end token, as DataStax's.
    const t = token instanceof TokenRange ? token.end.toBigInt() : token instanceof Token ? token.toBigInt() : token;
    return this.cqlwire.replicasOf(keyspace, t).map((a) => this.hosts.get(a)).filter((h): h is Host => h !== undefined);
  }

  /** The ring's ranges as `TokenRange`s with their replicas' addresses, from the connected core. */
  private tokenRanges(keyspace: string | undefined): Array<{ range: TokenRange; replicas: string[] }> {
    return this.cqlwire.tokenRangesNow(keyspace).map((r) => ({ range: new TokenRange(new Token(r.start), new Token(r.end)), replicas: r.replicas }));
  }
}

/** `client.getState()`: connections and in-flight requests per host. */
export class ClientState {
  constructor(private readonly state: ReturnType<BaseClient["getState"]>, private readonly hosts: HostMap) {}

  /** Connections past their handshake: one still opening cannot carry a request yet. */
  private get open() {
    return this.state.connections.filter((c) => c.ready === true);
  }

  getConnectedHosts(): Host[] {
    const open = new Set(this.open.map((c) => String(c.address)));
    return this.hosts.values().filter((h) => open.has(h.address));
  }

  getOpenConnections(host: Host): number {
    return this.open.filter((c) => c.address === host.address).length;
  }

  getInFlightQueries(host: Host): number {
    return this.state.connections.filter((c) => c.address === host.address).reduce((sum, c) => sum + Number(c.inFlight ?? 0), 0);
  }

  /** DataStax's text: `{"hosts": [...], "openConnections": {...}, "inFlightQueries": {...}}`. */
  toString(): string {
    const hosts = this.getConnectedHosts();
    const by = (count: (h: Host) => number) => JSON.stringify(Object.fromEntries(hosts.map((h) => [h.address, count(h)])));
    const open = by((h) => this.getOpenConnections(h));
    return `{"hosts": ${JSON.stringify(hosts.map((h) => h.address))}, "openConnections": ${open}, "inFlightQueries": ${by((h) => this.getInFlightQueries(h))}}`;
  }
}

/** What a request tracker is told about a statement, made when it reports. */
type StatementReport = () => { query: TrackedQuery; params: TrackedParams; options: ClientExecutionOptions };

/** A DataStax `udt<name>` hint, which names a UDT without its fields (not the expanded form). */
function isUdtHint(hint: string | null | undefined): hint is string {
  return typeof hint === "string" && /^\s*udt<[^<>{}]+>\s*$/i.test(hint);
}

/** DataStax's hint errors, which (unlike its encoding errors) do not name the statement. */
const hintErrors = new WeakSet<Error>();
function hintError(message: string): TypeError {
  const e = new TypeError(message);
  hintErrors.add(e);
  return e;
}
