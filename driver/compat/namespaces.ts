/**
 * `types`, `policies`, `mapping` and `auth` as namespaces, as DataStax's declarations make them:
 * their classes are then types too (`let rs: types.ResultSet`, `import Uuid = types.Uuid`,
 * `let p: policies.loadBalancing.LoadBalancingPolicy`), which plain objects are not. At run
 * time each is still a plain object with the same members in the same order.
 * (tests/package/datastax_types/ compiles DataStax's TypeScript tests against these.)
 */
// deno-lint-ignore-file no-namespace
import * as a from "./auth.ts";
import * as m from "./mapping.ts";
import * as p from "./policies.ts";
import * as t from "./types.ts";
import * as meta from "../src/metadata.ts";
import type * as schema from "./schema.ts";
import * as tr from "./tracker.ts";
import * as mt from "./metrics.ts";
import type * as c from "./client.ts";
import type { ResultStreamLike } from "./stream.ts";

export namespace types {
  export import consistencies = t.consistencies;
  export import consistencyToString = t.consistencyToString;
  export import generateTimestamp = t.generateTimestamp;
  export import timeuuid = t.timeuuid;
  export import uuid = t.uuid;
  export import dataTypes = t.dataTypes;
  export import getDataTypeNameByCode = t.getDataTypeNameByCode;
  export import distance = t.distance;
  export import responseErrorCodes = t.responseErrorCodes;
  export import protocolVersion = t.protocolVersion;
  export import unset = t.unset;
  export import Long = t.Long;
  export import Integer = t.Integer;
  export import BigDecimal = t.BigDecimal;
  export import Uuid = t.Uuid;
  export import TimeUuid = t.TimeUuid;
  export import LocalDate = t.LocalDate;
  export import LocalTime = t.LocalTime;
  export import InetAddress = t.InetAddress;
  export import Tuple = t.Tuple;
  export import Duration = t.Duration;
  export import Vector = t.Vector;
  export import Row = t.Row;
  export import ResultSet = t.ResultSet;
  export import CqlDate = t.CqlDate;
  export import CqlDecimal = t.CqlDecimal;
  export import CqlDuration = t.CqlDuration;
  export import CqlTime = t.CqlTime;
  export import CqlTimestamp = t.CqlTimestamp;
  /** What `client.stream()` returns on Node, Bun and Deno (a value there too; see setResultStream). */
  export interface ResultStream extends ResultStreamLike {}
}

/**
 * `types.ResultStream` is a Node `Readable` subclass: the runtime entries that have
 * `node:stream` (node.ts, deno.ts) define it and set it here; a Worker has none.
 */
export function setResultStream(ResultStream: unknown): void {
  (types as unknown as Record<string, unknown>).ResultStream = ResultStream;
}

export namespace policies {
  export namespace loadBalancing {
    export import LoadBalancingPolicy = p.LoadBalancingPolicy;
    export import RoundRobinPolicy = p.RoundRobinPolicy;
    export import DCAwareRoundRobinPolicy = p.DCAwareRoundRobinPolicy;
    export import TokenAwarePolicy = p.TokenAwarePolicy;
    export import AllowListPolicy = p.AllowListPolicy;
    export import WhiteListPolicy = p.WhiteListPolicy;
    export import DefaultLoadBalancingPolicy = p.DefaultLoadBalancingPolicy;
  }
  export namespace retry {
    export import RetryPolicy = p.RetryPolicy;
    export import IdempotenceAwareRetryPolicy = p.IdempotenceAwareRetryPolicy;
    export import FallthroughRetryPolicy = p.FallthroughRetryPolicy;
  }
  export namespace reconnection {
    export import ReconnectionPolicy = p.ReconnectionPolicy;
    export import ConstantReconnectionPolicy = p.ConstantReconnectionPolicy;
    export import ExponentialReconnectionPolicy = p.ExponentialReconnectionPolicy;
  }
  export namespace speculativeExecution {
    export import SpeculativeExecutionPolicy = p.SpeculativeExecutionPolicy;
    export import NoSpeculativeExecutionPolicy = p.NoSpeculativeExecutionPolicy;
    export import ConstantSpeculativeExecutionPolicy = p.ConstantSpeculativeExecutionPolicy;
  }
  export namespace timestampGeneration {
    export import TimestampGenerator = p.TimestampGenerator;
    export import MonotonicTimestampGenerator = p.MonotonicTimestampGenerator;
  }
  export namespace addressResolution {
    export import AddressTranslator = p.AddressTranslator;
    export import EC2MultiRegionTranslator = p.EC2MultiRegionTranslator;
  }
  export function defaultLoadBalancingPolicy(localDc?: string): p.LoadBalancingPolicy {
    return new p.DefaultLoadBalancingPolicy({ localDc });
  }
  export function defaultRetryPolicy(): p.RetryPolicy {
    return new p.RetryPolicy();
  }
  export function defaultReconnectionPolicy(): p.ReconnectionPolicy {
    return new p.ExponentialReconnectionPolicy(1000, 10 * 60 * 1000, false);
  }
  export function defaultSpeculativeExecutionPolicy(): p.SpeculativeExecutionPolicy {
    return new p.NoSpeculativeExecutionPolicy();
  }
  export function defaultTimestampGenerator(): p.TimestampGenerator {
    return new p.MonotonicTimestampGenerator();
  }
  export function defaultAddressTranslator(): p.AddressTranslator {
    return new p.AddressTranslator();
  }
}

export namespace mapping {
  export import Mapper = m.Mapper;
  export import ModelMapper = m.ModelMapper;
  export import TableMappings = m.TableMappings;
  export import DefaultTableMappings = m.DefaultTableMappings;
  export import UnderscoreCqlToCamelCaseMappings = m.UnderscoreCqlToCamelCaseMappings;
  export import Result = m.Result;
  export import ModelBatchMapper = m.ModelBatchMapper;
  export import ModelBatchItem = m.ModelBatchItem;
  export import q = m.q;
}

export namespace auth {
  export import Authenticator = a.Authenticator;
  export import AuthProvider = a.AuthProvider;
  export import PlainTextAuthenticator = a.PlainTextAuthenticator;
  export import PlainTextAuthProvider = a.PlainTextAuthProvider;
  export import DsePlainTextAuthProvider = a.DsePlainTextAuthProvider;
}

/**
 * The shapes `client.metadata` gives, as types; at run time `metadata.Metadata` only, as
 * DataStax's (code gets its metadata from `client.metadata`, not by constructing one).
 */
export namespace metadata {
  export import Metadata = meta.Metadata;
  export type TableMetadata = schema.TableMetadata;
  export type MaterializedView = schema.MaterializedView;
  export type KeyspaceMetadata = meta.KeyspaceMetadata;
  export type ColumnInfo = schema.SchemaColumn;
  export type DataTypeInfo = meta.DataTypeInfo;
  export type Udt = schema.UdtInfo;
  export type QueryTrace = c.QueryTrace;
}

/** Request trackers: `requestTracker` in the client's options (compat/tracking.ts). */
export namespace tracker {
  export import RequestTracker = tr.RequestTracker;
  export import RequestLogger = tr.RequestLogger;
}

/** What `client.metrics` reports to: `metrics` in the client's options, else a `DefaultMetrics`. */
export namespace metrics {
  export import ClientMetrics = mt.ClientMetrics;
  export import DefaultMetrics = mt.DefaultMetrics;
}
