// Row sources of `load`: CSV (csv_parser.ts) and JSON Lines (jsonl_parser.ts) records read
// from one input, each with its verbatim text, starting line and byte offsets, so a bad one
// can be reported and copied to the .bad file exactly, and a checkpoint can say how far the
// input was loaded. The loader only sees the RowSource interface, so another parser (the
// WASM core's bulk path) can take this one's place.

import { type CsvFormat, CsvParser } from "./csv_parser.ts";
import { type InputFile, InputReader } from "./input.ts";
import { JsonlLineSplitter, type JsonMember, JsonSyntaxError, splitJsonObject } from "./jsonl_parser.ts";

export type { CsvFormat } from "./csv_parser.ts";

export interface SourceField {
  text: string;
  /** Quoted fields never stand for null, so `""` stays distinct from an empty field. */
  quoted: boolean;
  /** A JSON member that is absent: its column is left unset. */
  missing?: boolean;
  /** JSON null: null whatever the --null-value settings. */
  isNull?: boolean;
}

export interface SourceRecord {
  source: string;
  /** Line on which the record starts (1-based); a quoted field may span several lines. */
  line: number;
  fields: SourceField[];
  /** The record as it appeared in the input, without its line terminator. */
  raw: string;
  /** The record's bytes exactly as read, when known: what the bad file gets (`raw` may be a lossy decoding). */
  bytes?: Uint8Array;
  /** Set when the input around this record could not be parsed at all. */
  malformed?: string;
  /** Byte offsets of the record in the (decompressed) input: its first byte, and past its end. */
  offset?: number;
  end?: number;
  /** The line on which the input after this record starts. */
  nextLine?: number;
}

/** Where to start reading: a record boundary, with the line number there. */
export interface ReadStart {
  offset: number;
  line: number;
}

export interface RowSource {
  readonly name: string;
  /**
   * The records from `start` on (the input's beginning by default); with `stopAfter`, only
   * records that start at or before that offset (the end of a --split byte range). A CSV
   * header is yielded first, flagged by `header`, whatever the start.
   */
  records(start?: ReadStart, stopAfter?: number): AsyncIterable<SourceRecord & { header?: boolean }>;
  /** Raw bytes read so far (compressed bytes for .gz), for progress. */
  readonly bytesRead?: number;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

function stripBom(chunk: Uint8Array, atStart: boolean): { chunk: Uint8Array; skipped: number } {
  if (atStart && chunk.length >= 3 && UTF8_BOM.every((byte, i) => chunk[i] === byte)) {
    return { chunk: chunk.subarray(3), skipped: 3 };
  }
  return { chunk, skipped: 0 };
}

function inputOf(nameOrInput: string | InputFile): InputFile {
  if (typeof nameOrInput !== "string") return nameOrInput;
  return { path: nameOrInput, size: null, gzip: nameOrInput.toLowerCase().endsWith(".gz"), format: null };
}

/** CSV records of one input; the header (when `hasHeader`) comes first, flagged. */
export class CsvFileSource implements RowSource {
  readonly name: string;
  private readonly input: InputFile;
  private reader: InputReader | null = null;

  constructor(nameOrInput: string | InputFile, private readonly format: CsvFormat, private readonly hasHeader = false) {
    this.input = inputOf(nameOrInput);
    this.name = this.input.path;
  }

  get bytesRead(): number {
    return this.reader?.rawBytesRead ?? 0;
  }

  async *records(start?: ReadStart, stopAfter?: number): AsyncGenerator<SourceRecord & { header?: boolean }> {
    const from = start ?? { offset: 0, line: 1 };
    const seekable = this.input.path !== "-";
    let headerDone = !this.hasHeader;
    if (!headerDone && (from.offset > 0 && seekable)) {
      // The header is read on its own pass from the beginning; the data then starts at `from`.
      for await (const record of this.parse(new InputReader(this.input), { offset: 0, line: 1 })) {
        yield { ...record, header: true };
        headerDone = true;
        break;
      }
      if (!headerDone) return;
    }
    const reader = new InputReader(this.input);
    this.reader = reader;
    const begin = seekable ? from : { offset: 0, line: 1 };
    for await (const record of this.parse(reader, begin)) {
      if (!headerDone) {
        headerDone = true;
        yield { ...record, header: true };
        continue;
      }
      if (record.offset! < from.offset) continue;
      if (stopAfter !== undefined && record.offset! > stopAfter) return;
      yield record;
    }
  }

  private async *parse(reader: InputReader, from: ReadStart): AsyncGenerator<SourceRecord> {
    const parser = new CsvParser(this.format, from.offset, from.line);
    let atStart = from.offset === 0;
    const source = this.name;
    for await (const bytes of reader.bytes(from.offset)) {
      const { chunk, skipped } = stripBom(bytes, atStart);
      if (skipped > 0) {
        // Offsets stay those of the file: the parser starts past the mark.
        parser.skipBytes(skipped);
      }
      atStart = false;
      parser.push(chunk);
      for (const record of parser.drain()) yield { source, ...record };
    }
    parser.finish();
    for (const record of parser.drain()) yield { source, ...record };
  }
}

/**
 * JSON Lines records of one input. Each object's members are matched to `fieldNames` by
 * name (exactly, else case-insensitively); a field with no member is `missing` (its column is
 * left unset), members no field asks for are ignored.
 */
export class JsonlFileSource implements RowSource {
  readonly name: string;
  private readonly input: InputFile;
  private reader: InputReader | null = null;
  private fieldIndex = new Map<string, number>();
  private foldedIndex = new Map<string, number | null>();
  private fieldCount = 0;

  constructor(nameOrInput: string | InputFile) {
    this.input = inputOf(nameOrInput);
    this.name = this.input.path;
  }

  /** The names of the fields every record is laid out by (the columns or --map fields). */
  setFieldNames(names: string[]): void {
    this.fieldCount = names.length;
    this.fieldIndex = new Map(names.map((name, i) => [name, i]));
    this.foldedIndex = new Map();
    for (const [i, name] of names.entries()) {
      const folded = name.toLowerCase();
      this.foldedIndex.set(folded, this.foldedIndex.has(folded) ? null : i);
    }
  }

  get bytesRead(): number {
    return this.reader?.rawBytesRead ?? 0;
  }

  async *records(start?: ReadStart, stopAfter?: number): AsyncGenerator<SourceRecord> {
    const from = start ?? { offset: 0, line: 1 };
    const seekable = this.input.path !== "-";
    const reader = new InputReader(this.input);
    this.reader = reader;
    const begin = seekable ? from : { offset: 0, line: 1 };
    const splitter = new JsonlLineSplitter(begin.offset, begin.line);
    let atStart = begin.offset === 0;
    const emit = function* (this: JsonlFileSource, lines: ReturnType<JsonlLineSplitter["drain"]>) {
      for (const line of lines) {
        if (line.offset < from.offset) continue;
        if (stopAfter !== undefined && line.offset > stopAfter) return true;
        yield this.recordOf(line);
      }
      return false;
    };
    for await (const bytes of reader.bytes(begin.offset)) {
      const { chunk, skipped } = stripBom(bytes, atStart);
      if (skipped > 0) splitter.skipBytes(skipped);
      atStart = false;
      splitter.push(chunk);
      if (yield* emit.call(this, splitter.drain())) return;
    }
    splitter.finish();
    yield* emit.call(this, splitter.drain());
  }

  /** The record of one line, its members laid out by the field names. */
  recordOf(line: { offset: number; end: number; line: number; nextLine: number; raw: string }): SourceRecord {
    const record: SourceRecord = {
      source: this.name,
      line: line.line,
      raw: line.raw,
      fields: [],
      offset: line.offset,
      end: line.end,
      nextLine: line.nextLine,
    };
    let members: Map<string, JsonMember>;
    try {
      members = splitJsonObject(line.raw);
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      record.malformed = `not a JSON object: ${error.message}`;
      return record;
    }
    const fields: SourceField[] = Array.from({ length: this.fieldCount }, () => MISSING);
    for (const [key, member] of members) {
      let index = this.fieldIndex.get(key);
      if (index === undefined) index = this.foldedIndex.get(key.toLowerCase()) ?? undefined;
      if (index === undefined) continue;
      fields[index] = member.kind === "null" ? NULL_FIELD : { text: member.value, quoted: member.kind === "string" };
    }
    record.fields = fields;
    return record;
  }
}

const MISSING: SourceField = Object.freeze({ text: "", quoted: false, missing: true });
const NULL_FIELD: SourceField = Object.freeze({ text: "", quoted: false, isNull: true });
