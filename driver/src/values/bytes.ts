/** Bytes handed to users: a Node `Buffer` where there is one (DataStax code calls its methods). */
type BufferFrom = { from(b: ArrayBufferLike, offset: number, length: number): Uint8Array };

const NodeBuffer = (globalThis as { Buffer?: BufferFrom }).Buffer;

/** A copy of `b` the caller may keep and mutate, as a Buffer on Node (and Bun, Deno's Node mode). */
export function bytesOut(b: Uint8Array): Uint8Array {
  const copy = b.slice();
  return NodeBuffer ? NodeBuffer.from(copy.buffer, 0, copy.length) : copy;
}
