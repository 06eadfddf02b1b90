/** The WASM core, compiled, not instantiated (see wasm_source.js). */
declare const wasmModule: WebAssembly.Module;
export default wasmModule;
