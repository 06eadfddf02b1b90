// Tests of the TypeScript codec (driver/src/codec): the shared value vectors, type parsing,
// value encoding and validation, and RESULT bodies. Run: deno test -A tests/ts/codec_test.ts
import {
  CqlDate,
  CqlDecimal,
  CqlDuration,
  CqlProtocolError,
  CqlTime,
  CqlTimestamp,
  CqlTypeError,
  type ColumnSpec,
  decodeCachedRows,
  decodeValue,
  encodeValue,
  encodeValueList,
  formatCqlType,
  nativeTypes,
  parseCqlType,
  parseCustomClass,
  parseResult,
  type TypeInfo,
  toCqlValue,
  unset,
  Writer,
} from "../../driver/src/codec/mod.ts";
import { setRowCodegen } from "../../driver/src/codec/result.ts";
import { Reader } from "../../driver/src/codec/reader.ts";
import { readTypeOption } from "../../driver/src/codec/types.ts";
import { assertExact, show } from "../exact.mjs";
import { toCanonical } from "./canonical.ts";

// ---------------------------------------------------------------------------------------
// A tiny assertion kit (no std library: JSR is unreachable here).

class AssertionError extends Error {}

function fail(message: string): never {
  throw new AssertionError(message);
}

function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  assertExact(actual, expected, message);
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}

function assertThrows<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E, message: string): E {
  try {
    fn();
  } catch (e) {
    if (e instanceof type) return e;
    fail(`${message}: threw ${(e as Error)?.constructor?.name} ${(e as Error)?.message}, expected ${type.name}`);
  }
  fail(`${message}: did not throw`);
}

const hexToBytes = (hex: string) => {
  if (hex.length % 2 !== 0) fail(`odd hex ${hex}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
};
const bytesToHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** Offsets just past each `[bytes]` component of a tuple or UDT value. */
function componentBoundaries(bytes: Uint8Array): Set<number> {
  const cuts = new Set([0]);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let pos = 0; pos + 4 <= bytes.length;) {
    pos += 4 + Math.max(0, view.getInt32(pos));
    cuts.add(pos);
  }
  return cuts;
}

/**
 * Whether the first `cut` bytes of a good value may be a whole value themselves: strings and
 * bytes end anywhere, a decimal after its scale, an inet after four bytes, and tuples and
 * UDTs (which may omit trailing components) after any component.
 */
function prefixMayBeAValue(t: TypeInfo, full: Uint8Array, cut: number): boolean {
  switch (t.kind) {
    case "ascii":
    case "text":
    case "blob":
    case "custom":
    case "varint":
      return true;
    case "decimal":
      return cut >= 5;
    case "inet":
      return cut === 4;
    case "tuple":
    case "udt":
      return componentBoundaries(full).has(cut);
    default:
      return false;
  }
}

/** The legacy zero-length value: null for the types whose serializers accept it. */
const EMPTY_IS_NULL = ["boolean", "int", "bigint", "counter", "float", "double", "decimal", "varint", "timestamp", "uuid", "timeuuid", "inet"];

function emptyValueOk(t: TypeInfo, value: unknown): boolean {
  if (EMPTY_IS_NULL.includes(t.kind)) return value === null;
  switch (t.kind) {
    case "ascii":
    case "text":
      return value === "";
    case "blob":
    case "custom":
      return value instanceof Uint8Array && value.length === 0;
    case "tuple":
      return Array.isArray(value) && value.length === 0;
    case "udt":
      return typeof value === "object" && value !== null && Object.keys(value).length === 0;
    default:
      return false;
  }
}

/** Types whose values cannot absorb an extra byte (it would change the value instead). */
function rejectsTrailing(t: TypeInfo): boolean {
  return !["ascii", "text", "blob", "custom", "varint", "decimal"].includes(t.kind);
}

/** Decodes, allowing only CqlProtocolError to escape. Returns the error or the value. */
function decodeGuarded(t: TypeInfo, bytes: Uint8Array, what: string): { error: CqlProtocolError } | { value: unknown } {
  try {
    return { value: decodeValue(t, bytes, 0, bytes.length) };
  } catch (e) {
    if (e instanceof CqlProtocolError) {
      assert(e.side === "remote", `${what}: protocol errors from decoding are remote`);
      assert(e.code === "ERR_PROTOCOL", `${what}: stable code`);
      assert(/ at byte \d+/.test(e.message) && e.field.length > 0, `${what}: message names field and offset: ${e.message}`);
      return { error: e };
    }
    fail(`${what}: crashed with ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
  }
}

interface Vector {
  name: string;
  type: string;
  hex: string;
  expect?: unknown;
  /** The check that must fail and its byte offset, as both the Rust core and this codec name them. */
  error?: string;
  offset?: number;
  /** What a canonical encoder writes for this value when `hex` is not canonical. */
  canonical_hex?: string;
}

function runVector(v: Vector): void {
  const t = parseCqlType(v.type);
  const printed = formatCqlType(t, { udt: "expanded" });
  assertEquals(parseCqlType(printed), t, `${v.type} prints as ${printed}, which parses back`);
  const bytes = hexToBytes(v.hex);
  const label = `${v.name} (${v.type})`;
  assert((v.expect === undefined) !== (v.error === undefined), `${label}: needs exactly one of expect and error`);

  // Whole.
  const whole = decodeGuarded(t, bytes, `${label} whole`);
  if (v.error !== undefined) {
    assert("error" in whole, `${label}: expected an error (${v.error}), decoded ${show("value" in whole ? whole.value : null)}`);
    const check = [v.error, v.offset];
    assertEquals([whole.error.field, whole.error.offset], check, `${label}: the check and offset (${whole.error.message})`);
  } else {
    assert("value" in whole, `${label}: ${"error" in whole ? whole.error.message : ""}`);
    assertEquals(toCanonical(t, whole.value), v.expect, label);
  }

  // Byte by byte: every cut must fail cleanly; a cut of a value that may end anywhere may
  // decode, but never crash.
  for (let cut = 0; cut < bytes.length; cut++) {
    const outcome = decodeGuarded(t, bytes.subarray(0, cut), `${label} cut at ${cut}`);
    if (v.error !== undefined || "error" in outcome) continue;
    if (cut === 0) {
      assert(emptyValueOk(t, outcome.value), `${label}: the empty value decoded to ${show(outcome.value)}`);
      continue;
    }
    assert(prefixMayBeAValue(t, bytes, cut), `${label}: cut at ${cut} of ${bytes.length} decoded silently to ${show(outcome.value)}`);
  }

  // Trailing bytes: past the value's length they are not read at all; inside it they are an
  // error wherever the type is self-delimiting.
  const padded = new Uint8Array(bytes.length + 3);
  padded.set(bytes, 1);
  padded[0] = 0xee;
  padded[bytes.length + 1] = 0x00;
  padded[bytes.length + 2] = 0xff;
  if (v.error === undefined) {
    const framed = decodeValue(t, padded, 1, bytes.length);
    assertEquals(toCanonical(t, framed), v.expect, `${label} inside a larger buffer`);
  }
  if (v.error === undefined && rejectsTrailing(t) && bytes.length > 0) {
    const withTrailing = decodeGuarded(t, padded.subarray(1, bytes.length + 2), `${label} with a trailing byte`);
    assert("error" in withTrailing, `${label}: a trailing byte was accepted`);
  }

  // Re-encode.
  if (v.error === undefined && "value" in whole && whole.value !== null) {
    const w = new Writer(8);
    const length = encodeValue(t, whole.value, w);
    const encoded = w.bytes().subarray(4);
    assert(length === encoded.length, `${label}: encodeValue returns the body length`);
    const canonical = v.canonical_hex ?? v.hex;
    if (bytesToHex(encoded) !== canonical) {
      // JavaScript has one null for both a null element and the legacy empty value (zero
      // bytes) of an int-like element; the latter re-encodes as null. Nothing else may differ.
      const hasEmptyElement = canonical.includes("00000000") && JSON.stringify(v.expect).includes("null");
      assert(hasEmptyElement, `${label}: re-encoded ${bytesToHex(encoded).slice(0, 200)}, expected ${canonical.slice(0, 200)}`);
      assertEquals(toCanonical(t, decodeValue(t, encoded)), v.expect, `${label} re-encoded`);
    }
  }
}

async function loadVectors(file: string): Promise<Vector[] | null> {
  const url = new URL(`../vectors/${file}`, import.meta.url);
  try {
    return JSON.parse(await Deno.readTextFile(url));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

for (const file of ["types.json", "types_ts_extra.json"]) {
  Deno.test(`vectors: ${file}`, async (t) => {
    const vectors = await loadVectors(file);
    if (vectors === null) fail(`tests/vectors/${file} is missing (regenerate it with tests/vectors/gen/)`);
    assert(vectors.length > 0, `${file} has vectors`);
    const failures: string[] = [];
    for (const v of vectors) {
      try {
        runVector(v);
      } catch (e) {
        failures.push(`${v.name}: ${(e as Error).message}`);
      }
    }
    await t.step(`${vectors.length} vectors`, () => {
      if (failures.length > 0) fail(`${failures.length} failing vectors:\n  ${failures.join("\n  ")}`);
    });
  });
}

// ---------------------------------------------------------------------------------------
// Robustness: random bytes against every type in the vectors never crash the decoder.

Deno.test("decoders only throw CqlProtocolError on random bytes", async () => {
  const vectors = [...((await loadVectors("types.json")) ?? []), ...(await loadVectors("types_ts_extra.json"))!];
  const types = [...new Set(vectors.map((v) => v.type))].map((s) => parseCqlType(s));
  let seed = 0x9e3779b9;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  for (const t of types) {
    for (let round = 0; round < 200; round++) {
      const bytes = new Uint8Array(Math.floor(random() * 40));
      for (let i = 0; i < bytes.length; i++) {
        // Small lengths and counts make deep decoding reachable.
        bytes[i] = random() < 0.5 ? Math.floor(random() * 256) : [0, 0, 0, 1, 2, 4, 0xff][Math.floor(random() * 7)];
      }
      decodeGuarded(t, bytes, `${formatCqlType(t)} random round ${round}`);
    }
  }
});

// ---------------------------------------------------------------------------------------
// Types

Deno.test("parseCqlType and formatCqlType round-trip", () => {
  const cases: [string, string][] = [
    ["int", "int"],
    ["VARCHAR", "text"],
    ["map<text, frozen<list<int>>>", "map<text, frozen<list<int>>>"],
    ["tuple<int,text>", "tuple<int, text>"],
    ["frozen<tuple<int, tuple<bigint, boolean>>>", "frozen<tuple<int, tuple<bigint, boolean>>>"],
    ["vector<float,3>", "vector<float, 3>"],
    ["set<frozen<map<timeuuid, inet>>>", "set<frozen<map<timeuuid, inet>>>"],
    ["'org.example.My''Type'", "'org.example.My''Type'"],
  ];
  for (const [input, output] of cases) {
    assertEquals(formatCqlType(parseCqlType(input)), output, input);
    assertEquals(formatCqlType(parseCqlType(output)), output, `${output} again`);
  }
  const udt = parseCqlType('udt<ks."Addr">{street:text,"Zip Code":int}');
  assert(udt.kind === "udt", "udt parsed");
  assertEquals([udt.keyspace, udt.name, udt.fields.map((f) => f.name)], ["ks", "Addr", ["street", "Zip Code"]]);
  assertEquals(formatCqlType(udt, { udt: "expanded" }), 'udt<ks."Addr">{street:text,"Zip Code":int}');
  assertEquals(formatCqlType(udt), '"Addr"');
  assertEquals(formatCqlType(udt, { udt: "qualified" }), 'ks."Addr"');
  const ref = parseCqlType("frozen<address>", { keyspace: "shop" });
  assert(ref.kind === "udt" && ref.fields.length === 0 && ref.keyspace === "shop" && ref.frozen, "bare UDT names are references");
  assertEquals(formatCqlType(ref), "frozen<address>");
  const resolved = parseCqlType("list<frozen<address>>", {
    resolveUdt: (ks, name) => (name === "address" ? { kind: "udt", code: 0x30, keyspace: ks || "x", name, fields: [{ name: "n", type: nativeTypes.int }], frozen: false } : undefined),
  });
  assert(resolved.kind === "list" && resolved.element.kind === "udt" && resolved.element.fields.length === 1 && resolved.element.frozen, "resolver is used, frozen kept");
  for (const bad of ["", "list<int", "map<int>", "vector<float>", "vector<float, 0>", "list<int>>", "foo<int>", "int int", "tuple<>", "'unterminated"]) {
    assertThrows(() => parseCqlType(bad), SyntaxError, `parseCqlType(${JSON.stringify(bad)})`);
  }
  let deep = "int";
  for (let i = 0; i < 200; i++) deep = `list<${deep}>`;
  assertThrows(() => parseCqlType(deep), SyntaxError, "deep nesting is refused, not a stack overflow");
});

Deno.test("custom class names: VectorType and marshal names", () => {
  const v = parseCustomClass("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType,3)");
  assertEquals(formatCqlType(v), "vector<float, 3>");
  const nested = parseCustomClass(
    "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type), 2)",
  );
  assertEquals(formatCqlType(nested), "vector<list<int>, 2>");
  const frozenMap = parseCustomClass("VectorType(FrozenType(MapType(UTF8Type,ReversedType(LongType))),4)");
  assertEquals(formatCqlType(frozenMap), "vector<frozen<map<text, bigint>>, 4>");
  const udt = parseCustomClass("VectorType(UserType(ks,61646472,737472656574:UTF8Type,7a6970:Int32Type),1)");
  assertEquals(formatCqlType(udt, { udt: "expanded" }), "vector<frozen<udt<ks.addr>{street:text,zip:int}>, 1>");
  const tuple = parseCustomClass("VectorType(TupleType(Int32Type,SimpleDateType,TimeType,ShortType,ByteType,DurationType),1)");
  assertEquals(formatCqlType(tuple), "vector<frozen<tuple<int, date, time, smallint, tinyint, duration>>, 1>");
  const other = parseCustomClass("org.apache.cassandra.db.marshal.DynamicCompositeType(a=>Int32Type)");
  assertEquals(other, { kind: "custom", code: 0, className: "org.apache.cassandra.db.marshal.DynamicCompositeType(a=>Int32Type)" });
  for (const bad of ["VectorType(FloatType)", "VectorType(FloatType,0)", "VectorType(FloatType,3", "VectorType(UserType(ks,zz),1)"]) {
    assertThrows(() => parseCustomClass(bad), SyntaxError, bad);
  }
});

function optionBytes(...parts: (number | string)[]): Uint8Array {
  // numbers are u16, strings are [string]
  const w = new Writer();
  for (const p of parts) typeof p === "number" ? w.u16(p) : w.string(p);
  return w.toBytes();
}

Deno.test("[option] type descriptions", () => {
  const read = (bytes: Uint8Array) => {
    const r = new Reader(bytes);
    const t = readTypeOption(r);
    r.expectEnd("test");
    return t;
  };
  assertEquals(formatCqlType(read(optionBytes(0x0021, 0x000d, 0x0020, 0x0009))), "map<text, list<int>>");
  assertEquals(formatCqlType(read(optionBytes(0x0031, 2, 0x0009, 0x0015))), "tuple<int, duration>");
  const udt = read(optionBytes(0x0030, "ks", "pt", 2, "x", 0x0007, "y", 0x0022, 0x0013));
  assertEquals(formatCqlType(udt, { udt: "expanded" }), "udt<ks.pt>{x:double,y:set<smallint>}");
  assertEquals(formatCqlType(read(optionBytes(0x0000, "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.DoubleType,8)"))), "vector<double, 8>");
  assertThrows(() => read(optionBytes(0x000a)), CqlProtocolError, "0x000a is not a type");
  assertThrows(() => read(optionBytes(0x0020)), CqlProtocolError, "list without element");
  assertThrows(() => read(optionBytes(0x0000, "VectorType(FloatType,x)")), CqlProtocolError, "bad vector class");
  const deep = optionBytes(...new Array(500).fill(0x0020), 0x0009);
  const e = assertThrows(() => read(deep), CqlProtocolError, "deep [option] nesting");
  assert(e.side === "remote", "remote");
});

// ---------------------------------------------------------------------------------------
// Values: JS mapping and encode validation

function encodeHex(type: string, value: unknown): string {
  const w = new Writer();
  encodeValue(parseCqlType(type), value, w);
  return bytesToHex(w.bytes());
}

Deno.test("value classes print as CQL does", () => {
  assertEquals(String(new CqlDate(0)), "1970-01-01");
  assertEquals(String(new CqlDate(-1)), "1969-12-31");
  assertEquals(String(new CqlDate(-141428)), "1582-10-14");
  assertEquals(String(new CqlDate(2932897)), "+10000-01-01");
  assertEquals(String(new CqlDate(-719529)), "-0001-12-31");
  assertEquals(String(new CqlDate(-(2 ** 31))), "-5877641-06-23");
  assertEquals(String(new CqlDate(2 ** 31 - 1)), "+5881580-07-11");
  for (const days of [-(2 ** 31), -719529, -1, 0, 59, 11016, 2 ** 31 - 1]) {
    assertEquals(CqlDate.parse(String(new CqlDate(days))).days, days, `date ${days} round-trips`);
  }
  assertThrows(() => CqlDate.parse("2023-02-29"), RangeError, "not a calendar date");
  assertEquals(String(new CqlTime(0n)), "00:00:00.000000000");
  assertEquals(String(new CqlTime(86399999999999n)), "23:59:59.999999999");
  assertEquals(CqlTime.parse("12:34:56.789").nanos, 45296789000000n);
  assertEquals(String(new CqlDecimal(12345n, 2)), "123.45");
  assertEquals(String(new CqlDecimal(-1n, 3)), "-0.001");
  assertEquals(String(new CqlDecimal(12n, -3)), "12000");
  assertEquals(String(new CqlDecimal(0n, 0)), "0");
  assertEquals(String(new CqlDecimal(5n, 2 ** 31 - 1)), "5E-2147483647");
  assertEquals(CqlDecimal.parse("-1.50e-3"), new CqlDecimal(-150n, 5));
  assertEquals(String(new CqlDuration(14, 3, 3_723_000_000_005n)), "1y2mo3d1h2m3s5ns");
  assertEquals(String(new CqlDuration(0, -3, 0n)), "-3d");
  assertEquals(String(new CqlDuration(0, 0, 0n)), "0s");
  assertEquals(String(new CqlTimestamp(8640000000000001n)), "+275760-09-13T00:00:00.001Z");
  assertEquals(String(new CqlTimestamp(-(2n ** 63n))), "-292275055-05-16T16:47:04.192Z");
});

Deno.test("encode takes a value class's native form through toCqlValue, at any depth", () => {
  class Wrapped {
    constructor(private readonly native: unknown) {}
    [toCqlValue]() {
      return this.native;
    }
  }
  assertEquals(encodeHex("bigint", new Wrapped(-2n)), "00000008fffffffffffffffe");
  assertEquals(encodeHex("uuid", new Wrapped("00000000-0000-0000-0000-000000000001")), "0000001000000000000000000000000000000001");
  assertEquals(encodeHex("list<int>", [new Wrapped(7)]), "0000000c000000010000000400000007");
  // Vector elements too, fixed-size (no length) and variable-size (a vint length).
  assertEquals(encodeHex("vector<bigint, 1>", [new Wrapped(-2n)]), "00000008fffffffffffffffe");
  assertEquals(encodeHex("vector<text, 1>", [new Wrapped("a")]), "000000020161");
});

Deno.test("encode accepts the documented JS forms", () => {
  assertEquals(encodeHex("int", 1), "0000000400000001");
  assertEquals(encodeHex("int", -1n), "00000004ffffffff");
  assertEquals(encodeHex("bigint", 2n ** 63n - 1n), "000000087fffffffffffffff");
  assertEquals(encodeHex("bigint", -(2 ** 53) + 1), "00000008ffe0000000000001");
  assertEquals(encodeHex("varint", 0), "0000000100");
  assertEquals(encodeHex("varint", -129n), "00000002ff7f");
  assertEquals(encodeHex("varint", 2n ** 64n), "00000009010000000000000000");
  assertEquals(encodeHex("text", null), "ffffffff");
  assertEquals(encodeHex("text", undefined), "ffffffff");
  assertEquals(encodeHex("text", unset), "fffffffe");
  assertEquals(encodeHex("text", ""), "00000000");
  assertEquals(encodeHex("timestamp", new Date(1)), "000000080000000000000001");
  assertEquals(encodeHex("timestamp", -1), "00000008ffffffffffffffff");
  assertEquals(encodeHex("timestamp", 9223372036854775807n), "000000087fffffffffffffff");
  assertEquals(encodeHex("timestamp", new CqlTimestamp(-(2n ** 63n))), "000000088000000000000000");
  assertEquals(encodeHex("timestamp", "1970-01-01T00:00:00.002Z"), "000000080000000000000002");
  assertEquals(encodeHex("date", "1970-01-02"), "0000000480000001");
  assertEquals(encodeHex("date", -1), "000000047fffffff");
  assertEquals(encodeHex("date", new Date(Date.UTC(1969, 11, 31, 12))), "000000047fffffff");
  assertEquals(encodeHex("time", "00:00:01"), "00000008000000003b9aca00");
  assertEquals(encodeHex("time", 5n), "000000080000000000000005");
  assertEquals(encodeHex("duration", { months: 1, days: 2, nanos: 3n }), "00000003020406");
  assertEquals(encodeHex("duration", new CqlDuration(0, 0, -(2n ** 63n))), "0000000b0000ffffffffffffffffff");
  assertEquals(encodeHex("decimal", "123.45"), "00000006000000023039");
  assertEquals(encodeHex("decimal", 0.5), "000000050000000105");
  assertEquals(encodeHex("decimal", 7n), "000000050000000007");
  assertEquals(encodeHex("uuid", "123E4567-E89B-12D3-A456-426614174000"), "00000010123e4567e89b12d3a456426614174000");
  assertEquals(encodeHex("uuid", hexToBytes("00112233445566778899aabbccddeeff")), "0000001000112233445566778899aabbccddeeff");
  assertEquals(encodeHex("inet", "::ffff:1.2.3.4"), "0000001000000000000000000000ffff01020304");
  assertEquals(encodeHex("inet", "10.0.0.1"), "000000040a000001");
  assertEquals(encodeHex("inet", "fe80::1"), "00000010fe800000000000000000000000000001");
  assertEquals(encodeHex("blob", new Uint16Array([0x0102])), "000000020201");
  assertEquals(encodeHex("set<int>", new Set([1])), "0000000c000000010000000400000001");
  assertEquals(encodeHex("map<text, int>", { a: 1 }), "0000001100000001000000016100000004" + "00000001");
  assertEquals(encodeHex("map<int, int>", new Map([[1, null]])), "00000010000000010000000400000001ffffffff");
  assertEquals(encodeHex("udt<ks.p>{x:int,y:int}", { y: 2 }), "0000000cffffffff0000000400000002");
  assertEquals(encodeHex("udt<ks.p>{x:int,y:int}", { x: 1 }), "000000080000000400000001");
  assertEquals(encodeHex("udt<ks.p>{x:int,y:int}", { x: 1, y: undefined }), "0000000c0000000400000001ffffffff");
  assertEquals(encodeHex("udt<ks.p>{x:int,y:int}", {}), "00000000");
  assertEquals(encodeHex("tuple<int, int>", [7]), "000000080000000400000007");
  assertEquals(encodeHex("vector<float, 2>", new Float32Array([1, 2])), "000000083f80000040000000");
  assertEquals(encodeHex("vector<text, 2>", ["a", "x".repeat(200)]), "000000cc" + "0161" + "80c8" + "78".repeat(200));
});

Deno.test("encode rejects what would lose range, precision or meaning", () => {
  const cases: [string, unknown, RegExp][] = [
    ["int", 2 ** 31, /out of range/],
    ["int", -(2 ** 31) - 1, /out of range/],
    ["int", 1.5, /not an integer/],
    ["int", NaN, /NaN/],
    ["int", "1", /expected a number/],
    ["int", 2n ** 31n, /out of range/],
    ["tinyint", 128, /out of range \[-128, 127\]/],
    ["tinyint", -129, /out of range/],
    ["smallint", 32768, /out of range/],
    ["bigint", 2 ** 53, /lost precision/],
    ["bigint", 2n ** 63n, /out of range/],
    ["counter", "5", /expected a bigint/],
    ["varint", 0.5, /not an integer/],
    ["float", 1e39, /float range/],
    ["float", "1", /expected a number/],
    ["double", 1n, /expected a number/],
    ["boolean", 1, /expected a boolean/],
    ["ascii", "é", /not ASCII/],
    ["text", "\ud800", /lone surrogate/],
    ["text", 5, /expected a string/],
    ["blob", "00", /expected a Uint8Array/],
    ["uuid", "not-a-uuid", /UUID/],
    ["uuid", new Uint8Array(15), /16 bytes/],
    ["timeuuid", "f47ac10b-58cc-4372-a567-0e02b2c3d479", /version 1/],
    ["inet", "1.2.3.256", /address/],
    ["inet", "1:2:3:4:5:6:7:8:9", /address/],
    ["timestamp", new Date(NaN), /Invalid Date/],
    ["timestamp", 1.5, /whole number/],
    ["timestamp", "yesterday-ish", /date-time/],
    ["timestamp", 2n ** 63n, /64-bit/],
    ["date", 2 ** 31, /date range/],
    ["date", "2023-13-01", /calendar date/],
    ["time", 86400000000000n, /within a day/],
    ["time", -1n, /within a day/],
    ["duration", { months: 1, days: -1, nanos: 0n }, /one sign/],
    ["duration", { months: 2 ** 31, days: 0, nanos: 0n }, /32-bit/],
    ["duration", "1h", /expected a CqlDuration/],
    ["decimal", "1.2.3", /not a decimal/],
    ["decimal", Infinity, /finite/],
    ["list<int>", "abc", /expected an array/],
    ["list<int>", [1, "2"], /expected a number/],
    ["list<int>", [unset], /unset/],
    ["map<int, int>", [[1]], /pair/],
    ["tuple<int, int>", [1, 2, 3], /at most 2 elements/],
    ["udt<ks.p>{x:int}", { x: 1, z: 2 }, /no field named "z"/],
    ["udt<ks.p>{x:int}", [1], /expected an object/],
    ["vector<float, 2>", [1], /expected 2 elements/],
    ["vector<float, 2>", [1, null], /no null/],
    ["vector<int, 1>", [2 ** 40], /out of range/],
  ];
  for (const [type, value, reason] of cases) {
    const w = new Writer();
    w.u8(0xaa);
    const e = assertThrows(() => encodeValue(parseCqlType(type), value, w), CqlTypeError, `${type} ← ${show(value)}`);
    assert(reason.test(e.message), `${type}: message ${JSON.stringify(e.message)} does not match ${reason}`);
    assert(e.code === "ERR_CQL_TYPE", "stable code");
    assert(e.message.includes(e.cqlType) && e.message.includes(e.value), `message names the type and value: ${e.message}`);
    assert(w.length === 1, `${type}: a failed encode leaves the writer as it was`);
  }
  const long = assertThrows(() => encodeValue(nativeTypes.int, "x".repeat(1000), new Writer()), CqlTypeError, "long value");
  assert(long.value.length <= 40, `the value is truncated to 40 characters: ${long.value}`);
});

Deno.test("encodeValueList: positional, named, null and unset", () => {
  const columns: ColumnSpec[] = [
    { keyspace: "ks", table: "t", name: "id", type: nativeTypes.int },
    { keyspace: "ks", table: "t", name: "Name", type: nativeTypes.text },
    { keyspace: "ks", table: "t", name: "score", type: nativeTypes.double },
  ];
  const w = new Writer(4);
  encodeValueList(columns, [1, "a", null], w);
  assertEquals(bytesToHex(w.bytes()), "0003" + "0000000400000001" + "0000000161" + "ffffffff");
  w.reset();
  encodeValueList(columns, { name: "a", id: 1, score: unset }, w);
  assertEquals(bytesToHex(w.bytes()), "0003" + "0000000400000001" + "0000000161" + "fffffffe");
  w.reset();
  encodeValueList(columns.map((c) => c.type), { id: 1, Name: "a", score: 0 }, w, ["id", "Name", "score"]);
  assertEquals(bytesToHex(w.bytes()), "0003" + "0000000400000001" + "0000000161" + "000000080000000000000000");
  w.reset();
  encodeValueList([], undefined, w);
  assertEquals(bytesToHex(w.bytes()), "0000");
  // The DataStax driver's useUndefinedAsUnset: undefined leaves the column unset, null deletes it.
  w.reset();
  encodeValueList(columns, [1, undefined, null], w, undefined, true);
  assertEquals(bytesToHex(w.bytes()), "0003" + "0000000400000001" + "fffffffe" + "ffffffff");
  w.reset();
  encodeValueList(columns, { id: 1, name: undefined, score: null }, w, undefined, true);
  assertEquals(bytesToHex(w.bytes()), "0003" + "0000000400000001" + "fffffffe" + "ffffffff");
  w.reset();
  w.u8(1);
  assertThrows(() => encodeValueList(columns, [1, "a"], w), CqlTypeError, "too few values");
  assertThrows(() => encodeValueList(columns, { id: 1, name: "a" }, w), CqlTypeError, "missing name");
  assertThrows(() => encodeValueList(columns, [1, 2, 3], w), CqlTypeError, "wrong type");
  assert(w.length === 1, "failed lists leave the writer as it was");
});

// cqlwire/compat's encoding.dataStaxValues: a UDT object's missing fields are written as null
// (cqlwire leaves trailing ones out), and an empty element of a collection is DataStax's TypeError.
Deno.test("encodeValue dataStax: UDT missing fields as null, no empty collection elements", () => {
  const w = new Writer();
  const udt = parseCqlType("udt<ks.addr>{street:text,zip:int}");
  encodeValue(udt, { street: "a" }, w);
  assertEquals(bytesToHex(w.bytes()), "00000005" + "0000000161");
  w.reset();
  encodeValue(udt, { street: "a" }, w, false, true);
  assertEquals(bytesToHex(w.bytes()), "00000009" + "0000000161" + "ffffffff");
  w.reset();
  encodeValue(parseCqlType("list<frozen<udt<ks.addr>{street:text,zip:int}>>"), [{}], w, false, true);
  assertEquals(bytesToHex(w.bytes()), "00000010" + "00000001" + "00000008" + "ffffffff" + "ffffffff");
  w.reset();
  const cases: Array<[string, unknown, string]> = [
    ["list<int>", [1, null], "A collection can't contain null or unset values"],
    ["set<int>", [undefined], "A collection can't contain null or unset values"],
    ["list<int>", [unset], "A collection can't contain null or unset values"],
    ["map<text, int>", { a: null }, "A map can't contain null or unset values"],
    ["map<int, int>", new Map([[null, 1]]), "A map can't contain null or unset keys"],
  ];
  for (const [type, value, message] of cases) {
    const e = assertThrows(() => encodeValue(parseCqlType(type), value, w, false, true), TypeError, type);
    assertEquals([e.constructor, e.message], [TypeError, message]);
    assertEquals(w.length, 0);
  }
  // Bytes for any type are its serialized form, at any depth (DataStax's Buffers).
  w.reset();
  encodeValue(parseCqlType("list<int>"), [new Uint8Array([0, 0, 0, 1]), 2], w, false, true);
  assertEquals(bytesToHex(w.bytes()), "00000014" + "00000002" + "0000000400000001" + "0000000400000002");
  w.reset();
  assertThrows(() => encodeValue(parseCqlType("int"), new Uint8Array(4), w), CqlTypeError, "bytes for an int without the flag");
  w.reset();
  // Without the flag a null element is written (the server refuses it).
  encodeValue(parseCqlType("list<int>"), [null], w);
  assertEquals(bytesToHex(w.bytes()), "00000008" + "00000001" + "ffffffff");
});

Deno.test("decodeValue bounds and aliasing", () => {
  const page = hexToBytes("000102030405");
  const blob = decodeValue(nativeTypes.blob, page, 1, 3) as Uint8Array;
  assertEquals(bytesToHex(blob), "010203");
  page[1] = 0xff;
  assertEquals(blob[0], 1, "blobs are copies, not views of the page");
  assertEquals(decodeValue(nativeTypes.int, page, 0, -1), null);
  assertThrows(() => decodeValue(nativeTypes.int, page, 4, 4), CqlProtocolError, "past the end");
  // A 100k-digit varint round-trips (its speed is measured in bench/, not asserted here).
  const digits = "7".repeat(100_000);
  const w = new Writer();
  encodeValue(nativeTypes.varint, -BigInt(digits), w);
  assertEquals(decodeValue(nativeTypes.varint, w.bytes(), 4), -BigInt(digits));
});

// ---------------------------------------------------------------------------------------
// RESULT bodies

class Body {
  w = new Writer();
  int(n: number) {
    this.w.i32(n);
    return this;
  }
  short(n: number) {
    this.w.u16(n);
    return this;
  }
  string(s: string) {
    this.w.string(s);
    return this;
  }
  shortBytes(hex: string) {
    this.w.u16(hex.length / 2);
    this.w.raw(hexToBytes(hex));
    return this;
  }
  bytes(hex: string | null) {
    if (hex === null) this.w.i32(-1);
    else {
      this.w.i32(hex.length / 2);
      this.w.raw(hexToBytes(hex));
    }
    return this;
  }
  build() {
    return this.w.toBytes();
  }
}

const INT = 0x0009;
const VARCHAR = 0x000d;
const BIGINT = 0x0002;

function rowsBody(opts: { global: boolean; pageState?: string; newMetadataId?: string; noMetadata?: boolean; rows: [number, string | null][] }) {
  const b = new Body().int(2);
  let flags = 0;
  if (opts.global) flags |= 1;
  if (opts.pageState) flags |= 2;
  if (opts.noMetadata) flags |= 4;
  if (opts.newMetadataId) flags |= 8;
  b.int(flags).int(2);
  if (opts.pageState) b.bytes(opts.pageState);
  if (opts.newMetadataId) b.shortBytes(opts.newMetadataId);
  if (!opts.noMetadata) {
    if (opts.global) b.string("ks").string("tbl");
    for (const [name, type] of [["id", INT], ["name", VARCHAR]] as const) {
      if (!opts.global) b.string("ks").string("tbl");
      b.string(name).short(type);
    }
  }
  b.int(opts.rows.length);
  for (const [id, name] of opts.rows) {
    b.bytes(id.toString(16).padStart(8, "0")).bytes(name === null ? null : bytesToHex(new TextEncoder().encode(name)));
  }
  return b.build();
}

const sampleRows: [number, string | null][] = [[1, "one"], [2, null], [3, ""]];
const sampleExpected = [{ id: 1, name: "one" }, { id: 2, name: null }, { id: 3, name: "" }];

Deno.test("RESULT Rows", () => {
  for (const codegen of [true, false]) {
    setRowCodegen(codegen);
    for (const global of [true, false]) {
      const result = parseResult(rowsBody({ global, rows: sampleRows }), 4);
      assert(result.kind === "rows", "rows");
      assertEquals(result.rows, sampleExpected, `codegen=${codegen} global=${global}`);
      assertEquals(result.rows.map((r) => Object.getPrototypeOf(r) === Object.prototype), [true, true, true], "plain objects");
      assertEquals(result.columns.map((c) => [c.keyspace, c.table, c.name, formatCqlType(c.type)]), [["ks", "tbl", "id", "int"], ["ks", "tbl", "name", "text"]]);
      assertEquals(result.pageState, null);
      assert(!("newMetadataId" in result), "no new metadata id");
    }
  }
  setRowCodegen(true);

  const paged = parseResult(rowsBody({ global: true, pageState: "beef", newMetadataId: "0102", rows: sampleRows }), 5);
  assert(paged.kind === "rows", "rows");
  assertEquals(bytesToHex(paged.pageState!), "beef");
  assertEquals(bytesToHex(paged.newMetadataId!), "0102");
  assertEquals(paged.rows, sampleExpected);

  const first = parseResult(rowsBody({ global: true, rows: sampleRows }), 4);
  assert(first.kind === "rows", "rows");
  const skipped = parseResult(rowsBody({ global: true, noMetadata: true, pageState: "00", rows: sampleRows }), 4, first.columns);
  assert(skipped.kind === "rows", "rows");
  assertEquals(skipped.rows, sampleExpected, "rows decoded with cached columns");
  assert(skipped.columns === first.columns, "the cached columns are returned");
  const noCache = assertThrows(() => parseResult(rowsBody({ global: true, noMetadata: true, rows: sampleRows }), 4), CqlProtocolError, "no metadata, no cache");
  // No cache means the request did not ask to skip the metadata: the server broke the protocol.
  assertEquals([noCache.side, noCache.field, noCache.reason], ["remote", "rows metadata", "the server sent No_metadata for a request that did not ask to skip the metadata"]);
  assertThrows(() => parseResult(rowsBody({ global: true, noMetadata: true, rows: sampleRows }), 4, first.columns.slice(0, 1)), CqlProtocolError, "cache of the wrong width");

  // Every truncation fails cleanly; so does a trailing byte.
  const body = rowsBody({ global: false, pageState: "beef", rows: sampleRows });
  for (let cut = 0; cut < body.length; cut++) {
    const e = assertThrows(() => parseResult(body.subarray(0, cut), 4), CqlProtocolError, `rows cut at ${cut}`);
    assert(e.side === "remote" && e.offset !== null && e.offset <= cut, `cut ${cut}: offset ${e.offset}`);
  }
  const trailing = new Uint8Array(body.length + 1);
  trailing.set(body);
  assertThrows(() => parseResult(trailing, 4), CqlProtocolError, "trailing byte after rows");
});

Deno.test("decodeCachedRows reads a skip-metadata page in place, and nothing else", () => {
  const first = parseResult(rowsBody({ global: true, rows: sampleRows }), 4);
  assert(first.kind === "rows", "rows");
  const columns = first.columns;
  // The body sits inside a larger buffer, as in the driver's event buffer.
  const inPlace = (body: Uint8Array) => {
    const events = new Uint8Array(body.length + 7);
    events.set(body, 3);
    return decodeCachedRows(events, new DataView(events.buffer), 3, 3 + body.length, columns);
  };
  for (const codegen of [true, false]) {
    setRowCodegen(codegen);
    assertExact(inPlace(rowsBody({ global: true, noMetadata: true, rows: sampleRows })), sampleExpected, `codegen=${codegen}`);
    assertExact(inPlace(rowsBody({ global: false, noMetadata: true, rows: sampleRows })), sampleExpected, `codegen=${codegen}, no global flag`);
    assertExact(inPlace(rowsBody({ global: true, noMetadata: true, rows: [] })), [], `codegen=${codegen}, no rows`);
  }
  setRowCodegen(true);
  // Anything but the plain skip-metadata last page goes to parseResult.
  assertExact(inPlace(rowsBody({ global: true, rows: sampleRows })), null, "metadata present");
  assertExact(inPlace(rowsBody({ global: true, noMetadata: true, pageState: "beef", rows: sampleRows })), null, "a next page");
  assertExact(inPlace(new Uint8Array([0, 0, 0, 1])), null, "void");
  const plain = rowsBody({ global: true, noMetadata: true, rows: sampleRows });
  const narrow = decodeCachedRows(plain, new DataView(plain.buffer, plain.byteOffset, plain.byteLength), 0, plain.length, columns.slice(0, 1));
  assertExact(narrow, null, "another column count");
  // A malformed page is left to parseResult, whose error counts from the body's start.
  for (let cut = 0; cut < plain.length; cut++) assertExact(inPlace(plain.subarray(0, cut)), null, `cut at ${cut}`);
  const trailing = new Uint8Array(plain.length + 1);
  trailing.set(plain);
  assertExact(inPlace(trailing), null, "a trailing byte");
  const lying = plain.slice();
  new DataView(lying.buffer).setInt32(12, 1000);
  assertExact(inPlace(lying), null, "a row count the bytes cannot hold");
});

Deno.test("RESULT Rows: hostile counts and names", () => {
  const huge = new Body().int(2).int(1).int(1).string("ks").string("t").string("c").short(INT).int(0x7fffffff).build();
  assertThrows(() => parseResult(huge, 4), CqlProtocolError, "row count beyond the body");
  const hugeColumns = new Body().int(2).int(1).int(0x7fffffff).string("ks").string("t").build();
  assertThrows(() => parseResult(hugeColumns, 4), CqlProtocolError, "column count beyond the body");
  const negative = new Body().int(2).int(0).int(-1).build();
  assertThrows(() => parseResult(negative, 4), CqlProtocolError, "negative column count");
  const zeroColumns = new Body().int(2).int(0).int(0).int(5).build();
  assertThrows(() => parseResult(zeroColumns, 4), CqlProtocolError, "rows without columns");
  const badValue = new Body().int(2).int(1).int(1).string("ks").string("t").string("c").short(INT).int(1).bytes("0001").build();
  const e = assertThrows(() => parseResult(badValue, 4), CqlProtocolError, "a 2-byte int");
  assert(e.field === "int value" && e.offset === badValue.length - 2, `names the check and offset: ${e.message}`);

  for (const codegen of [true, false]) {
    setRowCodegen(codegen);
    const names = ["__proto__", 'quote"d', "back\\slash", "new\nline", "constructor", "0", "a b", "\u2028"];
    const b = new Body().int(2).int(1).int(names.length).string("ks").string("t");
    for (const n of names) b.string(n).short(INT);
    b.int(1);
    names.forEach((_, i) => b.bytes(i.toString(16).padStart(8, "0")));
    const result = parseResult(b.build(), 4);
    assert(result.kind === "rows", "rows");
    const row = result.rows[0];
    assert(Object.getPrototypeOf(row) === Object.prototype, `codegen=${codegen}: __proto__ column does not set the prototype`);
    assertEquals(names.map((n) => Object.getOwnPropertyDescriptor(row, n)?.value), [0, 1, 2, 3, 4, 5, 6, 7], `codegen=${codegen}`);
  }
  setRowCodegen(true);
});

Deno.test("RESULT Prepared (v4 and v5), Void, Set_keyspace, Schema_change", () => {
  for (const version of [4, 5]) {
    const b = new Body().int(4).shortBytes("aabbcc");
    if (version >= 5) b.shortBytes("0011");
    b.int(1).int(2).int(1).short(1).string("ks").string("t").string("id").short(BIGINT).string("v").short(0x0020).short(VARCHAR);
    b.int(1).int(1).string("ks").string("t").string("v").short(0x0020).short(VARCHAR);
    const result = parseResult(b.build(), version);
    assert(result.kind === "prepared", "prepared");
    assertEquals(bytesToHex(result.id), "aabbcc");
    assertEquals(result.resultMetadataId === null ? null : bytesToHex(result.resultMetadataId), version >= 5 ? "0011" : null);
    assertEquals(result.pkIndexes, [1]);
    assertEquals(result.bindColumns.map((c) => `${c.keyspace}.${c.table}.${c.name}:${formatCqlType(c.type)}`), ["ks.t.id:bigint", "ks.t.v:list<text>"]);
    assertEquals(result.resultColumns.map((c) => c.name), ["v"]);
    const bytes = b.build();
    for (let cut = 0; cut < bytes.length; cut++) {
      assertThrows(() => parseResult(bytes.subarray(0, cut), version), CqlProtocolError, `prepared v${version} cut at ${cut}`);
    }
  }
  const noResult = new Body().int(4).shortBytes("01").int(0).int(0).int(0).int(4).int(0).build();
  const prepared = parseResult(noResult, 4);
  assert(prepared.kind === "prepared" && prepared.resultColumns.length === 0 && prepared.bindColumns.length === 0, "no metadata");
  const badPk = new Body().int(4).shortBytes("01").int(0).int(1).int(1).short(3).string("ks").string("t").string("a").short(INT).int(4).int(0).build();
  assertThrows(() => parseResult(badPk, 4), CqlProtocolError, "pk index past the bind markers");

  assertEquals(parseResult(new Body().int(1).build(), 4), { kind: "void" });
  assertThrows(() => parseResult(new Body().int(1).int(0).build(), 4), CqlProtocolError, "void with trailing bytes");
  assertEquals(parseResult(new Body().int(3).string("shop").build(), 4), { kind: "setKeyspace", keyspace: "shop" });
  assertEquals(parseResult(new Body().int(5).string("CREATED").string("KEYSPACE").string("ks").build(), 4), {
    kind: "schemaChange",
    change: "CREATED",
    target: "KEYSPACE",
    keyspace: "ks",
  });
  assertEquals(parseResult(new Body().int(5).string("UPDATED").string("TABLE").string("ks").string("t").build(), 4), {
    kind: "schemaChange",
    change: "UPDATED",
    target: "TABLE",
    keyspace: "ks",
    name: "t",
  });
  assertEquals(parseResult(new Body().int(5).string("DROPPED").string("FUNCTION").string("ks").string("f").short(2).string("int").string("text").build(), 4), {
    kind: "schemaChange",
    change: "DROPPED",
    target: "FUNCTION",
    keyspace: "ks",
    name: "f",
    argTypes: ["int", "text"],
  });
  assertThrows(() => parseResult(new Body().int(5).string("CREATED").string("TRIGGER").string("ks").build(), 4), CqlProtocolError, "unknown target");
  assertThrows(() => parseResult(new Body().int(9).build(), 4), CqlProtocolError, "unknown kind");
  assertThrows(() => parseResult(new Uint8Array(0), 4), CqlProtocolError, "empty body");
});

Deno.test("rows with every kind of column decode through the row factory", async () => {
  const vectors = (await loadVectors("types_ts_extra.json"))!.filter((v) => v.expect !== undefined && v.expect !== null);
  // All at once (a row wider than the inlined limit) and in narrower slices (inlined).
  const slices = [vectors, ...Array.from({ length: Math.ceil(vectors.length / 40) }, (_, i) => vectors.slice(i * 40, i * 40 + 40))];
  for (const codegen of [true, false]) {
    setRowCodegen(codegen);
    for (const slice of slices) {
      const b = new Body().int(2).int(1).int(slice.length).string("ks").string("t");
      const w = new Writer();
      for (let i = 0; i < slice.length; i++) {
        b.string(`c${i}`);
        w.reset();
        writeTypeOption(w, parseCqlType(slice[i].type));
        b.w.raw(w.toBytes());
      }
      b.int(2);
      for (let row = 0; row < 2; row++) for (const v of slice) b.bytes(v.hex);
      const result = parseResult(b.build(), 5);
      assert(result.kind === "rows" && result.rows.length === 2, "two rows");
      for (const row of result.rows) {
        slice.forEach((v, i) => assertEquals(toCanonical(result.columns[i].type, row[`c${i}`]), v.expect, `codegen=${codegen} ${v.name}`));
      }
    }
  }
  setRowCodegen(true);
});

Deno.test("blobs in rows never alias the caller's body unless it is handed over", () => {
  const body = new Body().int(2).int(1).int(1).string("ks").string("t").string("b").short(0x0003).int(1).bytes("0102").build();
  const copied = parseResult(body, 4);
  const handed = parseResult(body, 4, undefined, { bodyIsPrivate: true });
  assert(copied.kind === "rows" && handed.kind === "rows", "rows");
  body[body.length - 1] = 0xff;
  assertEquals(bytesToHex(copied.rows[0].b as Uint8Array), "0102", "a private copy");
  assertEquals(bytesToHex(handed.rows[0].b as Uint8Array), "01ff", "a view of the handed-over body");
});

/** Writes a type as an [option], vectors as their custom class name. */
function writeTypeOption(w: Writer, t: TypeInfo): void {
  w.u16(t.code);
  switch (t.kind) {
    case "custom":
      w.string(t.className);
      break;
    case "vector":
      w.string(`org.apache.cassandra.db.marshal.VectorType(${marshalName(t.element)},${t.dimension})`);
      break;
    case "list":
    case "set":
      writeTypeOption(w, t.element);
      break;
    case "map":
      writeTypeOption(w, t.key);
      writeTypeOption(w, t.value);
      break;
    case "tuple":
      w.u16(t.elements.length);
      t.elements.forEach((e) => writeTypeOption(w, e));
      break;
    case "udt":
      w.string(t.keyspace);
      w.string(t.name);
      w.u16(t.fields.length);
      for (const f of t.fields) {
        w.string(f.name);
        writeTypeOption(w, f.type);
      }
      break;
  }
}

function marshalName(t: TypeInfo): string {
  const names: Record<string, string> = {
    float: "FloatType",
    double: "DoubleType",
    int: "Int32Type",
    bigint: "LongType",
    uuid: "UUIDType",
    text: "UTF8Type",
    varint: "IntegerType",
    smallint: "ShortType",
    date: "SimpleDateType",
  };
  if (t.kind === "list") return `org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.ListType(${marshalName(t.element)}))`;
  const name = names[t.kind];
  if (name === undefined) throw new Error(`no marshal name for ${t.kind} in this test`);
  return `org.apache.cassandra.db.marshal.${name}`;
}
