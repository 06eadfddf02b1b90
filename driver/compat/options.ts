/**
 * The DataStax driver's client and query options translated to cqlwire's. What has no
 * counterpart is dropped here, on purpose, with the reason in the README's migration table.
 */
import type { BatchOptions, ClientOptions, ExecuteOptions } from "../mod.ts";
import { ArgumentError, NotSupportedError } from "../src/errors.ts";
import type { EncodingOptions } from "./convert.ts";
import { longToBigInt } from "./numbers.ts";
import { type AuthProvider, authOptions } from "./auth.ts";
import { type Policies, policyOptions } from "./policies.ts";
import { translatorOption } from "./address_resolution.ts";
import type { RequestTracker } from "./tracker.ts";
import type { ClientMetrics } from "./metrics.ts";

export interface CompatQueryOptions {
  autoPage?: boolean;
  captureStackTrace?: boolean;
  consistency?: number;
  counter?: boolean;
  customPayload?: unknown;
  executionProfile?: string | ExecutionProfile;
  fetchSize?: number;
  hints?: Array<string | null | undefined>;
  host?: unknown;
  isIdempotent?: boolean;
  keyspace?: string;
  logged?: boolean;
  pageState?: Uint8Array | string;
  prepare?: boolean;
  readTimeout?: number;
  retry?: unknown;
  routingIndexes?: number[];
  routingKey?: Uint8Array | Uint8Array[];
  routingNames?: string[];
  serialConsistency?: number;
  timestamp?: number | bigint | { high: number; low: number };
  traceQuery?: boolean;
}

type Pem = string | Uint8Array | Array<string | Uint8Array>;

export interface CompatClientOptions {
  contactPoints?: string[];
  localDataCenter?: string;
  keyspace?: string;
  authProvider?: AuthProvider;
  credentials?: { username: string; password: string };
  cloud?: unknown;
  /**
   * Accepted as DataStax's are, and unused: DataStax sends `id` and the application's name and
   * version to DSE Insights; graph options apply to DSE graph only.
   */
  id?: { toString(): string };
  applicationName?: string;
  applicationVersion?: string;
  graphOptions?: Record<string, unknown>;
  monitorReporting?: { enabled?: boolean };
  encoding?: EncodingOptions;
  isMetadataSyncEnabled?: boolean;
  maxPrepared?: number;
  policies?: Policies;
  pooling?: { coreConnectionsPerHost?: Record<number, number>; heartBeatInterval?: number; maxRequestsPerConnection?: number; warmup?: boolean };
  prepareOnAllHosts?: boolean;
  profiles?: ExecutionProfile[];
  protocolOptions?: { maxSchemaAgreementWaitSeconds?: number; maxVersion?: number; noCompact?: boolean; port?: number };
  queryOptions?: CompatQueryOptions;
  refreshSchemaDelay?: number;
  rePrepareOnUp?: boolean;
  socketOptions?: { coalescingThreshold?: number; connectTimeout?: number; defunctReadTimeoutThreshold?: number; keepAlive?: boolean; keepAliveDelay?: number; readTimeout?: number; tcpNoDelay?: boolean };
  sslOptions?: { ca?: Pem; cert?: Pem; key?: Pem; rejectUnauthorized?: boolean; servername?: string; [k: string]: unknown };
  /** Told of every QUERY, EXECUTE and BATCH request's outcome (compat/tracking.ts). */
  requestTracker?: RequestTracker | null;
  /** What `client.metrics` is; a `DefaultMetrics` when absent. */
  metrics?: ClientMetrics;
  /** cqlwire's own options, for what the DataStax options cannot say. */
  cqlwire?: Partial<ClientOptions>;
}

/** A named set of query options, chosen per query with `executionProfile`. */
export class ExecutionProfile {
  name: string;
  consistency?: number;
  serialConsistency?: number;
  readTimeout?: number;
  loadBalancing?: unknown;
  retry?: unknown;
  graphOptions?: unknown;

  constructor(name: string, options: { consistency?: number; serialConsistency?: number; readTimeout?: number; loadBalancing?: unknown; retry?: unknown; graphOptions?: unknown } = {}) {
    if (typeof name !== "string" || name === "") throw new TypeError("an ExecutionProfile needs a name");
    this.name = name;
    Object.assign(this, options);
  }
}

function text(value: string | Uint8Array): string {
  return typeof value === "string" ? value : new TextDecoder().decode(value);
}

/** PEM text from a string, a Buffer or a list of them (Node's `tls` forms). */
function pem(value: Pem | undefined): string | undefined {
  return value === undefined ? undefined : (Array.isArray(value) ? value : [value]).map(text).join("\n");
}

/** The sslOptions cqlwire passes on, on every runtime; any other is refused, not ignored. */
const SSL_KEYS = new Set(["ca", "cert", "key", "rejectUnauthorized", "servername"]);

function checkSslOptions(ssl: CompatClientOptions["sslOptions"]): void {
  const unknown = Object.keys(ssl ?? {}).filter((k) => !SSL_KEYS.has(k) && (ssl as Record<string, unknown>)[k] !== undefined);
  if (unknown.length > 0) {
    throw new NotSupportedError(`sslOptions.${unknown[0]} is not supported: cqlwire passes ${[...SSL_KEYS].join(", ")} (PEM, unencrypted key)`);
  }
}

/** The most connections per node cqlwire opens (its own option refuses more). */
const MAX_CONNECTIONS_PER_HOST = 64;

/**
 * DataStax code asks for pools of 100 or more (its tests do), a habit from protocol v2's 128
 * streams a connection. cqlwire's connections each carry 32,768 streams, so it opens at most
 * 64 per node and queues the rest: the requests all run as on DataStax, over fewer sockets.
 */
function capConnections(n: number | undefined): number | undefined {
  return typeof n === "number" && n > MAX_CONNECTIONS_PER_HOST ? MAX_CONNECTIONS_PER_HOST : n;
}

export function clientOptions(o: CompatClientOptions): ClientOptions {
  if (o.cloud !== undefined) throw new NotSupportedError("DataStax Astra secure-connect bundles (cloud) are not supported");
  const maxVersion = o.protocolOptions?.maxVersion;
  if (maxVersion !== undefined && maxVersion < 4) throw new NotSupportedError(`protocol v${maxVersion}: cqlwire speaks v4 and v5`);
  const qo = o.queryOptions ?? {};
  const ssl = o.sslOptions;
  const auth = authOptions(o.authProvider);
  const credentials = auth.credentials ?? o.credentials;
  checkSslOptions(ssl);
  const policy = policyOptions(o.policies);
  const options: ClientOptions = {
    contactPoints: o.contactPoints ?? [],
    localDataCenter: o.localDataCenter ?? policy.localDataCenter,
    keyspace: o.keyspace,
    credentials,
    authProvider: auth.authProvider,
    protocolOptions: {
      port: o.protocolOptions?.port,
      maxVersion: maxVersion === undefined ? undefined : maxVersion >= 5 ? 5 : 4,
      maxSchemaAgreementWaitSeconds: o.protocolOptions?.maxSchemaAgreementWaitSeconds,
    },
    socketOptions: { connectTimeout: o.socketOptions?.connectTimeout, readTimeout: o.socketOptions?.readTimeout },
    pooling: {
      coreConnectionsPerHost: capConnections(o.pooling?.coreConnectionsPerHost?.[0]),
      heartBeatInterval: o.pooling?.heartBeatInterval,
      maxRequestsPerConnection: o.pooling?.maxRequestsPerConnection,
      warmup: o.pooling?.warmup,
    },
    queryOptions: { consistency: qo.consistency, fetchSize: qo.fetchSize, prepare: qo.prepare, isIdempotent: qo.isIdempotent },
    policies: policy.policies,
    addressTranslator: translatorOption(o.policies?.addressResolution, o.contactPoints ?? [], o.protocolOptions?.port ?? 9042),
    encoding: { useUndefinedAsUnset: o.encoding?.useUndefinedAsUnset ?? true, dataStaxValues: true },
    maxPrepared: o.maxPrepared,
    // DataStax's defaults: both on.
    prepareOnAllHosts: o.prepareOnAllHosts ?? true,
    rePrepareOnUp: o.rePrepareOnUp ?? true,
    refreshSchemaDelay: o.refreshSchemaDelay,
    tls: ssl
      ? { ca: pem(ssl.ca), cert: pem(ssl.cert), key: pem(ssl.key), rejectUnauthorized: ssl.rejectUnauthorized ?? true, serverName: ssl.servername }
      : undefined,
    ...o.cqlwire,
  };
  return dropUndefined(options) as ClientOptions;
}

/** zod treats an explicit `undefined` as given: leave absent fields absent (in plain objects only). */
function dropUndefined(v: unknown): unknown {
  if (v === null || typeof v !== "object" || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    const inner = dropUndefined(x);
    if (inner !== null && typeof inner === "object" && !Array.isArray(inner) && Object.keys(inner).length === 0 && typeof x === "object" && x !== null && x.constructor === Object) continue;
    out[k] = inner;
  }
  return out;
}

/** Per-query options: the profile's settings under the query's own. */
export function executeOptions(q: CompatQueryOptions | undefined, profiles: Map<string, ExecutionProfile>): ExecuteOptions & BatchOptions {
  if (q === undefined || q === null) return {};
  // Per-query choices the core cannot follow: refused rather than ignored.
  if (q.retry !== undefined) throw new NotSupportedError("options.retry: per-query retry policies are not supported: set policies.retry on the Client");
  if (q.host !== undefined) throw new NotSupportedError("options.host: sending a query to a chosen host is not supported");
  if (q.customPayload !== undefined) throw new NotSupportedError("options.customPayload: sending a custom payload is not supported");
  const named = q.executionProfile;
  const profile = typeof named === "string" ? profiles.get(named) : named;
  // DataStax always has a "default" profile: the client's own options, which apply here anyway.
  if (typeof named === "string" && profile === undefined && named !== "default") throw new ArgumentError(`Execution profile "${named}" not found`);
  const ts = q.timestamp;
  const out: ExecuteOptions & BatchOptions = {
    prepare: q.prepare,
    consistency: q.consistency ?? profile?.consistency,
    serialConsistency: q.serialConsistency ?? profile?.serialConsistency,
    fetchSize: q.fetchSize,
    pageState: q.pageState,
    isIdempotent: q.isIdempotent,
    readTimeout: q.readTimeout ?? profile?.readTimeout,
    traceQuery: q.traceQuery,
    timestamp: ts === undefined || ts === null ? undefined : typeof ts === "object" ? longToBigInt(ts as never) : ts,
    hints: q.hints,
    // DataStax sends a query's keyspace only on DSE's protocol (DSE_V2), never to Apache
    // Cassandra (it stays on v4 there): an unqualified table is the server's "No keyspace has
    // been specified". The keyspace only names the replicas a routingKey routes to, which is
    // cqlwire's same option: passed on with a routingKey alone (and then sent on v5).
    keyspace: q.routingKey === undefined || q.routingKey === null ? undefined : q.keyspace,
    logged: q.logged,
    counter: q.counter,
  };
  return dropUndefined(out) as ExecuteOptions & BatchOptions;
}
