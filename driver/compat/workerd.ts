/** `cqlwire/compat` in Cloudflare Workers: `stream()` is async iterable with data/end/error events. */
import { Client as WorkerClient } from "../workerd.ts";
import { setCompatRuntime } from "./mod.ts";
import { rowEmitter } from "./stream.ts";

setCompatRuntime({ Client: WorkerClient, readable: rowEmitter });

export * from "./mod.ts";
