/**
 * Every CQL type written with cqlwire and read back equal, through the real Cassandra, on
 * protocol v4 and v5, with and without LZ4, including hostile values.
 */
import { types } from "../../driver/deno.ts";
import { assertEquals, client, KS, withKeyspace } from "./helpers.ts";

const { CqlDate, CqlDecimal, CqlDuration, CqlTime, unset } = types;

const COLUMNS: Array<[string, string]> = [
  ["c_ascii", "ascii"],
  ["c_bigint", "bigint"],
  ["c_blob", "blob"],
  ["c_boolean", "boolean"],
  ["c_date", "date"],
  ["c_decimal", "decimal"],
  ["c_double", "double"],
  ["c_duration", "duration"],
  ["c_float", "float"],
  ["c_inet", "inet"],
  ["c_int", "int"],
  ["c_smallint", "smallint"],
  ["c_text", "text"],
  ["c_time", "time"],
  ["c_timestamp", "timestamp"],
  ["c_timeuuid", "timeuuid"],
  ["c_tinyint", "tinyint"],
  ["c_uuid", "uuid"],
  ["c_varint", "varint"],
  ["c_list", "list<frozen<map<text, int>>>"],
  ["c_set", "set<bigint>"],
  ["c_map", "map<text, frozen<list<int>>>"],
  ["c_tuple", "tuple<int, text, boolean>"],
  ["c_udt", "frozen<cqlwire_point>"],
  ["c_vector", "vector<float, 3>"],
  ["c_nested", "frozen<list<frozen<set<text>>>>"],
];

const big = BigInt("9".repeat(10_000));

const ROWS: Array<Record<string, unknown>> = [
  {
    c_ascii: "plain ascii",
    c_bigint: 9223372036854775807n,
    c_blob: Uint8Array.of(0, 1, 254, 255),
    c_boolean: true,
    c_date: new CqlDate(-719162), // 0001-01-01
    c_decimal: new CqlDecimal(-12345678901234567890123n, 7),
    c_double: -0,
    c_duration: new CqlDuration(14, 0, 3_600_000_000_123n),
    c_float: Math.fround(3.4028234663852886e38),
    c_inet: "::1",
    c_int: -2147483648,
    c_smallint: -32768,
    c_text: "emoji 🎉 and ‘quotes’",
    c_time: new CqlTime(86_399_999_999_999n),
    c_timestamp: new Date(-62135596800000),
    c_timeuuid: "d2177dd0-eaa2-11de-a572-001b779c76e3",
    c_tinyint: -128,
    c_uuid: "00000000-0000-0000-0000-000000000000",
    c_varint: big,
    c_list: [new Map([["a", 1]]), new Map()],
    c_set: [-9223372036854775808n, 0n, 1n],
    c_map: new Map([["", []], ["k", [1, 2, 3]]]), // the server keeps map keys sorted
    c_tuple: [1, null, false],
    c_udt: { x: 1.5, y: -2.5, label: null },
    c_vector: Float32Array.of(0.5, -1, 3.25),
    c_nested: [["a", "b"], []],
  },
  {
    c_ascii: "",
    c_bigint: -9223372036854775808n,
    c_blob: new Uint8Array(0),
    c_boolean: false,
    c_date: new CqlDate(2932896), // 9999-12-31
    c_decimal: new CqlDecimal(0n, 0),
    c_double: NaN,
    c_duration: new CqlDuration(-1, -2, -3n),
    c_float: -Infinity,
    c_inet: "192.168.0.1",
    c_int: 2147483647,
    c_smallint: 32767,
    c_text: "",
    c_time: new CqlTime(0n),
    c_timestamp: new Date(0),
    c_timeuuid: "5c1b2b6e-1a5e-11ef-9262-0242ac120002",
    c_tinyint: 127,
    c_uuid: "ffffffff-ffff-ffff-ffff-ffffffffffff",
    c_varint: -big,
    c_list: [],
    c_set: [],
    c_map: new Map(),
    c_tuple: [null, "", null],
    c_udt: { x: NaN, y: null, label: "" },
    c_vector: Float32Array.of(-0, Infinity, -Infinity),
    c_nested: [],
  },
  Object.fromEntries(COLUMNS.map(([c]) => [c, null])),
];

/** What Cassandra returns for a written value: empty collections read back as null. */
function expected(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    const emptyCollection = (Array.isArray(value) && value.length === 0 && name !== "c_tuple") || (value instanceof Map && value.size === 0);
    out[name] = emptyCollection && ["c_list", "c_set", "c_map"].includes(name) ? null : value;
  }
  return out;
}

const MATRIX = [[4, "none"], [4, "lz4"], [4, "snappy"], [5, "none"], [5, "lz4"]] as const;
for (const [protocolVersion, compression] of MATRIX) {
  {
    Deno.test(`every type round-trips on v${protocolVersion}, compression ${compression}`, async () => {
      const c = client({ protocolVersion, compression });
      try {
        await withKeyspace(c);
        await c.execute(`CREATE TYPE IF NOT EXISTS ${KS}.cqlwire_point (x double, y double, label text)`);
        const table = `${KS}.all_types_v${protocolVersion}_${compression}`;
        await c.execute(`DROP TABLE IF EXISTS ${table}`);
        await c.execute(`CREATE TABLE ${table} (id int PRIMARY KEY, ${COLUMNS.map(([n, t]) => `${n} ${t}`).join(", ")})`);
        const names = COLUMNS.map(([n]) => n);
        const insert = `INSERT INTO ${table} (id, ${names.join(", ")}) VALUES (?, ${names.map(() => "?").join(", ")})`;
        for (let i = 0; i < ROWS.length; i++) await c.execute(insert, [i, ...names.map((n) => ROWS[i][n])], { prepare: true });
        // unset leaves a column untouched rather than writing a tombstone
        await c.execute(`INSERT INTO ${table} (id, c_int, c_text) VALUES (?, ?, ?)`, [0, unset, unset], { prepare: true });
        for (let i = 0; i < ROWS.length; i++) {
          const got = (await c.execute(`SELECT ${names.join(", ")} FROM ${table} WHERE id = ?`, [i], { prepare: true })).first();
          assertEquals(got, expected(ROWS[i]), `row ${i}`);
        }
        const counters = `${KS}.counters_v${protocolVersion}_${compression}`;
        await c.execute(`CREATE TABLE IF NOT EXISTS ${counters} (id int PRIMARY KEY, n counter)`);
        await c.execute(`TRUNCATE ${counters}`);
        await c.execute(`UPDATE ${counters} SET n = n + ? WHERE id = 1`, [9223372036854775807n], { prepare: true });
        await c.execute(`UPDATE ${counters} SET n = n - ? WHERE id = 1`, [7n], { prepare: true });
        assertEquals((await c.execute(`SELECT n FROM ${counters} WHERE id = 1`)).first()?.n, 9223372036854775800n);
      } finally {
        await c.shutdown();
      }
    });
  }
}
