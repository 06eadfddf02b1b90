// Properties of the driver's TypeScript codec against hostile peer bytes (issue #12, "Fuzzing
// that reaches all peer input"): any bytes give a value or a CqlProtocolError (never a
// RangeError, TypeError or stack overflow), and encode-then-decode gives the value back
// exactly. Run: deno test -A tests/props/codec_props_test.ts (CQLWIRE_PROPS_RUNS for more).
import { CqlProtocolError, decodeValue, encodeValue, parseResult, readTypeOption, Reader, type TypeInfo, Writer } from "../../driver/src/codec/mod.ts";
import { setRowCodegen } from "../../driver/src/codec/result.ts";
import { nativeTypes } from "../../driver/src/codec/mod.ts";
import { setOf, tupleOf, vectorOf } from "../../driver/src/codec/types.ts";
import { assertExact } from "../exact.mjs";
import { typeAndValue, typeArb, writable, writeTypeOption } from "./codec_arbitraries.ts";
import { check, fc } from "./settings.ts";

/** Runs `decode`; a thrown error must be a CqlProtocolError pointing into the input. */
function valueOrProtocolError(input: Uint8Array, decode: () => unknown): unknown {
  try {
    return decode();
  } catch (e) {
    if (!(e instanceof CqlProtocolError)) throw new Error(`expected CqlProtocolError, got ${(e as Error)?.name}: ${(e as Error)?.message}`, { cause: e });
    assertExact(e.code, "ERR_CQL_PROTOCOL");
    if (e.side !== "remote" && e.side !== "local") throw new Error(`side ${e.side}`);
    if (typeof e.field !== "string" || e.field === "") throw new Error(`no field in ${e.message}`);
    if (!Number.isSafeInteger(e.offset) || e.offset < 0 || e.offset > input.length) {
      throw new Error(`offset ${e.offset} outside the ${input.length}-byte input: ${e.message}`);
    }
    return e;
  }
}

function encoded(t: TypeInfo, v: unknown): Uint8Array {
  const w = new Writer();
  encodeValue(t, v, w);
  // encodeValue writes a [bytes]: drop the 4-byte length.
  return w.bytes().slice(4);
}

/** A RESULT Rows body with one column of type `t` per value, one row of `values`. */
function rowsBody(columns: { t: TypeInfo; v: unknown }[], rowCount = 1): Uint8Array {
  const w = new Writer();
  w.i32(2);
  w.i32(0x0001);
  w.i32(columns.length);
  w.string("ks");
  w.string("tb");
  columns.forEach((c, i) => {
    w.string(`c${i}`);
    writeTypeOption(w, c.t);
  });
  w.i32(rowCount);
  for (let r = 0; r < rowCount; r++) for (const c of columns) encodeValue(c.t, c.v, w);
  return w.bytes().slice();
}

const writableColumns = fc.array(typeAndValue.filter(({ t }) => writable(t)), { minLength: 1, maxLength: 4 });

Deno.test("arbitrary bytes as a RESULT body give a result or a CqlProtocolError", () => {
  for (const codegen of [true, false]) {
    setRowCodegen(codegen);
    check(fc.property(fc.uint8Array({ maxLength: 300 }), fc.constantFrom(4, 5), (body, version) => {
      valueOrProtocolError(body, () => parseResult(body, version));
    }), 2);
  }
  setRowCodegen(true);
});

Deno.test("RESULT bodies that start right give a result or a CqlProtocolError", () => {
  // A valid kind first, so the fuzzing reaches metadata, types and rows.
  const kindThenBytes = fc.tuple(fc.integer({ min: 1, max: 5 }), fc.uint8Array({ maxLength: 400 })).map(([kind, rest]) => {
    const body = new Uint8Array(4 + rest.length);
    new DataView(body.buffer).setInt32(0, kind);
    body.set(rest, 4);
    return body;
  });
  check(fc.property(kindThenBytes, fc.constantFrom(4, 5), (body, version) => {
    valueOrProtocolError(body, () => parseResult(body, version));
  }), 4);
});

Deno.test("a Rows body decodes to its values exactly, and every truncation or trailing byte is a CqlProtocolError", () => {
  for (const codegen of [true, false]) {
    setRowCodegen(codegen);
    check(fc.property(writableColumns, fc.uint8Array({ minLength: 1, maxLength: 8 }), (columns, extra) => {
      const body = rowsBody(columns);
      const result = parseResult(body, 5);
      if (result.kind !== "rows") throw new Error(`kind ${result.kind}`);
      assertExact(result.rows, [Object.fromEntries(columns.map((c, i) => [`c${i}`, c.v]))]);
      for (let cut = 0; cut < body.length; cut++) {
        const short = body.subarray(0, cut);
        const outcome = valueOrProtocolError(short, () => parseResult(short, 5));
        if (!(outcome instanceof CqlProtocolError)) throw new Error(`truncated at ${cut} of ${body.length} and still decoded`);
      }
      const long = new Uint8Array(body.length + extra.length);
      long.set(body);
      long.set(extra, body.length);
      const outcome = valueOrProtocolError(long, () => parseResult(long, 5));
      if (!(outcome instanceof CqlProtocolError)) throw new Error("trailing bytes were accepted");
    }), 0.5);
  }
  setRowCodegen(true);
});

/** Values a hostile peer puts in a count or length field. */
const hostileI32 = fc.constantFrom(-1, -2, -0x80000000, 0x7fffffff, 0x7ffffffe, 0x10000, 0xffff, 1 << 24, 1 << 30);

Deno.test("a Rows body with a hostile count or length anywhere gives a result or a CqlProtocolError", () => {
  check(fc.property(writableColumns, fc.nat(), hostileI32, fc.constantFrom(2, 4), (columns, where, hostile, size) => {
    const body = rowsBody(columns, 2);
    const at = where % Math.max(1, body.length - size);
    const view = new DataView(body.buffer);
    if (size === 4) view.setInt32(at, hostile);
    else view.setUint16(at, hostile & 0xffff);
    valueOrProtocolError(body, () => parseResult(body, 5));
  }));
});

Deno.test("random byte flips in a Rows body give a result or a CqlProtocolError", () => {
  check(fc.property(writableColumns, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }), (columns, flips) => {
    const body = rowsBody(columns, 2);
    for (const [where, value] of flips) body[where % body.length] = value;
    valueOrProtocolError(body, () => parseResult(body, 4));
  }));
});

Deno.test("arbitrary bytes decoded as any type give a value or a CqlProtocolError", () => {
  check(fc.property(typeArb(), fc.uint8Array({ maxLength: 200 }), (t, bytes) => {
    valueOrProtocolError(bytes, () => decodeValue(t, bytes));
  }), 4);
});

Deno.test("encode then decode gives every value back exactly", () => {
  check(fc.property(typeAndValue, ({ t, v }) => {
    assertExact(decodeValue(t, encoded(t, v)), v);
  }), 4);
});

Deno.test("what decodes from arbitrary bytes encodes and decodes to itself", () => {
  check(fc.property(typeArb(2), fc.uint8Array({ maxLength: 64 }), (t, bytes) => {
    const value = valueOrProtocolError(bytes, () => decodeValue(t, bytes));
    if (value instanceof CqlProtocolError || value === null) return;
    assertExact(decodeValue(t, encoded(t, value)), value);
  }), 4);
});

Deno.test("values made of encodings of the right type with hostile counts give a value or a CqlProtocolError", () => {
  check(fc.property(typeAndValue, fc.nat(), hostileI32, (tv, where, hostile) => {
    const bytes = encoded(tv.t, tv.v);
    if (bytes.length < 4) return;
    new DataView(bytes.buffer).setInt32(where % (bytes.length - 3), hostile);
    valueOrProtocolError(bytes, () => decodeValue(tv.t, bytes));
  }), 4);
});

Deno.test("arbitrary [option] bytes give a type or a CqlProtocolError, however deep they nest", () => {
  const nesting = fc.tuple(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom(0x0020, 0x0022, 0x0021), fc.uint8Array({ maxLength: 16 }))
    .map(([depth, code, tail]) => {
      const w = new Writer();
      for (let i = 0; i < depth; i++) w.u16(code);
      w.raw(tail);
      return w.bytes().slice();
    });
  check(fc.property(fc.oneof(fc.uint8Array({ maxLength: 200 }), nesting), (bytes) => {
    valueOrProtocolError(bytes, () => readTypeOption(new Reader(bytes)));
  }), 0.5);
});

Deno.test("custom type names nested deeply give a type or a CqlProtocolError", () => {
  const marshal = fc.tuple(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom("ListType(", "VectorType(", "TupleType(", "MapType(Int32Type,"))
    .map(([depth, open]) => "org.apache.cassandra.db.marshal." + open.repeat(depth) + "Int32Type" + ")".repeat(depth));
  check(fc.property(fc.oneof(marshal, fc.string({ maxLength: 60 }).map((s) => "org.apache.cassandra.db.marshal." + s)), (name) => {
    const w = new Writer(name.length + 4);
    w.u16(0);
    if (name.length > 0xffff) w.utf8(name);
    else w.string(name);
    const bytes = w.bytes().slice();
    valueOrProtocolError(bytes, () => readTypeOption(new Reader(bytes)));
  }), 0.25);
});

Deno.test("a megabyte of arbitrary value bytes gives a value or a CqlProtocolError", () => {
  const big = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1 << 20, max: (1 << 20) + 64 })).map(([fill, n]) => new Uint8Array(n).fill(fill));
  check(fc.property(typeArb(2), big, (t, bytes) => {
    valueOrProtocolError(bytes, () => decodeValue(t, bytes));
  }), 0.05);
});


// Regression, found by "encode then decode": a collection inside a vector moved the shared
// end-of-element position, so a tuple holding vector<set<inet>, 2> resumed mid-value and
// failed with "element of 67108864 bytes".
Deno.test("a tuple holding a vector of sets decodes to its value", () => {
  const t = tupleOf([vectorOf(setOf(nativeTypes.inet), 2), nativeTypes.int]);
  const value = [[["0.0.0.0"], []], 7];
  assertExact(decodeValue(t, encoded(t, value)), value);
});
