/* @ts-self-types="./wasm_source.d.ts" */
// The WASM core as a compiled module, by a source phase import: Deno loads it with the module
// graph (no read or net permission, from file: as from https://jsr.io, cached and vendored like
// any module) and does not instantiate it (the glue does, with its imports). JavaScript, as
// TypeScript cannot parse `import source` yet; esbuild keeps it (the .wasm is external), so
// dist/deno.js loads dist/wasm/pkg/ the same way. Deno 2.6+ only: deno_wasm.ts imports it.
import source wasmModule from "./wasm/pkg/cqlwire_wasm_bg.wasm";

export default wasmModule;
