/** Client options, validated with zod so a bad field is named in the message. */
import { z } from "zod";
import type { SocketFactory } from "./socket.ts";
import type { SaslAuthProvider } from "./sasl.ts";
import { ArgumentError } from "./errors.ts";

const hostPort = z.string().min(1).refine((s) => /^(\[[0-9a-fA-F:.]+\]|[^:\s]+)(:\d{1,5})?$/.test(s) || /^[0-9a-fA-F:]+$/.test(s), {
  message: "expected host or host:port",
});

const clientOptionsSchema = z.object({
  contactPoints: z.array(hostPort).min(1, "at least one contact point is required"),
  localDataCenter: z.string().min(1).optional(),
  /** Within the local data center, prefer nodes of this rack. */
  localRack: z.string().min(1).optional(),
  keyspace: z.string().min(1).optional(),
  protocolOptions: z.object({
    port: z.number().int().min(1).max(65535).default(9042),
    maxVersion: z.union([z.literal(4), z.literal(5)]).optional(),
    /** How long the answer to a schema change waits for every node to agree. */
    maxSchemaAgreementWaitSeconds: z.number().min(0).max(600).default(10),
    /** The largest frame (or v4 envelope) accepted from a node; a larger one closes the connection. */
    maxFrameBytes: z.number().int().min(1024).max(2 ** 31 - 1).optional(),
  }).default({ port: 9042, maxSchemaAgreementWaitSeconds: 10 }),
  /** Pins the protocol version (no negotiation). */
  protocolVersion: z.union([z.literal(4), z.literal(5)]).optional(),
  credentials: z.object({ username: z.string(), password: z.string() }).optional(),
  /** A SASL authenticator in JavaScript (`newAuthenticator(endpoint, authenticatorClass)`), instead of `credentials`. */
  authProvider: z.custom<SaslAuthProvider>(
    (v) => v !== null && typeof v === "object" && typeof (v as SaslAuthProvider).newAuthenticator === "function",
    "expected an object with newAuthenticator(endpoint, authenticatorClass)",
  ).optional(),
  compression: z.enum(["none", "lz4", "snappy"]).default("none"),
  tls: z.object({
    ca: z.string().optional(),
    rejectUnauthorized: z.boolean().default(true),
    serverName: z.string().optional(),
    /** PEM client certificate (chain) and unencrypted private key, for servers that require client certificates. */
    cert: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
  }).refine((t) => (t.cert === undefined) === (t.key === undefined), { message: "cert and key go together (mutual TLS needs both)" }).optional(),
  socketOptions: z.object({
    /** Bounds TCP connect and, in the core, the handshake; 3x it bounds connect() and must fit a JS timer. */
    connectTimeout: z.number().int().positive().max(715_827_882).default(5000),
    /** 0 means no timeout, as in the DataStax driver: the longest a JS timer waits (about 24.8 days). */
    readTimeout: z.number().int().min(0).max(2_147_483_647).default(12000),
    /** The largest single socket write; a larger flush goes out in several writes. */
    coalescingMaxBytes: z.number().int().min(1024).default(4 * 1024 * 1024),
    /**
     * Extra time to let requests pile up before a flush, for very high concurrency. 0 (the
     * default) flushes at the end of the event-loop turn; JS timers have ms granularity, so
     * anything below 1000 µs waits one macrotask instead.
     */
    coalescingWindowMicros: z.number().int().min(0).max(100_000).default(0),
  }).default({ connectTimeout: 5000, readTimeout: 12000, coalescingMaxBytes: 4 * 1024 * 1024, coalescingWindowMicros: 0 }),
  pooling: z.object({
    coreConnectionsPerHost: z.number().int().min(1).max(64).default(1),
    heartBeatInterval: z.number().int().min(0).default(30000),
    maxRequestsPerConnection: z.number().int().min(2).max(32768).default(32768),
    /** Stream ids whose request timed out and may still be answered; beyond this the connection is replaced. */
    orphanLimit: z.number().int().min(1).optional(),
  }).default({ coreConnectionsPerHost: 1, heartBeatInterval: 30000, maxRequestsPerConnection: 32768 }),
  queryOptions: z.object({
    consistency: z.number().int().min(0).max(10).optional(),
    fetchSize: z.number().int().positive().default(5000),
    prepare: z.boolean().default(false),
    isIdempotent: z.boolean().default(false),
  }).default({ fetchSize: 5000, prepare: false, isIdempotent: false }),
  policies: z.object({
    /** Attempts per request (the first included) for idempotent statements. */
    maxAttempts: z.number().int().min(1).max(10).default(3),
    /** Send a speculative execution to the next node after this many ms (idempotent only). */
    speculativeDelay: z.number().int().positive().optional(),
    speculativeMaxExtra: z.number().int().min(1).max(5).default(1),
    /** With localDataCenter: also use nodes of other data centers once the local ones are down. */
    allowRemoteDcs: z.boolean().optional(),
    /** Only these nodes (host:port) get requests (the DataStax AllowListPolicy). */
    allowList: z.array(hostPort).optional(),
    /** These nodes (host:port) never get requests. */
    denyList: z.array(hostPort).optional(),
    /** Reconnection backoff to a down node, in ms (the DataStax ExponentialReconnectionPolicy's names). */
    reconnection: z.object({ baseDelay: z.number().int().positive().optional(), maxDelay: z.number().int().positive().optional() }).optional(),
  }).default({ maxAttempts: 3, speculativeMaxExtra: 1 }),
  encoding: z.object({
    /** A parameter that is `undefined` leaves its column unset (as the DataStax driver does); false binds null. */
    useUndefinedAsUnset: z.boolean().default(true),
  }).default({ useUndefinedAsUnset: true }),
  /** Prepared statements kept per client (the DataStax driver's default is 500 too). */
  maxPrepared: z.number().int().min(1).default(500),
  /** Connect to nodes discovered through system.peers, not only the contact points. */
  discoverPeers: z.boolean().default(true),
  /** A statement prepared on one node is prepared on every connected node too (DataStax's default: true). */
  prepareOnAllHosts: z.boolean().default(false),
  /** A node that comes back up gets every prepared statement again (DataStax's default: true). */
  rePrepareOnUp: z.boolean().default(false),
  /** Shorthand for `socketOptions.readTimeout`. */
  requestTimeout: z.number().int().positive().optional(),
  socketFactory: z.custom<SocketFactory>((v) => typeof v === "function", "expected a function").optional(),
});

/** What `new Client()` accepts. Written out so the shipped declarations do not need zod. */
export interface ClientOptions {
  contactPoints: string[];
  localDataCenter?: string;
  localRack?: string;
  keyspace?: string;
  protocolOptions?: { port?: number; maxVersion?: 4 | 5; maxSchemaAgreementWaitSeconds?: number; maxFrameBytes?: number };
  protocolVersion?: 4 | 5;
  credentials?: { username: string; password: string };
  authProvider?: SaslAuthProvider;
  compression?: "none" | "lz4" | "snappy";
  tls?: { ca?: string; rejectUnauthorized?: boolean; serverName?: string; cert?: string; key?: string };
  socketOptions?: { connectTimeout?: number; readTimeout?: number; coalescingMaxBytes?: number; coalescingWindowMicros?: number };
  pooling?: { coreConnectionsPerHost?: number; heartBeatInterval?: number; maxRequestsPerConnection?: number; orphanLimit?: number };
  queryOptions?: { consistency?: number; fetchSize?: number; prepare?: boolean; isIdempotent?: boolean };
  policies?: { maxAttempts?: number; speculativeDelay?: number; speculativeMaxExtra?: number } & PlacementPolicies;
  encoding?: { useUndefinedAsUnset?: boolean };
  maxPrepared?: number;
  discoverPeers?: boolean;
  prepareOnAllHosts?: boolean;
  rePrepareOnUp?: boolean;
  requestTimeout?: number;
  socketFactory?: SocketFactory;
}

/** Which nodes get requests, and how fast a down node is retried. */
export interface PlacementPolicies {
  allowRemoteDcs?: boolean;
  allowList?: string[];
  denyList?: string[];
  reconnection?: { baseDelay?: number; maxDelay?: number };
}

/** The options after validation, with every default filled in. */
export interface ResolvedOptions extends Omit<ClientOptions, "protocolOptions" | "compression" | "tls" | "socketOptions" | "pooling" | "queryOptions" | "policies" | "discoverPeers" | "encoding" | "maxPrepared" | "prepareOnAllHosts" | "rePrepareOnUp"> {
  protocolOptions: { port: number; maxVersion?: 4 | 5; maxSchemaAgreementWaitSeconds: number; maxFrameBytes?: number };
  compression: "none" | "lz4" | "snappy";
  tls?: { ca?: string; rejectUnauthorized: boolean; serverName?: string; cert?: string; key?: string };
  socketOptions: { connectTimeout: number; readTimeout: number; coalescingMaxBytes: number; coalescingWindowMicros: number };
  pooling: { coreConnectionsPerHost: number; heartBeatInterval: number; maxRequestsPerConnection: number; orphanLimit?: number };
  queryOptions: { consistency?: number; fetchSize: number; prepare: boolean; isIdempotent: boolean };
  policies: { maxAttempts: number; speculativeDelay?: number; speculativeMaxExtra: number } & PlacementPolicies;
  encoding: { useUndefinedAsUnset: boolean };
  maxPrepared: number;
  discoverPeers: boolean;
  prepareOnAllHosts: boolean;
  rePrepareOnUp: boolean;
}

// The interfaces and the schema must describe the same options: this fails to compile when not.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesInterfaces: Same<z.input<typeof clientOptionsSchema>, ClientOptions> & Same<z.output<typeof clientOptionsSchema>, ResolvedOptions> = true;
void schemaMatchesInterfaces;

export function resolveOptions(options: ClientOptions): ResolvedOptions {
  const parsed = clientOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => {
      const path = i.path.length ? i.path.join(".") : "(options)";
      return `${path}: ${i.message}`;
    });
    throw new ArgumentError(`invalid Client options: ${issues.join("; ")}`);
  }
  if (parsed.data.credentials && parsed.data.authProvider) {
    throw new ArgumentError("invalid Client options: credentials and authProvider: give one (credentials is SASL PLAIN)");
  }
  return parsed.data;
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
