/**
 * Describes a value as text that shows exactly what user code could observe: class names
 * (Long, Uuid, Row, Buffer vs Uint8Array, Map vs object), -0, NaN, null vs undefined, key order.
 * Two drivers agree on a scenario when their descriptions are equal strings.
 */
// Imported, not the global: Deno has no global Buffer, and a Buffer must read as one there too.
import { Buffer } from "node:buffer";

const VALUE_CLASSES = new Set([
  "Long", "Integer", "BigDecimal", "Uuid", "TimeUuid", "LocalDate", "LocalTime", "InetAddress", "Duration",
]);

const ERROR_FIELDS = [
  "coordinator", "query", "keyspace", "table", "functionName", "argTypes", "consistencies", "required", "alive",
  "received", "blockFor", "writeType", "isDataPresent", "failures", "reasons", "innerErrors", "host",
];

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function describe(value, depth = 0) {
  if (depth > 8) return "…";
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  switch (typeof value) {
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return `${value}n`;
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return String(value);
    case "function":
      return `function ${value.name}`;
    case "symbol":
      return value.toString();
  }
  const d = (v) => describe(v, depth + 1);
  const ctor = value.constructor ? value.constructor.name : "null-proto";
  if (Buffer.isBuffer(value)) return `Buffer<${hex(value)}>`;
  if (ArrayBuffer.isView(value)) {
    return value instanceof Uint8Array ? `${ctor}<${hex(value)}>` : `${ctor}[${Array.from(value, d).join(",")}]`;
  }
  if (Array.isArray(value)) return `${ctor === "Array" ? "" : ctor}[${value.map(d).join(", ")}]`;
  if (value instanceof Map) return `Map{${[...value].map(([k, v]) => `${d(k)} => ${d(v)}`).join(", ")}}`;
  if (value instanceof Set) return `Set{${[...value].map(d).join(", ")}}`;
  if (value instanceof Date) return `Date(${isNaN(value) ? "Invalid" : value.toISOString()})`;
  if (value instanceof Error) {
    // The fields DataStax errors carry; cqlwire's extra ones (codeName, trace...) are left out.
    const own = ERROR_FIELDS.filter((k) => value[k] !== undefined);
    const extra = own.map((k) => `${k}: ${d(value[k])}`).join(", ");
    // `code` and `info` only for server errors: cqlwire's other errors add a code of their own.
    const server = value.name === "ResponseError" ? `, code: ${d(value.code)}, info: ${d(value.info)}` : "";
    return `${ctor}!{name: ${d(value.name)}, message: ${d(value.message)}${server}${extra ? `, ${extra}` : ""}}`;
  }
  if (VALUE_CLASSES.has(ctor)) return `${ctor}(${value.toString()})`;
  if (ctor === "Tuple") return `Tuple(${value.values().map(d).join(", ")})`;
  if (ctor === "Row") {
    const methods = ["get", "keys", "values", "forEach"].filter((m) => typeof value[m] === "function").join(",");
    return `Row<${methods}>{${Object.keys(value).map((k) => `${k}: ${d(value[k])}`).join(", ")}}`;
  }
  return `${ctor === "Object" ? "" : ctor}{${Object.keys(value).map((k) => `${k}: ${d(value[k])}`).join(", ")}}`;
}
