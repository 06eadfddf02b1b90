/** Client options, validated field by field so a bad field is named in the message. */
import type { SocketFactory } from "./socket.ts";
import type { SaslAuthProvider } from "./sasl.ts";
import type { AddressTranslator } from "./address_translator.ts";
import { ArgumentError } from "./errors.ts";
import { arrayAt, booleanAt, defined, numberAt, objectAt, oneOfAt, OptionIssues, stringAt } from "./option_checks.ts";

/** What `new Client()` accepts. */
export interface ClientOptions {
  /** `host`, `host:port`, `[v6]:port` or a bare IPv6 address; at least one. */
  contactPoints: string[];
  localDataCenter?: string;
  /** Within the local data center, prefer nodes of this rack. */
  localRack?: string;
  keyspace?: string;
  protocolOptions?: {
    /** 9042 by default. */
    port?: number;
    maxVersion?: 4 | 5;
    /** How long the answer to a schema change waits for every node to agree (10 s by default). */
    maxSchemaAgreementWaitSeconds?: number;
    /** The largest frame (or v4 envelope) accepted from a node; a larger one closes the connection. */
    maxFrameBytes?: number;
  };
  /** Pins the protocol version (no negotiation). */
  protocolVersion?: 4 | 5;
  credentials?: { username: string; password: string };
  /** A SASL authenticator in JavaScript (`newAuthenticator(endpoint, authenticatorClass)`), instead of `credentials`. */
  authProvider?: SaslAuthProvider;
  compression?: "none" | "lz4" | "snappy";
  tls?: {
    ca?: string;
    rejectUnauthorized?: boolean;
    serverName?: string;
    /** PEM client certificate (chain) and unencrypted private key, for servers that require client certificates. */
    cert?: string;
    key?: string;
  };
  socketOptions?: {
    /** Bounds TCP connect and, in the core, the handshake; 3x it bounds connect() and must fit a JS timer. */
    connectTimeout?: number;
    /** 0 means no timeout, as in the DataStax driver: the longest a JS timer waits (about 24.8 days). */
    readTimeout?: number;
    /** The largest single socket write; a larger flush goes out in several writes. */
    coalescingMaxBytes?: number;
    /**
     * Extra time to let requests pile up before a flush, for very high concurrency. 0 (the
     * default) flushes at the end of the event-loop turn; JS timers have ms granularity, so
     * anything below 1000 µs waits one macrotask instead.
     */
    coalescingWindowMicros?: number;
  };
  pooling?: {
    coreConnectionsPerHost?: number;
    heartBeatInterval?: number;
    maxRequestsPerConnection?: number;
    /** Stream ids whose request timed out and may still be answered; beyond this the connection is replaced. */
    orphanLimit?: number;
    /**
     * `connect()` resolves once every node in the local data center has a connection up or
     * failed to open one (true, the default, as in the DataStax driver), not as soon as the
     * cluster's metadata is read: requests made right after it then reach every node.
     */
    warmup?: boolean;
  };
  queryOptions?: { consistency?: number; fetchSize?: number; prepare?: boolean; isIdempotent?: boolean };
  policies?: {
    /** Attempts per request (the first included) for idempotent statements. */
    maxAttempts?: number;
    /** Send a speculative execution to the next node after this many ms (idempotent only). */
    speculativeDelay?: number;
    speculativeMaxExtra?: number;
  } & PlacementPolicies;
  encoding?: {
    /** A parameter that is `undefined` leaves its column unset (as the DataStax driver does); false binds null. */
    useUndefinedAsUnset?: boolean;
    /**
     * Values shaped as the DataStax driver writes them (cqlwire/compat sets it): a UDT object's
     * missing fields are written as null, a null or unset inside a collection is a TypeError, and
     * bytes for a value of any type are its serialized form.
     */
    dataStaxValues?: boolean;
  };
  /** Prepared statements kept per client (the DataStax driver's default is 500 too). */
  maxPrepared?: number;
  /** Connect to nodes discovered through system.peers, not only the contact points. */
  discoverPeers?: boolean;
  /** A statement prepared on one node is prepared on every connected node too (DataStax's default: true). */
  prepareOnAllHosts?: boolean;
  /** A node that comes back up gets every prepared statement again (DataStax's default: true). */
  rePrepareOnUp?: boolean;
  /**
   * Milliseconds topology and schema events are gathered into one refresh of the cluster view
   * (DataStax's name and default: 1000): each event slides it, and the 20th refreshes at once.
   * 0 refreshes at every event.
   */
  refreshSchemaDelay?: number;
  /** Shorthand for `socketOptions.readTimeout`. */
  requestTimeout?: number;
  socketFactory?: SocketFactory;
  /**
   * The endpoint to dial for an address (a contact point as given, or the address a node
   * advertises), asked before each connection is opened: for nodes behind NAT, Docker or EC2
   * public/private addresses. Nodes keep their advertised names everywhere else. A translator
   * that throws, rejects, answers a bad endpoint or does not answer within
   * `socketOptions.connectTimeout` fails that connection attempt (the node is down and retried).
   */
  addressTranslator?: AddressTranslator;
}

/** Which nodes get requests, and how fast a down node is retried. */
export interface PlacementPolicies {
  /** With localDataCenter: also use nodes of other data centers once the local ones are down. */
  allowRemoteDcs?: boolean;
  /** Only these nodes (host:port) get requests (the DataStax AllowListPolicy). */
  allowList?: string[];
  /** These nodes (host:port) never get requests. */
  denyList?: string[];
  /** Reconnection backoff to a down node, in ms (the DataStax ExponentialReconnectionPolicy's names). */
  reconnection?: { baseDelay?: number; maxDelay?: number };
}

/** The options after validation, with every default filled in. */
export interface ResolvedOptions extends Omit<ClientOptions, "protocolOptions" | "compression" | "tls" | "socketOptions" | "pooling" | "queryOptions" | "policies" | "discoverPeers" | "encoding" | "maxPrepared" | "prepareOnAllHosts" | "rePrepareOnUp" | "refreshSchemaDelay"> {
  protocolOptions: { port: number; maxVersion?: 4 | 5; maxSchemaAgreementWaitSeconds: number; maxFrameBytes?: number };
  compression: "none" | "lz4" | "snappy";
  tls?: { ca?: string; rejectUnauthorized: boolean; serverName?: string; cert?: string; key?: string };
  socketOptions: { connectTimeout: number; readTimeout: number; coalescingMaxBytes: number; coalescingWindowMicros: number };
  pooling: { coreConnectionsPerHost: number; heartBeatInterval: number; maxRequestsPerConnection: number; orphanLimit?: number; warmup: boolean };
  queryOptions: { consistency?: number; fetchSize: number; prepare: boolean; isIdempotent: boolean };
  policies: { maxAttempts: number; speculativeDelay?: number; speculativeMaxExtra: number } & PlacementPolicies;
  encoding: { useUndefinedAsUnset: boolean; dataStaxValues: boolean };
  maxPrepared: number;
  discoverPeers: boolean;
  prepareOnAllHosts: boolean;
  rePrepareOnUp: boolean;
  refreshSchemaDelay: number;
}

function encodingAt(issues: OptionIssues, value: unknown): ResolvedOptions["encoding"] {
  const o = objectAt(issues, "encoding", value);
  return {
    useUndefinedAsUnset: booleanAt(issues, "encoding.useUndefinedAsUnset", o?.useUndefinedAsUnset, true),
    dataStaxValues: booleanAt(issues, "encoding.dataStaxValues", o?.dataStaxValues, false),
  };
}

/** Fills in every default and checks every field; one ArgumentError names all the bad ones. */
export function resolveOptions(options: ClientOptions): ResolvedOptions {
  const issues = new OptionIssues();
  const o = objectAt(issues, "", options) ?? {};
  const resolved: ResolvedOptions = {
    ...defined({
      contactPoints: contactPointsAt(issues, o.contactPoints),
      localDataCenter: stringAt(issues, "localDataCenter", o.localDataCenter, 1),
      localRack: stringAt(issues, "localRack", o.localRack, 1),
      keyspace: stringAt(issues, "keyspace", o.keyspace, 1),
      protocolVersion: oneOfAt(issues, "protocolVersion", o.protocolVersion, [4, 5] as const),
      credentials: credentialsAt(issues, o.credentials),
      authProvider: customAt(issues, "authProvider", o.authProvider, isSaslAuthProvider, "expected an object with newAuthenticator(endpoint, authenticatorClass)"),
      tls: tlsAt(issues, o.tls),
      requestTimeout: numberAt(issues, "requestTimeout", o.requestTimeout, { integer: true, min: 1 }),
      socketFactory: customAt(issues, "socketFactory", o.socketFactory, isFunction<SocketFactory>, "expected a function"),
      addressTranslator: customAt(issues, "addressTranslator", o.addressTranslator, isFunction<AddressTranslator>, "expected a function (host, port) => endpoint"),
    }),
    protocolOptions: protocolOptionsAt(issues, o.protocolOptions),
    compression: oneOfAt(issues, "compression", o.compression, ["none", "lz4", "snappy"] as const) ?? "none",
    socketOptions: socketOptionsAt(issues, o.socketOptions),
    pooling: poolingAt(issues, o.pooling),
    queryOptions: queryOptionsAt(issues, o.queryOptions),
    policies: policiesAt(issues, o.policies),
    encoding: encodingAt(issues, o.encoding),
    maxPrepared: numberAt(issues, "maxPrepared", o.maxPrepared, { integer: true, min: 1 }, 500),
    discoverPeers: booleanAt(issues, "discoverPeers", o.discoverPeers, true),
    prepareOnAllHosts: booleanAt(issues, "prepareOnAllHosts", o.prepareOnAllHosts, false),
    rePrepareOnUp: booleanAt(issues, "rePrepareOnUp", o.rePrepareOnUp, false),
    refreshSchemaDelay: numberAt(issues, "refreshSchemaDelay", o.refreshSchemaDelay, { integer: true, min: 0 }, 1000),
  };
  if (issues.messages.length) throw new ArgumentError(`invalid Client options: ${issues.messages.join("; ")}`);
  if (resolved.credentials && resolved.authProvider) {
    throw new ArgumentError("invalid Client options: credentials and authProvider: give one (credentials is SASL PLAIN)");
  }
  return resolved;
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+)(:\d{1,5})?$/;
const BARE_IPV6 = /^[0-9a-fA-F:]+$/;

function hostPortAt(issues: OptionIssues, path: string, value: unknown): string {
  const s = stringAt(issues, path, value ?? null, 1);
  if (typeof s === "string" && s.length > 0 && !HOST_PORT.test(s) && !BARE_IPV6.test(s)) issues.add(path, "expected host or host:port");
  return s as string;
}

function contactPointsAt(issues: OptionIssues, value: unknown): string[] {
  if (value === undefined) issues.add("contactPoints", "required");
  const points = arrayAt(issues, "contactPoints", value, (path, e) => hostPortAt(issues, path, e));
  if (points?.length === 0) issues.add("contactPoints", "at least one contact point is required");
  return points ?? [];
}

function customAt<T>(issues: OptionIssues, path: string, value: unknown, is: (v: unknown) => v is T, message: string): T | undefined {
  if (value !== undefined && !is(value)) issues.add(path, message);
  return value as T | undefined;
}

function isFunction<T>(v: unknown): v is T {
  return typeof v === "function";
}

function isSaslAuthProvider(v: unknown): v is SaslAuthProvider {
  return v !== null && typeof v === "object" && typeof (v as SaslAuthProvider).newAuthenticator === "function";
}

function credentialsAt(issues: OptionIssues, value: unknown): ClientOptions["credentials"] {
  if (value === undefined) return undefined;
  const c = objectAt(issues, "credentials", value);
  if (!c) return undefined;
  return {
    username: requiredStringAt(issues, "credentials.username", c.username),
    password: requiredStringAt(issues, "credentials.password", c.password),
  };
}

function requiredStringAt(issues: OptionIssues, path: string, value: unknown): string {
  if (value === undefined) issues.add(path, "required");
  return stringAt(issues, path, value) as string;
}

function tlsAt(issues: OptionIssues, value: unknown): ResolvedOptions["tls"] {
  if (value === undefined) return undefined;
  const t = objectAt(issues, "tls", value);
  if (!t) return undefined;
  const tls = defined({
    ca: stringAt(issues, "tls.ca", t.ca),
    rejectUnauthorized: booleanAt(issues, "tls.rejectUnauthorized", t.rejectUnauthorized, true),
    serverName: stringAt(issues, "tls.serverName", t.serverName),
    cert: stringAt(issues, "tls.cert", t.cert, 1),
    key: stringAt(issues, "tls.key", t.key, 1),
  });
  if ((tls.cert === undefined) !== (tls.key === undefined)) issues.add("tls", "cert and key go together (mutual TLS needs both)");
  return tls;
}

function protocolOptionsAt(issues: OptionIssues, value: unknown): ResolvedOptions["protocolOptions"] {
  const p = objectAt(issues, "protocolOptions", value) ?? {};
  return defined({
    port: numberAt(issues, "protocolOptions.port", p.port, { integer: true, min: 1, max: 65535 }, 9042),
    maxVersion: oneOfAt(issues, "protocolOptions.maxVersion", p.maxVersion, [4, 5] as const),
    maxSchemaAgreementWaitSeconds: numberAt(issues, "protocolOptions.maxSchemaAgreementWaitSeconds", p.maxSchemaAgreementWaitSeconds, { min: 0, max: 600 }, 10),
    maxFrameBytes: numberAt(issues, "protocolOptions.maxFrameBytes", p.maxFrameBytes, { integer: true, min: 1024, max: 2 ** 31 - 1 }),
  });
}

function socketOptionsAt(issues: OptionIssues, value: unknown): ResolvedOptions["socketOptions"] {
  const s = objectAt(issues, "socketOptions", value) ?? {};
  return {
    connectTimeout: numberAt(issues, "socketOptions.connectTimeout", s.connectTimeout, { integer: true, min: 1, max: 715_827_882 }, 5000),
    readTimeout: numberAt(issues, "socketOptions.readTimeout", s.readTimeout, { integer: true, min: 0, max: 2_147_483_647 }, 12000),
    coalescingMaxBytes: numberAt(issues, "socketOptions.coalescingMaxBytes", s.coalescingMaxBytes, { integer: true, min: 1024 }, 4 * 1024 * 1024),
    coalescingWindowMicros: numberAt(issues, "socketOptions.coalescingWindowMicros", s.coalescingWindowMicros, { integer: true, min: 0, max: 100_000 }, 0),
  };
}

function poolingAt(issues: OptionIssues, value: unknown): ResolvedOptions["pooling"] {
  const p = objectAt(issues, "pooling", value) ?? {};
  return defined({
    coreConnectionsPerHost: numberAt(issues, "pooling.coreConnectionsPerHost", p.coreConnectionsPerHost, { integer: true, min: 1, max: 64 }, 1),
    heartBeatInterval: numberAt(issues, "pooling.heartBeatInterval", p.heartBeatInterval, { integer: true, min: 0 }, 30000),
    maxRequestsPerConnection: numberAt(issues, "pooling.maxRequestsPerConnection", p.maxRequestsPerConnection, { integer: true, min: 2, max: 32768 }, 32768),
    orphanLimit: numberAt(issues, "pooling.orphanLimit", p.orphanLimit, { integer: true, min: 1 }),
    warmup: booleanAt(issues, "pooling.warmup", p.warmup, true),
  });
}

function queryOptionsAt(issues: OptionIssues, value: unknown): ResolvedOptions["queryOptions"] {
  const q = objectAt(issues, "queryOptions", value) ?? {};
  return defined({
    consistency: numberAt(issues, "queryOptions.consistency", q.consistency, { integer: true, min: 0, max: 10 }),
    fetchSize: numberAt(issues, "queryOptions.fetchSize", q.fetchSize, { integer: true, min: 1 }, 5000),
    prepare: booleanAt(issues, "queryOptions.prepare", q.prepare, false),
    isIdempotent: booleanAt(issues, "queryOptions.isIdempotent", q.isIdempotent, false),
  });
}

function policiesAt(issues: OptionIssues, value: unknown): ResolvedOptions["policies"] {
  const p = objectAt(issues, "policies", value) ?? {};
  const hostList = (name: string) => arrayAt(issues, `policies.${name}`, p[name], (path, e) => hostPortAt(issues, path, e));
  return defined({
    maxAttempts: numberAt(issues, "policies.maxAttempts", p.maxAttempts, { integer: true, min: 1, max: 10 }, 3),
    speculativeDelay: numberAt(issues, "policies.speculativeDelay", p.speculativeDelay, { integer: true, min: 1 }),
    speculativeMaxExtra: numberAt(issues, "policies.speculativeMaxExtra", p.speculativeMaxExtra, { integer: true, min: 1, max: 5 }, 1),
    allowRemoteDcs: booleanAt(issues, "policies.allowRemoteDcs", p.allowRemoteDcs),
    allowList: hostList("allowList"),
    denyList: hostList("denyList"),
    reconnection: reconnectionAt(issues, p.reconnection),
  });
}

function reconnectionAt(issues: OptionIssues, value: unknown): PlacementPolicies["reconnection"] {
  if (value === undefined) return undefined;
  const r = objectAt(issues, "policies.reconnection", value);
  if (!r) return undefined;
  return defined({
    baseDelay: numberAt(issues, "policies.reconnection.baseDelay", r.baseDelay, { integer: true, min: 1 }),
    maxDelay: numberAt(issues, "policies.reconnection.maxDelay", r.maxDelay, { integer: true, min: 1 }),
  });
}

/** Splits `host`, `host:port`, `[v6]:port` and bare IPv6. */
export function parseHostPort(s: string, defaultPort: number): { host: string; port: number } {
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracket) return { host: bracket[1], port: bracket[2] ? Number(bracket[2]) : defaultPort };
  const colons = s.split(":").length - 1;
  if (colons === 1) {
    const [host, port] = s.split(":");
    return { host, port: Number(port) };
  }
  return { host: s, port: defaultPort };
}
