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
// Files are written atomically: to a temporary file, synced, then renamed over the
// checkpoint. A checkpoint carries a checksum and, per input, a fingerprint of the file (a
// hash of its first and last blocks); reading one validates its shape and checksum, and
// resuming validates each input's identity and watermark (checkResumeState): a checkpoint
// that does not fit is an error naming the file and the reason, never a silent skip.

import { z } from "zod";
import { CliFailure } from "../errors.ts";
import { writeFileAtomicSync } from "../files.ts";
import { join } from "../paths.ts";
import { decompressor } from "../compression.ts";
import { isUrl } from "./http_input.ts";
import type { BadFileSizes } from "./bad_rows.ts";
import type { InputFile } from "./input.ts";

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

const count = z.int().min(0);
const offsets = z.array(count).optional();

/** The stored form: what the loaders write, plus each input's fingerprint and a checksum. */
const storedCheckpointSchema = z.object({
  version: z.literal(1),
  job: z.object({
    table: z.string(),
    query: z.string().nullable(),
    inputs: z.array(z.string()),
    split: z.string().nullable(),
  }),
  updatedAt: z.string(),
  complete: z.boolean(),
  files: z.array(z.object({
    path: z.string(),
    size: count.nullable(),
    mtimeMs: z.number().nullable(),
    fingerprint: z.string().nullable(),
    offset: count,
    line: z.int().min(1),
    done: z.boolean(),
    rowsLoaded: count,
    badRows: count,
    uncertainRows: count,
    badFiles: z.object({ bad: count, log: count, uncertain: count }),
    acked: offsets,
    sent: offsets,
  })),
  checksum: z.string(),
});

const CRC32_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * CRC-32 of the checkpoint's text. It catches a damaged or hand-edited file; it must be
 * synchronous because checkpoints are written synchronously (see write()).
 */
function checksumOf(text: string): string {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) crc = CRC32_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return `crc32:${((crc ^ 0xffffffff) >>> 0).toString(16).padStart(8, "0")}`;
}

/** What identifies an input between runs: size, modification time, and a hash of its ends. */
export interface InputIdentity {
  path: string;
  size: number | null;
  mtimeMs: number | null;
  fingerprint: string | null;
}

const FINGERPRINT_BLOCK = 64 * 1024;

async function readBlock(file: Deno.FsFile, at: number, length: number): Promise<Uint8Array> {
  const block = new Uint8Array(length);
  await file.seek(at, Deno.SeekMode.Start);
  let filled = 0;
  while (filled < length) {
    const read = await file.read(block.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  return block.subarray(0, filled);
}

/** Size, mtime and SHA-256 of the first and last 64 KiB of an input file (stdin and URLs: none). */
export async function inputIdentity(path: string): Promise<InputIdentity> {
  if (path === "-" || isUrl(path)) return { path, size: null, mtimeMs: null, fingerprint: null };
  const file = await Deno.open(path, { read: true });
  try {
    const info = await file.stat();
    const first = await readBlock(file, 0, Math.min(FINGERPRINT_BLOCK, info.size));
    const lastStart = Math.max(first.length, info.size - FINGERPRINT_BLOCK);
    const last = await readBlock(file, lastStart, info.size - lastStart);
    const both = new Uint8Array(first.length + last.length);
    both.set(first);
    both.set(last, first.length);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", both));
    return {
      path,
      size: info.size,
      mtimeMs: info.mtime?.getTime() ?? null,
      fingerprint: `sha256:${Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("")}`,
    };
  } finally {
    file.close();
  }
}

/** The bytes at `offset - 1` and `offset` of the input's data (decompressed for .gz); null past the end. */
async function bytesAround(input: InputFile, offset: number): Promise<{ before: number | null; at: number | null }> {
  if (input.compression === null) {
    const file = await Deno.open(input.path, { read: true });
    try {
      // Not seeking past the end: a seek beyond what the OS can address fails with a TypeError.
      if (offset > (await file.stat()).size) return { before: null, at: null };
      const block = await readBlock(file, offset - 1, 2);
      return { before: block[0] ?? null, at: block[1] ?? null };
    } finally {
      file.close();
    }
  }
  const file = await Deno.open(input.path, { read: true });
  const reader = file.readable.pipeThrough(await decompressor(input.compression)).getReader();
  const found: { before: number | null; at: number | null } = { before: null, at: null };
  let seen = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return found;
      const end = seen + next.value.length;
      if (offset - 1 >= seen && offset - 1 < end) found.before = next.value[offset - 1 - seen];
      if (offset >= seen && offset < end) {
        found.at = next.value[offset - seen];
        return found;
      }
      seen = end;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * Refuses to resume an input from a checkpoint that does not describe it: another file, a
 * changed one (size, mtime, fingerprint), or a watermark that is not the start of a record
 * within the file. Bad-file sizes are checked when the files are cut back (BadRowLog).
 */
export async function checkResumeState(
  checkpointPath: string,
  state: FileCheckpoint & { fingerprint?: string | null },
  identity: InputIdentity,
  input: InputFile,
): Promise<void> {
  const refuse = (what: string): never => {
    throw new CliFailure(
      `cannot resume from ${checkpointPath}: ${what}; remove the checkpoint to load ${input.path} from the start`,
    );
  };
  // Which file it is, is settled by the job identity (real paths); here: is it still the same?
  if (state.size !== identity.size || state.mtimeMs !== identity.mtimeMs) {
    refuse(
      `${input.path} changed since the checkpoint (size ${identity.size}, was ${state.size}; ` +
        `modified ${identity.mtimeMs}, was ${state.mtimeMs})`,
    );
  }
  if ((state.fingerprint ?? null) !== identity.fingerprint) {
    refuse(`${input.path} is not the file the checkpoint was taken of (its content fingerprint differs)`);
  }
  // Stdin has no identity to check; its watermark is trusted as the job's (same job hash).
  // A Parquet input's offset counts rows, checked against its row count when it is opened.
  if (input.path === "-" || state.offset === 0 || input.format === "parquet") return;
  const { before, at } = await bytesAround(input, state.offset);
  if (before === null) refuse(`offset ${state.offset} of ${input.path} is past the end of its data`);
  // A record starts after a line end (not between the CR and LF of one), or the data ends there.
  const afterLineEnd = before === 0x0a || (before === 0x0d && at !== 0x0a);
  if (at !== null && !afterLineEnd) {
    refuse(`offset ${state.offset} of ${input.path} is not at the start of a record`);
  }
  const beyondEnd = [...state.acked ?? [], ...state.sent ?? []].find((offset) => offset < state.offset);
  if (beyondEnd !== undefined) refuse(`journal offset ${beyondEnd} lies below the watermark ${state.offset}`);
}

/**
 * The journal's entries as "file:offset" keys. Only lines ended by a newline count: the last
 * one may have been cut short by the crash, and what is left of it can still look like an
 * entry ("A 0 12" of "A 0 123"). Every complete line must be an entry of one of the
 * checkpoint's inputs at or beyond its watermark; anything else is damage and an error naming
 * the line, never skipped (a skipped "S" line would let its row be applied twice).
 */
export function parseJournal(
  text: string,
  path: string,
  files: readonly { offset: number }[],
): { acked: Set<string>; sent: Set<string> } {
  const acked = new Set<string>();
  const sent = new Set<string>();
  const lines = text.split("\n");
  lines.pop();
  lines.forEach((line, i) => {
    const refuse = (what: string): never => {
      throw new CliFailure(
        `${path} is not a valid journal: line ${i + 1} ${what}; ` +
          `repair it, or remove it and its checkpoint to load from the start`,
      );
    };
    const match = /^([SA]) ([0-9]{1,15}) ([0-9]{1,15})$/.exec(line);
    if (match === null) refuse(`is not "S|A <file> <offset>": ${JSON.stringify(line.slice(0, 60))}`);
    const file = Number(match![2]);
    const offset = Number(match![3]);
    if (file >= files.length) refuse(`names input ${file}, but the checkpoint has ${files.length}`);
    if (offset < files[file].offset) refuse(`offset ${offset} lies below the watermark ${files[file].offset} of input ${file}`);
    (match![1] === "A" ? acked : sent).add(`${file}:${offset}`);
  });
  return { acked, sent };
}

export class CheckpointStore {
  readonly path: string;
  readonly journalPath: string;
  private journal: Deno.FsFile | null = null;
  private pendingAcks: string[] = [];
  private readonly encoder = new TextEncoder();
  /** Each input's fingerprint, stored beside it in every checkpoint written. */
  private fingerprints: Array<string | null> = [];

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
    const checkpoint = this.parse(text);
    let journalText = "";
    try {
      journalText = await Deno.readTextFile(this.journalPath);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return { checkpoint, journal: parseJournal(journalText, this.journalPath, checkpoint.files) };
  }

  /** Validates shape and checksum; a bad checkpoint is an error naming the file and the fault. */
  private parse(text: string): Checkpoint {
    const refuse = (what: string): never => {
      throw new CliFailure(`${this.path} is not a valid checkpoint: ${what}; remove it to start over`);
    };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      refuse(`not JSON (${(error as Error).message})`);
    }
    const result = storedCheckpointSchema.safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0];
      refuse(`${issue.path.join(".") || "(top level)"}: ${issue.message}`);
    }
    const { checksum, ...rest } = value as { checksum: string };
    if (checksumOf(JSON.stringify(rest)) !== checksum) refuse("its checksum does not match its content (damaged or edited)");
    return rest as unknown as Checkpoint;
  }

  /** The fingerprints of the inputs, in the checkpoint's file order. */
  setFingerprints(fingerprints: Array<string | null>): void {
    this.fingerprints = fingerprints;
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
    const stored = {
      ...checkpoint,
      files: checkpoint.files.map((file, i) => ({ ...file, fingerprint: this.fingerprints[i] ?? null })),
    };
    const checksum = checksumOf(JSON.stringify(stored));
    writeFileAtomicSync(this.path, JSON.stringify({ ...stored, checksum }, null, 1) + "\n");
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
