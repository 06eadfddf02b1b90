// A push parser for CSV bytes (RFC 4180 plus the usual variations: another delimiter,
// quote or escape character, comment lines, CR, LF or CRLF line ends). It works on bytes so
// that every record knows its exact byte offsets in the input, which is what checkpoints,
// --resume and --split by byte range are built on. Structural characters must be ASCII, so
// they can never be mistaken for part of a multi-byte UTF-8 character.
//
// Leniency follows what loaders of real-world files need: a quote inside an unquoted field
// is plain text, text after a closing quote is kept, a record with the wrong number of
// fields is the loader's business (it becomes a bad row), and an unclosed quote at the end
// of the input becomes one malformed record holding the rest of the input.

const LF = 0x0a;
const CR = 0x0d;

export interface CsvFormat {
  delimiter: string;
  quote: string;
  /** Defaults to the quote character, i.e. "" inside a quoted field. */
  escape?: string;
  comment?: string;
}

export interface ParsedField {
  text: string;
  /** Quoted fields never stand for null, so `""` stays distinct from an empty field. */
  quoted: boolean;
}

export interface ParsedRecord {
  /** Byte offset of the record's first byte. */
  offset: number;
  /** Byte offset just past the record's line terminator (or the end of the input). */
  end: number;
  /** Line on which the record starts (1-based). */
  line: number;
  /** Line on which the input after the record starts. */
  nextLine: number;
  fields: ParsedField[];
  /** The record as it appeared in the input, without its line terminator. */
  raw: string;
  malformed?: string;
}

function asciiByte(character: string, what: string): number {
  if (character.length !== 1 || character.charCodeAt(0) > 0x7f) {
    throw new RangeError(`the ${what} must be a single ASCII character, not ${JSON.stringify(character)}`);
  }
  const code = character.charCodeAt(0);
  if (code === LF || code === CR) throw new RangeError(`the ${what} cannot be a line break`);
  return code;
}

export function checkCsvFormat(format: CsvFormat): void {
  new CsvParser(format, 0, 1);
}

/** Longest record kept in memory: beyond it the input is taken to be broken. */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

const decoder = new TextDecoder();

export class CsvParser {
  private readonly delimiter: number;
  private readonly quote: number;
  private readonly escape: number;
  private readonly comment: number;
  /** Unparsed bytes: the start of a record whose end has not arrived yet. */
  private buffer: Uint8Array = new Uint8Array(0);
  /** Absolute offset of buffer[0]. */
  private base: number;
  private line: number;
  private finished = false;

  constructor(format: CsvFormat, startOffset: number, startLine: number) {
    this.delimiter = asciiByte(format.delimiter, "delimiter");
    this.quote = asciiByte(format.quote, "quote character");
    this.escape = format.escape === undefined ? this.quote : asciiByte(format.escape, "escape character");
    this.comment = format.comment === undefined ? -1 : asciiByte(format.comment, "comment character");
    if (this.delimiter === this.quote) throw new RangeError("the delimiter and the quote character must differ");
    this.base = startOffset;
    this.line = startLine;
  }

  /** Offset just past the last byte that went into a returned record or a skipped line. */
  get consumedOffset(): number {
    return this.base;
  }

  get currentLine(): number {
    return this.line;
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

  /** No more input: a last record without a line end, or an unclosed quote, comes out now. */
  finish(): void {
    this.finished = true;
  }

  /** Returns the complete records in the buffer; the unfinished tail stays for the next push. */
  drain(): ParsedRecord[] {
    const records: ParsedRecord[] = [];
    const bytes = this.buffer;
    let position = 0;
    for (;;) {
      const record = this.parseRecord(bytes, position);
      if (record === null) break;
      if (record === SKIPPED) {
        position = this.skippedTo;
        continue;
      }
      records.push(record);
      position = record.end - this.base;
      this.line = record.nextLine;
    }
    this.base += position;
    this.buffer = position === bytes.length ? new Uint8Array(0) : bytes.subarray(position);
    if (this.buffer.length > MAX_RECORD_BYTES) {
      throw new RangeError(
        `a record at line ${this.line} is longer than ${MAX_RECORD_BYTES} bytes: is a quote left open?`,
      );
    }
    return records;
  }

  private skippedTo = 0;

  /**
   * Parses the record starting at `start`. Returns null when more input is needed, SKIPPED
   * for an empty or comment line (setting skippedTo and advancing the line count).
   */
  private parseRecord(bytes: Uint8Array, start: number): ParsedRecord | null | typeof SKIPPED {
    const length = bytes.length;
    if (start >= length) return null;
    const { delimiter, quote, escape } = this;
    const first = bytes[start];
    if (first === LF || first === CR || first === this.comment) {
      // An empty line, or a comment line (which ends at its line break, quotes or not).
      let i = start;
      if (first === this.comment) {
        while (i < length && bytes[i] !== LF && bytes[i] !== CR) i++;
        if (i >= length && !this.finished) return null;
      }
      const after = this.terminatorEnd(bytes, i);
      if (after < 0) return null;
      this.skippedTo = after;
      this.line++;
      return SKIPPED;
    }

    // Field boundaries, relative to `start`: [contentStart, contentEnd, quoted, escapes].
    const bounds: number[] = [];
    let lineBreaks = 0;
    let ascii = true;
    let i = start;
    for (;;) {
      // At the start of a field.
      if (i < length && bytes[i] === quote) {
        const contentStart = i + 1;
        let escapes = false;
        i++;
        let closed = -1;
        while (i < length) {
          const b = bytes[i];
          if (b === escape && escape !== quote) {
            if (i + 1 >= length) break;
            const next = bytes[i + 1];
            if (next === quote || next === escape) {
              escapes = true;
              i += 2;
              continue;
            }
            i++;
            continue;
          }
          if (b === quote) {
            if (escape === quote) {
              if (i + 1 >= length) break;
              if (bytes[i + 1] === quote) {
                escapes = true;
                i += 2;
                continue;
              }
            }
            closed = i;
            i++;
            break;
          }
          if (b === LF) lineBreaks++;
          else if (b === CR && (i + 1 >= length || bytes[i + 1] !== LF)) {
            if (i + 1 >= length && !this.finished) break;
            lineBreaks++;
          } else if (b > 0x7f) ascii = false;
          i++;
        }
        if (closed < 0) {
          if (!this.finished) return null;
          return this.unclosed(bytes, start);
        }
        // Text after the closing quote stays part of the field.
        let tail = i;
        while (tail < length && bytes[tail] !== delimiter && bytes[tail] !== LF && bytes[tail] !== CR) {
          if (bytes[tail] > 0x7f) ascii = false;
          tail++;
        }
        if (tail >= length && !this.finished) return null;
        bounds.push(contentStart - start, closed - start, tail > i ? -(tail - start) : 1, escapes ? 1 : 0);
        i = tail;
      } else {
        const contentStart = i;
        while (i < length) {
          const b = bytes[i];
          if (b === delimiter || b === LF || b === CR) break;
          if (b > 0x7f) ascii = false;
          i++;
        }
        if (i >= length && !this.finished) return null;
        bounds.push(contentStart - start, i - start, 0, 0);
      }
      if (i < length && bytes[i] === delimiter) {
        i++;
        continue;
      }
      break;
    }
    const recordEnd = i;
    const after = this.terminatorEnd(bytes, recordEnd);
    if (after < 0) return null;
    const rawBytes = bytes.subarray(start, recordEnd);
    const raw = decoder.decode(rawBytes);
    const fields: ParsedField[] = [];
    for (let f = 0; f < bounds.length; f += 4) {
      const from = bounds[f];
      const to = bounds[f + 1];
      const kind = bounds[f + 2];
      let text = ascii ? raw.slice(from, to) : decoder.decode(rawBytes.subarray(from, to));
      if (kind !== 0 && bounds[f + 3] === 1) text = this.unescape(text);
      if (kind < 0) {
        const tailFrom = to + 1;
        const tailTo = -kind;
        text += ascii ? raw.slice(tailFrom, tailTo) : decoder.decode(rawBytes.subarray(tailFrom, tailTo));
      }
      fields.push({ text, quoted: kind !== 0 });
    }
    const line = this.line;
    const terminatorBreaks = after > recordEnd ? 1 : 0;
    return {
      offset: this.base + start,
      end: this.base + after,
      line,
      nextLine: line + lineBreaks + terminatorBreaks,
      fields,
      raw,
    };
  }

  private unescapeCache: { doubled: string; escapedEscape: string | null; quote: string; escape: string } | null = null;

  private unescape(text: string): string {
    if (this.unescapeCache === null) {
      const quote = String.fromCharCode(this.quote);
      const escape = String.fromCharCode(this.escape);
      this.unescapeCache = {
        doubled: escape + quote,
        escapedEscape: escape === quote ? null : escape + escape,
        quote,
        escape,
      };
    }
    const { doubled, escapedEscape, quote, escape } = this.unescapeCache;
    if (escapedEscape === null) return text.replaceAll(doubled, quote);
    let out = "";
    for (let i = 0; i < text.length; i++) {
      const char = text[i];
      if (char === escape && (text[i + 1] === quote || text[i + 1] === escape)) {
        out += text[i + 1];
        i++;
      } else {
        out += char;
      }
    }
    return out;
  }

  /** Offset just past the line terminator at `position`, or -1 when more input is needed. */
  private terminatorEnd(bytes: Uint8Array, position: number): number {
    if (position >= bytes.length) return this.finished ? position : -1;
    const b = bytes[position];
    if (b === LF) return position + 1;
    if (b === CR) {
      if (position + 1 >= bytes.length) return this.finished ? position + 1 : -1;
      return bytes[position + 1] === LF ? position + 2 : position + 1;
    }
    return position;
  }

  /** Everything from `start` to the end of the input, as one malformed record. */
  private unclosed(bytes: Uint8Array, start: number): ParsedRecord {
    let end = bytes.length;
    let rawEnd = end;
    if (rawEnd > start && bytes[rawEnd - 1] === LF) rawEnd--;
    if (rawEnd > start && bytes[rawEnd - 1] === CR) rawEnd--;
    const rawBytes = bytes.subarray(start, rawEnd);
    let breaks = 0;
    for (let i = start; i < end; i++) {
      if (bytes[i] === LF || (bytes[i] === CR && bytes[i + 1] !== LF)) breaks++;
    }
    end = bytes.length;
    return {
      offset: this.base + start,
      end: this.base + end,
      line: this.line,
      nextLine: this.line + breaks,
      fields: [],
      raw: decoder.decode(rawBytes),
      malformed: "a quoted field is never closed (the rest of the input was read as one field)",
    };
  }
}

const SKIPPED = Symbol("skipped line");
