/**
 * DataStax's `ExecutionOptions`: what a request tracker (and DataStax's policies) is told about
 * a request's options. The base class answers `undefined` to everything (`ExecutionOptions.empty()`);
 * the client hands trackers a `ClientExecutionOptions`, which reads the query's options, then
 * its execution profile's, then the client's, as DataStax's `DefaultExecutionOptions`.
 */
import { consistencies } from "../src/types.ts";
import type { CompatClientOptions, CompatQueryOptions, ExecutionProfile } from "./options.ts";

export class ExecutionOptions {
  /** An instance whose getters all answer `undefined`. */
  static empty(): ExecutionOptions {
    return new ExecutionOptions();
  }
  getCaptureStackTrace(): boolean | undefined {
    return undefined;
  }
  getConsistency(): number | undefined {
    return undefined;
  }
  getCustomPayload(): unknown {
    return undefined;
  }
  getFetchSize(): number | undefined {
    return undefined;
  }
  getFixedHost(): unknown {
    return undefined;
  }
  getHints(): unknown {
    return undefined;
  }
  isAutoPage(): boolean | undefined {
    return undefined;
  }
  isBatchCounter(): boolean | undefined {
    return undefined;
  }
  isBatchLogged(): boolean | undefined {
    return undefined;
  }
  isIdempotent(): boolean | undefined {
    return undefined;
  }
  isPrepared(): boolean | undefined {
    return undefined;
  }
  isQueryTracing(): boolean | undefined {
    return undefined;
  }
  getKeyspace(): string | undefined {
    return undefined;
  }
  getLoadBalancingPolicy(): unknown {
    return undefined;
  }
  getPageState(): Uint8Array | undefined {
    return undefined;
  }
  getPreferredHost(): unknown {
    return undefined;
  }
  getRawQueryOptions(): CompatQueryOptions | undefined {
    return undefined;
  }
  getReadTimeout(): number | undefined {
    return undefined;
  }
  getRetryPolicy(): unknown {
    return undefined;
  }
  getRowCallback(): unknown {
    return undefined;
  }
  getOrGenerateTimestamp(): unknown {
    return undefined;
  }
  getRoutingIndexes(): number[] | undefined {
    return undefined;
  }
  getRoutingKey(): Uint8Array | Uint8Array[] | undefined {
    return undefined;
  }
  getRoutingNames(): string[] | undefined {
    return undefined;
  }
  getSerialConsistency(): number | undefined {
    return undefined;
  }
  getTimestamp(): unknown {
    return undefined;
  }
}

const NONE: CompatQueryOptions = {};

/**
 * A request's options as DataStax resolves them: the query's, its profile's, the client's,
 * else DataStax's defaults (consistency LOCAL_ONE, fetchSize 5000, prepare and captureStackTrace
 * false, readTimeout 12000).
 */
export class ClientExecutionOptions extends ExecutionOptions {
  readonly #query: CompatQueryOptions;
  readonly #defaults: CompatQueryOptions;
  readonly #profile: ExecutionProfile | undefined;
  readonly #client: CompatClientOptions;

  constructor(query: CompatQueryOptions | undefined, client: CompatClientOptions, profile: ExecutionProfile | undefined) {
    super();
    this.#query = query ?? NONE;
    this.#defaults = client.queryOptions ?? NONE;
    this.#profile = profile;
    this.#client = client;
  }

  override getCaptureStackTrace(): boolean | undefined {
    return this.#query.captureStackTrace ?? this.#defaults.captureStackTrace ?? false;
  }
  override getConsistency(): number | undefined {
    return this.#query.consistency ?? this.#profile?.consistency ?? this.#defaults.consistency ?? consistencies.localOne;
  }
  override getCustomPayload(): unknown {
    return this.#query.customPayload ?? this.#defaults.customPayload;
  }
  override getFetchSize(): number | undefined {
    return this.#query.fetchSize ?? this.#defaults.fetchSize ?? 5000;
  }
  override getFixedHost(): unknown {
    return this.#query.host;
  }
  override getHints(): unknown {
    return this.#query.hints;
  }
  override isAutoPage(): boolean | undefined {
    return this.#query.autoPage ?? this.#defaults.autoPage;
  }
  override isBatchCounter(): boolean {
    return this.#query.counter ?? false;
  }
  override isBatchLogged(): boolean {
    return this.#query.logged ?? this.#defaults.logged ?? true;
  }
  override isIdempotent(): boolean | undefined {
    return this.#query.isIdempotent ?? this.#defaults.isIdempotent;
  }
  override isPrepared(): boolean | undefined {
    return this.#query.prepare ?? this.#defaults.prepare ?? false;
  }
  override isQueryTracing(): boolean | undefined {
    return this.#query.traceQuery ?? this.#defaults.traceQuery;
  }
  override getKeyspace(): string | undefined {
    return this.#query.keyspace;
  }
  override getLoadBalancingPolicy(): unknown {
    return this.#profile?.loadBalancing ?? this.#client.policies?.loadBalancing;
  }
  override getPageState(): Uint8Array | undefined {
    const state = this.#query.pageState;
    return typeof state === "string" ? Uint8Array.from(state.match(/../g) ?? [], (h) => parseInt(h, 16)) : state;
  }
  override getRawQueryOptions(): CompatQueryOptions {
    return this.#query;
  }
  override getReadTimeout(): number | undefined {
    return this.#query.readTimeout ?? this.#profile?.readTimeout ?? this.#client.socketOptions?.readTimeout ?? 12000;
  }
  override getRetryPolicy(): unknown {
    return this.#query.retry ?? this.#profile?.retry ?? this.#client.policies?.retry;
  }
  override getRoutingIndexes(): number[] | undefined {
    return this.#query.routingIndexes;
  }
  override getRoutingKey(): Uint8Array | Uint8Array[] | undefined {
    return this.#query.routingKey;
  }
  override getRoutingNames(): string[] | undefined {
    return this.#query.routingNames;
  }
  override getSerialConsistency(): number | undefined {
    return this.#query.serialConsistency ?? this.#profile?.serialConsistency ?? this.#defaults.serialConsistency;
  }
  override getTimestamp(): unknown {
    return this.#query.timestamp;
  }
}
