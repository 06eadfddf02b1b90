/** Bytes handed to users: a Node `Buffer` where there is one (DataStax code calls its methods). */
export type BufferClass = { from(b: ArrayBufferLike, offset: number, length: number): Uint8Array };

// The global where the runtime defines one (Node, Bun, workerd with nodejs_compat); an
// entrypoint that can import `node:buffer` hands its class in instead (driver/compat/deno.ts:
// Deno documents Buffer as no global, and only some releases define one).
let NodeBuffer = (globalThis as { Buffer?: BufferClass }).Buffer;

/** The Buffer class bytes are handed out as, for the whole process (a subclass of Uint8Array). */
export function useBufferClass(B: BufferClass): void {
  NodeBuffer = B;
}

/**
 * What the compat API declares for the bytes it hands out: Node's `Buffer` when the program
 * has Node's types (DataStax declares `Buffer`, and code calls its methods), else `Uint8Array`.
 * At run time they are Buffers wherever the runtime has one (bytesView).
 */
export type BufferOrBytes = typeof globalThis extends { Buffer: { alloc(size: number): infer B } } ? B : Uint8Array;

/** `bytesOut`, typed for the compat API. */
export function bufferOut(b: Uint8Array): BufferOrBytes {
  return bytesOut(b) as BufferOrBytes;
}

/** A copy of `b` the caller may keep and mutate, as a Buffer where there is one. */
export function bytesOut(b: Uint8Array): Uint8Array {
  return bytesView(b.slice());
}

/** `b` itself as a Buffer where there is one (a view over the same memory, no copy), else `b`. */
export function bytesView(b: Uint8Array): Uint8Array {
  return NodeBuffer ? NodeBuffer.from(b.buffer, b.byteOffset, b.byteLength) : b;
}
