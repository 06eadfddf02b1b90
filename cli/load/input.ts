// The inputs of a load: file arguments expanded (globs, directories, '-' for stdin) into a
// list of files, and byte streams over them that start at any offset (after decompression
// for .gz) and count the raw bytes read, which is what progress and ETA are measured in.

import { UsageError } from "../errors.ts";
import { join } from "../paths.ts";

export interface InputFile {
  /** The path as given or found ('-' for stdin). */
  path: string;
  /** Size on disk in bytes (compressed size for .gz); null for stdin. */
  size: number | null;
  gzip: boolean;
  format: "csv" | "jsonl" | "json" | "parquet" | null;
}

const GLOB_CHARS = /[*?[]/;

/** `*.csv` style matching for one path segment; `**` (a whole segment) matches any depth. */
export function globToRegExp(segment: string): RegExp {
  let pattern = "^";
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i];
    if (char === "*") pattern += "[^/]*";
    else if (char === "?") pattern += "[^/]";
    else if (char === "[") {
      const close = segment.indexOf("]", i + 2);
      if (close < 0) {
        pattern += "\\[";
        continue;
      }
      let body = segment.slice(i + 1, close);
      if (body.startsWith("!")) body = "^" + body.slice(1);
      pattern += `[${body.replace(/\\/g, "\\\\")}]`;
      i = close;
    } else pattern += char.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(pattern + "$");
}

/** The format implied by a file name, ignoring a .gz suffix. */
export function formatOfName(path: string): InputFile["format"] {
  if (path.toLowerCase().endsWith(".parquet")) return "parquet";
  const name = path.toLowerCase().replace(/\.gz$/, "");
  if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) return "jsonl";
  if (name.endsWith(".json")) return "json";
  if (name.endsWith(".csv") || name.endsWith(".tsv") || name.endsWith(".txt")) return "csv";
  return null;
}

async function statOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch {
    return null;
  }
}

async function walkGlob(base: string, segments: string[], out: string[]): Promise<void> {
  if (segments.length === 0) {
    const info = await statOrNull(base);
    if (info?.isFile) out.push(base);
    return;
  }
  const [segment, ...rest] = segments;
  if (segment === "**") {
    await walkGlob(base, rest, out);
    for (const entry of await listDirectory(base)) {
      if (entry.isDirectory && !entry.name.startsWith(".")) await walkGlob(join(base, entry.name), segments, out);
    }
    return;
  }
  if (!GLOB_CHARS.test(segment)) {
    await walkGlob(base === "" ? segment : join(base, segment), rest, out);
    return;
  }
  const matcher = globToRegExp(segment);
  for (const entry of await listDirectory(base)) {
    // Like a shell, a wildcard does not match a leading dot.
    if (entry.name.startsWith(".") && !segment.startsWith(".")) continue;
    if (matcher.test(entry.name)) await walkGlob(join(base, entry.name), rest, out);
  }
}

async function listDirectory(path: string): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(path === "" ? "." : path)) entries.push(entry);
  } catch {
    return [];
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Regular, non-hidden files under a directory, recursively, in name order. */
async function filesUnder(directory: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await listDirectory(directory)) {
    if (entry.name.startsWith(".")) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory) files.push(...await filesUnder(path));
    else if (entry.isFile) files.push(path);
  }
  return files;
}

/**
 * Expands the arguments: '-' is stdin, a directory stands for the files in it, a pattern
 * with * ? [..] or ** is matched against the file system. Every argument must yield at least
 * one file, and a file named twice is loaded once.
 */
export async function expandInputs(args: string[]): Promise<InputFile[]> {
  const paths: string[] = [];
  for (const arg of args) {
    if (arg === "-") {
      paths.push("-");
      continue;
    }
    const info = await statOrNull(arg);
    if (info?.isFile) {
      paths.push(arg);
    } else if (info?.isDirectory) {
      const found = await filesUnder(arg);
      if (found.length === 0) throw new UsageError(`directory ${arg} holds no files`);
      paths.push(...found);
    } else if (GLOB_CHARS.test(arg)) {
      const absolute = arg.startsWith("/");
      const segments = arg.split("/").filter((segment) => segment !== "");
      const found: string[] = [];
      await walkGlob(absolute ? "/" : "", segments, found);
      if (found.length === 0) throw new UsageError(`no file matches ${arg}`);
      paths.push(...found.sort());
    } else if (info !== null) {
      throw new UsageError(`${arg} is not a file`);
    } else {
      try {
        await Deno.stat(arg);
      } catch (error) {
        throw new UsageError(`cannot read ${arg}: ${(error as Error).message}`);
      }
    }
  }
  if (paths.filter((path) => path === "-").length > 1) throw new UsageError("stdin (-) can be read only once");
  const seen = new Set<string>();
  const inputs: InputFile[] = [];
  for (const path of paths) {
    const key = path === "-" ? "-" : await Deno.realPath(path).catch(() => path);
    if (seen.has(key)) continue;
    seen.add(key);
    const size = path === "-" ? null : (await Deno.stat(path)).size;
    inputs.push({ path, size, gzip: path.toLowerCase().endsWith(".gz"), format: formatOfName(path) });
  }
  return inputs;
}

const READ_CHUNK = 256 * 1024;

/** A byte stream over one input that counts the raw (possibly compressed) bytes read. */
export class InputReader {
  /** Raw bytes read from the file or stdin so far (a seek skips bytes without reading them). */
  rawBytesRead = 0;

  constructor(readonly input: InputFile) {}

  /**
   * The input's (decompressed) bytes from `offset` on. Plain files seek there; compressed
   * input and stdin are read from the start and the bytes before `offset` dropped.
   */
  async *bytes(offset: number): AsyncGenerator<Uint8Array> {
    if (this.input.path !== "-" && !this.input.gzip) {
      yield* this.plainFile(offset);
      return;
    }
    let stream: ReadableStream<Uint8Array> = this.input.path === "-"
      ? Deno.stdin.readable
      : (await Deno.open(this.input.path)).readable;
    stream = stream.pipeThrough(this.counter());
    let gzip = this.input.gzip;
    if (this.input.path === "-") {
      // stdin is decompressed when it starts with the gzip magic bytes.
      const [peek, rest] = stream.tee();
      const reader = peek.getReader();
      const first = await reader.read();
      reader.cancel().catch(() => {});
      gzip = !first.done && first.value.length >= 2 && first.value[0] === 0x1f && first.value[1] === 0x8b;
      stream = rest;
    }
    if (gzip) {
      stream = stream.pipeThrough(
        new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
      );
    }
    let skip = offset;
    for await (const chunk of stream) {
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      yield skip > 0 ? chunk.subarray(skip) : chunk;
      skip = 0;
    }
  }

  private counter(): TransformStream<Uint8Array, Uint8Array> {
    return new TransformStream({
      transform: (chunk, controller) => {
        this.rawBytesRead += chunk.length;
        controller.enqueue(chunk);
      },
    });
  }

  private async *plainFile(offset: number): AsyncGenerator<Uint8Array> {
    using file = await Deno.open(this.input.path);
    if (offset > 0) await file.seek(offset, Deno.SeekMode.Start);
    for (;;) {
      // A fresh buffer per read: parsers keep views into earlier chunks.
      const buffer = new Uint8Array(READ_CHUNK);
      const count = await file.read(buffer);
      if (count === null) return;
      this.rawBytesRead += count;
      yield buffer.subarray(0, count);
    }
  }
}

/** Reads `length` bytes at `offset` of a plain file (fewer at its end). */
export async function readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
  using file = await Deno.open(path);
  await file.seek(offset, Deno.SeekMode.Start);
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const count = await file.read(buffer.subarray(filled));
    if (count === null) break;
    filled += count;
  }
  return buffer.subarray(0, filled);
}

/**
 * Where a process of `--split i/n` starts in a single plain file: the first line start after
 * its range start (a record belongs to the range holding the byte just before it), with the
 * line number there, counted by scanning the bytes before it.
 */
export async function alignToLineStart(path: string, rangeStart: number): Promise<{ offset: number; line: number }> {
  if (rangeStart === 0) return { offset: 0, line: 1 };
  using file = await Deno.open(path);
  let line = 1;
  let position = 0;
  const buffer = new Uint8Array(READ_CHUNK);
  for (;;) {
    const count = await file.read(buffer);
    if (count === null) return { offset: position, line };
    const view = buffer.subarray(0, count);
    let from = 0;
    for (;;) {
      const newline = view.indexOf(0x0a, from);
      if (newline < 0) break;
      line++;
      if (position + newline >= rangeStart) return { offset: position + newline + 1, line };
      from = newline + 1;
    }
    position += count;
  }
}
