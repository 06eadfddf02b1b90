// JSON Lines: one JSON object per line. Lines are cut at the byte level (a JSON text never
// holds a raw line break) so that each record knows its byte offsets, like CSV records.
// Each object is split into its top-level members without building nested values: a member's
// value keeps its JSON text, so numbers of any size reach the converter digit for digit and
// arrays or objects are read by the column's type (collections, tuples, UDTs, vectors).

const LF = 0x0a;
const CR = 0x0d;
const decoder = new TextDecoder();

export interface JsonLine {
  offset: number;
  end: number;
  line: number;
  nextLine: number;
  raw: string;
}

export class JsonlLineSplitter {
  private buffer: Uint8Array = new Uint8Array(0);
  private base: number;
  private line: number;
  private finished = false;

  constructor(startOffset: number, startLine: number) {
    this.base = startOffset;
    this.line = startLine;
  }

  push(chunk: Uint8Array): void {
    if (this.buffer.length === 0) {
      this.buffer = chunk;
      return;
    }
    const joined = new Uint8Array(this.buffer.length + chunk.length);
    joined.set(this.buffer);
    joined.set(chunk, this.buffer.length);
    this.buffer = joined;
  }

  /** Bytes at the current position that belong to no record (a byte order mark). */
  skipBytes(count: number): void {
    this.base += count;
  }

  finish(): void {
    this.finished = true;
  }

  /** Complete non-blank lines; blank lines are skipped but counted. */
  drain(): JsonLine[] {
    const lines: JsonLine[] = [];
    const bytes = this.buffer;
    let start = 0;
    for (;;) {
      let newline = bytes.indexOf(LF, start);
      if (newline < 0) {
        if (!this.finished || start >= bytes.length) break;
        newline = bytes.length;
      }
      const end = Math.min(newline + 1, bytes.length);
      let contentEnd = newline;
      if (contentEnd > start && bytes[contentEnd - 1] === CR) contentEnd--;
      const raw = decoder.decode(bytes.subarray(start, contentEnd));
      if (raw.trim() !== "") {
        lines.push({ offset: this.base + start, end: this.base + end, line: this.line, nextLine: this.line + 1, raw });
      }
      this.line++;
      start = end;
    }
    this.base += start;
    this.buffer = start === bytes.length ? new Uint8Array(0) : bytes.subarray(start);
    return lines;
  }
}

export class JsonSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(`${message} at character ${offset + 1}`);
    this.name = "JsonSyntaxError";
  }
}

/** A member's value: a string (decoded), null, or the JSON text of anything else. */
export type JsonMember = { kind: "string"; value: string } | { kind: "null" } | { kind: "text"; value: string };

const MAX_DEPTH = 64;

/** Splits `{"a": 1, "b": [1, 2]}` into its members, checking the JSON syntax as it goes. */
export function splitJsonObject(text: string): Map<string, JsonMember> {
  const scanner = new Scanner(text);
  scanner.skipSpaces();
  scanner.expect("{", "a JSON object");
  const members = new Map<string, JsonMember>();
  scanner.skipSpaces();
  if (scanner.peek() === "}") {
    scanner.position++;
  } else {
    for (;;) {
      scanner.skipSpaces();
      if (scanner.peek() !== '"') throw scanner.error("expected a member name in double quotes");
      const key = scanner.string();
      scanner.skipSpaces();
      scanner.expect(":", "':' after the member name");
      scanner.skipSpaces();
      const valueStart = scanner.position;
      const first = scanner.peek();
      let member: JsonMember;
      if (first === '"') {
        member = { kind: "string", value: scanner.string() };
      } else {
        scanner.value(0);
        const valueText = text.slice(valueStart, scanner.position);
        member = valueText === "null" ? { kind: "null" } : { kind: "text", value: valueText };
      }
      if (members.has(key)) throw new JsonSyntaxError(`member "${key}" appears twice`, valueStart);
      members.set(key, member);
      scanner.skipSpaces();
      const separator = scanner.peek();
      if (separator === ",") {
        scanner.position++;
        continue;
      }
      if (separator === "}") {
        scanner.position++;
        break;
      }
      throw scanner.error("expected ',' or '}'");
    }
  }
  scanner.skipSpaces();
  if (scanner.position < text.length) throw scanner.error("unexpected text after the object");
  return members;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class Scanner {
  position = 0;
  constructor(private readonly text: string) {}

  error(message: string): JsonSyntaxError {
    return new JsonSyntaxError(message, this.position);
  }

  peek(): string | undefined {
    return this.text[this.position];
  }

  skipSpaces(): void {
    const text = this.text;
    while (this.position < text.length) {
      const c = text.charCodeAt(this.position);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      this.position++;
    }
  }

  expect(char: string, what: string): void {
    if (this.text[this.position] !== char) throw this.error(`expected ${what}`);
    this.position++;
  }

  /** A JSON string at the current position, decoded. */
  string(): string {
    const start = this.position;
    let i = start + 1;
    let escaped = false;
    const text = this.text;
    for (;;) {
      if (i >= text.length) throw new JsonSyntaxError("unterminated string", start);
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        i += 2;
        continue;
      }
      if (c < 0x20) throw new JsonSyntaxError("control character inside a string", i);
      i++;
    }
    this.position = i + 1;
    if (!escaped) return text.slice(start + 1, i);
    try {
      return JSON.parse(text.slice(start, i + 1)) as string;
    } catch {
      throw new JsonSyntaxError("invalid escape in a string", start);
    }
  }

  /** Skips one JSON value of any kind. */
  value(depth: number): void {
    if (depth > MAX_DEPTH) throw this.error(`nesting deeper than ${MAX_DEPTH}`);
    this.skipSpaces();
    const char = this.peek();
    if (char === '"') {
      this.string();
      return;
    }
    if (char === "[" || char === "{") {
      const close = char === "[" ? "]" : "}";
      this.position++;
      this.skipSpaces();
      if (this.peek() === close) {
        this.position++;
        return;
      }
      for (;;) {
        if (char === "{") {
          this.skipSpaces();
          if (this.peek() !== '"') throw this.error("expected a member name in double quotes");
          this.string();
          this.skipSpaces();
          this.expect(":", "':'");
        }
        this.value(depth + 1);
        this.skipSpaces();
        const next = this.peek();
        if (next === ",") {
          this.position++;
          continue;
        }
        if (next === close) {
          this.position++;
          return;
        }
        throw this.error(`expected ',' or '${close}'`);
      }
    }
    for (const word of ["true", "false", "null"]) {
      if (this.text.startsWith(word, this.position)) {
        this.position += word.length;
        return;
      }
    }
    NUMBER.lastIndex = this.position;
    const match = NUMBER.exec(this.text);
    if (match === null || match[0] === "" || match[0] === "-") throw this.error("expected a JSON value");
    this.position += match[0].length;
  }
}
