// ResultSet: what a result carries per request, and its rarely set fields (page source,
// tried hosts, warnings, trace id, info) behaving as before they moved into one side slot.
import { NO_WARNINGS, type PageSource, ResultSet, type Row } from "../../driver/src/result.ts";
import { DriverError } from "../../driver/src/errors.ts";
import { assertExact } from "../exact.mjs";

const assertEquals = assertExact;
function assertStrictEquals(actual: unknown, expected: unknown): void {
  if (actual !== expected) throw new Error(`expected the same value: ${String(actual)} is not ${String(expected)}`);
}

const COLUMNS = [{ name: "k", type: "bigint", keyspace: "ks", table: "t" }];

Deno.test("a result keeps eight own fields: the rare ones share one slot until one is set", () => {
  const rs = new ResultSet([{ k: 1n }], COLUMNS, null, "10.0.0.1:9042", 1, NO_WARNINGS, null);
  // Each own field is 8 bytes of every result on V8 without pointer compression (Node, Deno):
  // twelve fields made a result 120 bytes, these eight 88.
  assertEquals(Object.keys(rs), ["rows", "columns", "rawPageState", "consistency", "columnSpecs", "host", "attempts", "extras"]);
  assertStrictEquals(rs.source, null);
  assertStrictEquals(rs.tried, undefined);
  assertStrictEquals((rs as unknown as { extras: unknown }).extras, undefined);
});

Deno.test("info reports host, attempts, warnings, trace id, tried hosts and consistency, once", () => {
  const warnings = ["Aggregation query used without partition key"];
  const rs = new ResultSet<Row>([], [], null, "10.0.0.2:9042", 2, warnings, "5b7e9e4c-0000-4000-8000-000000000001");
  rs.tried = { hosts: { "10.0.0.1:9042": "timed out" }, speculativeExecutions: 1, attempts: [], answeredInMs: 0 };
  rs.consistency = 6;
  const info = rs.info;
  assertEquals(info, {
    queriedHost: "10.0.0.2:9042",
    triedHosts: { "10.0.0.1:9042": "timed out" },
    achievedConsistency: 6,
    speculativeExecutions: 1,
    isSchemaInAgreement: true,
    warnings,
    traceId: "5b7e9e4c-0000-4000-8000-000000000001",
    customPayload: undefined,
    attempts: 2,
  });
  assertStrictEquals(info.warnings, warnings);
  assertStrictEquals(rs.info, info);
});

Deno.test("info without warnings or a trace: empty warnings, null trace id, the source's consistency", () => {
  const rs = new ResultSet<Row>([], [], new Uint8Array([1]), "10.0.0.3:9042", 1, NO_WARNINGS, null);
  const source: PageSource = { consistency: 4, fetchPage: () => Promise.reject(new Error("unused")) };
  rs.source = source;
  assertStrictEquals(rs.source, source);
  assertEquals(rs.info.warnings, []);
  assertStrictEquals(rs.info.traceId, null);
  assertStrictEquals(rs.info.achievedConsistency, 4);
  assertEquals(rs.info.triedHosts, {});
  assertStrictEquals(rs.info.speculativeExecutions, 0);
});

Deno.test("the next page comes from the source set later, with the paging state", async () => {
  const state = new Uint8Array([0xca, 0xfe]);
  const rs = new ResultSet<Row>([], [], state, "10.0.0.4:9042", 1, NO_WARNINGS, null);
  const error = await rs.fetchNextPage().then(() => null, (e) => e);
  assertStrictEquals(error instanceof DriverError, true);
  assertEquals([error.code, error.message], ["ERR_NO_PAGE_SOURCE", "this result set does not know the statement it came from"]);
  const next = new ResultSet<Row>([{ k: 2n }], COLUMNS, null, "10.0.0.4:9042", 1, NO_WARNINGS, null);
  let asked: Uint8Array | null = null;
  rs.source = { consistency: undefined, fetchPage: (s) => (asked = s, Promise.resolve(next)) };
  assertStrictEquals(await rs.fetchNextPage(), next);
  assertStrictEquals(asked, state);
  assertEquals(rs.pageState, "cafe");
  assertStrictEquals(await next.fetchNextPage(), null);
});
