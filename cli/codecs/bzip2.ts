// bzip2 streams for load inputs and unload outputs, from the `bzip2` crate's pure-Rust libbz2
// compiled to its own small WASM (cli/codecs/, built by `make build`; ~95 KB, loaded only
// when a bzip2 input or output is met). Errors cross as JS errors with the crate's reason.

import { Bzip2Decoder, Bzip2Encoder, initSync } from "./pkg/cqlwire_codecs.js";

let ready = false;

function load(): void {
  if (ready) return;
  initSync({ module: Deno.readFileSync(new URL("./pkg/cqlwire_codecs_bg.wasm", import.meta.url)) });
  ready = true;
}

/** Decompresses bzip2 as it arrives; a cut or damaged stream fails the stream. */
export function bzip2Decompressor(): TransformStream<Uint8Array, Uint8Array> {
  load();
  const decoder = new Bzip2Decoder();
  const drain = (controller: TransformStreamDefaultController<Uint8Array>) => {
    // Output is handed out in bounded pieces: a small input that expands a lot is never held whole.
    for (let out = decoder.pull(); out.length > 0; out = decoder.pull()) controller.enqueue(out);
  };
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      decoder.push(chunk);
      drain(controller);
    },
    flush(controller) {
      drain(controller);
      decoder.finish();
      decoder.free();
    },
  });
}

/** Compresses into one bzip2 stream (900k blocks). */
export function bzip2Compressor(): TransformStream<Uint8Array, Uint8Array> {
  load();
  const encoder = new Bzip2Encoder();
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const out = encoder.push(chunk);
      if (out.length > 0) controller.enqueue(out);
    },
    flush(controller) {
      controller.enqueue(encoder.finish());
      encoder.free();
    },
  });
}
