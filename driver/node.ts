/** The Node.js entrypoint: loads the WASM core from the file next to this module. */
import { readFileSync } from "node:fs";
import { initSync } from "./wasm/pkg/cqlwire_wasm.js";
import { BaseClient, type ClientOptions } from "./mod.ts";
import { nodeQueueMicrotask, nodeSocketFactory, nodeUnrefTimer } from "./transport/node.ts";

initSync({ module: new WebAssembly.Module(readFileSync(new URL("./wasm/pkg/cqlwire_wasm_bg.wasm", import.meta.url))) });

const runtime = {
  name: "node" as const,
  socketFactory: nodeSocketFactory,
  unrefTimer: nodeUnrefTimer,
  queueMicrotask: nodeQueueMicrotask,
  canBindLocalPort: true,
};

export class Client extends BaseClient {
  constructor(options: ClientOptions) {
    super(options, runtime);
  }
}

export * from "./mod.ts";
