/**
 * `types.dataTypes` with DataStax's `getByName(name)`: the `{ code, info }` its encoder takes
 * as a hint, read with cqlwire's one type parser and shaped as DataStax's getByName shapes it.
 */
import { parseCqlType, type TypeInfo } from "../src/codec/mod.ts";
import { dataTypes as codes } from "../src/types.ts";

export interface DataStaxType {
  code: number;
  info?: DataStaxType | DataStaxType[] | string | [DataStaxType, number];
  customTypeName?: "vector";
}

function shape(t: TypeInfo): DataStaxType {
  switch (t.kind) {
    // DataStax names `text` 0x000a (its alias of varchar): getByName("text") is that code.
    // cqlwire's parser reads varchar as text, so a nested varchar is 0x000a too (DataStax: 0x000d).
    case "text":
      return { code: codes.text };
    case "list":
    case "set":
      return { code: t.code, info: shape(t.element) };
    case "map":
      return { code: t.code, info: [shape(t.key), shape(t.value)] };
    case "tuple":
      return { code: t.code, info: t.elements.map(shape) };
    case "udt":
      return { code: t.code, info: t.keyspace ? `${t.keyspace}.${t.name}` : t.name };
    case "vector":
      return { code: codes.custom, customTypeName: "vector", info: [shape(t.element), t.dimension] };
    case "custom":
      return { code: t.code, info: t.className };
    default:
      return { code: t.code };
  }
}

/** The type a CQL type name stands for; a TypeError for a name that is none, as DataStax. */
function getByName(name: string): DataStaxType {
  const lower = String(name).toLowerCase();
  // A native name is its own code (so "varchar" stays 0x000d and "text" 0x000a).
  if (Object.hasOwn(codes, lower)) return { code: codes[lower as keyof typeof codes] };
  // DataStax names a UDT only as udt<name>; a bare name is no type to it.
  const udt = lower.startsWith("udt<") && lower.endsWith(">");
  let t: TypeInfo | undefined;
  try {
    t = parseCqlType(udt ? lower.slice(4, -1) : lower);
  } catch {
    // not a type: the TypeError below
  }
  if (t === undefined || (t.kind === "udt") !== udt) throw new TypeError(`Data type with name ${lower} not valid`);
  return shape(t);
}

export const dataTypes = { ...codes, getByName };

const NAME_OF_CODE: ReadonlyMap<number, string> = new Map([
  ...Object.entries(codes).filter(([name]) => name !== "varchar").map(([name, code]) => [code, name] as [number, string]),
  [codes.varchar, "text"],
]);

/**
 * A DataStax hint as the CQL type text cqlwire's type parser reads: a name stays as given; a
 * `dataTypes` code or a `{ code, info }` (getByName's shape, or a hand-built one) is written
 * out. Null for a hint that names no type; the core then refuses the statement.
 */
export function hintText(hint: unknown): string | null {
  if (typeof hint === "string") return hint;
  if (typeof hint === "number") return hintText({ code: hint });
  if (hint === null || typeof hint !== "object" || typeof (hint as DataStaxType).code !== "number") return null;
  const { code, info, customTypeName } = hint as DataStaxType;
  const inner = (t: unknown) => hintText(t) ?? "?";
  if (customTypeName === "vector" && Array.isArray(info)) return `vector<${inner(info[0])}, ${info[1]}>`;
  // Without info a collection's hint is partial ("list"): its elements are typed by value.
  if (code === codes.list || code === codes.set) return info === undefined || info === null ? NAME_OF_CODE.get(code)! : `${NAME_OF_CODE.get(code)}<${inner(info)}>`;
  if (code === codes.map) return Array.isArray(info) ? `map<${inner(info[0])}, ${inner(info[1])}>` : "map";
  if (code === codes.tuple && Array.isArray(info)) return `tuple<${info.map(inner).join(", ")}>`;
  if (code === codes.udt) return typeof info === "string" ? info : null;
  if (code === codes.custom) return typeof info === "string" ? `'${info}'` : null;
  return NAME_OF_CODE.get(code) ?? null;
}
