// Compression containers of load inputs and unload outputs: which one a file name or the first
// bytes of a stream name, and streaming (de)compressors for each. A container only frames the
// bytes; the core still parses and converts everything inside.
//
// gzip uses the web streams every runtime has. zstd is decoded by fzstd (pure JS, streaming,
// refuses corrupt and truncated frames) and encoded by the zstd in Deno's node:zlib (native;
// its decoder is not used: it passes corrupt and truncated input without an error). bzip2 is
// decoded and encoded by the `bzip2` crate's pure-Rust libbz2 in
// a small WASM of its own (cli/codecs/), which checks every block's CRC.

import { Duplex } from "node:stream";
import * as zlib from "node:zlib";
import { Decompress as ZstdDecoder } from "fzstd";

/** The bzip2 WASM, imported only when a bzip2 stream is met (a tree without it still runs the rest). */
function bzip2(): Promise<typeof import("./codecs/bzip2.ts")> {
  return import("./codecs/bzip2.ts");
}

export type Compression = "gzip" | "zstd" | "bzip2";

/** File name endings of each container, longest first where one ends another. */
const EXTENSIONS: Array<[string, Compression]> = [
  [".gz", "gzip"],
  [".zstd", "zstd"],
  [".zst", "zstd"],
  [".bz2", "bzip2"],
];

/** The container a file name or URL path ends in, or null for none. */
export function compressionOfName(path: string): Compression | null {
  const name = path.toLowerCase();
  return EXTENSIONS.find(([extension]) => name.endsWith(extension))?.[1] ?? null;
}

/** The name without its container ending (`a.csv.zst` → `a.csv`). */
export function withoutCompressionExtension(path: string): string {
  const name = path.toLowerCase();
  const found = EXTENSIONS.find(([extension]) => name.endsWith(extension));
  return found === undefined ? path : path.slice(0, path.length - found[0].length);
}

/** Bytes a stream of each container starts with (gzip 1f 8b, zstd frame 28 b5 2f fd, bzip2 "BZh1".."BZh9"). */
export const MAGIC_BYTES_NEEDED = 4;

/** The container whose magic bytes `head` starts with, or null. */
export function compressionOfMagic(head: Uint8Array): Compression | null {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "gzip";
  if (head.length >= 4 && head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd) return "zstd";
  if (head.length >= 4 && head[0] === 0x42 && head[1] === 0x5a && head[2] === 0x68 && head[3] >= 0x31 && head[3] <= 0x39) {
    return "bzip2";
  }
  return null;
}

type ByteTransform = TransformStream<Uint8Array, Uint8Array>;

/** node:zlib's zstd streams (Deno has them; the @types/node the project pins predates them). */
const zstd = zlib as unknown as { createZstdDecompress(): Duplex; createZstdCompress(): Duplex };

function nodeTransform(stream: Duplex): ByteTransform {
  return Duplex.toWeb(stream) as unknown as ByteTransform;
}

/** A stream that decompresses one container's bytes as they arrive. */
export async function decompressor(compression: Compression): Promise<ByteTransform> {
  switch (compression) {
    case "gzip":
      return new DecompressionStream("gzip") as unknown as ByteTransform;
    case "zstd":
      return zstdDecompressor();
    case "bzip2":
      return (await bzip2()).bzip2Decompressor();
  }
}

/** fzstd's push decoder as a stream; its output is copied, since it may reuse its window. */
function zstdDecompressor(): ByteTransform {
  let decoder: ZstdDecoder;
  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      decoder = new ZstdDecoder((chunk: Uint8Array) => controller.enqueue(chunk.slice()));
    },
    transform(chunk) {
      decoder.push(chunk);
    },
    flush() {
      // The last push says the input ended: a frame cut short is an error here.
      decoder.push(new Uint8Array(0), true);
    },
  });
}

/** A stream that compresses bytes into one container as they arrive. */
export async function compressor(compression: Compression): Promise<ByteTransform> {
  switch (compression) {
    case "gzip":
      return new CompressionStream("gzip") as unknown as ByteTransform;
    case "zstd":
      return nodeTransform(zstd.createZstdCompress());
    case "bzip2":
      return (await bzip2()).bzip2Compressor();
  }
}
