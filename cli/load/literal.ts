// Parser for the text of a collection, tuple, UDT or vector field, in CQL literal syntax
// ([1, 2], {'a': 1}, {1, 2}, (1, 'x'), {street: 'Main', "Zip": 3}) or in JSON syntax
// (["a"], {"a": 1}). The result is a syntax tree; the converter gives it meaning by the
// column's CQL type, so the parser itself knows no types.

export type Literal =
  | { kind: "string"; value: string; quote: "'" | '"' }
  /** Anything unquoted: numbers, booleans, uuids, 0x blobs, durations, identifiers. */
  | { kind: "bare"; value: string }
  | { kind: "null" }
  | { kind: "list"; elements: Literal[] }
  | { kind: "tuple"; elements: Literal[] }
  /** `{}` is ambiguous between an empty set, map and UDT: it has no entries and no elements. */
  | { kind: "braces"; elements: Literal[]; entries: Array<[Literal, Literal]> };

export class LiteralSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(`${message} at offset ${offset}`);
    this.name = "LiteralSyntaxError";
  }
}

/** Nesting cap: a hostile field must not exhaust the stack. */
const MAX_DEPTH = 64;

const BARE_CHAR = /[A-Za-z0-9_.+\-]/;

export function parseLiteral(text: string): Literal {
  const parser = new LiteralParser(text);
  const literal = parser.value(0);
  parser.skipSpaces();
  if (!parser.atEnd()) throw parser.error("unexpected text after the value");
  return literal;
}

class LiteralParser {
  private offset = 0;
  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.offset >= this.text.length;
  }

  error(message: string): LiteralSyntaxError {
    return new LiteralSyntaxError(message, this.offset);
  }

  skipSpaces(): void {
    while (!this.atEnd() && /\s/.test(this.text[this.offset])) this.offset++;
  }

  value(depth: number): Literal {
    if (depth > MAX_DEPTH) throw this.error(`nesting deeper than ${MAX_DEPTH}`);
    this.skipSpaces();
    const char = this.text[this.offset];
    switch (char) {
      case undefined:
        throw this.error("missing value");
      case "[":
        return { kind: "list", elements: this.sequence("]", depth) };
      case "(":
        return { kind: "tuple", elements: this.sequence(")", depth) };
      case "{":
        return this.braces(depth);
      case "'":
        return this.cqlString();
      case '"':
        return this.jsonString();
    }
    return this.bare();
  }

  private sequence(close: string, depth: number): Literal[] {
    this.offset++;
    const elements: Literal[] = [];
    this.skipSpaces();
    if (this.text[this.offset] === close) {
      this.offset++;
      return elements;
    }
    for (;;) {
      elements.push(this.value(depth + 1));
      this.skipSpaces();
      const char = this.text[this.offset];
      this.offset++;
      if (char === close) return elements;
      if (char !== ",") {
        this.offset--;
        throw this.error(`expected ',' or '${close}'`);
      }
    }
  }

  private braces(depth: number): Literal {
    this.offset++;
    const elements: Literal[] = [];
    const entries: Array<[Literal, Literal]> = [];
    this.skipSpaces();
    if (this.text[this.offset] === "}") {
      this.offset++;
      return { kind: "braces", elements, entries };
    }
    for (;;) {
      const first = this.value(depth + 1);
      this.skipSpaces();
      if (this.text[this.offset] === ":") {
        if (elements.length > 0) throw this.error("a set element mixed with map entries");
        this.offset++;
        entries.push([first, this.value(depth + 1)]);
      } else {
        if (entries.length > 0) throw this.error("expected ':' after a map key");
        elements.push(first);
      }
      this.skipSpaces();
      const char = this.text[this.offset];
      this.offset++;
      if (char === "}") return { kind: "braces", elements, entries };
      if (char !== ",") {
        this.offset--;
        throw this.error("expected ',' or '}'");
      }
    }
  }

  private cqlString(): Literal {
    let value = "";
    let position = this.offset + 1;
    for (;;) {
      const close = this.text.indexOf("'", position);
      if (close < 0) {
        this.offset = this.text.length;
        throw this.error("unterminated 'string'");
      }
      value += this.text.slice(position, close);
      if (this.text[close + 1] === "'") {
        value += "'";
        position = close + 2;
        continue;
      }
      this.offset = close + 1;
      return { kind: "string", value, quote: "'" };
    }
  }

  private jsonString(): Literal {
    const start = this.offset;
    let position = start + 1;
    for (;;) {
      const char = this.text[position];
      if (char === undefined) {
        this.offset = this.text.length;
        throw this.error('unterminated "string"');
      }
      if (char === "\\") {
        position += 2;
        continue;
      }
      if (char === '"') break;
      position++;
    }
    const raw = this.text.slice(start, position + 1);
    this.offset = position + 1;
    try {
      return { kind: "string", value: JSON.parse(raw) as string, quote: '"' };
    } catch {
      this.offset = start;
      throw this.error('invalid escape in "string"');
    }
  }

  private bare(): Literal {
    const start = this.offset;
    // ':' ends a bare token because it separates map keys from values; values that
    // contain it (times, IPv6 addresses) are written quoted, as in CQL.
    while (!this.atEnd() && BARE_CHAR.test(this.text[this.offset])) this.offset++;
    const value = this.text.slice(start, this.offset);
    if (value === "") throw this.error(`unexpected character '${this.text[start]}'`);
    if (value.toLowerCase() === "null") return { kind: "null" };
    return { kind: "bare", value };
  }
}
