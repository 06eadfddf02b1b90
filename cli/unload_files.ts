// The files of an unload: each written under a temporary name and put in place only when the
// whole unload succeeded (files.ts AtomicOutput), compressed by its extension (.gz, .zst), and
// with --max-rows-per-file split into numbered parts of at most N rows each.

import { readCsvHeader } from "../driver/deno.ts";
import { CliFailure, UsageError } from "./errors.ts";
import { AtomicOutput } from "./files.ts";
import { StreamOutput, type TextSink } from "./output.ts";
import { type Compression, compressionOfName, compressor, withoutCompressionExtension } from "./compression.ts";

export type ByteTarget = { write(bytes: Uint8Array): Promise<number> };

/** Bytes compressed on their way to `target`; `finish()` ends the container (its trailer). */
class CompressedTarget implements ByteTarget {
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly drained: Promise<void>;
  constructor(target: ByteTarget, stream: TransformStream<Uint8Array, Uint8Array>) {
    this.writer = stream.writable.getWriter();
    this.drained = (async () => {
      for await (const chunk of stream.readable) {
        let offset = 0;
        while (offset < chunk.length) offset += await target.write(chunk.subarray(offset));
      }
    })();
    // A failed write shows at the next write or at finish(), not as an unhandled rejection.
    this.drained.catch(() => {});
  }
  async write(bytes: Uint8Array): Promise<number> {
    await this.writer.write(bytes);
    return bytes.length;
  }
  async finish(): Promise<void> {
    await this.writer.close();
    await this.drained;
  }
}

/** Compression chosen by the output file's extension: .gz, .zst/.zstd and .bz2; others are refused. */
function compressionOf(path: string): Compression | null {
  const compression = compressionOfName(path);
  if (compression !== null) return compression;
  const refused = [".xz", ".lz4"].find((extension) => path.toLowerCase().endsWith(extension));
  if (refused !== undefined) {
    throw new UsageError(
      `--out ${path}: ${refused} output is not supported (unload compresses .gz, .zst and .bz2)`,
    );
  }
  return null;
}

/** The sink of one file: a header written before the first rows. */
export class FileSink implements TextSink {
  private output: StreamOutput;
  private readonly compressed: CompressedTarget | null;
  constructor(
    readonly file: AtomicOutput | null,
    target: ByteTarget,
    compression: TransformStream<Uint8Array, Uint8Array> | null = null,
  ) {
    this.compressed = compression === null ? null : new CompressedTarget(target, compression);
    this.output = new StreamOutput(this.compressed ?? target);
  }
  /** Flushes, ends the compression, and puts the file in place. */
  async commit(): Promise<void> {
    await this.output.flush();
    await this.compressed?.finish();
    await this.file?.commit();
  }
  get closed(): boolean {
    return this.output.closed;
  }
  write(text: string | Uint8Array): Promise<void> {
    return this.output.write(text);
  }
  flush(): Promise<void> {
    return this.output.flush();
  }
}

/** A file of the output, written to a temporary name until the unload succeeds. */
export async function openFileSink(path: string, overwrite: boolean): Promise<FileSink> {
  const compression = compressionOf(path);
  const stream = compression === null ? null : await compressor(compression);
  const output = await AtomicOutput.create(path, overwrite);
  return new FileSink(output, output.file, stream);
}


/** `out.csv.gz`, part 2 → `out-000002.csv.gz`: the number before the format and compression endings. */
export function partPath(path: string, part: number): string {
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1);
  const stem = withoutCompressionExtension(name);
  const dot = stem.lastIndexOf(".");
  const [base, format] = dot > 0 ? [stem.slice(0, dot), stem.slice(dot)] : [stem, ""];
  // The ending as the user wrote it (.zstd stays .zstd).
  const ending = name.slice(base.length + format.length);
  return `${path.slice(0, slash + 1)}${base}-${String(part).padStart(6, "0")}${format}${ending}`;
}

/** The CSV characters of the unload, for finding where its records end. */
export interface CsvCharacters {
  delimiter?: string;
  quote?: string;
  escape?: string;
}

/**
 * The byte offset just past the first `rows` records of a page: CSV records found by the
 * core's CSV reader (a quoted value may hold line ends), JSON Lines by their newlines (the
 * core's JSON escapes every line end inside a value).
 */
export function recordsEnd(body: Uint8Array, rows: number, csv: CsvCharacters | null): number {
  let at = 0;
  for (let row = 0; row < rows; row++) {
    if (csv === null) {
      const newline = body.indexOf(0x0a, at);
      at = newline < 0 ? body.length : newline + 1;
      continue;
    }
    for (let window = 4096;; window *= 2) {
      const atEnd = at + window >= body.length;
      const read = readCsvHeader(body.subarray(at, atEnd ? body.length : at + window), csv, atEnd);
      if (read.status === "needMore" && !atEnd) continue;
      if (read.status !== "record" && read.status !== "fault") {
        throw new CliFailure(`internal: a page said ${rows} rows, but its CSV ends after ${row}`);
      }
      at += read.end;
      break;
    }
  }
  return at;
}

const encoder = new TextEncoder();

/**
 * The rows of one output split into parts of at most `maxRows` rows (`out-000001.csv`, ...),
 * each with the header when the format has one. Parts are committed together by commit() and
 * all removed by abort(). Pages come from several scans at once: each is written whole under
 * a lock, so a part's rows are never interleaved within a record.
 */
export class PartedSink {
  private readonly parts: FileSink[] = [];
  private current: FileSink | null = null;
  private rowsInCurrent = 0;
  private header: Uint8Array | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly maxRows: number,
    private readonly overwrite: boolean,
    private readonly csv: CsvCharacters | null,
    private readonly withHeader: boolean,
  ) {}

  /** Writes a page's rows (and remembers its header), starting new parts as they fill. */
  writePage(header: Uint8Array, body: Uint8Array | string, rows: number): Promise<void> {
    const run = this.queue.then(() => this.writeRows(header, typeof body === "string" ? encoder.encode(body) : body, rows));
    this.queue = run.catch(() => {});
    return run;
  }

  private async writeRows(header: Uint8Array, body: Uint8Array, rows: number): Promise<void> {
    this.header ??= header;
    let at = 0;
    while (rows > 0) {
      if (this.current === null || this.rowsInCurrent === this.maxRows) await this.nextPart();
      const take = Math.min(rows, this.maxRows - this.rowsInCurrent);
      const end = take === rows ? body.length : at + recordsEnd(body.subarray(at), take, this.csv);
      await this.current!.write(body.subarray(at, end));
      this.rowsInCurrent += take;
      rows -= take;
      at = end;
    }
  }

  private async nextPart(): Promise<void> {
    const sink = await openFileSink(partPath(this.path, this.parts.length + 1), this.overwrite);
    this.parts.push(sink);
    // A full part's bytes are handed on now; it is put in place with the others at the end.
    if (this.current !== null) await this.current.flush();
    this.current = sink;
    this.rowsInCurrent = 0;
    if (this.withHeader && this.csv !== null && this.header !== null) await sink.write(this.header);
  }

  /** Puts every part in place; an output without rows is one part with the header only. */
  async commit(lastHeader: Uint8Array | string): Promise<void> {
    await this.queue;
    if (this.parts.length === 0) {
      this.header ??= typeof lastHeader === "string" ? encoder.encode(lastHeader) : lastHeader;
      await this.nextPart();
    }
    for (const part of this.parts) await part.commit();
  }

  async abort(): Promise<void> {
    await this.queue;
    for (const part of this.parts) await part.file?.abort();
  }

  /** The paths of the parts written so far. */
  paths(): string[] {
    return this.parts.map((part) => part.file!.path);
  }
}
