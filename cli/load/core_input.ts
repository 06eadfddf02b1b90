// The bytes of one input as the WASM core's bulk loader gets them, and the way back from the
// core's positions to the file's.
//
// The core counts offsets and lines from the first byte pushed to it. A load that starts
// mid-file (a checkpoint's watermark, a --split range) of a CSV with a header pushes the
// header's bytes first, so that the core maps fields by it, and then the file from the start
// position. `PositionMap` turns the core's offsets and lines back into the file's, which is
// what checkpoints and the bad-row log need.
//
// The header is read here once, by the core's CSV reader (`readCsvHeader`): the statement and
// the field mapping are built from its names before the load starts.

import { readCsvHeader } from "../../driver/deno.ts";
import { type InputFile, InputReader } from "./input.ts";

/** Where reading starts: a byte offset at a record start, and its line. */
export interface ReadStart {
  offset: number;
  line: number;
}

/** The CSV settings the header is read with (the load's). */
export interface CsvFormat {
  delimiter: string;
  quote: string;
  escape?: string;
  comment?: string;
}

/** The first record of a CSV input: its names, or why it cannot be read. */
export interface HeaderRecord {
  fields: string[] | null;
  fault: string | null;
  /** Its bytes as read (line end excluded). */
  raw: Uint8Array;
  line: number;
  /** Where the data starts, and its line. */
  end: number;
  nextLine: number;
}

/** Core positions to file positions. The core's bytes from `pushedBase` on are the file's from `fileStart` on. */
export class PositionMap {
  constructor(
    readonly pushedBase: number,
    readonly pushedBaseLine: number,
    readonly fileStart: number,
    readonly fileStartLine: number,
  ) {}

  static identity(): PositionMap {
    return new PositionMap(0, 1, 0, 1);
  }

  /** The file offset of a core offset; offsets inside the pushed header map to the start. */
  fileOffset(pushed: number): number {
    return pushed <= this.pushedBase ? this.fileStart : this.fileStart + (pushed - this.pushedBase);
  }

  fileLine(pushedLine: number): number {
    return pushedLine <= this.pushedBaseLine ? this.fileStartLine : this.fileStartLine + (pushedLine - this.pushedBaseLine);
  }

  /** The checkpoint of a core watermark: its file offset and line. */
  checkpointAt(watermark: number, watermarkLine: number): { offset: number; line: number } {
    return { offset: this.fileOffset(watermark), line: this.fileLine(watermarkLine) };
  }

  /** The core offset of a file offset at or after the start. */
  pushedOffset(file: number): number {
    return this.pushedBase + Math.max(0, file - this.fileStart);
  }
}

/** What the loader needs of a position map (byte offsets for text, rows for Parquet). */
export interface InputPositions {
  checkpointAt(watermark: number, watermarkLine: number): { offset: number; line: number };
  fileLine(pushedLine: number): number;
  fileOffset(pushed: number): number;
  pushedOffset(file: number): number;
  /** Where a pushed line is, in the input's own terms (Parquet: row group and row). */
  describe?(pushedLine: number): string;
}

export interface CoreInput {
  /** The CSV header record, when the format has one; null for an empty input. */
  header: HeaderRecord | null;
  /** Everything to push to the core, the header (if pushed separately) first; a chunk is valid only until the next is asked for. */
  chunks: AsyncIterable<Uint8Array>;
  positions: PositionMap;
  /** Counts the raw (compressed) bytes read, for progress. */
  reader: InputReader;
  /** Releases the input when `chunks` was not read to its end. */
  close(): Promise<void>;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The bytes of `rest` from absolute position `from` on; `rest` starts at `position`. */
async function* dropBefore(
  from: number,
  position: number,
  first: Uint8Array[],
  rest: AsyncIterator<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  let at = position;
  const emit = (chunk: Uint8Array): Uint8Array | null => {
    const chunkStart = at;
    at += chunk.length;
    if (at <= from) return null;
    return chunkStart >= from ? chunk : chunk.subarray(from - chunkStart);
  };
  for (const chunk of first) {
    const part = emit(chunk);
    if (part !== null && part.length > 0) yield part;
  }
  try {
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      const part = emit(next.value);
      if (part !== null && part.length > 0) yield part;
    }
  } finally {
    await rest.return?.();
  }
}

async function* prepend(first: Uint8Array[], rest: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield* first;
  yield* rest;
}

/** Reads until the core finds the first record complete; returns it with the chunks read. */
async function readFirstRecord(
  stream: AsyncIterator<Uint8Array>,
  format: CsvFormat,
): Promise<{ header: HeaderRecord | null; buffered: Uint8Array[] }> {
  const buffered: Uint8Array[] = [];
  let total = 0;
  let readAt = 0;
  for (;;) {
    const next = await stream.next();
    if (!next.done) {
      // A copy: the reader may read the next chunk into the same buffer.
      buffered.push(next.value.slice());
      total += next.value.length;
      // The core reads from the start each time: only once the bytes have doubled, so a
      // header that never ends (an open quote) costs linear time up to the size limit.
      if (total < readAt * 2) continue;
    }
    readAt = total;
    const bytes = concat(buffered);
    const read = readCsvHeader(bytes, format, next.done === true);
    if (read.status === "needMore") continue;
    if (read.status === "empty") return { header: null, buffered };
    const raw = bytes.slice(read.start, read.start + read.rawLength);
    const { line, end, nextLine } = read;
    const header = read.status === "record"
      ? { fields: read.fields, fault: null, raw, line, end, nextLine }
      : { fields: null, fault: read.reason, raw, line, end, nextLine };
    return { header, buffered };
  }
}

/**
 * Opens an input for the core from `start` on. With `csvHeader`, the header is read first
 * and, when the data starts after it, pushed on its own before the data.
 */
export async function openCoreInput(
  input: InputFile,
  start: ReadStart,
  csvHeader: CsvFormat | null,
): Promise<CoreInput> {
  // The core copies each chunk in before it asks for the next (`bulkPush`), so a plain
  // file is read into one buffer; the chunks kept longer (the header's) are copied here.
  const reader = new InputReader(input, { reuseBuffer: true });
  if (csvHeader === null) {
    const chunks = reader.bytes(start.offset);
    return {
      header: null,
      chunks,
      positions: new PositionMap(0, 1, start.offset, start.line),
      reader,
      close: async () => void await chunks.return(undefined),
    };
  }
  // A plain file seeks to the data and reads its header on a second handle; stdin and
  // compressed input are read once, header and all.
  const seekable = start.offset > 0 && input.path !== "-" && !input.url && input.compression === null;
  const headStream = (seekable ? new InputReader(input) : reader).bytes(0)[Symbol.asyncIterator]();
  const { header, buffered } = await readFirstRecord(headStream, csvHeader);
  const headerEnd = header?.end ?? 0;
  const opened = (chunks: AsyncGenerator<Uint8Array>, positions: PositionMap): CoreInput => ({
    header,
    chunks,
    positions,
    reader,
    close: async () => {
      await chunks.return(undefined);
      await headStream.return?.(undefined);
    },
  });
  if (header === null || header.fault !== null || start.offset <= headerEnd) {
    if (seekable) {
      await headStream.return?.(undefined);
      return opened(reader.bytes(0), PositionMap.identity());
    }
    return opened(prepend(buffered, { [Symbol.asyncIterator]: () => headStream }), PositionMap.identity());
  }
  const headerBytes = concat(buffered).slice(0, headerEnd);
  const positions = new PositionMap(headerEnd, header.nextLine, start.offset, start.line);
  if (seekable) {
    await headStream.return?.(undefined);
    return opened(prepend([headerBytes], reader.bytes(start.offset)), positions);
  }
  return opened(prepend([headerBytes], dropBefore(start.offset, 0, buffered, headStream)), positions);
}
