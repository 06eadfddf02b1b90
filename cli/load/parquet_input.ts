// A Parquet input for the core's bulk loader. hyparquet decodes the container (pages,
// encodings, compression) as DecompressionStream decodes gzip, reading the file by ranges
// through a Deno file handle, one row group at a time, so memory is bounded by a row group.
// Each row becomes one JSON Lines record (parquet_values.ts spells it losslessly) and the
// core converts, checks, routes and writes it as any JSON Lines record.
//
// Positions: record n of what was pushed is line n, so the core's watermark line gives the
// file row; checkpoints hold that row (offset = rows before it, line = row + 1), and a
// resumed load starts reading at it. Bad rows are their JSON line, located by row group and row.

import { type AsyncBuffer, type FileMetaData, parquetMetadataAsync, parquetScan } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import type { BulkConversionOptions } from "../../driver/deno.ts";
import type { TableColumn } from "./table.ts";
import { UsageError } from "../errors.ts";
import type { InputFile } from "./input.ts";
import { type ParquetColumn, parquetColumns, unfitReason } from "./parquet_schema.ts";
import { cellWriter, LineWriter, type ValueWriter } from "./parquet_values.ts";

/** A Parquet file read by ranges, one read at a time on one handle; counts the bytes read. */
class FileBuffer implements AsyncBuffer {
  rawBytesRead = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly file: Deno.FsFile,
    readonly byteLength: number,
  ) {}

  slice(start: number, end = this.byteLength): Promise<ArrayBuffer> {
    const read = this.queue.then(() => this.read(start, Math.min(end, this.byteLength)));
    this.queue = read.catch(() => {});
    return read;
  }

  private async read(start: number, end: number): Promise<ArrayBuffer> {
    const out = new Uint8Array(Math.max(0, end - start));
    await this.file.seek(start, Deno.SeekMode.Start);
    for (let at = 0; at < out.length;) {
      const count = await this.file.read(out.subarray(at));
      if (count === null) {
        throw new Error(`unexpected end of file at byte ${start + at}`);
      }
      at += count;
    }
    this.rawBytesRead += out.length;
    return out.buffer;
  }

  close(): void {
    this.file.close();
  }
}

/** An opened Parquet file: its columns, row groups, and the reader of its rows. */
export interface ParquetFile {
  path: string;
  columns: ParquetColumn[];
  /** The first row of each row group, and the total row count last. */
  groupStarts: number[];
  buffer: FileBuffer;
  metadata: FileMetaData;
}

function asNumber(value: bigint | number): number {
  return Number(value);
}

export async function openParquet(input: InputFile): Promise<ParquetFile> {
  if (input.path === "-" || input.url || input.compression !== null) {
    throw new UsageError(
      `${input.path}: Parquet is read by ranges from a plain file (not stdin, a URL or a compressed file)`,
    );
  }
  const file = await Deno.open(input.path, { read: true });
  const buffer = new FileBuffer(file, (await file.stat()).size);
  try {
    const metadata = await parquetMetadataAsync(buffer, { geoparquet: false });
    const groupStarts = [0];
    for (const group of metadata.row_groups) {
      groupStarts.push(groupStarts.at(-1)! + asNumber(group.num_rows));
    }
    return {
      path: input.path,
      columns: parquetColumns(metadata),
      groupStarts,
      buffer,
      metadata,
    };
  } catch (error) {
    buffer.close();
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `${input.path}: not a readable Parquet file: ${(error as Error).message}`,
    );
  }
}

/**
 * The conversion settings of a Parquet input: the spellings of parquet_values.ts are read
 * by the core's defaults, so the settings for text inputs (formats, epoch unit, separators,
 * boolean words, blob format) do not apply; the time zone of local timestamps, overflow,
 * rounding and null-to-unset do.
 */
export function parquetConversion(
  conversion: BulkConversionOptions | undefined,
): BulkConversionOptions | undefined {
  if (conversion === undefined) return undefined;
  const { nullToUnset, timeZone, overflow, rounding } = conversion;
  const kept: BulkConversionOptions = {
    nullToUnset,
    timeZone,
    overflow,
    rounding,
  };
  return Object.fromEntries(
    Object.entries(kept).filter(([, value]) => value !== undefined),
  );
}

/** A Parquet column feeding a table column (or bind marker). */
export interface ParquetBinding {
  fieldIndex: number;
  column: TableColumn;
}

/** The writers of the bound columns; a Parquet type that cannot go to its column is a usage error. */
function rowWriters(
  file: ParquetFile,
  bindings: ParquetBinding[],
): Array<{ key: Uint8Array; write: ValueWriter }> {
  const encoder = new TextEncoder();
  return bindings.map(({ fieldIndex, column }, i) => {
    const source = file.columns[fieldIndex];
    const reason = unfitReason(source, column.type);
    if (reason !== null) {
      throw new UsageError(
        `${file.path}: Parquet column '${source.name}' (${source.label}) cannot go to column '${column.name}' ` +
          `(${column.typeText}): ${reason}`,
      );
    }
    return {
      key: encoder.encode(
        `${i === 0 ? "{" : ","}${JSON.stringify(column.name)}:`,
      ),
      write: cellWriter(source, column.type),
    };
  });
}

/** Row group and row (from 0) of a file row, for the log. */
export function describeRow(groupStarts: number[], row: number): string {
  let group = 0;
  while (group + 2 < groupStarts.length && groupStarts[group + 1] <= row) {
    group++;
  }
  return `row group ${group}, row ${row - groupStarts[group]} (file row ${row}, from 0)`;
}

/** Core positions to file rows, for a load that starts at file row `startRow`. */
export class RowPositions {
  constructor(
    private readonly groupStarts: number[],
    readonly startRow: number,
  ) {}

  /** The file row of a pushed line (1-based): line 1 is the start row. */
  rowOf(pushedLine: number): number {
    return this.startRow + Math.max(0, pushedLine - 1);
  }

  checkpointAt(
    _watermark: number,
    watermarkLine: number,
  ): { offset: number; line: number } {
    const row = this.rowOf(watermarkLine);
    return { offset: row, line: row + 1 };
  }

  fileLine(pushedLine: number): number {
    return this.rowOf(pushedLine) + 1;
  }

  describe(pushedLine: number): string {
    return describeRow(this.groupStarts, this.rowOf(pushedLine));
  }

  fileOffset(_pushed: number): number {
    throw new Error(
      "a Parquet input has no byte offsets for rows (journaled loads and --split by range refuse it)",
    );
  }

  pushedOffset(file: number): number {
    return this.fileOffset(file);
  }
}

/** A Parquet input opened for the core: its plan, its rows as JSON lines from the start row, and positions. */
export interface ParquetCoreInput<Plan> {
  plan: Plan;
  chunks: AsyncGenerator<Uint8Array>;
  positions: RowPositions;
  reader: { rawBytesRead: number };
  close(): Promise<void>;
}

/**
 * Opens `input`, plans it by its column names (`planFor` returns the bindings with the plan)
 * and checks every bound column's type before any row is read.
 */
export async function openParquetInput<
  Plan extends { parquet?: ParquetBinding[] },
>(
  input: InputFile,
  startRow: number,
  planFor: (names: string[]) => Plan,
): Promise<ParquetCoreInput<Plan>> {
  const file = await openParquet(input);
  try {
    const total = file.groupStarts.at(-1)!;
    if (startRow > total) {
      throw new Error(
        `${file.path} has ${total} rows: cannot start at row ${startRow}`,
      );
    }
    const plan = planFor(file.columns.map((column) => column.name));
    const bindings = plan.parquet ?? [];
    const chunks = parquetLines(file, bindings, startRow);
    return {
      plan,
      chunks,
      positions: new RowPositions(file.groupStarts, startRow),
      reader: file.buffer,
      close: async () => {
        await chunks.return(undefined);
        file.buffer.close();
      },
    };
  } catch (error) {
    file.buffer.close();
    throw error;
  }
}

/**
 * Rows from `startRow` on as JSON lines, one row group read at a time, in pieces of about
 * `pieceBytes`. The bound columns' types are checked at once (a usage error), before any read.
 */
export function parquetLines(
  file: ParquetFile,
  bindings: ParquetBinding[],
  startRow: number,
  pieceBytes = 1 << 18,
): AsyncGenerator<Uint8Array> {
  return writeLines(file, bindings, rowWriters(file, bindings), startRow, pieceBytes);
}

async function* writeLines(
  file: ParquetFile,
  bindings: ParquetBinding[],
  writers: Array<{ key: Uint8Array; write: ValueWriter }>,
  startRow: number,
  pieceBytes: number,
): AsyncGenerator<Uint8Array> {
  const names = bindings.map(({ fieldIndex }) => file.columns[fieldIndex].name);
  // Leaf types are taken off the schema the reader gets, so it hands over physical values
  // (decimals unscaled, timestamps as counts, text as bytes): parquet_values.ts spells them.
  const physical = {
    ...file.metadata,
    schema: file.metadata.schema.map((element) =>
      element.num_children === undefined ? { ...element, converted_type: undefined, logical_type: undefined } : element
    ),
  };
  // One scan per row group, of a footer holding only that group: a scan keeps each column it
  // read (which would hold the previous group's columns while the next is read) and plans
  // every group of its footer (which would cost the square of the group count).
  const scanOf = (group: number) =>
    parquetScan({
      file: file.buffer,
      metadata: {
        ...physical,
        row_groups: [physical.row_groups[group]],
        num_rows: physical.row_groups[group].num_rows,
      },
      columns: [...new Set(names)],
      utf8: false,
      geoparquet: false,
      compressors,
      // INT96 is the one type the reader converts without a logical type: keep its nanoseconds.
      parsers: { timestampFromNanoseconds: (nanos: bigint) => nanos },
    });
  const out = new LineWriter();
  for (let group = 0; group + 1 < file.groupStarts.length; group++) {
    const rowStart = Math.max(startRow, file.groupStarts[group]);
    const rowEnd = file.groupStarts[group + 1];
    if (rowStart >= rowEnd) continue;
    // Column by column: no object per row, and only this row group's columns held.
    let columns: ArrayLike<unknown>[] = [];
    try {
      const scan = await scanOf(group);
      const groupStart = file.groupStarts[group];
      for (const column of names) {
        const values = await scan.readColumn({ column, rowStart: rowStart - groupStart, rowEnd: rowEnd - groupStart });
        // The row count is the file's word: a column with fewer values must not read as nulls.
        if (values.length !== rowEnd - rowStart) {
          throw new Error(`column '${column}' has ${values.length} values for ${rowEnd - rowStart} rows`);
        }
        columns.push(values);
      }
    } catch (error) {
      // A damaged page or an unsupported encoding stops the load, named by where it is.
      throw new Error(`${file.path}: row group ${group} cannot be read: ${(error as Error).message}`);
    }
    for (let row = 0; row < rowEnd - rowStart; row++) {
      for (let i = 0; i < writers.length; i++) {
        out.bytes(writers[i].key);
        writers[i].write(out, columns[i][row]);
      }
      out.ascii(writers.length === 0 ? "{}\n" : "}\n");
      if (out.length >= pieceBytes) yield out.take();
    }
    columns = [];
  }
  if (out.length > 0) yield out.take();
}
