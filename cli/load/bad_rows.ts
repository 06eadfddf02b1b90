// Bad rows of a load: each is copied verbatim to `<name>.bad` (after the header line, so the
// file can be corrected and loaded again with the same options) and explained by one line
// in `<name>.errors.log` giving the source file, line, field, column and reason.

import { basename, join } from "../paths.ts";
import type { SourceRecord } from "./csv_source.ts";
import type { RowProblem } from "./row_converter.ts";

const encoder = new TextEncoder();

export function describeProblem(record: SourceRecord, problem: RowProblem): string {
  const location = `${record.source === "-" ? "<stdin>" : record.source}:${record.line}`;
  const parts: string[] = [location];
  if (problem.field !== undefined) {
    const column = problem.column !== undefined
      ? ` (column ${problem.column}${problem.type ? `, ${problem.type}` : ""})`
      : "";
    parts.push(`field ${problem.field}${column}`);
  }
  let line = `${parts.join(": ")}: ${problem.reason}`;
  if (problem.value !== undefined) line += `; value ${JSON.stringify(problem.value)}`;
  return line.replace(/[\r\n]+/g, " ");
}

/** `users.csv.gz` → `users`; stdin → `stdin`. */
export function badFileStem(source: string): string {
  if (source === "-") return "stdin";
  let name = basename(source);
  if (name.endsWith(".gz")) name = name.slice(0, -3);
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

export class BadRowLog {
  readonly badPath: string;
  readonly logPath: string;
  private files: Promise<{ bad: Deno.FsFile; log: Deno.FsFile }> | null = null;
  /** Writes are chained so that lines from concurrent failures never interleave. */
  private pending: Promise<void> = Promise.resolve();
  private header: string | null = null;
  private writeFailure: Error | null = null;
  count = 0;

  constructor(directory: string, stem: string) {
    this.badPath = join(directory, `${stem}.bad`);
    this.logPath = join(directory, `${stem}.errors.log`);
  }

  /** Output of an earlier run would be mistaken for this run's, so it is removed up front. */
  async removeStale(): Promise<void> {
    for (const path of [this.badPath, this.logPath]) {
      await Deno.remove(path).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    }
  }

  setHeader(raw: string): void {
    this.header = raw;
  }

  private open(): Promise<{ bad: Deno.FsFile; log: Deno.FsFile }> {
    this.files ??= (async () => {
      const options = { write: true, create: true, truncate: true };
      const bad = await Deno.open(this.badPath, options);
      const log = await Deno.open(this.logPath, options);
      if (this.header !== null) await writeAll(bad, `${this.header}\n`);
      return { bad, log };
    })();
    return this.files;
  }

  /** Queues the row; a failed write is reported by close(), the load itself goes on. */
  record(record: SourceRecord, problem: RowProblem): void {
    this.count++;
    const line = describeProblem(record, problem);
    this.pending = this.pending.then(async () => {
      if (this.writeFailure !== null) return;
      try {
        const { bad, log } = await this.open();
        await writeAll(bad, `${record.raw}\n`);
        await writeAll(log, `${line}\n`);
      } catch (error) {
        this.writeFailure = error as Error;
      }
    });
  }

  async close(): Promise<void> {
    await this.pending;
    if (this.files !== null) {
      const files = await this.files.catch(() => null);
      files?.bad.close();
      files?.log.close();
    }
    if (this.writeFailure !== null) {
      throw new Error(`cannot write bad rows to ${this.badPath}: ${this.writeFailure.message}`);
    }
  }
}

async function writeAll(file: Deno.FsFile, text: string): Promise<void> {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += await file.write(bytes.subarray(offset));
}
