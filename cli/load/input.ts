// The inputs of a load: file arguments expanded (globs, directories, '-' for stdin) into a
// list of files, and byte streams over them that start at any offset (after decompression
// for .gz) and count the raw bytes read, which is what progress and ETA are measured in.

import { CliFailure, UsageError } from "../errors.ts";
import { join } from "../paths.ts";
import {
  type Compression,
  compressionOfMagic,
  compressionOfName,
  decompressor,
  MAGIC_BYTES_NEEDED,
  withoutCompressionExtension,
} from "../compression.ts";
import { DEFAULT_HTTP_TIMEOUT_MS, isUrl, openUrl, urlPath } from "./http_input.ts";

export interface InputFile {
  /** The path as given or found ('-' for stdin), or an http(s) URL. */
  path: string;
  /** Size on disk in bytes (compressed size for .gz); null for stdin; a URL's Content-Length once it answered. */
  size: number | null;
  /** The container its name declares (.gz, .zst/.zstd, .bz2); stdin and URLs are also sniffed. */
  compression: Compression | null;
  format: "csv" | "jsonl" | "json" | "parquet" | null;
  /** An http:// or https:// input, read as a stream. */
  url?: boolean;
  /** The deadline of a URL's response headers and of each piece of its body. */
  httpTimeoutMs?: number;
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

/** The format implied by a file name, ignoring a compression suffix (.gz, .zst, .bz2). */
export function formatOfName(path: string): InputFile["format"] {
  if (path.toLowerCase().endsWith(".parquet")) return "parquet";
  const name = withoutCompressionExtension(path).toLowerCase();
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
export async function expandInputs(args: string[], options: { httpTimeoutMs?: number } = {}): Promise<InputFile[]> {
  const paths: string[] = [];
  for (const arg of args) {
    if (arg === "-" || isUrl(arg)) {
      paths.push(arg);
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
    if (isUrl(path)) {
      if (seen.has(path)) continue;
      seen.add(path);
      const name = urlPath(path);
      inputs.push({
        path,
        size: null,
        compression: compressionOfName(name),
        format: formatOfName(name),
        url: true,
        httpTimeoutMs: options.httpTimeoutMs,
      });
      continue;
    }
    const key = path === "-" ? "-" : await Deno.realPath(path).catch(() => path);
    if (seen.has(key)) continue;
    seen.add(key);
    const size = path === "-" ? null : (await Deno.stat(path)).size;
    const compression = path === "-" ? null : compressionOfName(path);
    inputs.push({ path, size, compression, format: path === "-" ? formatOfName(path) : await formatOfFile(path, size!, compression) });
  }
  return inputs;
}

/** A `.json` file is one JSON array unless it starts with an object: DSBulk's JSON connector
 * writes JSON Lines into `output-000001.json` (its default mode, MULTI_DOCUMENT). */
async function formatOfFile(path: string, size: number, compression: Compression | null): Promise<InputFile["format"]> {
  const format = formatOfName(path);
  if (format !== "json") return format;
  // Read through the decompressor: a `.json.gz` of JSON Lines is JSON Lines too.
  const head: number[] = [];
  try {
    for await (const chunk of new InputReader({ path, size, compression, format }).bytes(0)) {
      head.push(...chunk.subarray(0, JSON_HEAD_BYTES - head.length));
      if (head.length >= JSON_HEAD_BYTES) break;
    }
  } catch {
    // An unreadable file or a corrupt stream fails the load itself, with its own message.
    return format;
  }
  const text = new TextDecoder().decode(Uint8Array.from(head)).replace(/^\uFEFF/, "").trimStart();
  return text.startsWith("{") ? "jsonl" : format;
}

/** The bytes a `.json` input's first character is looked for in. */
const JSON_HEAD_BYTES = 256;

const READ_CHUNK = 256 * 1024;

/** Reads until `count` bytes are buffered (or the stream ends); returns them with a stream of everything. */
async function peek(stream: ReadableStream<Uint8Array>, count: number): Promise<{ head: Uint8Array; stream: ReadableStream<Uint8Array> }> {
  const reader = stream.getReader();
  const buffered: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < count) {
    const next = await reader.read();
    if (next.done) {
      done = true;
      break;
    }
    buffered.push(next.value);
    length += next.value.length;
  }
  const head = new Uint8Array(Math.min(length, count));
  let at = 0;
  for (const chunk of buffered) {
    if (at >= head.length) break;
    const part = chunk.subarray(0, head.length - at);
    head.set(part, at);
    at += part.length;
  }
  const rest = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = buffered.shift();
      if (chunk !== undefined) return controller.enqueue(chunk);
      if (done) return controller.close();
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { head, stream: rest };
}

/** A byte stream over one input that counts the raw (possibly compressed) bytes read. */
export class InputReader {
  /** Raw bytes read from the file, stdin or URL so far (a seek skips bytes without reading them). */
  rawBytesRead = 0;

  /**
   * With `reuseBuffer`, a plain file is read into one buffer again and again: each chunk is
   * valid only until the next is asked for. For a consumer that copies a chunk before it
   * asks for the next (the core's bulk load does, in `bulkPush`), and only for plain files
   * (stdin, URLs and decompressors hand out chunks of their own).
   */
  constructor(readonly input: InputFile, private readonly options: { reuseBuffer?: boolean } = {}) {}

  /**
   * The input's (decompressed) bytes from `offset` on. Plain files seek there; compressed
   * input, stdin and URLs are read from the start and the bytes before `offset` dropped.
   */
  async *bytes(offset: number): AsyncGenerator<Uint8Array> {
    if (this.input.path !== "-" && !this.input.url && this.input.compression === null) {
      yield* this.plainFile(offset);
      return;
    }
    let { stream, compression } = await this.rawStream();
    stream = stream.pipeThrough(this.counter());
    if (this.input.path === "-" || this.input.url) {
      // stdin and URLs are decompressed by the magic bytes they start with.
      const peeked = await peek(stream, MAGIC_BYTES_NEEDED);
      stream = peeked.stream;
      compression = this.input.url ? this.urlCompression(compression, compressionOfMagic(peeked.head)) : compressionOfMagic(peeked.head);
    }
    if (compression !== null) stream = stream.pipeThrough(await decompressor(compression));
    const iterator = stream[Symbol.asyncIterator]();
    // A caller that stops early (a header read, a `for await` that breaks) closes this
    // generator: its iterator's return() cancels the stream, so a file is closed and a URL's
    // body is not left half-read.
    try {
      yield* this.skipping(iterator, offset, compression);
    } finally {
      // An errored stream rejects its cancel with the same error: the one thrown above wins.
      await iterator.return?.().catch(() => {});
    }
  }

  /** The chunks of `iterator` from `offset` on, a decompressor's failure named with the bytes read. */
  private async *skipping(iterator: AsyncIterator<Uint8Array>, offset: number, compression: Compression | null): AsyncGenerator<Uint8Array> {
    let produced = 0;
    let skip = offset;
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (error instanceof CliFailure || compression === null) throw error;
        throw new CliFailure(
          `${this.input.path}: corrupt ${compression} data within its first ${this.rawBytesRead} bytes ` +
            `(${produced} bytes of data decompressed before it): ${(error as Error).message}`,
        );
      }
      if (next.done) return;
      const chunk = next.value;
      produced += chunk.length;
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      yield skip > 0 ? chunk.subarray(skip) : chunk;
      skip = 0;
    }
  }

  /** The raw bytes of the input and the compression its name declares. */
  private async rawStream(): Promise<{ stream: ReadableStream<Uint8Array>; compression: Compression | null }> {
    if (this.input.path === "-") return { stream: Deno.stdin.readable, compression: null };
    if (!this.input.url) return { stream: (await Deno.open(this.input.path)).readable, compression: this.input.compression };
    const opened = await openUrl(this.input.path, this.input.httpTimeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS);
    this.contentEncoding = opened.contentEncoding;
    // Progress measures against the length the server gave, once known.
    if (opened.contentLength !== null) this.input.size = opened.contentLength;
    return { stream: opened.body, compression: opened.declared };
  }

  private contentEncoding: string | null = null;

  /**
   * A URL's compression: what its path or Content-Type declares must be what its bytes start
   * with, unless fetch already undid a Content-Encoding (a .gz served with Content-Encoding:
   * gzip arrives as its plain bytes). Undeclared, the magic bytes decide.
   */
  private urlCompression(declared: Compression | null, found: Compression | null): Compression | null {
    if (declared === null || declared === found) return found;
    if (found === null && this.contentEncoding !== null) return null;
    throw new CliFailure(
      `${this.input.path}: its name or Content-Type says ${declared}, but its bytes do not start as ${declared} data does`,
    );
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
    // A fresh buffer per read unless asked otherwise: parsers keep views into earlier chunks.
    // Fresh buffers are garbage outside V8's heap that a load makes as fast as it reads
    // (~50 MB/s), freed only when a GC finds them dead; the process keeps their pages
    // (bench/LOADER_MEMORY.md, "Reading into one buffer").
    const reused = this.options.reuseBuffer ? new Uint8Array(READ_CHUNK) : null;
    for (;;) {
      const buffer = reused ?? new Uint8Array(READ_CHUNK);
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
