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
    assertExact(e.code, "ERR_PROTOCOL");
    if (e.side !== "remote" && e.side !== "local") throw new Error(`side ${e.side}`);
    if (typeof e.field !== "string" || e.field === "") throw new Error(`no field in ${e.message}`);
    if (e.offset === null || !Number.isSafeInteger(e.offset) || e.offset < 0 || e.offset > input.length) {
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

/** Column specs with a global table spec: columns named `<prefix><index>`. */
function writeGlobalColumns(w: Writer, prefix: string, types: readonly TypeInfo[]): void {
  w.string("ks");
  w.string("tb");
  types.forEach((t, i) => {
    w.string(`${prefix}${i}`);
    writeTypeOption(w, t);
  });
}

/** A RESULT Rows body with one column of type `t` per value, one row of `values`. */
function rowsBody(columns: { t: TypeInfo; v: unknown }[], rowCount = 1): Uint8Array {
  const w = new Writer();
  w.i32(2);
  w.i32(0x0001);
  w.i32(columns.length);
  writeGlobalColumns(w, "c", columns.map((c) => c.t));
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

/** A PREPARED result body: bind columns of the given types, pk indexes, result columns. */
function preparedBody(types: TypeInfo[], pkIndexes: number[], version: number): Uint8Array {
  const w = new Writer();
  w.i32(4);
  w.u16(2);
  w.u16(0xabcd);
  if (version >= 5) {
    w.u16(1);
    w.u8(7);
  }
  w.i32(0x0001);
  w.i32(types.length);
  w.i32(pkIndexes.length);
  for (const i of pkIndexes) w.u16(i);
  writeGlobalColumns(w, "b", types);
  w.i32(0x0001);
  w.i32(types.length);
  writeGlobalColumns(w, "r", types);
  return w.bytes().slice();
}

Deno.test("a PREPARED body decodes to its columns, and truncations, trailing bytes and hostile counts are CqlProtocolErrors", () => {
  const prepared = fc.array(typeArb().filter(writable), { minLength: 1, maxLength: 4 })
    .chain((types) => fc.tuple(fc.constant(types), fc.uniqueArray(fc.nat({ max: types.length - 1 }), { maxLength: types.length }), fc.constantFrom(4, 5)));
  check(fc.property(prepared, fc.nat(), hostileI32, ([types, pk, version], where, hostile) => {
    const body = preparedBody(types, pk, version);
    const result = parseResult(body, version);
    if (result.kind !== "prepared") throw new Error(`kind ${result.kind}`);
    assertExact(result.pkIndexes, pk);
    // Inside a vector's marshal class name every collection is frozen, so compare without it.
    const unfrozen = (x: unknown) => JSON.stringify(x, (k, v) => (k === "frozen" ? undefined : v));
    assertExact(unfrozen(result.bindColumns.map((c) => c.type)), unfrozen(types));
    assertExact(result.resultColumns.map((c) => c.name), types.map((_, i) => `r${i}`));
    for (let cut = 0; cut < body.length; cut++) {
      const short = body.subarray(0, cut);
      if (!(valueOrProtocolError(short, () => parseResult(short, version)) instanceof CqlProtocolError)) throw new Error(`cut at ${cut} decoded`);
    }
    const long = new Uint8Array([...body, 0]);
    if (!(valueOrProtocolError(long, () => parseResult(long, version)) instanceof CqlProtocolError)) throw new Error("a trailing byte was accepted");
    new DataView(body.buffer).setInt32(where % (body.length - 3), hostile);
    valueOrProtocolError(body, () => parseResult(body, version));
  }), 0.5);
});

Deno.test("marshal class names from a hostile grammar give a type or a CqlProtocolError, and its values decode safely", () => {
  const p = "org.apache.cassandra.db.marshal.";
  const token = fc.constantFrom(
    `${p}ListType(`, `${p}SetType(`, `${p}MapType(`, `${p}TupleType(`, `${p}FrozenType(`, `${p}ReversedType(`, `${p}VectorType(`,
    `${p}UserType(ks,6e,`, "66:", "zz:", `${p}Int32Type`, `${p}UTF8Type`, `${p}FloatType`, `${p}DurationType`, `${p}Nope(`,
    ",", ")", "(", "3", "0", "999999999", "1e9", " ", ":",
  );
  const className = fc.array(token, { minLength: 1, maxLength: 20 }).map((ts) => ts.join(""));
  check(fc.property(className, fc.uint8Array({ maxLength: 64 }), (name, bytes) => {
    const w = new Writer();
    w.u16(0);
    w.string(name);
    const option = w.bytes().slice();
    const t = valueOrProtocolError(option, () => readTypeOption(new Reader(option)));
    if (t instanceof CqlProtocolError) return;
    valueOrProtocolError(bytes, () => decodeValue(t as TypeInfo, bytes));
  }), 4);
});

Deno.test("a Rows body without metadata decodes with the cached columns exactly; a wrong column count is a CqlProtocolError", () => {
  check(fc.property(writableColumns, fc.integer({ min: -1, max: 1 }), (columns, skew) => {
    const cached = parseResult(rowsBody(columns, 0), 5);
    if (cached.kind !== "rows") throw new Error(`kind ${cached.kind}`);
    const w = new Writer();
    w.i32(2);
    w.i32(0x0004);
    w.i32(columns.length + skew);
    w.i32(1);
    for (const c of columns) encodeValue(c.t, c.v, w);
    const body = w.bytes().slice();
    const outcome = valueOrProtocolError(body, () => parseResult(body, 5, cached.columns));
    if (skew !== 0) {
      if (!(outcome instanceof CqlProtocolError) || outcome.field !== "column count") throw new Error(`column count off by ${skew} accepted`);
      return;
    }
    assertExact((outcome as { rows: unknown }).rows, [Object.fromEntries(columns.map((c, i) => [`c${i}`, c.v]))]);
    const missing = valueOrProtocolError(body, () => parseResult(body, 5));
    // Without cached columns the request did not ask to skip them: the server's fault.
    if (!(missing instanceof CqlProtocolError) || missing.side !== "remote" || missing.field !== "rows metadata") throw new Error("no-metadata rows without cached columns were accepted");
  }));
});
