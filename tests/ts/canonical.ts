// The canonical JSON form of decoded CQL values (tests/vectors/README.md), shared by the
// value vectors (codec_test.ts) and the frame vectors (frames_test.ts).
import { CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp, type TypeInfo } from "../../driver/src/codec/mod.ts";
import { assertExact } from "../exact.mjs";

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

const assertEquals = assertExact;
const bytesToHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function canonicalFloat(n: number): unknown {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "Infinity";
  if (n === -Infinity) return "-Infinity";
  if (Object.is(n, -0)) return "-0";
  return n;
}

export function toCanonical(t: TypeInfo, v: unknown): unknown {
  if (v === null) return null;
  switch (t.kind) {
    case "ascii":
    case "text":
    case "boolean":
    case "tinyint":
    case "smallint":
    case "int":
    case "uuid":
    case "timeuuid":
    case "inet":
      return v;
    case "bigint":
    case "counter":
    case "varint":
      assert(typeof v === "bigint", `${t.kind} decodes to bigint, got ${typeof v}`);
      return String(v);
    case "float":
    case "double":
      assert(typeof v === "number", `${t.kind} decodes to number`);
      return canonicalFloat(v);
    case "decimal":
      assert(v instanceof CqlDecimal, "decimal decodes to CqlDecimal");
      return `${v.unscaled}e${-v.scale}`;
    case "blob":
    case "custom":
      assert(v instanceof Uint8Array, `${t.kind} decodes to Uint8Array`);
      return "0x" + bytesToHex(v);
    case "timestamp":
      if (v instanceof Date) return String(v.getTime());
      assert(v instanceof CqlTimestamp, "timestamp decodes to Date or CqlTimestamp");
      assert(v.ms > 8640000000000000n || v.ms < -8640000000000000n, "CqlTimestamp only outside Date's range");
      return String(v.ms);
    case "date":
      assert(v instanceof CqlDate, "date decodes to CqlDate");
      return v.days;
    case "time":
      assert(v instanceof CqlTime, "time decodes to CqlTime");
      return String(v.nanos);
    case "duration":
      assert(v instanceof CqlDuration, "duration decodes to CqlDuration");
      return { months: v.months, days: v.days, nanos: String(v.nanos) };
    case "list":
    case "set":
      assert(Array.isArray(v), `${t.kind} decodes to an array`);
      return v.map((x) => toCanonical(t.element, x));
    case "vector":
      if (t.element.kind === "float") assert(v instanceof Float32Array, "vector<float> decodes to Float32Array");
      else if (t.element.kind === "double") assert(v instanceof Float64Array, "vector<double> decodes to Float64Array");
      else assert(Array.isArray(v), "vector decodes to an array");
      return Array.from(v as ArrayLike<unknown>, (x) => toCanonical(t.element, x));
    case "map":
      assert(v instanceof Map, "map decodes to Map");
      return [...v].map(([k, x]) => [toCanonical(t.key, k), toCanonical(t.value, x)]);
    case "tuple":
      assert(Array.isArray(v) && v.length <= t.elements.length, "tuple decodes to an array of at most its components");
      return v.map((x, i) => toCanonical(t.elements[i], x));
    case "udt": {
      assert(typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype, "udt decodes to a plain object");
      const out: Record<string, unknown> = {};
      for (const f of t.fields) {
        if (!Object.hasOwn(v, f.name)) continue;
        Object.defineProperty(out, f.name, { value: toCanonical(f.type, (v as Record<string, unknown>)[f.name]), enumerable: true });
      }
      assertEquals(Object.keys(v), Object.keys(out), "udt fields are a prefix of the type's, in order");
      return out;
    }
  }
}
