/**
 * CQL type trees: parsed from the protocol's `[option]`, from Cassandra marshal class names
 * (how vectors travel), and from CQL text (how `system_schema` stores types), and printed
 * back as CQL text.
 */
import type { Reader } from "./reader.ts";

/** Types that take no parameters, named as CQL names them (`text` for varchar). */
export type NativeKind =
  | "ascii"
  | "bigint"
  | "blob"
  | "boolean"
  | "counter"
  | "decimal"
  | "double"
  | "float"
  | "int"
  | "timestamp"
  | "uuid"
  | "text"
  | "varint"
  | "timeuuid"
  | "inet"
  | "date"
  | "time"
  | "smallint"
  | "tinyint"
  | "duration";

/** The protocol's `[option]` ids. Vectors travel as custom (0x0000) class names. */
export const TypeCode = {
  custom: 0x0000,
  ascii: 0x0001,
  bigint: 0x0002,
  blob: 0x0003,
  boolean: 0x0004,
  counter: 0x0005,
  decimal: 0x0006,
  double: 0x0007,
  float: 0x0008,
  int: 0x0009,
  timestamp: 0x000b,
  uuid: 0x000c,
  text: 0x000d,
  varint: 0x000e,
  timeuuid: 0x000f,
  inet: 0x0010,
  date: 0x0011,
  time: 0x0012,
  smallint: 0x0013,
  tinyint: 0x0014,
  duration: 0x0015,
  list: 0x0020,
  map: 0x0021,
  set: 0x0022,
  udt: 0x0030,
  tuple: 0x0031,
} as const;

export interface NativeType {
  readonly kind: NativeKind;
  readonly code: number;
}
/** A server-side type known only by its Java class name; values are raw bytes. */
export interface CustomType {
  readonly kind: "custom";
  readonly code: 0x0000;
  readonly className: string;
}
export interface ListType {
  readonly kind: "list";
  readonly code: 0x0020;
  readonly element: TypeInfo;
  readonly frozen: boolean;
}
export interface SetType {
  readonly kind: "set";
  readonly code: 0x0022;
  readonly element: TypeInfo;
  readonly frozen: boolean;
}
export interface MapType {
  readonly kind: "map";
  readonly code: 0x0021;
  readonly key: TypeInfo;
  readonly value: TypeInfo;
  readonly frozen: boolean;
}
export interface UdtField {
  readonly name: string;
  readonly type: TypeInfo;
}
/**
 * A user-defined type. Parsed from CQL text without a resolver, a UDT is only a reference:
 * its `fields` are empty until resolved against `system_schema.types`.
 */
export interface UdtType {
  readonly kind: "udt";
  readonly code: 0x0030;
  readonly keyspace: string;
  readonly name: string;
  readonly fields: readonly UdtField[];
  readonly frozen: boolean;
}
export interface TupleType {
  readonly kind: "tuple";
  readonly code: 0x0031;
  readonly elements: readonly TypeInfo[];
  readonly frozen: boolean;
}
/** `vector<element, dimension>` (Cassandra 5), sent on the wire as a custom VectorType. */
export interface VectorType {
  readonly kind: "vector";
  readonly code: 0x0000;
  readonly element: TypeInfo;
  readonly dimension: number;
}

export type TypeInfo =
  | NativeType
  | CustomType
  | ListType
  | SetType
  | MapType
  | UdtType
  | TupleType
  | VectorType;

/** Column (or bind marker) metadata from a RESULT. */
export interface ColumnSpec {
  readonly keyspace: string;
  readonly table: string;
  readonly name: string;
  readonly type: TypeInfo;
}

const NATIVE_KINDS: readonly NativeKind[] = [
  "ascii",
  "bigint",
  "blob",
  "boolean",
  "counter",
  "decimal",
  "double",
  "float",
  "int",
  "timestamp",
  "uuid",
  "text",
  "varint",
  "timeuuid",
  "inet",
  "date",
  "time",
  "smallint",
  "tinyint",
  "duration",
];

/** One shared, frozen instance per native type, so compiled codecs can be cached on identity. */
export const nativeTypes: Readonly<Record<NativeKind, NativeType>> = Object.freeze(
  Object.fromEntries(NATIVE_KINDS.map((kind) => [kind, Object.freeze({ kind, code: TypeCode[kind] })])) as Record<
    NativeKind,
    NativeType
  >,
);

const NATIVE_BY_CODE = new Map<number, NativeType>(NATIVE_KINDS.map((k) => [TypeCode[k], nativeTypes[k]]));

export function listOf(element: TypeInfo, frozen = false): ListType {
  return { kind: "list", code: 0x0020, element, frozen };
}
export function setOf(element: TypeInfo, frozen = false): SetType {
  return { kind: "set", code: 0x0022, element, frozen };
}
export function mapOf(key: TypeInfo, value: TypeInfo, frozen = false): MapType {
  return { kind: "map", code: 0x0021, key, value, frozen };
}
export function tupleOf(elements: readonly TypeInfo[], frozen = false): TupleType {
  return { kind: "tuple", code: 0x0031, elements, frozen };
}
export function udtOf(keyspace: string, name: string, fields: readonly UdtField[], frozen = false): UdtType {
  return { kind: "udt", code: 0x0030, keyspace, name, fields, frozen };
}
export function vectorOf(element: TypeInfo, dimension: number): VectorType {
  return { kind: "vector", code: 0x0000, element, dimension };
}
export function customOf(className: string): CustomType {
  return { kind: "custom", code: 0x0000, className };
}

function withFrozen(t: TypeInfo, frozen: boolean): TypeInfo {
  switch (t.kind) {
    case "list":
    case "set":
    case "map":
    case "udt":
    case "tuple":
      return t.frozen === frozen ? t : { ...t, frozen };
    default:
      return t;
  }
}

/**
 * Byte size of every value of `t` when it is fixed, else -1. This follows Cassandra's
 * `valueLengthIfFixed`, which decides whether vector elements carry a length prefix.
 */
export function fixedValueSize(t: TypeInfo): number {
  switch (t.kind) {
    case "boolean":
      return 1;
    case "int":
    case "float":
      return 4;
    case "bigint":
    case "counter":
    case "double":
    case "timestamp":
      return 8;
    case "uuid":
    case "timeuuid":
      return 16;
    case "vector": {
      const element = fixedValueSize(t.element);
      return element < 0 ? -1 : element * t.dimension;
    }
    default:
      return -1;
  }
}

/** Guards recursion on peer- or user-supplied type descriptions. */
const MAX_TYPE_DEPTH = 64;

// ---------------------------------------------------------------------------------------
// [option]

/** Reads one `[option]` type description (recursively for collections, UDTs and tuples). */
export function readTypeOption(reader: Reader, field = "type", depth = 0): TypeInfo {
  const at = reader.pos;
  if (depth > MAX_TYPE_DEPTH) throw reader.error(field, `type nested deeper than ${MAX_TYPE_DEPTH}`, at);
  const id = reader.u16(field);
  const native = NATIVE_BY_CODE.get(id);
  if (native !== undefined) return native;
  switch (id) {
    case TypeCode.custom: {
      const className = reader.string(field);
      try {
        return parseCustomClass(className);
      } catch (e) {
        if (e instanceof SyntaxError) throw reader.error(field, `malformed custom type ${JSON.stringify(className)}: ${e.message}`, at);
        throw e;
      }
    }
    case TypeCode.list:
      return listOf(readTypeOption(reader, field, depth + 1));
    case TypeCode.set:
      return setOf(readTypeOption(reader, field, depth + 1));
    case TypeCode.map: {
      const key = readTypeOption(reader, field, depth + 1);
      return mapOf(key, readTypeOption(reader, field, depth + 1));
    }
    case TypeCode.udt: {
      const keyspace = reader.string(field);
      const name = reader.string(field);
      const count = reader.u16(field);
      const fields: UdtField[] = [];
      for (let i = 0; i < count; i++) {
        const fieldName = reader.string(field);
        fields.push({ name: fieldName, type: readTypeOption(reader, field, depth + 1) });
      }
      return udtOf(keyspace, name, fields);
    }
    case TypeCode.tuple: {
      const count = reader.u16(field);
      const elements: TypeInfo[] = [];
      for (let i = 0; i < count; i++) elements.push(readTypeOption(reader, field, depth + 1));
      return tupleOf(elements);
    }
    default:
      throw reader.error(field, `unknown type id 0x${id.toString(16).padStart(4, "0")}`, at);
  }
}

// ---------------------------------------------------------------------------------------
// Marshal class names: org.apache.cassandra.db.marshal.VectorType(...FloatType,3)

const MARSHAL_PREFIX = "org.apache.cassandra.db.marshal.";

const MARSHAL_NATIVES: Record<string, NativeKind> = {
  AsciiType: "ascii",
  LongType: "bigint",
  BytesType: "blob",
  BooleanType: "boolean",
  CounterColumnType: "counter",
  DecimalType: "decimal",
  DoubleType: "double",
  FloatType: "float",
  Int32Type: "int",
  TimestampType: "timestamp",
  DateType: "timestamp",
  UUIDType: "uuid",
  UTF8Type: "text",
  IntegerType: "varint",
  TimeUUIDType: "timeuuid",
  InetAddressType: "inet",
  SimpleDateType: "date",
  TimeType: "time",
  ShortType: "smallint",
  ByteType: "tinyint",
  DurationType: "duration",
};

const VECTOR_CLASS = /^\s*(?:org\.apache\.cassandra\.db\.marshal\.)?VectorType\s*\(/;

/**
 * Interprets the class name of a custom type: a VectorType becomes a vector (its element
 * class names parsed too); any other class stays custom, opaque bytes as the server sent.
 * Throws SyntaxError on a malformed VectorType.
 */
export function parseCustomClass(className: string): TypeInfo {
  // v4 has no type id for duration (and none for vector): Cassandra names their marshal
  // classes, which map onto native kinds like any other.
  if (VECTOR_CLASS.test(className)) return parseMarshalType(className);
  try {
    return parseMarshalType(className);
  } catch {
    return customOf(className);
  }
}

/**
 * Parses a marshal class name such as `MapType(UTF8Type,ListType(Int32Type))` (with or
 * without the `org.apache.cassandra.db.marshal.` prefix). Unknown classes stay custom.
 * Throws SyntaxError on malformed input.
 */
export function parseMarshalType(className: string): TypeInfo {
  const parser = new MarshalParser(className);
  const t = parser.type(0);
  parser.skipSpace();
  if (parser.pos !== className.length) throw new SyntaxError(`unexpected ${JSON.stringify(className[parser.pos])} at ${parser.pos}`);
  return t;
}

class MarshalParser {
  pos = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  token(): string {
    this.skipSpace();
    const start = this.pos;
    while (this.pos < this.text.length && !/[\s(),:]/.test(this.text[this.pos])) this.pos++;
    if (start === this.pos) throw new SyntaxError(`expected a name at ${start}`);
    return this.text.slice(start, this.pos);
  }

  peek(): string {
    this.skipSpace();
    return this.text[this.pos] ?? "";
  }

  expect(ch: string): void {
    if (this.peek() !== ch) throw new SyntaxError(`expected ${JSON.stringify(ch)} at ${this.pos}`);
    this.pos++;
  }

  /** Parses `Name` or `Name(arg, ...)`; unknown names stay custom with their full text. */
  type(depth: number): TypeInfo {
    if (depth > MAX_TYPE_DEPTH) throw new SyntaxError(`type nested deeper than ${MAX_TYPE_DEPTH}`);
    this.skipSpace();
    const start = this.pos;
    const fullName = this.token();
    const name = fullName.startsWith(MARSHAL_PREFIX) ? fullName.slice(MARSHAL_PREFIX.length) : fullName;
    const native = MARSHAL_NATIVES[name];
    if (native !== undefined && Object.hasOwn(MARSHAL_NATIVES, name)) return nativeTypes[native];
    if (this.peek() !== "(") return customOf(fullName);
    this.pos++;
    switch (name) {
      case "ListType":
      case "SetType": {
        const element = this.type(depth + 1);
        this.expect(")");
        return name === "ListType" ? listOf(element) : setOf(element);
      }
      case "MapType": {
        const key = this.type(depth + 1);
        this.expect(",");
        const value = this.type(depth + 1);
        this.expect(")");
        return mapOf(key, value);
      }
      case "FrozenType": {
        const inner = this.type(depth + 1);
        this.expect(")");
        return withFrozen(inner, true);
      }
      case "ReversedType": {
        const inner = this.type(depth + 1);
        this.expect(")");
        return inner;
      }
      case "TupleType": {
        const elements: TypeInfo[] = [];
        if (this.peek() !== ")") {
          elements.push(this.type(depth + 1));
          while (this.peek() === ",") {
            this.pos++;
            elements.push(this.type(depth + 1));
          }
        }
        this.expect(")");
        return tupleOf(elements, true);
      }
      case "UserType": {
        const keyspace = this.token();
        this.expect(",");
        const udtName = hexToUtf8(this.token());
        const fields: UdtField[] = [];
        while (this.peek() === ",") {
          this.pos++;
          const fieldName = hexToUtf8(this.token());
          this.expect(":");
          fields.push({ name: fieldName, type: this.type(depth + 1) });
        }
        this.expect(")");
        return udtOf(keyspace, udtName, fields, true);
      }
      case "VectorType": {
        const element = this.type(depth + 1);
        this.expect(",");
        const dimensionText = this.token();
        if (!/^[0-9]{1,9}$/.test(dimensionText) || Number(dimensionText) < 1) {
          throw new SyntaxError(`vector dimension ${JSON.stringify(dimensionText)} is not a positive integer`);
        }
        this.expect(")");
        return vectorOf(element, Number(dimensionText));
      }
      default: {
        // An unknown parameterised class: skip its balanced arguments, keep its text.
        let open = 1;
        while (this.pos < this.text.length && open > 0) {
          const ch = this.text[this.pos++];
          if (ch === "(") open++;
          else if (ch === ")") open--;
        }
        if (open > 0) throw new SyntaxError(`unbalanced parentheses in ${JSON.stringify(fullName)}`);
        return customOf(this.text.slice(start, this.pos));
      }
    }
  }
}

function hexToUtf8(hex: string): string {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new SyntaxError(`${JSON.stringify(hex)} is not hex`);
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.substr(i * 2, 2), 16);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new SyntaxError(`${JSON.stringify(hex)} is not UTF-8`);
  }
}

// ---------------------------------------------------------------------------------------
// CQL text: map<text, frozen<list<int>>>, vector<float, 3>, udt<ks.name>{a:int,b:text}

export interface ParseCqlTypeOptions {
  /** Looks up a UDT named in the text; without it (or when it returns undefined) the UDT is a bare reference. */
  resolveUdt?: (keyspace: string, name: string) => UdtType | undefined;
  /** Keyspace for unqualified UDT names. */
  keyspace?: string;
}

const CQL_NATIVE_NAMES: Record<string, NativeKind> = {
  ascii: "ascii",
  bigint: "bigint",
  blob: "blob",
  boolean: "boolean",
  counter: "counter",
  decimal: "decimal",
  double: "double",
  float: "float",
  int: "int",
  timestamp: "timestamp",
  uuid: "uuid",
  text: "text",
  varchar: "text",
  varint: "varint",
  timeuuid: "timeuuid",
  inet: "inet",
  date: "date",
  time: "time",
  smallint: "smallint",
  tinyint: "tinyint",
  duration: "duration",
};

type Token = { kind: "name" | "quoted" | "string" | "punct"; text: string; at: number };

function tokenizeCql(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      i++;
    } else if ("<>,{}:.".includes(ch)) {
      tokens.push({ kind: "punct", text: ch, at: i });
      i++;
    } else if (ch === '"' || ch === "'") {
      const at = i;
      let value = "";
      i++;
      for (;;) {
        if (i >= text.length) throw new SyntaxError(`unterminated ${ch} quote at ${at}`);
        if (text[i] === ch) {
          if (text[i + 1] === ch) {
            value += ch;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i++];
      }
      tokens.push({ kind: ch === '"' ? "quoted" : "string", text: value, at });
    } else if (/[A-Za-z0-9_]/.test(ch)) {
      const at = i;
      while (i < text.length && /[A-Za-z0-9_]/.test(text[i])) i++;
      tokens.push({ kind: "name", text: text.slice(at, i), at });
    } else {
      throw new SyntaxError(`unexpected ${JSON.stringify(ch)} at ${i}`);
    }
  }
  return tokens;
}

class CqlTypeParser {
  private i = 0;
  constructor(private readonly tokens: Token[], private readonly source: string, private readonly options: ParseCqlTypeOptions) {}

  private fail(message: string): never {
    const token = this.tokens[this.i];
    const where = token ? `at ${token.at}` : "at end";
    throw new SyntaxError(`invalid CQL type ${JSON.stringify(this.source)}: ${message} ${where}`);
  }

  done(): boolean {
    return this.i >= this.tokens.length;
  }

  private peekPunct(p: string): boolean {
    const t = this.tokens[this.i];
    return t !== undefined && t.kind === "punct" && t.text === p;
  }

  private expectPunct(p: string): void {
    if (!this.peekPunct(p)) this.fail(`expected "${p}"`);
    this.i++;
  }

  /** An identifier: a bare name (case-insensitive, so lowercased) or a "quoted" one (kept). */
  private identifier(): string {
    const t = this.tokens[this.i];
    if (t === undefined || (t.kind !== "name" && t.kind !== "quoted")) this.fail("expected a name");
    this.i++;
    return t.kind === "name" ? t.text.toLowerCase() : t.text;
  }

  private qualifiedName(): { keyspace: string; name: string } {
    const first = this.identifier();
    if (this.peekPunct(".")) {
      this.i++;
      return { keyspace: first, name: this.identifier() };
    }
    return { keyspace: this.options.keyspace ?? "", name: first };
  }

  type(depth: number): TypeInfo {
    if (depth > MAX_TYPE_DEPTH) this.fail(`type nested deeper than ${MAX_TYPE_DEPTH}`);
    const t = this.tokens[this.i];
    if (t === undefined) this.fail("expected a type");
    if (t.kind === "string") {
      this.i++;
      try {
        return parseCustomClass(t.text);
      } catch (e) {
        if (e instanceof SyntaxError) this.fail(`malformed custom type: ${e.message}`);
        throw e;
      }
    }
    if (t.kind === "quoted") return this.udtReference();
    if (t.kind !== "name") this.fail("expected a type");
    const lower = t.text.toLowerCase();
    const next = this.tokens[this.i + 1];
    const parameterised = next !== undefined && next.kind === "punct" && next.text === "<";
    if (!parameterised) {
      if (Object.hasOwn(CQL_NATIVE_NAMES, lower)) {
        this.i++;
        return nativeTypes[CQL_NATIVE_NAMES[lower]];
      }
      return this.udtReference();
    }
    this.i += 2;
    let result: TypeInfo;
    switch (lower) {
      case "frozen": {
        result = withFrozen(this.type(depth + 1), true);
        break;
      }
      case "list":
      case "set": {
        const element = this.type(depth + 1);
        result = lower === "list" ? listOf(element) : setOf(element);
        break;
      }
      case "map": {
        const key = this.type(depth + 1);
        this.expectPunct(",");
        result = mapOf(key, this.type(depth + 1));
        break;
      }
      case "tuple": {
        const elements = [this.type(depth + 1)];
        while (this.peekPunct(",")) {
          this.i++;
          elements.push(this.type(depth + 1));
        }
        result = tupleOf(elements);
        break;
      }
      case "vector": {
        const element = this.type(depth + 1);
        this.expectPunct(",");
        const d = this.tokens[this.i];
        if (d === undefined || d.kind !== "name" || !/^[0-9]{1,9}$/.test(d.text) || Number(d.text) < 1) {
          this.fail("expected a positive vector dimension");
        }
        this.i++;
        result = vectorOf(element, Number(d.text));
        break;
      }
      case "udt": {
        const { keyspace, name } = this.qualifiedName();
        this.expectPunct(">");
        this.expectPunct("{");
        const fields: UdtField[] = [];
        if (!this.peekPunct("}")) {
          for (;;) {
            const fieldName = this.identifier();
            this.expectPunct(":");
            fields.push({ name: fieldName, type: this.type(depth + 1) });
            if (!this.peekPunct(",")) break;
            this.i++;
          }
        }
        this.expectPunct("}");
        return udtOf(keyspace, name, fields);
      }
      default:
        this.i -= 2;
        this.fail(`unknown parameterised type ${JSON.stringify(t.text)}`);
    }
    this.expectPunct(">");
    return result;
  }

  private udtReference(): UdtType {
    const { keyspace, name } = this.qualifiedName();
    const resolved = this.options.resolveUdt?.(keyspace, name);
    return resolved ?? udtOf(keyspace, name, []);
  }
}

/**
 * Parses a type written in CQL: `map<text, frozen<list<int>>>`, `tuple<int, text>`,
 * `vector<float, 3>`, `'org.example.MyType'` (custom), a UDT name (`address`, `ks."Addr"`)
 * or the self-describing UDT form `udt<ks.name>{field:type,...}`. Throws SyntaxError.
 */
export function parseCqlType(text: string, options: ParseCqlTypeOptions = {}): TypeInfo {
  const parser = new CqlTypeParser(tokenizeCql(text), text, options);
  const t = parser.type(0);
  if (!parser.done()) throw new SyntaxError(`invalid CQL type ${JSON.stringify(text)}: unexpected text after the type`);
  return t;
}

// ---------------------------------------------------------------------------------------
// Printing

export interface FormatCqlTypeOptions {
  /**
   * How to print UDTs: "name" (as system_schema does: `address`), "qualified"
   * (`ks.address`) or "expanded" (`udt<ks.address>{street:text,...}`, which parses back
   * without a resolver). Default "name".
   */
  udt?: "name" | "qualified" | "expanded";
}

const RESERVED_TYPE_WORDS = new Set([...Object.keys(CQL_NATIVE_NAMES), "frozen", "list", "set", "map", "tuple", "vector", "udt"]);

/** Quotes an identifier unless it reads back unchanged as a bare (lowercase) name. */
export function quoteIdentifier(name: string): string {
  if (/^[a-z][a-z0-9_]*$/.test(name) && !RESERVED_TYPE_WORDS.has(name)) return name;
  return `"${name.replaceAll('"', '""')}"`;
}

/** Prints a type as CQL text; `parseCqlType` reads it back. */
export function formatCqlType(t: TypeInfo, options: FormatCqlTypeOptions = {}): string {
  const body = formatUnfrozen(t, options);
  switch (t.kind) {
    case "list":
    case "set":
    case "map":
    case "tuple":
    case "udt":
      return t.frozen ? `frozen<${body}>` : body;
    default:
      return body;
  }
}

function formatUnfrozen(t: TypeInfo, options: FormatCqlTypeOptions): string {
  switch (t.kind) {
    case "custom":
      return `'${t.className.replaceAll("'", "''")}'`;
    case "list":
    case "set":
      return `${t.kind}<${formatCqlType(t.element, options)}>`;
    case "map":
      return `map<${formatCqlType(t.key, options)}, ${formatCqlType(t.value, options)}>`;
    case "tuple":
      return `tuple<${t.elements.map((e) => formatCqlType(e, options)).join(", ")}>`;
    case "vector":
      return `vector<${formatCqlType(t.element, options)}, ${t.dimension}>`;
    case "udt": {
      const mode = options.udt ?? "name";
      const qualified = t.keyspace === "" ? quoteIdentifier(t.name) : `${quoteIdentifier(t.keyspace)}.${quoteIdentifier(t.name)}`;
      if (mode === "name") return quoteIdentifier(t.name);
      if (mode === "qualified") return qualified;
      const fields = t.fields.map((f) => `${quoteIdentifier(f.name)}:${formatCqlType(f.type, options)}`).join(",");
      return `udt<${qualified}>{${fields}}`;
    }
    default:
      return t.kind;
  }
}
