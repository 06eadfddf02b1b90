// Parser for CQL type text as found in system_schema.columns.type and in result metadata,
// e.g. "frozen<map<text, list<int>>>", "vector<float, 3>", "address", "'org.apache...Type'".

export const NATIVE_TYPE_NAMES = [
  "ascii",
  "bigint",
  "blob",
  "boolean",
  "counter",
  "date",
  "decimal",
  "double",
  "duration",
  "float",
  "inet",
  "int",
  "smallint",
  "text",
  "time",
  "timestamp",
  "timeuuid",
  "tinyint",
  "uuid",
  "varchar",
  "varint",
] as const;

export type NativeTypeName = typeof NATIVE_TYPE_NAMES[number];

export interface UdtField {
  name: string;
  type: CqlType;
}

export type CqlType =
  | { kind: "native"; name: NativeTypeName }
  | { kind: "list"; element: CqlType }
  | { kind: "set"; element: CqlType }
  | { kind: "map"; key: CqlType; value: CqlType }
  | { kind: "tuple"; elements: CqlType[] }
  | { kind: "vector"; element: CqlType; dimension: number }
  // `fields` is filled in once the definition was read from system_schema.types.
  | { kind: "udt"; keyspace: string | null; name: string; fields: UdtField[] | null }
  | { kind: "custom"; className: string };

export class CqlTypeSyntaxError extends Error {
  constructor(text: string, offset: number, expected: string) {
    super(`cannot parse CQL type '${text}' at offset ${offset}: expected ${expected}`);
    this.name = "CqlTypeSyntaxError";
  }
}

const NATIVE_SET: ReadonlySet<string> = new Set(NATIVE_TYPE_NAMES);

export function parseCqlType(text: string): CqlType {
  const parser = new TypeParser(text);
  const type = parser.parseType();
  parser.skipSpaces();
  if (!parser.atEnd()) throw parser.error("end of type");
  return type;
}

/** Nesting limit, the core's MAX_TYPE_DEPTH: deeper text is an error, never a stack overflow. */
export const MAX_TYPE_DEPTH = 32;

class TypeParser {
  private offset = 0;
  private depth = 0;
  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.offset >= this.text.length;
  }

  error(expected: string): CqlTypeSyntaxError {
    return new CqlTypeSyntaxError(this.text, this.offset, expected);
  }

  skipSpaces(): void {
    while (!this.atEnd() && /\s/.test(this.text[this.offset])) this.offset++;
  }

  private expect(char: string): void {
    this.skipSpaces();
    if (this.text[this.offset] !== char) throw this.error(`'${char}'`);
    this.offset++;
  }

  private peek(): string | undefined {
    this.skipSpaces();
    return this.text[this.offset];
  }

  private identifier(): string {
    this.skipSpaces();
    if (this.text[this.offset] === '"') {
      // Quoted identifier: "" inside stands for one double quote, and case is kept.
      let value = "";
      this.offset++;
      for (;;) {
        if (this.atEnd()) throw this.error("closing '\"'");
        const char = this.text[this.offset++];
        if (char === '"') {
          if (this.text[this.offset] === '"') {
            value += '"';
            this.offset++;
            continue;
          }
          return value;
        }
        value += char;
      }
    }
    const match = /^[A-Za-z0-9_]+/.exec(this.text.slice(this.offset));
    if (!match) throw this.error("a type name");
    this.offset += match[0].length;
    return match[0].toLowerCase();
  }

  /** Every nested type, frozen<> included, is one level deeper. */
  parseType(): CqlType {
    if (this.depth >= MAX_TYPE_DEPTH) throw this.error(`a type nested at most ${MAX_TYPE_DEPTH} levels deep`);
    this.depth++;
    try {
      return this.parseTypeAtDepth();
    } finally {
      this.depth--;
    }
  }

  private parseTypeAtDepth(): CqlType {
    if (this.peek() === "'") return this.customType();
    const name = this.identifier();
    switch (name) {
      case "frozen": {
        this.expect("<");
        const inner = this.parseType();
        this.expect(">");
        return inner;
      }
      case "list":
      case "set": {
        this.expect("<");
        const element = this.parseType();
        this.expect(">");
        return { kind: name, element };
      }
      case "map": {
        this.expect("<");
        const key = this.parseType();
        this.expect(",");
        const value = this.parseType();
        this.expect(">");
        return { kind: "map", key, value };
      }
      case "tuple": {
        this.expect("<");
        const elements = [this.parseType()];
        while (this.peek() === ",") {
          this.offset++;
          elements.push(this.parseType());
        }
        this.expect(">");
        return { kind: "tuple", elements };
      }
      case "vector": {
        this.expect("<");
        const element = this.parseType();
        this.expect(",");
        this.skipSpaces();
        const match = /^[0-9]+/.exec(this.text.slice(this.offset));
        if (!match) throw this.error("a vector dimension");
        this.offset += match[0].length;
        this.expect(">");
        return { kind: "vector", element, dimension: Number(match[0]) };
      }
    }
    if (NATIVE_SET.has(name)) return { kind: "native", name: name as NativeTypeName };
    if (this.peek() === ".") {
      this.offset++;
      return { kind: "udt", keyspace: name, name: this.identifier(), fields: null };
    }
    return { kind: "udt", keyspace: null, name, fields: null };
  }

  private customType(): CqlType {
    let className = "";
    let position = this.offset + 1;
    for (;;) {
      const close = this.text.indexOf("'", position);
      if (close < 0) throw this.error("closing quote of a custom type");
      className += this.text.slice(position, close);
      if (this.text[close + 1] === "'") {
        className += "'";
        position = close + 2;
        continue;
      }
      this.offset = close + 1;
      return { kind: "custom", className };
    }
  }
}

export function isTextual(type: CqlType): boolean {
  return type.kind === "native" && (type.name === "text" || type.name === "varchar" || type.name === "ascii");
}

export function cqlTypeToString(type: CqlType): string {
  switch (type.kind) {
    case "native":
      return type.name;
    case "list":
    case "set":
      return `${type.kind}<${cqlTypeToString(type.element)}>`;
    case "map":
      return `map<${cqlTypeToString(type.key)}, ${cqlTypeToString(type.value)}>`;
    case "tuple":
      return `tuple<${type.elements.map(cqlTypeToString).join(", ")}>`;
    case "vector":
      return `vector<${cqlTypeToString(type.element)}, ${type.dimension}>`;
    case "udt":
      return type.keyspace ? `${type.keyspace}.${type.name}` : type.name;
    case "custom":
      return `'${type.className}'`;
  }
}
