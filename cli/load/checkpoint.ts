// Checkpoints of a load, for --resume after a crash or an interruption.
//
// Per input file the checkpoint holds a watermark: the byte offset (and line number) below
// which every record was acknowledged by the cluster or written to the bad file. Resuming
// starts reading there. Records after the watermark that were applied before the crash are
// applied again, which is harmless for plain INSERTs and UPDATEs (idempotent: same values,
// same result).
//
// Counter updates (and list appends, lightweight transactions) are not idempotent, so such
// loads also keep a write-ahead journal: before a request leaves, a line "S <file> <offset>"
// per row is written (synchronously, so it survives a SIGKILL in the page cache), and after
// its acknowledgement "A <file> <offset>". A checkpoint folds the journal's entries beyond
// the watermark into itself (`acked`, `sent`) and then empties the journal; resuming skips
// acknowledged rows, and rows that were sent but never acknowledged, which may or may not
// have been applied, are not sent again but written to `<name>.uncertain` for a person to
// check. No row is ever applied twice; at most the rows in flight at the moment of the crash
// (bounded by the concurrency) need that check.
//
// Files are written atomically: to a temporary file, then renamed over the checkpoint.

import { join } from "../paths.ts";
import type { BadFileSizes } from "./bad_rows.ts";

export interface FileCheckpoint {
  path: string;
  /** Size and modification time when the load started, to refuse resuming a changed input. */
  size: number | null;
  mtimeMs: number | null;
  offset: number;
  line: number;
  done: boolean;
  /** Rows below the watermark: loaded, and written to the bad file, over every run. */
  rowsLoaded: number;
  badRows: number;
  uncertainRows: number;
  badFiles: BadFileSizes;
  /** Non-idempotent loads: offsets of rows beyond the watermark, acknowledged or only sent. */
  acked?: number[];
  sent?: number[];
}

/**
 * The checkpoint of an input no row of this run has settled yet: the one it resumed from,
 * or a fresh one at its start; either way with the file's current identity.
 */
export function untouchedFileCheckpoint(
  identity: { path: string; size: number | null; mtimeMs: number | null },
  resume: FileCheckpoint | undefined,
  start: { offset: number; line: number } | undefined,
): FileCheckpoint {
  const base: FileCheckpoint = resume ?? {
    path: identity.path,
    size: identity.size,
    mtimeMs: identity.mtimeMs,
    offset: start?.offset ?? 0,
    line: start?.line ?? 1,
    done: false,
    rowsLoaded: 0,
    badRows: 0,
    uncertainRows: 0,
    badFiles: { bad: 0, log: 0, uncertain: 0 },
  };
  return { ...base, size: identity.size, mtimeMs: identity.mtimeMs };
}

export interface Checkpoint {
  version: 1;
  job: JobIdentity;
  updatedAt: string;
  complete: boolean;
  files: FileCheckpoint[];
}

export interface JobIdentity {
  table: string;
  query: string | null;
  inputs: string[];
  split: string | null;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A file name that says which job it belongs to: the table, and a hash of everything. */
export async function jobFileStem(job: JobIdentity): Promise<string> {
  const hash = (await sha256Hex(JSON.stringify(job))).slice(0, 12);
  const table = job.table.replace(/[^A-Za-z0-9_.-]/g, "_");
  return `load-${table}-${hash}`;
}

/** Writes text to a temporary file beside `path` and renames it over `path`. */
export function writeFileAtomicSync(path: string, text: string): void {
  const temporary = `${path}.tmp-${Deno.pid}`;
  Deno.writeTextFileSync(temporary, text);
  Deno.renameSync(temporary, path);
}

export class CheckpointStore {
  readonly path: string;
  readonly journalPath: string;
  private journal: Deno.FsFile | null = null;
  private pendingAcks: string[] = [];
  private readonly encoder = new TextEncoder();

  constructor(directory: string, stem: string, readonly journaled: boolean) {
    this.path = join(directory, `${stem}.checkpoint.json`);
    this.journalPath = join(directory, `${stem}.journal`);
  }

  async read(): Promise<{ checkpoint: Checkpoint; journal: { acked: Set<string>; sent: Set<string> } } | null> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
    const checkpoint = JSON.parse(text) as Checkpoint;
    if (checkpoint.version !== 1) throw new Error(`${this.path}: unknown checkpoint version ${checkpoint.version}`);
    const acked = new Set<string>();
    const sent = new Set<string>();
    let journalText = "";
    try {
      journalText = await Deno.readTextFile(this.journalPath);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    for (const line of journalText.split("\n")) {
      // A line cut short by the crash has no newline after it and is ignored by the match.
      const match = /^([SA]) ([0-9]+) ([0-9]+)$/.exec(line);
      if (!match) continue;
      (match[1] === "A" ? acked : sent).add(`${match[2]}:${match[3]}`);
    }
    return { checkpoint, journal: { acked, sent } };
  }

  async openJournal(fresh: boolean): Promise<void> {
    if (!this.journaled) return;
    // Append mode throughout: after the journal is emptied, writes must start at its new end.
    if (fresh) await Deno.writeTextFile(this.journalPath, "");
    this.journal = await Deno.open(this.journalPath, { create: true, append: true });
  }

  /** Before a request leaves: its rows are recorded as sent. */
  recordSent(file: number, offsets: readonly number[]): void {
    if (this.journal === null) return;
    let text = "";
    for (const offset of offsets) text += `S ${file} ${offset}\n`;
    this.writeJournal(text);
  }

  /**
   * After its acknowledgement. Written at once too: an acknowledgement lost in a crash makes
   * its row uncertain, and fewer uncertain rows is the point of the journal.
   */
  recordAcked(file: number, offsets: readonly number[]): void {
    if (this.journal === null) return;
    for (const offset of offsets) this.pendingAcks.push(`A ${file} ${offset}\n`);
    this.flushAcks();
  }

  flushAcks(): void {
    if (this.journal === null || this.pendingAcks.length === 0) return;
    const text = this.pendingAcks.join("");
    this.pendingAcks = [];
    this.writeJournal(text);
  }

  private writeJournal(text: string): void {
    const bytes = this.encoder.encode(text);
    let offset = 0;
    while (offset < bytes.length) offset += this.journal!.writeSync(bytes.subarray(offset));
  }

  /**
   * Persists the checkpoint, which (for a journaled load) holds everything the journal said
   * about rows beyond the watermarks, and then empties the journal. All of it is synchronous,
   * so no journal line can slip in between.
   */
  write(checkpoint: Checkpoint): void {
    writeFileAtomicSync(this.path, JSON.stringify(checkpoint, null, 1) + "\n");
    if (this.journal !== null) {
      this.pendingAcks = [];
      this.journal.truncateSync(0);
    }
  }

  close(): void {
    this.flushAcks();
    this.journal?.close();
    this.journal = null;
  }
}
