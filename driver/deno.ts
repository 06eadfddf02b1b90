/** The Deno entrypoint: the WASM core arrives with the module graph (see wasm_source.js). */
import { initSync } from "./wasm/pkg/cqlwire_wasm.js";
import wasmModule from "./wasm_source.js";
import { BaseClient, type ClientOptions } from "./mod.ts";
import { denoSocketFactory, denoUnrefTimer } from "./transport/deno.ts";

initSync({ module: wasmModule });

const runtime = { name: "deno" as const, socketFactory: denoSocketFactory, unrefTimer: denoUnrefTimer };

export class Client extends BaseClient {
  constructor(options: ClientOptions) {
    super(options, runtime);
  }
}

export * from "./mod.ts";
