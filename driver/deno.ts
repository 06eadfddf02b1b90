/** The Deno entrypoint: the WASM core arrives with the module graph where it can (deno_wasm.ts). */
import { initSync } from "./wasm/pkg/cqlwire_wasm.js";
import { loadWasmModule } from "./deno_wasm.ts";
import { BaseClient, type ClientOptions } from "./mod.ts";
import { denoSocketFactory, denoUnrefTimer } from "./transport/deno.ts";

initSync({ module: await loadWasmModule() });

const runtime = { name: "deno" as const, socketFactory: denoSocketFactory, unrefTimer: denoUnrefTimer };

export class Client extends BaseClient {
  constructor(options: ClientOptions) {
    super(options, runtime);
  }
}

export * from "./mod.ts";
