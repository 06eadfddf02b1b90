// Client options: defaults filled in exactly, absent stays absent, every bad field named with
// what is wrong (driver/src/options.ts checks them by hand since zod left the driver, #17).
// Run: deno test -A tests/ts/options_test.ts
import { assertExact } from "../exact.mjs";
import { ArgumentError } from "../../driver/src/errors.ts";
import { type ClientOptions, resolveOptions } from "../../driver/src/options.ts";

const DEFAULTS = {
  contactPoints: ["db1"],
  protocolOptions: { port: 9042, maxSchemaAgreementWaitSeconds: 10 },
  compression: "none",
  socketOptions: { connectTimeout: 5000, readTimeout: 12000, coalescingMaxBytes: 4 * 1024 * 1024, coalescingWindowMicros: 0 },
  pooling: { coreConnectionsPerHost: 1, heartBeatInterval: 30000, maxRequestsPerConnection: 32768, warmup: true },
  queryOptions: { fetchSize: 5000, prepare: false, isIdempotent: false },
  policies: { maxAttempts: 3, speculativeMaxExtra: 1 },
  encoding: { useUndefinedAsUnset: true, dataStaxValues: false },
  maxPrepared: 500,
  discoverPeers: true,
  prepareOnAllHosts: false,
  rePrepareOnUp: false,
  refreshSchemaDelay: 1000,
};

function rejection(options: unknown): string {
  try {
    resolveOptions(options as ClientOptions);
  } catch (e) {
    if (!(e instanceof ArgumentError)) throw e;
    assertExact([e.name, e.code], ["ArgumentError", "ERR_ARGUMENT"]);
    return e.message;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

Deno.test("every default is filled in; explicit undefined is absent; unknown fields are dropped", () => {
  assertExact(resolveOptions({ contactPoints: ["db1"] }), DEFAULTS);
  const noisy = { contactPoints: ["db1"], keyspace: undefined, tls: undefined, pooling: { orphanLimit: undefined }, unknown: 1 };
  assertExact(resolveOptions(noisy as ClientOptions), DEFAULTS);
});

Deno.test("given fields are kept, nested defaults are filled beside them", () => {
  const options: ClientOptions = {
    contactPoints: ["db1:9043", "[::1]:9042", "::1"],
    localDataCenter: "dc1",
    protocolOptions: { maxVersion: 5, maxFrameBytes: 1024 },
    tls: { cert: "C", key: "K" },
    pooling: { orphanLimit: 7 },
    queryOptions: { consistency: 0, prepare: true },
    policies: { allowList: ["db1"], reconnection: { baseDelay: 5 } },
    encoding: { useUndefinedAsUnset: false },
    requestTimeout: 250,
  };
  assertExact(resolveOptions(options), {
    ...DEFAULTS,
    contactPoints: ["db1:9043", "[::1]:9042", "::1"],
    localDataCenter: "dc1",
    protocolOptions: { port: 9042, maxVersion: 5, maxSchemaAgreementWaitSeconds: 10, maxFrameBytes: 1024 },
    tls: { rejectUnauthorized: true, cert: "C", key: "K" },
    pooling: { ...DEFAULTS.pooling, orphanLimit: 7 },
    queryOptions: { consistency: 0, fetchSize: 5000, prepare: true, isIdempotent: false },
    policies: { maxAttempts: 3, speculativeMaxExtra: 1, allowList: ["db1"], reconnection: { baseDelay: 5 } },
    encoding: { useUndefinedAsUnset: false, dataStaxValues: false },
    requestTimeout: 250,
  });
});

Deno.test("one ArgumentError names every bad field and what is wrong with it", () => {
  assertExact(
    rejection({
      contactPoints: ["db 1", 7],
      protocolOptions: { port: 65536, maxVersion: 3 },
      compression: "zstd",
      tls: { cert: "C" },
      socketOptions: { connectTimeout: Number.NaN, readTimeout: 1.5 },
      pooling: "many",
      policies: { denyList: "db2", reconnection: { maxDelay: 0 } },
      discoverPeers: "yes",
      refreshSchemaDelay: -1,
      keyspace: "",
      socketFactory: {},
      authProvider: {},
    }),
    "invalid Client options: contactPoints.0: expected host or host:port; contactPoints.1: expected a string, got 7; " +
      'keyspace: must have at least 1 character(s); authProvider: expected an object with newAuthenticator(endpoint, authenticatorClass); ' +
      "tls: cert and key go together (mutual TLS needs both); socketFactory: expected a function; " +
      'protocolOptions.port: must be <= 65535, got 65536; protocolOptions.maxVersion: expected one of 4, 5, got 3; ' +
      'compression: expected one of "none", "lz4", "snappy", got "zstd"; ' +
      "socketOptions.connectTimeout: expected a finite number, got NaN; socketOptions.readTimeout: expected an integer, got 1.5; " +
      'pooling: expected an object, got "many"; policies.denyList: expected an array, got "db2"; ' +
      'policies.reconnection.maxDelay: must be >= 1, got 0; discoverPeers: expected a boolean, got "yes"; ' +
      "refreshSchemaDelay: must be >= 0, got -1",
  );
});

Deno.test("contact points: required, an array, at least one; options must be an object", () => {
  assertExact(rejection({}), "invalid Client options: contactPoints: required");
  assertExact(rejection({ contactPoints: [] }), "invalid Client options: contactPoints: at least one contact point is required");
  assertExact(rejection({ contactPoints: "db1" }), 'invalid Client options: contactPoints: expected an array, got "db1"');
  assertExact(rejection(null), "invalid Client options: (options): expected an object, got null; contactPoints: required");
});

Deno.test("credentials and authProvider exclude each other", () => {
  const authProvider = { newAuthenticator: () => ({}) };
  assertExact(
    rejection({ contactPoints: ["db1"], credentials: { username: "u", password: "p" }, authProvider }),
    "invalid Client options: credentials and authProvider: give one (credentials is SASL PLAIN)",
  );
  assertExact(rejection({ contactPoints: ["db1"], credentials: { username: "u" } }), "invalid Client options: credentials.password: required");
});
