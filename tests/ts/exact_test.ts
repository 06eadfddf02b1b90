// The exact comparison (tests/exact.mjs) tells apart every pair a lossy comparison would merge.
// Run: deno test -A tests/ts/exact_test.ts
import { assertExact, difference, ExactnessError, exactlyEqual, show } from "../exact.mjs";
import { CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp } from "../../driver/src/codec/mod.ts";

function differ(actual: unknown, expected: unknown, pathAndText: string): void {
  const d = difference(actual, expected);
  if (d === null) throw new Error(`${show(actual)} and ${show(expected)} compared equal`);
  if (!d.includes(pathAndText)) throw new Error(`the difference ${JSON.stringify(d)} does not mention ${JSON.stringify(pathAndText)}`);
}

function same(actual: unknown, expected: unknown): void {
  const d = difference(actual, expected);
  if (d !== null) throw new Error(`expected equal, got ${d}`);
}

Deno.test("numbers: NaN equals NaN, -0 is not 0, ±Infinity and null are all different", () => {
  same(NaN, NaN);
  same(-0, -0);
  same(Infinity, Infinity);
  differ(-0, 0, "at $: actual -0, expected 0");
  differ(0, -0, "actual 0, expected -0");
  differ(NaN, null, "actual NaN, expected null");
  differ(Infinity, null, "actual Infinity, expected null");
  differ(-Infinity, Infinity, "actual -Infinity, expected Infinity");
  differ([1, NaN], [1, 0], "at $[1]: actual NaN, expected 0");
});

Deno.test("bigint is compared by value and is never a number or a string", () => {
  same(2n ** 64n, 18446744073709551616n);
  differ(1n, 1, "actual 1n, expected 1");
  differ(1n, "1n", 'actual 1n, expected "1n"');
  differ({ v: -9223372036854775808n }, { v: -9223372036854775807n }, "at $.v");
});

Deno.test("Map: entries, values and order; a Map is not an object", () => {
  same(new Map([["a", 1], ["b", NaN]]), new Map([["a", 1], ["b", NaN]]));
  differ(new Map([["a", 1]]), {}, "class Map vs expected class Object");
  differ(new Map([["a", 1]]), new Map([["a", 2]]), 'at $.get("a"): actual 1, expected 2');
  differ(new Map([["a", -0]]), new Map([["a", 0]]), 'at $.get("a"): actual -0');
  differ(new Map([["a", 1], ["b", 2]]), new Map([["b", 2], ["a", 1]]), "at $.keys()[0]");
  differ(new Map([["a", 1]]), new Map([["a", 1], ["b", 2]]), "1 entries, expected 2");
  differ(new Map([[1n, "x"]]), new Map([[1, "x"]]), "keys()[0]: actual 1n, expected 1");
});

Deno.test("Set: elements and order", () => {
  same(new Set([1, 2]), new Set([1, 2]));
  differ(new Set([1, 2]), new Set([1, 3]), "at $<set>[1]: actual 2, expected 3");
  differ(new Set([1]), [1], "class Set vs expected class Array");
  differ(new Set([NaN]), new Set([null]), "actual NaN, expected null");
});

Deno.test("Date: by time value, including invalid dates", () => {
  same(new Date(0), new Date(0));
  same(new Date(NaN), new Date(NaN));
  differ(new Date(1), new Date(0), "actual Date(1970-01-01T00:00:00.001Z), expected Date(1970-01-01T00:00:00.000Z)");
  differ(new Date(0), "1970-01-01T00:00:00.000Z", 'actual Date(1970-01-01T00:00:00.000Z), expected "1970-01-01T00:00:00.000Z"');
});

Deno.test("typed arrays, DataView and ArrayBuffer: class and content", () => {
  same(Uint8Array.of(1, 2), Uint8Array.of(1, 2));
  same(Float64Array.of(NaN, -0), Float64Array.of(NaN, -0));
  differ(Float64Array.of(-0), Float64Array.of(0), "at $[0]: actual -0, expected 0");
  differ(Float32Array.of(NaN), Float32Array.of(0), "at $[0]: actual NaN, expected 0");
  differ(Uint8Array.of(1, 2), Int8Array.of(1, 2), "class Uint8Array vs expected class Int8Array");
  differ(Uint8Array.of(1, 2), [1, 2], "class Uint8Array vs expected class Array");
  differ(Uint8Array.of(1, 2), Uint8Array.of(1, 2, 3), "length 2, expected 3");
  differ(Uint8Array.of(1, 2).buffer, Uint8Array.of(1, 3).buffer, "at $ byte 1");
  same(new DataView(Uint8Array.of(9, 1, 2).buffer, 1), new DataView(Uint8Array.of(1, 2).buffer));
  differ(new DataView(Uint8Array.of(1).buffer), new DataView(Uint8Array.of(2).buffer), "byte 0");
});

Deno.test("the driver's value classes compare by class and content", () => {
  same(new CqlDecimal(12345n, 2), new CqlDecimal(12345n, 2));
  differ(new CqlDecimal(12345n, 2), new CqlDecimal(12345n, 3), "at $.scale: actual 2, expected 3");
  differ(new CqlDecimal(1n, 0), { unscaled: 1n, scale: 0 }, "class CqlDecimal vs expected class Object");
  differ(new CqlDate(1), new CqlDate(2), "at $.days");
  differ(new CqlTime(1n), new CqlTime(2n), "at $.nanos: actual 1n, expected 2n");
  differ(new CqlTimestamp(1n), new CqlTime(1n), "class CqlTimestamp vs expected class CqlTime");
  differ(new CqlDuration(1, 2, 3n), new CqlDuration(1, 2, 4n), "at $.nanos");
  differ(new CqlDuration(0, -0, 0n), new CqlDuration(0, 0, 0n), "at $.days: actual -0");
});

Deno.test("objects: missing and extra keys, undefined vs absent, nested paths", () => {
  same({ a: [1, { b: new Map([["k", [NaN]]]) }] }, { a: [1, { b: new Map([["k", [NaN]]]) }] });
  same([Symbol.for("unset")], [Symbol.for("unset")]);
  differ([Symbol.for("unset")], [null], "actual Symbol(unset), expected null");
  differ({ a: [1, { b: new Map([["k", [NaN]]]) }] }, { a: [1, { b: new Map([["k", [null]]]) }] }, 'at $.a[1].b.get("k")[0]: actual NaN, expected null');
  differ({ a: 1 }, { a: 1, b: undefined }, 'missing "b"');
  differ({ a: 1, b: undefined }, { a: 1 }, 'unexpected "b"');
  differ({ "two words": 1 }, { "two words": 2 }, 'at $["two words"]');
  differ(null, {}, "actual null, expected {}");
  differ(undefined, null, "actual undefined, expected null");
});

Deno.test("classes with private state compare through their own toString", () => {
  class Hidden {
    #v: string;
    constructor(v: string) {
      this.#v = v;
    }
    toString() {
      return this.#v;
    }
  }
  same(new Hidden("a"), new Hidden("a"));
  differ(new Hidden("a"), new Hidden("b"), "actual Hidden(a), expected Hidden(b)");
});

Deno.test("errors compare by class and message", () => {
  same(new TypeError("x"), new TypeError("x"));
  differ(new TypeError("x"), new RangeError("x"), "class TypeError vs expected class RangeError");
  differ(new Error("x"), new Error("y"), "at $.message");
});

Deno.test("cyclic values terminate", () => {
  const a: Record<string, unknown> = { n: 1 };
  a.self = a;
  const b: Record<string, unknown> = { n: 1 };
  b.self = b;
  same(a, b);
});

Deno.test("a long string difference shows where it starts", () => {
  const long = "1".repeat(5000);
  differ(long + "2", long + "3", "first difference at character 5000");
});

Deno.test("assertExact throws an ExactnessError that starts with the caller's message", () => {
  assertExact([NaN], [NaN]);
  if (!exactlyEqual(-0, -0) || exactlyEqual(-0, 0)) throw new Error("exactlyEqual");
  try {
    assertExact({ v: -0 }, { v: 0 }, "row 3");
  } catch (e) {
    if (!(e instanceof ExactnessError)) throw e;
    if (e.message !== "row 3: at $.v: actual -0, expected 0") throw new Error(`message: ${e.message}`);
    return;
  }
  throw new Error("assertExact accepted -0 for 0");
});
