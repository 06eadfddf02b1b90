/**
 * `cqlwire/compat`: the DataStax Node.js driver's (`cassandra-driver` 4.x) API over cqlwire.
 * Code written for it runs by changing the import or the `require`. The runtime entries
 * (node.ts, deno.ts, workerd.ts) plug in their client and re-export this module.
 */
import {
  ArgumentError,
  AuthenticationError,
  ConnectionError,
  DriverError,
  DriverInternalError,
  NoHostAvailableError,
  NotSupportedError,
  OperationTimedOutError,
  ResponseError,
} from "../src/errors.ts";
import { consistencies } from "../src/types.ts";

export { Client, ClientState, setCompatRuntime } from "./client.ts";
export type { CompatRuntime, RowStream } from "./client.ts";
export { ExecutionProfile } from "./options.ts";
export type { CompatClientOptions as ClientOptions, CompatQueryOptions as QueryOptions } from "./options.ts";
export { Host, HostMap } from "./hosts.ts";
export { concurrent } from "./concurrent.ts";
export { auth, mapping, metadata, metrics, policies, setResultStream, tracker, types } from "./namespaces.ts";
export { ExecutionOptions } from "./execution_options.ts";
export type { EmptyCallback, QueryTrace, ValueCallback } from "./client.ts";
export { token } from "./token.ts";
export { protocolVersion } from "./types.ts";
export type { EncodingOptions } from "./convert.ts";

/** Raised by the DataStax driver when a connection has no free stream ids; cqlwire queues instead. */
export class BusyConnectionError extends DriverError {
  constructor(address: string, maxRequestsPerConnection: number, connectionLength: number) {
    const on = connectionLength === 1 ? "a single connection" : "each connection";
    super(`All connections to host ${address} are busy, ${maxRequestsPerConnection} requests are in-flight on ${on}`, "ERR_BUSY");
    this.name = "BusyConnectionError";
  }
}

export const errors = {
  ArgumentError,
  AuthenticationError,
  BusyConnectionError,
  ConnectionError,
  DriverError,
  DriverInternalError,
  NoHostAvailableError,
  NotSupportedError,
  OperationTimedOutError,
  ResponseError,
};

function notSupported(what: string, why: string): Record<never, never> {
  return new Proxy({}, {
    get(_t, key) {
      if (typeof key === "symbol" || key === "then") return undefined;
      throw new NotSupportedError(`${what}.${String(key)} is not supported by cqlwire: ${why}`);
    },
  });
}

/** DSE-only features (graph, geotypes, DSE auth schemes) have no Apache Cassandra counterpart. */
export const datastax: Record<never, never> = notSupported("datastax", "DSE graph and search run only on DataStax Enterprise");
export const geometry: Record<never, never> = notSupported("geometry", "DSE geotypes (Point, LineString, Polygon) exist only on DataStax Enterprise");

/** The DataStax driver's version this API follows. */
export const version = "4.8.0-cqlwire";

/** What `defaultOptions()` returns: DataStax's option tree with the values cqlwire applies. */
export interface DefaultOptions {
  policies: Record<never, never>;
  queryOptions: { fetchSize: number; prepare: boolean; consistency: number };
  protocolOptions: { port: number; maxSchemaAgreementWaitSeconds: number };
  socketOptions: { connectTimeout: number; readTimeout: number };
  pooling: { heartBeatInterval: number };
  encoding: { useUndefinedAsUnset: boolean };
  isMetadataSyncEnabled: boolean;
  maxPrepared: number;
  prepareOnAllHosts: boolean;
  rePrepareOnUp: boolean;
  refreshSchemaDelay: number;
}

export function defaultOptions(): DefaultOptions {
  return {
    policies: {},
    queryOptions: { fetchSize: 5000, prepare: false, consistency: consistencies.localOne },
    protocolOptions: { port: 9042, maxSchemaAgreementWaitSeconds: 10 },
    socketOptions: { connectTimeout: 5000, readTimeout: 12000 },
    pooling: { heartBeatInterval: 30000 },
    encoding: { useUndefinedAsUnset: true },
    isMetadataSyncEnabled: true,
    maxPrepared: 500,
    prepareOnAllHosts: true,
    rePrepareOnUp: true,
    refreshSchemaDelay: 1000,
  };
}
