// fast-check arbitraries for the codec properties: CQL types, JS values of a type, and the
// wire form of a type as an [option]. Values are built in the driver's JS mapping (the table
// at the top of driver/src/codec/values.ts), so encode-then-decode must give them back exactly.
import { CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp, nativeTypes, type TypeInfo, Writer } from "../../driver/src/codec/mod.ts";
import { listOf, mapOf, setOf, tupleOf, udtOf, vectorOf } from "../../driver/src/codec/types.ts";
import { fc } from "./settings.ts";

const MAX_DATE_MS = 8_640_000_000_000_000n;
const NATIVE_KINDS = Object.keys(nativeTypes) as (keyof typeof nativeTypes)[];

const name = fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 6 });

/** Any CQL type up to `depth` levels of collections, tuples, UDTs and vectors. */
export function typeArb(depth = 3): fc.Arbitrary<TypeInfo> {
  const native = fc.constantFrom(...NATIVE_KINDS).map((k) => nativeTypes[k] as TypeInfo);
  if (depth === 0) return native;
  const inner = typeArb(depth - 1);
  return fc.oneof(
    { weight: 4, arbitrary: native },
    { weight: 1, arbitrary: inner.map((e) => listOf(e)) },
    { weight: 1, arbitrary: inner.map((e) => setOf(e)) },
    { weight: 1, arbitrary: fc.tuple(inner, inner).map(([k, v]) => mapOf(k, v)) },
    { weight: 1, arbitrary: fc.array(inner, { minLength: 1, maxLength: 4 }).map((es) => tupleOf(es)) },
    {
      weight: 1,
      arbitrary: fc.uniqueArray(fc.tuple(name, inner), { minLength: 1, maxLength: 4, selector: ([n]) => n })
        .map((fs) => udtOf("ks", "u", fs.map(([n, type]) => ({ name: n, type })))),
    },
    { weight: 1, arbitrary: fc.tuple(inner, fc.integer({ min: 1, max: 4 })).map(([e, d]) => vectorOf(e, d)) },
  );
}

const uuidText = (version: number) => fc.uuid({ version: version as 1 }).map((u) => u.toLowerCase());

const timestamp = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
  .map((ms) => (ms >= -MAX_DATE_MS && ms <= MAX_DATE_MS ? new Date(Number(ms)) : new CqlTimestamp(ms)));

const duration = fc.tuple(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), fc.boolean())
  .map(([m, d, n, negative]) => (negative ? new CqlDuration(-m || 0, -d || 0, -n) : new CqlDuration(m, d, n)));

const NATIVE_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  ascii: fc.string({ unit: "binary-ascii", maxLength: 20 }),
  text: fc.string({ unit: "grapheme", maxLength: 20 }),
  varchar: fc.string({ unit: "grapheme", maxLength: 20 }),
  boolean: fc.boolean(),
  tinyint: fc.integer({ min: -128, max: 127 }),
  smallint: fc.integer({ min: -32768, max: 32767 }),
  int: fc.integer(),
  float: fc.float(),
  double: fc.double(),
  bigint: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  counter: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  varint: fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }),
  decimal: fc.tuple(fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }), fc.integer()).map(([u, s]) => new CqlDecimal(u, s)),
  timestamp,
  date: fc.integer().map((d) => new CqlDate(d)),
  time: fc.bigInt({ min: 0n, max: CqlTime.MAX_NANOS }).map((n) => new CqlTime(n)),
  duration,
  uuid: uuidText(4),
  timeuuid: uuidText(1),
  inet: fc.ipV4(),
  blob: fc.uint8Array({ maxLength: 20 }),
};

/** A JS value of type `t` (non-null at the top; tuple and UDT components may be null). */
export function valueArb(t: TypeInfo): fc.Arbitrary<unknown> {
  switch (t.kind) {
    case "list":
    case "set":
      return fc.array(valueArb(t.element), { maxLength: 4 });
    case "map":
      return fc.array(fc.tuple(valueArb(t.key), valueArb(t.value)), { maxLength: 4 }).map((es) => new Map(es));
    case "tuple":
      return fc.tuple(...t.elements.map((e) => fc.option(valueArb(e), { nil: null })));
    case "udt":
      return fc.tuple(...t.fields.map((f) => fc.option(valueArb(f.type), { nil: null })))
        .map((vs) => Object.fromEntries(t.fields.map((f, i) => [f.name, vs[i]])));
    case "vector": {
      const items = fc.array(valueArb(t.element), { minLength: t.dimension, maxLength: t.dimension });
      if (t.element.kind === "float") return items.map((xs) => Float32Array.from(xs as number[]));
      if (t.element.kind === "double") return items.map((xs) => Float64Array.from(xs as number[]));
      return items;
    }
    case "custom":
      return NATIVE_VALUES.blob;
    default:
      return NATIVE_VALUES[t.kind];
  }
}

export const typeAndValue = typeArb().chain((t) => valueArb(t).map((v) => ({ t, v })));

const MARSHAL: Record<string, string> = {
  ascii: "AsciiType", bigint: "LongType", blob: "BytesType", boolean: "BooleanType", counter: "CounterColumnType",
  decimal: "DecimalType", double: "DoubleType", float: "FloatType", int: "Int32Type", text: "UTF8Type",
  varchar: "UTF8Type", timestamp: "TimestampType", uuid: "UUIDType", varint: "IntegerType", timeuuid: "TimeUUIDType",
  inet: "InetAddressType", date: "SimpleDateType", time: "TimeType", smallint: "ShortType", tinyint: "ByteType",
  duration: "DurationType",
};

/** The marshal class name Cassandra sends for `t` inside a custom type (vectors only here). */
function marshalName(t: TypeInfo): string {
  const p = "org.apache.cassandra.db.marshal.";
  switch (t.kind) {
    case "list":
      return `${p}ListType(${marshalName(t.element)})`;
    case "set":
      return `${p}SetType(${marshalName(t.element)})`;
    case "map":
      return `${p}MapType(${marshalName(t.key)},${marshalName(t.value)})`;
    case "tuple":
      return `${p}TupleType(${t.elements.map(marshalName).join(",")})`;
    case "vector":
      return `${p}VectorType(${marshalName(t.element)},${t.dimension})`;
    case "udt":
      throw new Error("UDTs inside vectors are not generated");
    default:
      return p + MARSHAL[t.kind];
  }
}

/** Writes `t` as an [option], vectors as their custom class name. */
export function writeTypeOption(w: Writer, t: TypeInfo): void {
  if (t.kind === "vector") {
    w.u16(0);
    w.string(marshalName(t));
    return;
  }
  w.u16(t.code);
  if (t.kind === "list" || t.kind === "set") writeTypeOption(w, t.element);
  else if (t.kind === "map") {
    writeTypeOption(w, t.key);
    writeTypeOption(w, t.value);
  } else if (t.kind === "tuple") {
    w.u16(t.elements.length);
    for (const e of t.elements) writeTypeOption(w, e);
  } else if (t.kind === "udt") {
    w.string(t.keyspace);
    w.string(t.name);
    w.u16(t.fields.length);
    for (const f of t.fields) {
      w.string(f.name);
      writeTypeOption(w, f.type);
    }
  }
}

/** Whether `t` can travel as an [option] by writeTypeOption (no UDT inside a vector). */
export function writable(t: TypeInfo): boolean {
  switch (t.kind) {
    case "vector":
      return !containsUdt(t.element);
    case "list":
    case "set":
      return writable(t.element);
    case "map":
      return writable(t.key) && writable(t.value);
    case "tuple":
      return t.elements.every(writable);
    case "udt":
      return t.fields.every((f) => writable(f.type));
    default:
      return true;
  }
}

function containsUdt(t: TypeInfo): boolean {
  switch (t.kind) {
    case "udt":
      return true;
    case "list":
    case "set":
    case "vector":
      return containsUdt(t.element);
    case "map":
      return containsUdt(t.key) || containsUdt(t.value);
    case "tuple":
      return t.elements.some(containsUdt);
    default:
      return false;
  }
}
