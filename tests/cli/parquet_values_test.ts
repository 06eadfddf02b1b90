// The Parquet pieces that pyarrow cannot write a fixture for (ENUM, the legacy converted types,
// a BYTE_ARRAY decimal, nested groups) and the exact spellings at their edges. The values
// themselves are checked end to end in parquet_test.ts against the real Cassandra.

import type { SchemaElement } from "hyparquet";
import { assertEquals } from "./assert.ts";
import { parseCqlType } from "../../driver/mod.ts";
import { parquetColumns, unfitReason, valueOf } from "../../cli/load/parquet_schema.ts";
import { openParquet, parquetLines } from "../../cli/load/parquet_input.ts";
import { decimalText, float16, LineWriter, scalarWriter, timestampJson } from "../../cli/load/parquet_values.ts";

const text = new TextDecoder();

function spell(element: SchemaElement, cql: string, value: unknown): string {
  const out = new LineWriter();
  scalarWriter(valueOf(element)!, parseCqlType(cql))(out, value);
  return text.decode(out.take());
}

Deno.test("the converted types of older writers are read as their logical types", () => {
  const of = (element: Partial<SchemaElement>) => valueOf({ name: "c", ...element } as SchemaElement);
  assertEquals(of({ type: "BYTE_ARRAY", converted_type: "ENUM" }), { kind: "string", json: false });
  assertEquals(of({ type: "BYTE_ARRAY", logical_type: { type: "ENUM" } }), { kind: "string", json: false });
  assertEquals(of({ type: "INT32", converted_type: "TIME_MILLIS" }), { kind: "time", unit: "ms" });
  assertEquals(of({ type: "INT64", converted_type: "TIMESTAMP_MICROS" }), { kind: "timestamp", unit: "us", utc: true });
  assertEquals(of({ type: "INT32", converted_type: "UINT_32" }), { kind: "integer", unsigned: true, bits: 32 });
  assertEquals(of({ type: "INT64", converted_type: "INT_64" }), { kind: "integer", unsigned: false, bits: 64 });
  assertEquals(of({ type: "BYTE_ARRAY", converted_type: "DECIMAL", scale: 3 }), { kind: "decimal", scale: 3 });
  // Types load has no reading for.
  assertEquals(of({ type: "FIXED_LEN_BYTE_ARRAY", type_length: 12, converted_type: "INTERVAL" }), null);
  assertEquals(of({ type: "BYTE_ARRAY", logical_type: { type: "BSON" } }), null);
  assertEquals(of({ type: "INT32", logical_type: { type: "UUID" } }), null);
});

Deno.test("a flat schema: primitives, 3- and 2-level lists; a struct or map is refused by name", () => {
  const schema: SchemaElement[] = [
    { name: "schema", num_children: 5 },
    { name: "a", type: "INT32", repetition_type: "REQUIRED" },
    { name: "l3", num_children: 1, converted_type: "LIST", repetition_type: "OPTIONAL" },
    { name: "list", num_children: 1, repetition_type: "REPEATED" },
    { name: "element", type: "DOUBLE", repetition_type: "OPTIONAL" },
    { name: "l2", num_children: 1, logical_type: { type: "LIST" }, repetition_type: "OPTIONAL" },
    { name: "item", type: "BOOLEAN", repetition_type: "REPEATED" },
    { name: "st", num_children: 2, repetition_type: "OPTIONAL" },
    { name: "x", type: "INT32", repetition_type: "OPTIONAL" },
    { name: "y", type: "INT32", repetition_type: "OPTIONAL" },
    { name: "r", type: "INT64", repetition_type: "REPEATED" },
  ];
  const columns = parquetColumns({ schema } as unknown as Parameters<typeof parquetColumns>[0]);
  assertEquals(columns.map((c) => [c.name, c.list, c.label]), [
    ["a", false, "INT32"],
    ["l3", true, "LIST<DOUBLE>"],
    ["l2", true, "LIST<BOOLEAN>"],
    ["st", false, "group (nested)"],
    ["r", true, "LIST<INT64>"],
  ]);
  assertEquals(unfitReason(columns[1], parseCqlType("list<double>")), null);
  assertEquals(unfitReason(columns[1], parseCqlType("frozen<set<double>>")), null);
  assertEquals(unfitReason(columns[1], parseCqlType("list<float>")), "the types do not match");
  assertEquals(unfitReason(columns[1], parseCqlType("double")), "the types do not match");
  assertEquals(unfitReason(columns[0], parseCqlType("list<int>")), "the types do not match");
  assertEquals(
    unfitReason(columns[3], parseCqlType("frozen<tuple<int, int>>")),
    "only primitive columns and lists of primitives can be loaded (a nested or unsupported type)",
  );
});

Deno.test("values are spelled with every digit", () => {
  assertEquals(decimalText(-12345n, 2), "-123.45");
  assertEquals(decimalText(5n, 4), "0.0005");
  assertEquals(decimalText(-5n, 1), "-0.5");
  assertEquals(decimalText(0n, 3), "0.000");
  assertEquals(decimalText(42n, 0), "42");
  // A BYTE_ARRAY decimal is big-endian two's complement of any length.
  const decimal = { name: "d", type: "BYTE_ARRAY", converted_type: "DECIMAL", scale: 2 } as SchemaElement;
  assertEquals(spell(decimal, "decimal", new Uint8Array([0xff, 0x85])), "-1.23");
  assertEquals(spell(decimal, "decimal", new Uint8Array([0x80, 0, 0, 0, 0, 0, 0, 0, 0])), "-23611832414348226068.48");
  const u64 = { name: "u", type: "INT64", logical_type: { type: "INTEGER", bitWidth: 64, isSigned: false } };
  assertEquals(spell(u64 as SchemaElement, "varint", -1n), "18446744073709551615");
  const u32 = { name: "u", type: "INT32", converted_type: "UINT_32" } as SchemaElement;
  assertEquals(spell(u32, "bigint", -1), "4294967295");
  const time = { name: "t", type: "INT32", converted_type: "TIME_MILLIS" } as SchemaElement;
  assertEquals(spell(time, "time", 86399999), "86399999000000");
});

Deno.test("text bytes go as they are, with only JSON's own escapes; blobs and UUIDs as hex", () => {
  const string = { name: "s", type: "BYTE_ARRAY", converted_type: "UTF8" } as SchemaElement;
  const bytes = new Uint8Array([0x61, 0x22, 0x5c, 0x0a, 0x1f, 0x7f, 0xc3, 0xa9, 0xff]);
  const out = new LineWriter();
  scalarWriter(valueOf(string)!, parseCqlType("text"))(out, bytes);
  assertEquals([...out.take()], [
    0x22,
    0x61,
    ...new TextEncoder().encode('\\"\\\\\\u000a\\u001f'),
    0x7f,
    0xc3,
    0xa9,
    0xff,
    0x22,
  ]);
  const plain = { name: "b", type: "BYTE_ARRAY" } as SchemaElement;
  assertEquals(spell(plain, "blob", new Uint8Array([0, 0xab])), '"0x00ab"');
  assertEquals(spell(plain, "text", new Uint8Array([0x68, 0x69])), '"hi"');
  const uuid = { name: "u", type: "FIXED_LEN_BYTE_ARRAY", type_length: 16, logical_type: { type: "UUID" } };
  const raw = new Uint8Array(16).map((_, i) => i * 17);
  assertEquals(spell(uuid as SchemaElement, "uuid", raw), '"00112233-4455-6677-8899-aabbccddeeff"');
  assertEquals(spell(uuid as SchemaElement, "blob", raw), '"0x00112233445566778899aabbccddeeff"');
});

Deno.test("floats: FLOAT16 exactly, -0, NaN and the infinities", () => {
  assertEquals(float16(new Uint8Array([0x00, 0x3c])), 1);
  assertEquals(float16(new Uint8Array([0xff, 0x7b])), 65504);
  assertEquals(float16(new Uint8Array([0x01, 0x00])), 2 ** -24);
  assertEquals(Object.is(float16(new Uint8Array([0x00, 0x80])), -0), true);
  assertEquals(float16(new Uint8Array([0x00, 0xfc])), -Infinity);
  assertEquals(Number.isNaN(float16(new Uint8Array([0x01, 0x7c]))), true);
  const double = { name: "f", type: "DOUBLE" } as SchemaElement;
  assertEquals([-0, NaN, Infinity, -Infinity, 1e21, 5e-324].map((v) => spell(double, "double", v)), [
    "-0",
    '"NaN"',
    '"Infinity"',
    '"-Infinity"',
    "1e+21",
    "5e-324",
  ]);
});

Deno.test("timestamps keep every digit of their unit, and their zone only when adjusted to UTC", () => {
  assertEquals(timestampJson(1700000000123456789n, "ns", true), '"2023-11-14T22:13:20.123456789Z"');
  assertEquals(timestampJson(-1n, "us", true), '"1969-12-31T23:59:59.999999Z"');
  assertEquals(timestampJson(-1n, "ms", false), '"1969-12-31T23:59:59.999"');
  assertEquals(timestampJson(253402300800000n, "ms", true), '"+010000-01-01T00:00:00.000Z"');
  // Beyond a JS Date: whole milliseconds as the core's epoch integer, finer digits refused there.
  assertEquals(timestampJson(-9223372036854775808n, "ms", true), "-9223372036854775808");
  assertEquals(timestampJson(9223372036854775807n, "us", true), '"9223372036854775807 us since the epoch"');
  assertEquals(timestampJson(9223372036854775000n, "us", true), "9223372036854775");
});

Deno.test("a row group with fewer values than its declared rows stops the load, never reads as nulls", async () => {
  const path = new URL("./parquet/bad.parquet", import.meta.url).pathname;
  const file = await openParquet({ path, size: null, compression: null, format: "parquet" });
  try {
    // The footer says row group 0 has 4 rows; its pages hold 3.
    file.metadata.row_groups[0].num_rows = 4n;
    file.groupStarts = [0, 4, 6, 9, 10];
    const column = {
      name: "id",
      kind: "partition_key",
      position: 0,
      type: parseCqlType("int"),
      typeText: "int",
    } as const;
    const lines = parquetLines(file, [{ fieldIndex: 0, column }], 0);
    let failure: Error | null = null;
    try {
      for await (const _ of lines) { /* reading is the test */ }
    } catch (error) {
      failure = error as Error;
    }
    assertEquals(failure?.message, `${path}: row group 0 cannot be read: column 'id' has 3 values for 4 rows`);
  } finally {
    file.buffer.close();
  }
});
