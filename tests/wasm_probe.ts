/**
 * The core's WebAssembly memory, measured from outside the driver: wraps
 * `WebAssembly.Instance` so the first instance's exported memory is kept. Install it before
 * the bundle or driver is imported (they instantiate the module at import).
 */

let wasmMemory: WebAssembly.Memory | undefined;

export function installWasmProbe(): void {
  const Original = WebAssembly.Instance;
  // deno-lint-ignore no-explicit-any
  (WebAssembly as any).Instance = new Proxy(Original, {
    construct(target, args) {
      const instance = Reflect.construct(target, args) as WebAssembly.Instance;
      wasmMemory ??= instance.exports.memory as WebAssembly.Memory;
      return instance;
    },
  });
}

/** Bytes of the core's linear memory, or -1 before the module was instantiated. */
export function wasmMemoryBytes(): number {
  return wasmMemory?.buffer.byteLength ?? -1;
}
