// Murmur3 tokens as Cassandra 5.0 computes them (expected values taken from
// `SELECT token(k)` on a live node), key serialization, and the replica lookup.

import { parseCqlType } from "../../cli/cql_type.ts";
import {
  MAX_TOKEN,
  MIN_TOKEN,
  murmur3Token,
  ReplicaMap,
  routingKey,
  serializeKeyValue,
  TokenCalculator,
} from "../../cli/load/token.ts";
import { assertEquals } from "./assert.ts";

const BIGINT = parseCqlType("bigint");
const TEXT = parseCqlType("text");

Deno.test("bigint and text keys hash to the server's tokens", () => {
  const bigints: Array<[bigint, bigint]> = [
    [0n, 2945182322382062539n],
    [1n, 6292367497774912474n],
    [42n, 8623491988607824794n],
    [-5n, -3990791270766580267n],
    [123456789012n, 1450425140498147066n],
  ];
  for (const [key, token] of bigints) assertEquals(murmur3Token(serializeKeyValue(key, BIGINT)!), token, `${key}`);
  const texts: Array<[string, bigint]> = [
    ["a", -8839064797231613815n],
    ["hello", -3758069500696749310n],
    // Tail bytes >= 0x80 are where Cassandra's signed-byte variant differs from the reference.
    ["ünïcødé", 1432665298865743083n],
    ["a much longer text key over sixteen bytes é", 847776653946912242n],
  ];
  for (const [key, token] of texts) assertEquals(murmur3Token(serializeKeyValue(key, TEXT)!), token, key);
  assertEquals(murmur3Token(new Uint8Array(0)), MIN_TOKEN);
});

Deno.test("composite partition keys hash their length-prefixed components", () => {
  const calculator = new TokenCalculator([2, 0], [BIGINT, TEXT]);
  assertEquals(calculator.tokenOf(["x", "ignored", 1n]), 5520533170523442436n);
  assertEquals(
    routingKey([Uint8Array.of(1, 2), Uint8Array.of(3)]),
    Uint8Array.of(0, 2, 1, 2, 0, 0, 1, 3, 0),
  );
  assertEquals(calculator.tokenOf([null, "x", 1n]), null);
  assertEquals(TokenCalculator.supports([parseCqlType("varint")]), false);
  assertEquals(TokenCalculator.supports([BIGINT, TEXT, parseCqlType("uuid")]), true);
});

Deno.test("other key types serialize as the protocol does", () => {
  assertEquals(serializeKeyValue(1, parseCqlType("int")), Uint8Array.of(0, 0, 0, 1));
  assertEquals(serializeKeyValue("1970-01-02", parseCqlType("date")), Uint8Array.of(0x80, 0, 0, 1));
  assertEquals(serializeKeyValue("00:00:00.000000001", parseCqlType("time")), Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1));
  assertEquals(serializeKeyValue("::1", parseCqlType("inet"))?.length, 16);
  assertEquals(serializeKeyValue("10.0.0.1", parseCqlType("inet")), Uint8Array.of(10, 0, 0, 1));
  assertEquals(
    serializeKeyValue("123e4567-e89b-12d3-a456-426614174000", parseCqlType("uuid"))?.[0],
    0x12,
  );
});

Deno.test("tokens map to the replicas of the range (start, end] holding them", () => {
  const map = new ReplicaMap([
    { start: 100n, end: -100n, replicas: ["a"] },
    { start: -100n, end: 0n, replicas: ["b", "c"] },
    { start: 0n, end: 100n, replicas: ["c", "b"] },
  ]);
  assertEquals(map.replicaKey(-100n), "a");
  assertEquals(map.replicaKey(-99n), "b,c");
  assertEquals(map.replicaKey(0n), "b,c");
  assertEquals(map.replicaKey(100n), "b,c");
  assertEquals(map.replicaKey(101n), "a");
  assertEquals(map.replicaKey(MAX_TOKEN), "a");
  assertEquals(map.replicaKey(MIN_TOKEN), "a");
});
