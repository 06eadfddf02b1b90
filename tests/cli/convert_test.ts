import { parseCqlType } from "../../cli/cql_type.ts";
import { ConversionError, converterFor } from "../../cli/load/convert.ts";
import { attachUdtDefinitions } from "../../cli/load/table.ts";
import { assertEquals, assertThrows } from "./assert.ts";

function convert(type: string, text: string): unknown {
  return converterFor(parseCqlType(type))(text);
}

function rejects(type: string, text: string, pattern?: RegExp): void {
  assertThrows(() => convert(type, text), ConversionError, pattern);
}

Deno.test("small integers: accepted spellings and range limits", () => {
  assertEquals(convert("int", "42"), 42);
  assertEquals(convert("int", " -7 "), -7);
  assertEquals(convert("int", "+5"), 5);
  assertEquals(convert("int", "2147483647"), 2147483647);
  assertEquals(convert("int", "-2147483648"), -2147483648);
  rejects("int", "2147483648", /out of range for int/);
  rejects("int", "1.5", /not an integer/);
  rejects("int", "1e3", /not an integer/);
  rejects("int", "0x10", /not an integer/);
  rejects("int", "abc", /not an integer/);
  assertEquals(convert("smallint", "-32768"), -32768);
  rejects("smallint", "32768", /out of range for smallint/);
  assertEquals(convert("tinyint", "127"), 127);
  rejects("tinyint", "-129", /out of range for tinyint/);
});

Deno.test("bigint and varint keep every digit", () => {
  assertEquals(convert("bigint", "9223372036854775807"), 9223372036854775807n);
  assertEquals(convert("bigint", "-9223372036854775808"), -9223372036854775808n);
  rejects("bigint", "9223372036854775808", /out of range for bigint/);
  rejects("bigint", "12.0", /not an integer/);
  assertEquals(convert("varint", "-123456789012345678901234567890"), -123456789012345678901234567890n);
  rejects("varint", "1_000", /not an integer/);
});

Deno.test("empty and blank fields are null for non-text types", () => {
  for (
    const type of ["int", "bigint", "double", "boolean", "timestamp", "uuid", "blob", "list<int>", "map<text, int>"]
  ) {
    assertEquals(convert(type, ""), null, type);
    assertEquals(convert(type, "   "), null, type);
  }
  assertEquals(convert("text", ""), "");
  assertEquals(convert("text", "  padded "), "  padded ");
});

Deno.test("float and double, including NaN and infinities", () => {
  assertEquals(convert("double", "3.25"), 3.25);
  assertEquals(convert("double", "-1e-300"), -1e-300);
  assertEquals(convert("double", ".5"), 0.5);
  assertEquals(convert("double", "NaN"), NaN);
  assertEquals(convert("double", "Infinity"), Infinity);
  assertEquals(convert("double", "-infinity"), -Infinity);
  assertEquals(convert("float", "-Inf"), -Infinity);
  assertEquals(convert("float", "3.4028234e38"), 3.4028234e38);
  rejects("float", "3.5e38", /out of range for float/);
  rejects("double", "1e400", /out of range for double/);
  rejects("double", "1,5", /not a number/);
  rejects("double", "0x1p3", /not a number/);
  rejects("double", "nan5", /not a number/);
});

Deno.test("decimal stays text with its exact digits", () => {
  assertEquals(
    convert("decimal", "123456789012345678901234.000000000000000001"),
    "123456789012345678901234.000000000000000001",
  );
  assertEquals(convert("decimal", "+1.5E-3"), "1.5E-3");
  rejects("decimal", "1.2.3", /not a decimal/);
  rejects("decimal", "NaN", /not a decimal/);
  rejects("decimal", "1e99999999999", /exponent out of range/);
});

Deno.test("boolean spellings", () => {
  for (const text of ["true", "TRUE", "yes", "Y", "1", "t"]) assertEquals(convert("boolean", text), true, text);
  for (const text of ["false", "No", "n", "0", "F"]) assertEquals(convert("boolean", text), false, text);
  rejects("boolean", "2", /not a boolean/);
  rejects("boolean", "maybe", /not a boolean/);
});

Deno.test("timestamps: ISO-8601 forms and epoch milliseconds", () => {
  const expected = new Date("2024-05-01T12:30:15.250Z");
  assertEquals(convert("timestamp", "2024-05-01T12:30:15.250Z"), expected);
  assertEquals(convert("timestamp", "2024-05-01 12:30:15.25+0000"), expected);
  assertEquals(convert("timestamp", "2024-05-01T14:30:15.250+02:00"), expected);
  assertEquals(convert("timestamp", "2024-05-01T07:30:15.250-05"), expected);
  assertEquals(convert("timestamp", "2024-05-01T12:30:15.250000Z"), expected);
  assertEquals(convert("timestamp", String(expected.getTime())), expected);
  assertEquals(convert("timestamp", "2024-05-01"), new Date("2024-05-01T00:00:00Z"));
  assertEquals(convert("timestamp", "-1000"), new Date(-1000));
  assertEquals((convert("timestamp", "0050-01-01T00:00:00Z") as Date).getUTCFullYear(), 50);
  rejects("timestamp", "2024-02-30T00:00:00Z", /day 30 does not exist/);
  rejects("timestamp", "2023-02-29", /day 29/);
  assertEquals(convert("timestamp", "2024-02-29"), new Date("2024-02-29T00:00:00Z"));
  rejects("timestamp", "2024-13-01", /month 13/);
  rejects("timestamp", "2024-05-01T24:00:00Z", /hour 24/);
  rejects("timestamp", "2024-05-01T12:00:00.0001Z", /milliseconds/);
  rejects("timestamp", "yesterday", /not a timestamp/);
  rejects("timestamp", "2024-05-01T12:00:00 PST", /not a timestamp/);
  rejects("timestamp", "99999999999999999", /out of range/);
});

Deno.test("date and time", () => {
  assertEquals(convert("date", "2024-02-29"), "2024-02-29");
  rejects("date", "2024-02-30", /day 30/);
  rejects("date", "24-02-01", /not a date/);
  assertEquals(convert("time", "08:12:54"), "08:12:54.000000000");
  assertEquals(convert("time", "08:12:54.123456789"), "08:12:54.123456789");
  assertEquals(convert("time", "23:59"), "23:59:00.000000000");
  rejects("time", "24:00:00", /hour 24/);
  rejects("time", "12:60:00", /minute 60/);
  rejects("time", "8:00", /not a time/);
  rejects("time", "08:00:00.1234567890", /not a time/);
});

Deno.test("uuid, timeuuid and inet", () => {
  assertEquals(convert("uuid", "123E4567-E89B-12D3-A456-426614174000"), "123e4567-e89b-12d3-a456-426614174000");
  rejects("uuid", "123e4567e89b12d3a456426614174000", /not a UUID/);
  rejects("uuid", "123e4567-e89b-12d3-a456-42661417400g", /not a UUID/);
  assertEquals(convert("timeuuid", "50554d6e-29bb-11e5-b345-feff819cdc9f"), "50554d6e-29bb-11e5-b345-feff819cdc9f");
  rejects("timeuuid", "123e4567-e89b-42d3-a456-426614174000", /version 1/);
  assertEquals(convert("inet", "192.168.0.1"), "192.168.0.1");
  assertEquals(convert("inet", "::1"), "::1");
  assertEquals(convert("inet", "2001:DB8::ff00:42:8329"), "2001:db8::ff00:42:8329");
  assertEquals(convert("inet", "::ffff:10.0.0.1"), "::ffff:10.0.0.1");
  rejects("inet", "256.1.1.1", /exceeds 255/);
  rejects("inet", "1.2.3", /not an IP/);
  rejects("inet", "2001:db8::1::2", /not an IP/);
  rejects("inet", "example.com", /not an IP/);
});

Deno.test("blob, ascii and duration", () => {
  assertEquals(convert("blob", "0xCAFE00"), new Uint8Array([0xca, 0xfe, 0x00]));
  assertEquals(convert("blob", "0x"), new Uint8Array([]));
  rejects("blob", "cafe", /expected 0x/);
  rejects("blob", "0xabc", /odd number/);
  rejects("blob", "0xzz", /expected 0x/);
  assertEquals(convert("ascii", "plain"), "plain");
  rejects("ascii", "café", /not ASCII/);
  const hour = 3_600_000_000_000n;
  assertEquals(convert("duration", "1h30m"), { months: 0, days: 0, nanos: hour + hour / 2n });
  assertEquals(convert("duration", "-2mo3d"), { months: -2, days: -3, nanos: 0n });
  assertEquals(convert("duration", "12ms"), { months: 0, days: 0, nanos: 12_000_000n });
  assertEquals(convert("duration", "1y2mo3w4d5h6m7s8ms9us10µs11ns"), {
    months: 14,
    days: 25,
    nanos: 5n * hour + 6n * 60_000_000_000n + 7_008_019_011n,
  });
  assertEquals(convert("duration", "P1Y2M3DT4H5M6S"), { months: 14, days: 3, nanos: 4n * hour + 306_000_000_000n });
  assertEquals(convert("duration", "P2W"), { months: 0, days: 14, nanos: 0n });
  assertEquals(convert("duration", "-P0001-02-03T04:05:06"), {
    months: -14,
    days: -3,
    nanos: -(4n * hour + 306_000_000_000n),
  });
  rejects("duration", "3000000000d", /too many days/);
  rejects("duration", "1 hour", /not a duration/);
  rejects("duration", "P", /not a duration/);
  rejects("duration", "PT", /not a duration/);
});

Deno.test("collections in CQL literal and JSON syntax", () => {
  assertEquals(convert("list<int>", "[1, 2, 3]"), [1, 2, 3]);
  assertEquals(convert("list<text>", `["a", "b\\"c", "é"]`), ["a", 'b"c', "é"]);
  assertEquals(convert("list<text>", "['it''s', 'x, y']"), ["it's", "x, y"]);
  assertEquals(convert("set<int>", "{3, 1}"), [3, 1]);
  assertEquals(convert("set<int>", "[3, 1]"), [3, 1]);
  assertEquals(convert("set<int>", "{}"), []);
  assertEquals(convert("map<text, int>", "{'a': 1, 'b': 2}"), new Map([["a", 1], ["b", 2]]));
  assertEquals(convert("map<text, int>", `{"a":1}`), new Map([["a", 1]]));
  assertEquals(convert("map<int, boolean>", `{"1": "yes", 2: false}`), new Map([[1, true], [2, false]]));
  assertEquals(convert("map<text, int>", "{}"), new Map());
  assertEquals(convert("frozen<list<map<text, bigint>>>", "[{'x': 9007199254740993}]"), [
    new Map([["x", 9007199254740993n]]),
  ]);
  assertEquals(convert("list<timestamp>", "['2024-01-01T00:00:00Z', 0]"), [
    new Date("2024-01-01T00:00:00Z"),
    new Date(0),
  ]);
  assertEquals(convert("list<blob>", "[0x01, '0x02']"), [new Uint8Array([1]), new Uint8Array([2])]);
  assertEquals(convert("list<int>", "null"), null);
});

Deno.test("collections: rejected shapes name the element", () => {
  rejects("list<int>", "[1, 'x']", /element 2: not an integer/);
  rejects("list<int>", "{1, 2}", /expected list<int>/);
  rejects("list<int>", "[1, null]", /element 2: null is not allowed/);
  rejects("list<int>", "[1, 2", /not a valid list<int> literal/);
  rejects("list<int>", "1, 2", /not a valid list<int> literal/);
  rejects("map<text, int>", "{'a': 'b'}", /map value for key 'a': not an integer/);
  rejects("map<int, int>", "{'k': 1}", /map key 'k': not an integer/);
  rejects("map<text, int>", "{'a', 'b'}", /expected map<text, int>/);
  rejects("map<text, int>", "{'a': 1, 'b'}", /expected ':' after a map key/);
  rejects("set<int>", "{'a': 1}", /found a map/);
  rejects("list<int>", "[".repeat(100) + "]".repeat(100), /nesting deeper/);
});

Deno.test("tuples, vectors and UDTs", () => {
  assertEquals(convert("tuple<int, text, boolean>", "(1, 'a', true)"), [1, "a", true]);
  assertEquals(convert("tuple<int, text>", `[1, "a"]`), [1, "a"]);
  assertEquals(convert("tuple<int, text>", "(1)"), [1, null]);
  assertEquals(convert("tuple<int, text>", "(null, 'x')"), [null, "x"]);
  rejects("tuple<int, text>", "(1, 'a', 2)", /at most 2 tuple elements/);
  rejects("tuple<int, text>", "('a', 'b')", /tuple element 1: not an integer/);

  const vector = convert("vector<float, 3>", "[1.5, -2, 3e2]");
  assertEquals(vector instanceof Float32Array, true);
  assertEquals(vector, new Float32Array([1.5, -2, 300]));
  rejects("vector<float, 3>", "[1, 2]", /expected 3 elements/);
  rejects("vector<float, 2>", "[1, 'x']", /element 2: not a number/);
  assertEquals(convert("vector<int, 2>", "[1, 2]"), [1, 2]);

  const address = attachUdtDefinitions(
    parseCqlType("frozen<address>"),
    new Map([["address", {
      name: "address",
      fieldNames: ["street", "zip", "Tags"],
      fieldTypes: [parseCqlType("text"), parseCqlType("int"), parseCqlType("set<text>")],
    }]]),
  );
  const udt = converterFor(address);
  assertEquals(udt("{street: '1 Main St', zip: 12345}"), { street: "1 Main St", zip: 12345, Tags: null });
  assertEquals(udt(`{"street": "x", "Tags": ["a"]}`), { street: "x", zip: null, Tags: ["a"] });
  assertEquals(udt(`{STREET: 'upper-case bare names fold'}`), {
    street: "upper-case bare names fold",
    zip: null,
    Tags: null,
  });
  assertThrows(() => udt("{street: 'x', country: 'y'}"), ConversionError, /no field 'country'/);
  assertThrows(() => udt("{zip: 'x'}"), ConversionError, /field zip: not an integer/);
  assertThrows(() => udt("[1]"), ConversionError, /expected address/);
  assertThrows(
    () => converterFor(parseCqlType("address"))("{a: 1}"),
    ConversionError,
    /definition of type address is unknown/,
  );
});
