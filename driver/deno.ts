/** The Deno entrypoint: loads the WASM core from the file next to this module. */
import { initSync } from "./wasm/pkg/cqlwire_wasm.js";
import { BaseClient, type ClientOptions } from "./mod.ts";
import { denoSocketFactory, denoUnrefTimer } from "./transport/deno.ts";

initSync({ module: new WebAssembly.Module(Deno.readFileSync(new URL("./wasm/pkg/cqlwire_wasm_bg.wasm", import.meta.url))) });

const runtime = { name: "deno" as const, socketFactory: denoSocketFactory, unrefTimer: denoUnrefTimer };

export class Client extends BaseClient {
  constructor(options: ClientOptions) {
    super(options, runtime);
  }
}

export * from "./mod.ts";
