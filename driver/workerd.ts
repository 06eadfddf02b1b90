/** The Cloudflare Workers entrypoint: the WASM module arrives as a compiled module import. */
import { initSync } from "./wasm/pkg/cqlwire_wasm.js";
// @ts-ignore: workerd (and wrangler) turn a .wasm import into a WebAssembly.Module.
import wasmModule from "./wasm/pkg/cqlwire_wasm_bg.wasm";
import { BaseClient, type ClientOptions } from "./mod.ts";
import { workerdSocketFactory } from "./transport/workerd.ts";

initSync({ module: wasmModule as WebAssembly.Module });

const runtime = { name: "workerd" as const, socketFactory: workerdSocketFactory };

export class Client extends BaseClient {
  constructor(options: ClientOptions) {
    super(options, runtime);
  }
}

export * from "./mod.ts";
