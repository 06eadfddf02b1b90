/** Bytes handed to users: a Node `Buffer` where there is one (DataStax code calls its methods). */
type BufferFrom = { from(b: ArrayBufferLike, offset: number, length: number): Uint8Array };

const NodeBuffer = (globalThis as { Buffer?: BufferFrom }).Buffer;

/** A copy of `b` the caller may keep and mutate, as a Buffer on Node (and Bun, Deno's Node mode). */
export function bytesOut(b: Uint8Array): Uint8Array {
  return bytesView(b.slice());
}

/** `b` itself as a Buffer on Node (a view over the same memory, no copy), else `b`. */
export function bytesView(b: Uint8Array): Uint8Array {
  return NodeBuffer ? NodeBuffer.from(b.buffer, b.byteOffset, b.byteLength) : b;
}
