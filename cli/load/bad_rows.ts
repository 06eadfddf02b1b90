// Bad rows of a load: each is copied verbatim to `<name>.bad` (after the header line, so the
// file can be corrected and loaded again with the same options) and explained by one line
// in `<name>.errors.log` giving the source file, line, field, column and reason. Rows of a
// resumed counter (non-idempotent) load that may or may not have been applied before the
// interruption go to `<name>.uncertain` instead, explained in the same log.
//
// Writes are synchronous: the loader writes a bad row when the checkpoint watermark passes
// it, and a checkpoint records the files' sizes, so after a crash --resume can cut the files
// back to exactly the rows below the watermark before reading on.

import { withoutCompressionExtension } from "../compression.ts";
import { isUrl, urlPath } from "./http_input.ts";
import { basename, join } from "../paths.ts";
import { writeAllSync } from "../files.ts";
const encoder = new TextEncoder();

/** A row that will not be loaded: where it is and its bytes as read. */
export interface BadRecord {
  /** The input's path, or "-" for stdin. */
  source: string;
  line: number;
  /** Where the record is, when lines do not say it (a Parquet row group and row). */
  where?: string;
  /** The record's bytes exactly as read (line end excluded). */
  bytes: Uint8Array;
}

/** Why, as the core reported it. */
export interface RowProblem {
  /** 1-based position of the offending field in the record, when one field is to blame. */
  field?: number;
  column?: string;
  type?: string;
  /** The offending text, truncated for the log. */
  value?: string;
  reason: string;
}

const MAX_VALUE_IN_LOG = 60;

export function truncateForLog(text: string): string {
  const chars = Array.from(text);
  return chars.length <= MAX_VALUE_IN_LOG ? text : `${chars.slice(0, MAX_VALUE_IN_LOG).join("")}…`;
}

export function describeProblem(record: Pick<BadRecord, "source" | "line" | "where">, problem: RowProblem): string {
  const source = record.source === "-" ? "<stdin>" : record.source;
  const location = record.where !== undefined ? `${source}: ${record.where}` : `${source}:${record.line}`;
  const parts: string[] = [location];
  if (problem.field !== undefined) {
    const column = problem.column !== undefined
      ? ` (column ${problem.column}${problem.type ? `, ${problem.type}` : ""})`
      : problem.type !== undefined
      ? ` (${problem.type})`
      : "";
    parts.push(`field ${problem.field}${column}`);
  } else if (problem.column !== undefined) {
    parts.push(`column ${problem.column}${problem.type ? ` (${problem.type})` : ""}`);
  }
  let line = `${parts.join(": ")}: ${problem.reason}`;
  if (problem.value !== undefined) line += `; value ${JSON.stringify(problem.value)}`;
  return line.replace(/[\r\n]+/g, " ");
}

/** `users.csv.gz` → `users`; a URL by its path's last segment; stdin → `stdin`. */
export function badFileStem(source: string): string {
  if (source === "-") return "stdin";
  const name = withoutCompressionExtension(basename(isUrl(source) ? urlPath(source) : source));
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

/** Stems for several sources, made unique so two inputs never share a bad file. */
export function uniqueStems(sources: string[]): string[] {
  const used = new Map<string, number>();
  return sources.map((source) => {
    const stem = badFileStem(source);
    const count = (used.get(stem) ?? 0) + 1;
    used.set(stem, count);
    return count === 1 ? stem : `${stem}-${count}`;
  });
}

/** Byte sizes of a log's three files. */
export interface BadFileSizes {
  bad: number;
  log: number;
  uncertain: number;
}

type Kind = keyof BadFileSizes;

export class BadRowLog {
  readonly badPath: string;
  readonly logPath: string;
  readonly uncertainPath: string;
  private readonly files: Partial<Record<Kind, Deno.FsFile>> = {};
  private readonly sizes: BadFileSizes = { bad: 0, log: 0, uncertain: 0 };
  private header: Uint8Array | null = null;
  private writeFailure: Error | null = null;
  /** Bad rows recorded by this run. */
  count = 0;
  uncertainCount = 0;

  constructor(directory: string, stem: string) {
    this.badPath = join(directory, `${stem}.bad`);
    this.logPath = join(directory, `${stem}.errors.log`);
    this.uncertainPath = join(directory, `${stem}.uncertain`);
  }

  private pathOf(kind: Kind): string {
    return kind === "bad" ? this.badPath : kind === "log" ? this.logPath : this.uncertainPath;
  }

  /** The three files, named, for the check that none of them is an input. */
  outputs(): Array<{ path: string; role: string }> {
    return [
      { path: this.badPath, role: "bad-rows file" },
      { path: this.logPath, role: "error log" },
      { path: this.uncertainPath, role: "uncertain-rows file" },
    ];
  }

  /** Output of an earlier run would be mistaken for this run's, so it is removed up front. */
  async removeStale(): Promise<void> {
    for (const path of [this.badPath, this.logPath, this.uncertainPath]) {
      await Deno.remove(path).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    }
  }

  /** Resuming: the files are cut back to their sizes at the checkpoint, then appended to. */
  async resumeAt(sizes: BadFileSizes): Promise<void> {
    for (const kind of ["bad", "log", "uncertain"] as const) {
      const path = this.pathOf(kind);
      if (sizes[kind] === 0) {
        await Deno.remove(path).catch(() => {});
        continue;
      }
      let size: number;
      try {
        size = (await Deno.stat(path)).size;
      } catch (error) {
        throw new Error(`cannot resume: ${path} is missing (${(error as Error).message})`);
      }
      // Truncating to a larger size would pad the file with zero bytes.
      if (size < sizes[kind]) {
        throw new Error(`cannot resume: ${path} has ${size} bytes, fewer than the ${sizes[kind]} the checkpoint recorded`);
      }
      try {
        await Deno.truncate(path, sizes[kind]);
      } catch (error) {
        throw new Error(`cannot resume: ${path} is unwritable (${(error as Error).message})`);
      }
      this.sizes[kind] = sizes[kind];
    }
  }

  setHeader(raw: Uint8Array): void {
    this.header = raw;
  }

  currentSizes(): BadFileSizes {
    return { ...this.sizes };
  }

  private write(kind: Kind, content: string | Uint8Array): void {
    let file = this.files[kind];
    if (file === undefined) {
      const path = this.pathOf(kind);
      const fresh = this.sizes[kind] === 0;
      file = Deno.openSync(path, fresh ? { write: true, create: true, truncate: true } : { append: true });
      this.files[kind] = file;
      if (fresh && kind !== "log" && this.header !== null) {
        writeAllSync(file, this.header);
        writeAllSync(file, encoder.encode("\n"));
        this.sizes[kind] += this.header.length + 1;
      }
    }
    const bytes = typeof content === "string" ? encoder.encode(content) : content;
    writeAllSync(file, bytes);
    this.sizes[kind] += bytes.length;
  }

  /** Writes the row and its reason; a failed write is reported by close(), the load goes on. */
  record(record: BadRecord, problem: RowProblem, uncertain = false): void {
    if (uncertain) this.uncertainCount++;
    else this.count++;
    if (this.writeFailure !== null) return;
    try {
      // The input's bytes verbatim when known, so the bad file is an exact copy of the rows.
      const kind = uncertain ? "uncertain" : "bad";
      this.write(kind, record.bytes);
      this.write(kind, "\n");
      this.write("log", `${describeProblem(record, problem)}\n`);
    } catch (error) {
      this.writeFailure = error as Error;
    }
  }

  get written(): boolean {
    return this.sizes.bad > 0 || this.sizes.log > 0 || this.sizes.uncertain > 0;
  }

  close(): Promise<void> {
    for (const kind of ["bad", "log", "uncertain"] as const) {
      this.files[kind]?.close();
      delete this.files[kind];
    }
    if (this.writeFailure !== null) {
      return Promise.reject(new Error(`cannot write bad rows to ${this.badPath}: ${this.writeFailure.message}`));
    }
    return Promise.resolve();
  }
}
